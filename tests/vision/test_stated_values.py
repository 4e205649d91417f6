"""A die's value read from above is stated only when the value networks are as sure of it as they get
(`vision.dice.STATE_VALUE`); a value they are less sure of is asked (its die `unsure`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision import dice, topview

SCALE = 4.0  # frame px per table mm, the camera straight above
IMAGE_TO_TABLE = np.array([[1.0 / SCALE, 0.0, 0.0], [0.0, 1.0 / SCALE, 0.0], [0.0, 0.0, 1.0]])
WHERE = (60.0, 60.0)  # mm


def _view() -> topview.TopView:
    outline = np.array([[0.0, 0.0], [480.0, 0.0], [480.0, 480.0], [0.0, 480.0]])  # frame px
    return topview.above((1080, 1920, 3), IMAGE_TO_TABLE, [outline])


def _seen(value: int, p_value: float) -> dice.Seen:
    scores = np.full(7, 0.0, np.float32)
    scores[0] = 0.004  # a die, as sure as the networks get
    scores[value] = p_value
    scores[1 + value % 6] = 1.0 - 0.004 - p_value
    x, y = WHERE[0] * SCALE, WHERE[1] * SCALE
    box = (int(x - 32), int(y - 32), int(x + 32), int(y + 32))
    candidate = dice.Candidate(box, 0.95, np.full(6, 1 / 6, np.float32), scores, False)
    return dice.Seen(candidate, dice.Look(WHERE, np.zeros((40, 40, 3), np.uint8), scores))


@pytest.mark.parametrize(("p_value", "stated"), [(0.955, True), (0.945, True), (0.93, False), (0.8, False)])
def test_a_value_is_stated_only_when_the_networks_are_as_sure_of_it_as_they_get(
    p_value: float, stated: bool
) -> None:
    (reading,) = dice.decide([_seen(2, p_value)], _view())
    assert reading.value == 2
    assert reading.unsure is not stated


def test_the_bar_is_the_one_under_which_the_second_network_votes() -> None:
    assert dice.STATE_VALUE == dice.VOTE_BELOW
    assert dice.Thresholds().sure_value == dice.STATE_VALUE > dice.SURE_VALUE


def test_a_stated_1_whose_looks_a_quarter_side_off_show_more_pips_is_asked() -> None:
    """A 2 whose crop cut off a pip reads as 1 (the finder's centre a quarter side off): the looks a quarter
    side off each way show the second pip, so a stated 1 there is asked; a real 1 stays stated, and other
    values are not looked at again."""
    import random

    import cv2

    from engine.catalogue import load_default_catalogue
    from engine.colours import Colour
    from engine.maps import default_board
    from vision.synth import SceneSpec, render_scene

    board = default_board(3, load_default_catalogue(), random.Random(1))
    knights = {"T14": {Colour.RED: 2}, "T08": {Colour.BLUE: 1}}
    image, truth = render_scene(SceneSpec(tiles=dict(board.tiles), knights=knights, layout_seed=1), 3)
    outlines = [p for k, p in truth.tile_polygons.items() if k[0] in "TK"]
    view = topview.above(image.shape, np.linalg.inv(truth.homography), outlines)
    to_top = np.linalg.inv(view.top_to_image)

    def stated(value: int, location: str) -> dice.DieReading:
        (d,) = [d for d in truth.dice if d.location == location]
        at = cv2.perspectiveTransform(np.float64(d.centre).reshape(1, 1, 2), to_top).reshape(-1, 2)
        x, y = view.to_table(view.to_view(at))[0]
        return dice.DieReading((0, 0, 1, 1), value, 0.96, False, None, where=(float(x), float(y)))

    two_as_one, one, two = stated(1, "T14"), stated(1, "T08"), stated(2, "T14")
    out = dice.lone_pips_checked(image, view, [two_as_one, one, two])
    assert [d.unsure for d in out] == [True, False, False]
    assert out[0].value == 1 and out[2] is two  # asked, not changed; a 2 is left as it was

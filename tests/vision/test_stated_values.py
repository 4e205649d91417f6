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

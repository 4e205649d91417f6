"""A die named a player shows its pips on the side of its body that player's kind has them
(`vision.pipside`): a red die washed pale by glare has white pips, a white die black ones."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import pipside
from vision.dicecolour import DieColour, DieModel

WHITE_DIE = DieModel((DieColour((90.0, 0.0, 2.0), 0.85), DieColour((15.0, 0.0, 0.0), 0.15, True)), dark=0.2)
BLACK_DIE = DieModel((DieColour((12.0, 0.0, 0.0), 0.85), DieColour((92.0, 0.0, 0.0), 0.15, True)), dark=0.8)
RED_DIE = DieModel((DieColour((35.0, 50.0, 25.0), 0.85), DieColour((92.0, 0.0, 0.0), 0.15, True)), dark=0.85)
# red pips on a light blue swirled with black: no clear lightness split
SWIRLED = DieModel((DieColour((60.0, -10.0, -30.0), 0.85), DieColour((50.0, 55.0, 30.0), 0.15, True)))
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    6: [(x, y) for x in (-1, 1) for y in (-1, 0, 1)],
}


BGR = tuple[int, int, int]


def _face(body: BGR, pip: BGR, value: int, turn: float = 20.0) -> np.ndarray:
    """A 40 px rectified crop (`topview.FACE_BOX` is the face) of a die of `value` turned `turn` degrees
    (BGR body and pips)."""
    face = np.full((40, 40, 3), (70, 90, 80), np.uint8)  # the table around it
    square = cv2.boxPoints(((19.5, 19.5), (32, 32), turn))
    cv2.fillConvexPoly(face, np.round(square).astype(np.int32), body)
    c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    for x, y in PIPS[value]:
        px, py = 19.5 + 8.5 * (c * x - s * y), 19.5 + 8.5 * (s * x + c * y)
        cv2.circle(face, (round(px), round(py)), 3, pip, -1)
    return cv2.GaussianBlur(face, (3, 3), 0.8)


def test_a_model_s_pips_lie_on_one_side_of_its_body_or_it_cannot_say() -> None:
    assert pipside.model_side(WHITE_DIE) == 1.0 and pipside.model_side(RED_DIE) == -1.0
    assert pipside.model_side(SWIRLED) is None
    assert pipside.model_side(DieModel.plain((60.0, 0.0, 0.0))) is None  # version 1: white or black pips
    # the colours marked as pips do not decide: a translucent blue die's dark shading was marked so once
    shaded = DieModel((DieColour((81.0, 4.0, -16.0), 0.5), DieColour((15.0, 37.0, -55.0), 0.5, True)))
    assert pipside.model_side(shaded) is None


@pytest.mark.parametrize("value", [1, 2, 3, 6])
def test_a_face_s_pips_are_told_dark_or_light_by_its_value(value: int) -> None:
    dark = pipside.face_side(_face((235, 235, 235), (30, 30, 30), value), value)
    light = pipside.face_side(_face((60, 60, 200), (240, 240, 240), value), value)
    assert dark > pipside.CLEAR and light < -pipside.CLEAR


def test_a_washed_out_red_die_is_no_white_die_and_a_white_one_is() -> None:
    washed = _face((205, 200, 240), (250, 250, 252), 3)  # pale pink, its white pips paler still
    assert pipside.refutes(WHITE_DIE, washed, 3)
    assert not pipside.refutes(RED_DIE, washed, 3)
    white = _face((225, 228, 230), (40, 40, 40), 3)
    assert not pipside.refutes(WHITE_DIE, white, 3) and pipside.refutes(RED_DIE, white, 3)
    assert not pipside.refutes(SWIRLED, washed, 3)  # a model without a side refutes nothing


def test_a_shaded_face_without_pips_to_see_refutes_only_a_kind_with_dark_pips() -> None:
    plain = np.full((40, 40, 3), 128, np.uint8)
    plain[:, :20] = 118  # a soft shade across it, no pips
    assert abs(pipside.face_side(plain, 4)) < pipside.CLEAR
    assert not pipside.refutes(RED_DIE, plain, 4) and not pipside.refutes(SWIRLED, plain, 4)
    assert pipside.refutes(WHITE_DIE, plain, 4)  # a light die always shows its dark pips


def test_a_face_washed_so_pale_that_its_pips_barely_show_is_no_white_die() -> None:
    # a pink die under the lamp: body and white pips both near the sticker white, the pips a shade paler
    washed = _face((238, 236, 246), (246, 246, 248), 6)
    assert -pipside.CLEAR < pipside.face_side(washed, 6) < pipside.CLEAR  # too faint to refute either way
    assert pipside.refutes(WHITE_DIE, washed, 6) and not pipside.refutes(RED_DIE, washed, 6)
    yellow = DieModel((DieColour((85.0, 0.0, 70.0), 0.85), DieColour((15.0, 0.0, 0.0), 0.15, True)), dark=0.2)
    faint = _face((120, 210, 225), (110, 195, 210), 6)  # glare on a yellow die: its pips barely darker
    assert pipside.refutes(yellow, faint, 6)
    plain_yellow = _face((120, 210, 225), (20, 30, 35), 6)
    assert not pipside.refutes(yellow, plain_yellow, 6)


def test_the_table_reader_leaves_a_die_unnamed_when_its_pips_refute_the_name() -> None:
    from types import SimpleNamespace

    from engine.colours import Colour
    from vision.calibration import ColourCalibration
    from vision.knights import _name_players

    cal = ColourCalibration.of_models({Colour.WHITE: WHITE_DIE, Colour.BLACK: BLACK_DIE})
    washed = _face((200, 200, 205), (250, 250, 252), 3)  # a grey-white face with light pips
    white = _face((225, 228, 230), (40, 40, 40), 3)
    faces = (washed, white)
    kept = [(SimpleNamespace(face=f, value=3), None, None, (0, 0, 9, 9), k) for k, f in enumerate(faces)]
    first, second = _name_players(np.zeros((20, 20, 3), np.uint8), cal, kept, None)
    assert second.accepted and second.colour is Colour.WHITE
    assert first.colour is Colour.WHITE and first.refuted and not first.accepted

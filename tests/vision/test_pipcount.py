"""The pips counted on a rectified top face (`vision.pipcount`): a second opinion that confirms a value the
networks are unsure of (`vision.dice.counted`), never one that invents a count."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from bench.realtable.library import faces
from vision.dice import COUNTED_VALUE, counted
from vision.pipcount import pips
from vision.topview import FACE_BOX

CROP = 40
SIDE = FACE_BOX[2] - FACE_BOX[0]
# pip places on a face of side 1, centred on 0
LAYOUTS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def drawn(value: int, *, turn: float = 0.0, dark: bool = False, shift: tuple[float, float] = (0.0, 0.0),
          glint: bool = False) -> np.ndarray:
    """A die's top face as `face_crops` cuts it: the face in the middle of a 40 px crop, the table around."""
    scale = 8  # drawn large, then shrunk: soft edges as a camera gives
    big = np.full((CROP * scale, CROP * scale, 3), (70, 110, 90), np.uint8)  # a green table
    body, pip = ((35, 30, 30), (235, 235, 235)) if dark else ((225, 235, 240), (25, 25, 25))
    c = np.array([CROP / 2 + shift[0], CROP / 2 + shift[1]]) * scale
    a = np.deg2rad(turn)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    half = SIDE * scale / 2
    corners = [c + rot @ np.array(p) * half for p in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    cv2.fillConvexPoly(big, np.int32(corners), body)
    for p in LAYOUTS[value]:
        centre = c + rot @ (np.array(p, np.float64) * 0.28 * SIDE * scale)
        cv2.circle(big, tuple(int(v) for v in centre), int(0.09 * SIDE * scale), pip, -1)
    if glint:
        cv2.circle(big, tuple(int(v) for v in c), int(0.16 * SIDE * scale), (255, 255, 255), -1)
    return cv2.resize(big, (CROP, CROP), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("turn", [0.0, 20.0, 45.0, 71.0])
@pytest.mark.parametrize("dark", [False, True])
def test_every_value_is_counted_at_any_turn_dark_or_light(value: int, turn: float, dark: bool) -> None:
    assert pips(drawn(value, turn=turn, dark=dark)) == value
    assert pips(drawn(value, turn=turn, dark=dark, shift=(1.5, -1.0))) == value  # the finder a little off


def test_a_lone_pip_off_the_middle_is_no_count() -> None:
    """A 2 whose crop cut off one pip shows one pip off the crop's middle, as a 1 whose finder was off would:
    not counted, so a 1 the networks doubt stays asked (`vision.dice.lone_pips_checked` looks at the rest)."""
    assert pips(drawn(1, shift=(4.0, 3.0))) is None


def test_two_pips_too_close_for_a_face_s_corners_are_no_count() -> None:
    """A die's 1 beside another's pip (a neighbour's, or its own side face's) is no 2."""
    face = drawn(1, shift=(-2.5, -2.5))
    cv2.circle(face, (27, 27), 3, (25, 25, 25), -1)  # 13 px from the pip, a 2's are 19 px apart and more
    assert pips(face) is None


def test_a_face_with_no_pips_or_a_texture_is_no_count() -> None:
    blank = drawn(1)
    blank[14:26, 14:26] = blank[6, 20]  # the pip painted over with the body
    assert pips(blank) is None
    rng = np.random.default_rng(5)
    assert pips(rng.integers(0, 255, (CROP, CROP, 3), dtype=np.uint8)) is None


def test_a_glint_on_a_dark_four_is_not_a_fifth_pip() -> None:
    assert pips(drawn(4, dark=True, turn=15.0, glint=True)) in (None, 4)


def test_pips_that_do_not_lie_as_a_die_s_are_no_count() -> None:
    face = drawn(3)
    face[:, :] = drawn(1)[6, 20]  # the body all over, then three pips in an L
    for x, y in ((12, 12), (12, 27), (27, 27)):
        cv2.circle(face, (x, y), 3, (25, 25, 25), -1)
    assert pips(face) is None


def test_real_photographed_faces_are_counted_right_or_not_at_all() -> None:
    """The training split's faces (the realism bench's library), at two turns: nearly every face counted,
    hardly any counted wrong (the networks must then agree on that wrong value too for it to matter)."""
    right = wrong = total = 0
    for die in faces("train"):
        face = cv2.resize(die.image(), (SIDE, SIDE), interpolation=cv2.INTER_AREA)
        crop = cv2.copyMakeBorder(face, *(FACE_BOX[0],) * 4, cv2.BORDER_REPLICATE)
        for turn in (0.0, 30.0):
            turned = cv2.warpAffine(
                crop, cv2.getRotationMatrix2D(((CROP - 1) / 2, (CROP - 1) / 2), turn, 1.0), (CROP, CROP),
                borderMode=cv2.BORDER_REPLICATE,
            )
            n = pips(turned)
            total += 1
            right += n == die.value
            wrong += n is not None and n != die.value
    assert right >= 0.88 * total and wrong <= 0.01 * total, (right, wrong, total)


def test_a_value_is_confirmed_only_by_its_own_count_and_a_likely_enough_value() -> None:
    five = drawn(5, turn=10.0)
    assert counted(five, 5, 0.8)
    assert not counted(five, 4, 0.8)  # the count says otherwise: still unsure
    assert not counted(five, 5, COUNTED_VALUE - 0.01)  # the networks hardly favour it

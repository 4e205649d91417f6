"""Black dice with white pips and white dice with black pips: the same two colours, told apart by which of
them is the body (most of a face) and which the pips (`lightness_split`, `DieModel.dark`)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from vision.calibration import ColourCalibration
from vision.colourcheck import measure
from vision.dicecolour import DieColour, DieModel, fit_model, lightness_split
from vision.errors import CalibrationError

WHITE = (235.0, 235.0, 235.0)
SPOTS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.75), (0.25, 0.75), (0.75, 0.25)],
    5: [(0.25, 0.25), (0.75, 0.75), (0.25, 0.75), (0.75, 0.25), (0.5, 0.5)],
    6: [(0.25, 0.25), (0.75, 0.75), (0.25, 0.75), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5)],
}


def face(
    body: int, pip: int, value: int, *, side: int = 40, light: float = 1.0, blur: float = 0.0
) -> np.ndarray:
    """A die's top face filling a `side` px square on grey paper, its pips `side` / 5 across, lit `light`
    times (linear), blurred `blur` px."""
    img = np.full((side + 20, side + 20, 3), 128, np.uint8)
    cv2.rectangle(img, (10, 10), (10 + side - 1, 10 + side - 1), (body, body, body), -1)
    for fx, fy in SPOTS[value]:
        cv2.circle(img, (10 + round(fx * side), 10 + round(fy * side)), max(2, side // 10), (pip,) * 3, -1)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    linear = (img / 255.0) ** 2.2 * light
    return np.clip(255.0 * linear ** (1 / 2.2), 0, 255).astype(np.uint8)


def calibration() -> ColourCalibration:
    """Black and white dice measured at set-up as the box setup measures them, each showing a one."""
    box = (10, 10, 50, 50)
    black = measure(face(30, 230, 1), [box], WHITE).model
    white = measure(face(225, 25, 1), [box], WHITE).model
    return ColourCalibration.of_models({Colour.BLACK: black, Colour.WHITE: white})


def test_a_measured_die_knows_whether_its_body_is_the_dark_or_the_light_of_its_face() -> None:
    cal = calibration()
    black, white = cal.models[Colour.BLACK].dark, cal.models[Colour.WHITE].dark
    assert black is not None and black > 0.5
    assert white is not None and white < 0.5
    plain = measure(np.full((60, 60, 3), (40, 60, 200), np.uint8), [(10, 10, 50, 50)], WHITE).model
    assert plain.dark is None  # one colour: no way round to know


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize(("light", "blur"), [(1.0, 0.0), (1.6, 1.5), (0.6, 1.5)])
def test_a_black_die_and_a_white_die_are_named_right_and_not_each_other(
    value: int, light: float, blur: float
) -> None:
    """At play, any face, lit brighter or dimmer than at set-up and blurred (a six's pips then fill much of
    the middle of its face, and both dice look mid-grey): each is named its own player, never the other."""
    cal = calibration()
    for colour, body, pip in ((Colour.BLACK, 30, 230), (Colour.WHITE, 225, 25)):
        image = face(body, pip, value, side=32, light=light, blur=blur)
        (m,) = cal.name_faces(image, [(10, 10, 42, 42)], WHITE)
        assert m.colour is colour and m.accepted, (colour, value, m)


def test_without_the_way_round_a_blurred_black_six_is_no_longer_told_from_white(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the body's side of the face buys: with its cost off, a blurred black six in strong light is not
    named black surely (it fits the white model about as well)."""
    import vision.dicecolour as dc

    cal = calibration()
    image = face(30, 230, 6, side=32, light=1.6, blur=1.5)
    (with_it,) = cal.name_faces(image, [(10, 10, 42, 42)], WHITE)
    monkeypatch.setattr(dc, "POLAR_COST", 0.0)
    (without,) = cal.name_faces(image, [(10, 10, 42, 42)], WHITE)
    assert with_it.accepted and with_it.colour is Colour.BLACK
    gap = with_it.runner_up_distance - with_it.distance
    assert without.runner_up_distance - without.distance < gap - 5.0


def shaded(
    lit: tuple[int, ...], shade: tuple[int, ...], pip: int, value: int, *, side: int, r: int
) -> np.ndarray:
    """A die's top face (BGR `lit`) whose lower half lies in shade (`shade`), its pips `r` px round."""
    img = np.full((side + 20, side + 20, 3), 128, np.uint8)
    cv2.rectangle(img, (10, 10), (10 + side - 1, 10 + side - 1), lit, -1)
    cv2.rectangle(img, (10, 10 + side // 2), (10 + side - 1, 10 + side - 1), shade, -1)
    for fx, fy in SPOTS[value]:
        cv2.circle(img, (10 + round(fx * side), 10 + round(fy * side)), r, (pip,) * 3, -1)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


NAVY = [((110, 40, 25), (60, 18, 10)), ((80, 30, 20), (40, 15, 8)), ((120, 50, 30), (70, 25, 15))]


@pytest.mark.parametrize(("lit", "shade"), NAVY)
def test_a_six_whose_pips_outnumber_each_part_of_its_shaded_body_is_measured_body_first(
    lit: tuple[int, ...], shade: tuple[int, ...]
) -> None:
    """A navy die measured on a six, half its face in shade: the white pips (a third of the face's middle)
    are its largest single colour, yet they are the pips and the navy the body."""
    image = shaded(lit, shade, 235, 6, side=40, r=5)
    model = measure(image, [(10, 10, 50, 50)], WHITE).model
    assert model.main[0] < 40 and model.main[2] < -10, model
    (pips,) = model.pips
    assert pips[0] > 80, model


def test_a_swirled_die_keeps_its_dark_and_light_parts_as_its_body() -> None:
    """A pink die swirled light and dark with a white pip: the white is its pips, whichever part is larger."""
    image = shaded((150, 110, 230), (90, 40, 150), 240, 1, side=44, r=7)
    model = measure(image, [(10, 10, 54, 54)], WHITE).model
    (pips,) = model.pips
    assert pips[0] > 85 and model.main[1] > 15, model
    assert len(model.body) >= 2


def test_a_swirl_darker_than_the_rest_of_the_body_is_not_taken_for_pips() -> None:
    """A pink die swirled dark (under half of it) and light, with white pips: the dark swirl stands clear in
    lightness of the light swirl and the pips, as dark pips would, but lies as near the light swirl as one
    part of a body to another (`PIP_MIN_APART`), so it stays the body."""
    rng = np.random.default_rng(1)
    parts = [((51.0, 20.0, 4.0), 48), ((79.0, 18.0, 2.0), 29), ((98.0, 3.0, -1.0), 23)]
    pixels = np.concatenate([np.asarray(lab) + rng.normal(0, 1.0, (n, 3)) for lab, n in parts]).astype(
        np.float32
    )
    model = fit_model(pixels).model
    assert round(model.main[0]) == 51
    (pips,) = model.pips
    assert round(pips[0]) == 98


def test_lightness_split() -> None:
    lum = np.array([[20.0] * 7 + [80.0] * 3, [50.0] * 10, [50.0] + [0.0] * 9], np.float32)
    ok = np.ones(lum.shape, bool)
    ok[2, 1:] = False
    dark, gap = lightness_split(lum, ok)
    assert dark[0] == pytest.approx(0.7) and gap[0] == pytest.approx(60.0, abs=2.0)
    assert gap[1] == 0.0
    assert math.isnan(float(dark[2]))


def test_the_way_round_is_saved_and_a_bad_one_refused() -> None:
    model = DieModel((DieColour((15.0, 0.0, 0.0), 0.85), DieColour((90.0, 0.0, 0.0), 0.15, True)), dark=0.85)
    assert DieModel.from_json(model.to_json()) == model
    assert "dark" not in DieModel(model.colours).to_json()
    with pytest.raises(CalibrationError, match="dark share"):
        DieModel(model.colours, dark=1.5)
    with pytest.raises(CalibrationError, match="dark share"):
        DieModel.from_json({**model.to_json(), "dark": "half"})

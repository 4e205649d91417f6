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
from vision.dicecolour import DieColour, DieModel, lightness_split
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

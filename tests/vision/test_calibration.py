"""Player colour calibration: measurement, white balance under warm/cool light, rejection, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from vision.calibration import (
    ColourCalibration,
    _percentile_rows,
    default_calibration,
    die_body_colour,
    sticker_white,
)
from vision.errors import CalibrationError

# Plausible die body colours under neutral light (BGR), sticker white 235.
BODIES: dict[Colour, tuple[float, float, float]] = {
    Colour.RED: (40, 40, 200),
    Colour.BLUE: (180, 90, 30),
    Colour.YELLOW: (40, 210, 230),
    Colour.GREEN: (60, 150, 40),
    Colour.WHITE: (225, 225, 225),
    Colour.BLACK: (35, 35, 35),
}
WHITE = (235.0, 235.0, 235.0)
# Per-channel illuminant gains (B, G, R): a warm lamp and a cool overcast window.
WARM = np.array([0.62, 0.86, 1.0])
COOL = np.array([1.0, 0.92, 0.74])


def lit(bgr: tuple[float, float, float], light: np.ndarray, level: float = 1.0) -> tuple[float, float, float]:
    b, g, r = (float(v) for v in np.clip(np.asarray(bgr) * light * level, 0, 255))
    return (b, g, r)


def calib() -> ColourCalibration:
    return ColourCalibration.from_samples(BODIES, WHITE)


def test_every_player_colour_is_its_own_nearest() -> None:
    c = calib()
    for colour, bgr in BODIES.items():
        m = c.match(bgr, WHITE)
        assert m.colour is colour and m.accepted and m.distance < 1.0
        assert c.nearest(bgr, WHITE) == (colour, m.distance)


@pytest.mark.parametrize("light", [WARM, COOL], ids=["warm", "cool"])
@pytest.mark.parametrize("level", [0.6, 1.0])
def test_warm_and_cool_light_are_balanced_by_the_sticker_white(light: np.ndarray, level: float) -> None:
    """Calibrated under neutral light, played under a warm lamp or a cool window, dimmer or not."""
    c = calib()
    white_now = lit(WHITE, light, level)
    for colour, bgr in BODIES.items():
        m = c.match(lit(bgr, light, level), white_now)
        assert m.colour is colour and m.accepted, (colour, m)


def test_without_balance_warm_light_confuses_colours() -> None:
    """Why balance matters: the same warm-lit dice, unbalanced, are not all classified right."""
    c = calib()
    wrong = [col for col, bgr in BODIES.items() if c.match(lit(bgr, WARM, 0.6)).colour is not col]
    assert wrong


def test_unknown_colours_are_rejected() -> None:
    c = calib()
    skin = (120, 150, 205)
    m = c.match(skin, WHITE)
    assert not m.accepted
    pair = {Colour.RED: BODIES[Colour.RED], Colour.BLUE: BODIES[Colour.BLUE]}
    two = ColourCalibration.from_samples(pair, WHITE)
    assert not two.match(BODIES[Colour.GREEN], WHITE).accepted


def test_ambiguous_colour_between_two_references_is_not_accepted() -> None:
    c = ColourCalibration.from_samples({Colour.RED: (40, 40, 200), Colour.YELLOW: (40, 120, 215)}, WHITE)
    between = (40, 86, 208)
    m = c.match(between, WHITE)
    assert m.runner_up is not None and not m.accepted


def test_a_face_far_from_every_model_must_be_the_clearly_nearer_one() -> None:
    from vision.calibration import NEARER, ColourMatch

    def match(distance: float, runner_up: float) -> ColourMatch:
        return ColourMatch(Colour.BLACK, distance, Colour.RED, runner_up, threshold=22.0, margin=8.0)

    assert match(5.0, 14.0).accepted  # near its model: the margin decides
    assert not match(5.0, 12.0).accepted
    far = 18.0  # a die in deep shade, the margin met but not by the ratio
    assert far + 8.0 < NEARER * far
    assert not match(far, far + 9.0).accepted
    assert match(far, NEARER * far + 0.5).accepted


def draw_die(image: np.ndarray, box: tuple[int, int, int, int], body: tuple[float, ...], pips: int) -> None:
    x0, y0, x1, y1 = box
    cv2.rectangle(image, (x0, y0), (x1 - 1, y1 - 1), body, -1)
    pip = (20, 20, 20) if sum(body) > 300 else (235, 235, 235)
    s = x1 - x0
    spots = [(0.5, 0.5), (0.25, 0.25), (0.75, 0.75), (0.25, 0.75), (0.75, 0.25), (0.25, 0.5)][:pips]
    for fx, fy in spots:
        cv2.circle(image, (int(x0 + fx * s), int(y0 + fy * s)), max(2, s // 10), pip, -1)


def test_setup_from_dice_in_a_warm_frame_reads_dice_in_a_cool_frame() -> None:
    rng = np.random.default_rng(3)
    warm = np.full((200, 400, 3), (60, 90, 120), np.uint8)
    cool = np.full((200, 400, 3), (110, 95, 80), np.uint8)
    boxes = {}
    for k, (colour, body) in enumerate(BODIES.items()):
        box = (10 + 60 * k, 40, 10 + 60 * k + 44, 84)
        boxes[colour] = box
        draw_die(warm, box, lit(body, WARM), 6)
        draw_die(cool, box, lit(body, COOL), 5)
    # A sticker: white paper with a black code in the middle.
    quad = np.array([[150, 120], [250, 120], [250, 190], [150, 190]], np.float32)
    for img, light in ((warm, WARM), (cool, COOL)):
        cv2.rectangle(img, (140, 115), (260, 195), lit(WHITE, light), -1)
        cv2.rectangle(img, (170, 130), (230, 180), (10, 10, 10), -1)
        img[:] = np.clip(img.astype(np.int16) + rng.integers(-4, 5, img.shape), 0, 255).astype(np.uint8)
    c = ColourCalibration.from_dice(warm, boxes, sticker_white(warm, [quad]))
    white_now = sticker_white(cool, [quad])
    assert np.allclose(white_now, lit(WHITE, COOL), atol=6)
    for colour, box in boxes.items():
        m = c.match(die_body_colour(cool, box), white_now)
        assert m.colour is colour and m.accepted, (colour, m)


def test_body_colour_ignores_pips_and_glare() -> None:
    img = np.full((60, 60, 3), 128, np.uint8)
    draw_die(img, (8, 8, 52, 52), (40, 40, 200), 6)
    cv2.circle(img, (20, 40), 4, (255, 255, 255), -1)  # glare spot
    b, g, r = die_body_colour(img, (8, 8, 52, 52))
    assert abs(b - 40) <= 2 and abs(g - 40) <= 2 and abs(r - 200) <= 2


@pytest.mark.parametrize("made", ["from samples", "of models"])
def test_json_round_trip(tmp_path: Path, made: str) -> None:
    """Saved and loaded (version 2), a calibration keeps every colour's reference and die model."""
    c = calib() if made == "from samples" else default_calibration()
    path = tmp_path / "calibration.json"
    c.save(path)
    again = ColourCalibration.load(path)
    assert again.colours == c.colours
    for colour in c.colours:
        assert np.allclose(again.references[colour], c.references[colour], atol=1e-3)
        assert again.models[colour].to_json() == c.models[colour].to_json()
    assert again.threshold == c.threshold and again.margin == c.margin


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "[1, 2]"),
        ('{"format": "something-else"}', "'something-else'"),
        ('{"format": "seneschal-colour-calibration", "version": 99, "references": {}}', "99"),
        (
            '{"format": "seneschal-colour-calibration", "version": 1, "references": {"purple": [1, 2, 3]}}',
            "'purple'",
        ),
        ('{"format": "seneschal-colour-calibration", "version": 1, "references": {"red": [1, 2]}}', "[1, 2]"),
        ('{"format": "seneschal-colour-calibration", "version": 1, "references": {}}', "none"),
    ],
)
def test_bad_calibration_files_are_refused_quoting_the_input(tmp_path: Path, text: str, quoted: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=None) as info:
        ColourCalibration.load(path)
    assert quoted in str(info.value)


def test_bad_measurements_are_refused() -> None:
    with pytest.raises(CalibrationError, match=r"missing\.json"):
        ColourCalibration.load("/nonexistent/missing.json")
    with pytest.raises(CalibrationError, match="too dark"):
        ColourCalibration.from_samples(BODIES, (5, 5, 5))
    with pytest.raises(CalibrationError, match=r"\(0, 0, 0, 0\)"):
        die_body_colour(np.zeros((10, 10, 3), np.uint8), (0, 0, 0, 0))


def test_default_calibration_is_the_renderers_die_colours() -> None:
    from vision.calibration import default_calibration
    from vision.synth import DIE_COLOURS

    c = default_calibration()
    assert set(c.colours) == set(DIE_COLOURS)
    white = (235.0, 235.0, 235.0)
    for colour, bgr in DIE_COLOURS.items():
        m = c.match(bgr, white)
        assert m.colour is colour and m.accepted and m.distance < 1.0
    assert default_calibration([Colour.RED, Colour.BLUE]).colours == (Colour.RED, Colour.BLUE)


def test_a_die_veiled_by_glare_is_still_its_colour_and_skin_is_not() -> None:
    c = calib()
    red = np.asarray(BODIES[Colour.RED])
    veiled = tuple(float(v) for v in 0.55 * red + 0.45 * np.asarray(WHITE))
    assert c.match_lab(c.references[Colour.RED]).colour is Colour.RED
    m = c.match(veiled, WHITE)
    assert m.colour is Colour.RED and m.accepted, m
    for skin in ((120, 150, 205), (100, 140, 210), (140, 165, 190)):
        assert not c.match(skin, WHITE).accepted, skin


@pytest.mark.parametrize("yaw", [0.0, 45.0])
@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_black_and_white_dice_are_told_apart_whatever_their_face(value: int, yaw: float) -> None:
    """A six turned 45 degrees fills the middle of its face with pips: a black die (white pips) is still
    black and a white die (black pips) white, each named from its body and pips together."""
    from vision.synth import render_die

    cal = default_calibration()
    for colour in (Colour.BLACK, Colour.WHITE):
        image, truth = render_die(value, colour, seed=value, size_px=44, yaw_deg=yaw, tilt_deg=20.0)
        box = tuple(int(v) for v in truth[0].box)
        (m,) = cal.name_faces(image, [box], WHITE)
        assert m.colour is colour and m.accepted, (colour, value, m)


def test_faces_each_in_a_crop_of_their_own_are_named_as_in_the_frame() -> None:
    """`name_crops` (top faces rectified one by one): the same matches as `name_faces` on each crop, crops of
    different sizes side by side, each die its colour."""
    from vision.synth import render_die

    cal = default_calibration()
    crops, want = [], []
    for k, colour in enumerate(Colour):
        image, truth = render_die(k + 1, colour, seed=k, size_px=36 + 4 * k)
        x0, y0, x1, y1 = (int(v) for v in truth[0].box)
        crop = np.ascontiguousarray(image[y0 - 4 : y1 + 4, x0 - 4 : x1 + 4])
        crops.append(crop)
        want.append(cal.name_faces(crop, [(4, 4, crop.shape[1] - 4, crop.shape[0] - 4)], WHITE)[0])
    size = min(c.shape[0] for c in crops)
    same = [np.ascontiguousarray(c[:size, :size]) for c in crops]
    got = cal.name_crops(same, (4, 4, size - 4, size - 4), WHITE)
    assert [m.colour for m in got] == list(Colour) and all(m.accepted for m in got), got
    assert [m.colour for m in want] == list(Colour) and all(m.accepted for m in want), want
    taller = [np.pad(c, ((0, 8 * (k % 2)), (0, 0), (0, 0))) for k, c in enumerate(same)]
    assert cal.name_crops(taller, (4, 4, size - 4, size - 4), WHITE) == got
    assert cal.name_crops([], (4, 4, 36, 36), WHITE) == []
    with pytest.raises(CalibrationError, match="expected BGR crops"):
        cal.name_crops([np.zeros((40, 40), np.uint8)], (4, 4, 36, 36), WHITE)


@pytest.mark.parametrize("white", [None, (205.0, 221.0, 236.0)])
def test_many_colours_are_named_as_one_by_one(white: tuple[float, float, float] | None) -> None:
    """`match_many` (a table's dice at once) gives each colour exactly what `match` gives it alone, glare
    veils and all."""
    cal = default_calibration()
    rng = np.random.default_rng(4)
    colours = [tuple(float(v) for v in rng.uniform(0, 255, 3)) for _ in range(60)]
    colours += [(250.0, 250.0, 250.0), (20.0, 20.0, 20.0), (60.0, 60.0, 200.0)]
    assert cal.match_many(colours, white) == [cal.match(c, white) for c in colours]
    assert cal.match_many([], white) == []


@pytest.mark.parametrize("n", [16, 17, 100, 601, 9600])
def test_the_sticker_white_s_percentile_is_numpy_s(n: int) -> None:
    rows = np.random.default_rng(n).integers(0, 254, (3, n)).astype(np.uint8)
    want = np.percentile(rows.astype(np.float64), 90, axis=1)
    assert np.allclose(_percentile_rows(rows, 90.0), want, rtol=0, atol=1e-9)


# -- version 1 files and die models ------------------------------------------------------------------------

V1 = """{
  "format": "seneschal-colour-calibration",
  "version": 1,
  "threshold": 24.0,
  "margin": 6.0,
  "references": {"red": [42.12, 57.922, 38.188], "blue": [35.01, 13.922, -48.156],
                 "white": [92.908, 0.016, 0.0], "black": [13.684, 0.094, 0.0]},
  "measured": ["red", "blue"]
}"""


def test_a_version_1_file_loads_as_body_colours_with_white_or_black_pips(tmp_path: Path) -> None:
    """Files saved before die models (one body colour per player) still load and still name dice: each
    colour becomes a model of that body with white or black pips."""
    from vision.synth import render_die

    path = tmp_path / "calibration.json"
    path.write_text(V1)
    cal = ColourCalibration.load(path)
    assert cal.colours == (Colour.RED, Colour.BLUE, Colour.WHITE, Colour.BLACK)
    assert cal.models[Colour.RED].pips == ((92.4, 0.0, 0.0), (10.0, 0.0, 0.0))
    assert cal.references[Colour.BLUE] == (35.01, 13.922, -48.156)
    for colour in cal.colours:
        image, truth = render_die(4, colour, seed=3, size_px=44)
        (m,) = cal.name_faces(image, [truth[0].box], WHITE)
        assert m.colour is colour and m.accepted, (colour, m)
    again = ColourCalibration.from_json(json.loads(json.dumps(cal.to_json())))
    assert again.to_json()["version"] == 2 and again.models == cal.models


@pytest.mark.parametrize(
    ("models", "quoted"),
    [
        ("[]", "'models' must be an object"),
        ('{"red": {"colours": []}}', "red: a die model needs a list of 'colours'"),
        ('{"red": {"colours": [{"lab": [1, 2], "share": 1.0}]}}', "[1, 2] is not [L, a, b]"),
        ('{"red": {"colours": [{"lab": [1, 2, 3], "share": 2.0}]}}', "within 0..1, got 2.0"),
        ('{"red": {"colours": [{"lab": [1, 2, 3], "share": 1.0, "pips": true}]}}', "first colour must be"),
        ('{"mauve": {"colours": [{"lab": [1, 2, 3], "share": 1.0}]}}', "unknown colour 'mauve'"),
        ("{}", "holds no colour"),
    ],
)
def test_bad_version_2_files_are_refused_quoting_the_input(tmp_path: Path, models: str, quoted: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "seneschal-colour-calibration", "version": 2, "models": ' + models + "}")
    with pytest.raises(CalibrationError) as info:
        ColourCalibration.load(path)
    assert quoted in str(info.value)


def test_a_die_matching_no_model_or_two_alike_is_unsure() -> None:
    """A face far from every model is not named; one between two alike models is not named either."""
    from vision.dicecolour import DieColour, DieModel

    pips = DieColour((92.0, 0.0, 0.0), 0.15, pips=True)
    red = DieModel((DieColour((42.0, 58.0, 38.0), 0.85), pips), dice=3)
    orange = DieModel((DieColour((55.0, 45.0, 50.0), 0.85), pips), dice=3)
    cal = ColourCalibration.of_models({Colour.RED: red})
    image = np.full((60, 60, 3), (200, 120, 40), np.uint8)  # a blue square: nobody's die
    (m,) = cal.name_faces(image, [(10, 10, 50, 50)], WHITE)
    assert not m.accepted and m.distance > m.threshold
    both = ColourCalibration.of_models({Colour.RED: red, Colour.YELLOW: orange})
    between = np.full((60, 60, 3), (45, 75, 215), np.uint8)
    (m,) = both.name_faces(between, [(10, 10, 50, 50)], WHITE)
    assert not m.accepted and m.runner_up_distance - m.distance < m.margin

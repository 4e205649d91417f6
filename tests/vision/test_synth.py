"""The synthetic renderer: seeded, and its ground truth agrees with what it drew."""

from __future__ import annotations

import numpy as np
import pytest
import zxingcpp

from engine.colours import Colour
from engine.hexgrid import Hex
from vision.synth import (
    DIE_COLOURS,
    PIP_COLOURS,
    RES_4K,
    Difficulty,
    SceneSpec,
    dice_for,
    random_layout,
    random_spec,
    render_die,
    render_scene,
)

SMALL = {Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "L1", Hex(-1, 1): "K1"}


def test_same_seed_same_frame_and_layout_seed_fixes_the_table() -> None:
    spec = random_spec(Difficulty.MEDIUM, 3, players=2)
    a, ta = render_scene(spec, 1)
    b, _tb = render_scene(spec, 1)
    c, tc = render_scene(spec, 2)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)  # sensor noise and light differ from frame to frame ...
    for tid, centre in ta.tile_centres.items():  # ... the table and the camera do not
        assert np.allclose(centre, tc.tile_centres[tid])


def test_ground_truth_matches_the_drawing() -> None:
    knights = {"T01": {Colour.RED: 4}, "K1": {Colour.BLUE: 9}}
    spec = SceneSpec(
        SMALL,
        knights,
        {"A01": True, "A02": False},
        difficulty=Difficulty.EASY,
        tilt_deg=0.0,
        yaw_deg=0.0,
        blur_sigma=0.3,
        noise_sigma=1.0,
    )
    image, truth = render_scene(spec, 0)
    assert image.shape == (1080, 1920, 3) and image.dtype == np.uint8
    assert truth.tiles == SMALL
    assert {d.value for d in truth.dice if d.location == "T01"} == {4}
    assert sorted(d.value for d in truth.dice if d.location == "K1") == [3, 6]
    assert {d.colour for d in truth.dice if d.location == "K1"} == {Colour.BLUE}
    # every uncovered sticker decodes at its true place, and the face-down card shows none
    found = zxingcpp.read_barcodes(image)
    texts = {b.text for b in found}
    assert "MM1:A01" in texts and "MM1:A02" not in texts
    for tag in truth.tags:
        if tag.covered:
            continue
        centre = tag.corners.mean(axis=0)
        assert any(
            b.text == tag.payload
            and abs(b.position.top_left.x - tag.corners[0][0]) < 4
            and abs(b.position.top_left.y - tag.corners[0][1]) < 4
            for b in found
        ), tag.payload
        assert 0 <= centre[0] < 1920 and 0 <= centre[1] < 1080
    # a die's top face lies inside its tile's outline
    for die in truth.dice:
        poly = truth.tile_polygons[die.location or ""]
        assert _inside(poly, np.array(die.centre))


def _inside(poly: np.ndarray, p: np.ndarray) -> bool:
    import cv2

    return cv2.pointPolygonTest(poly.astype(np.float32), (float(p[0]), float(p[1])), False) >= 0


def test_hard_frames_have_hands_and_report_what_they_cover() -> None:
    spec = random_spec(Difficulty.HARD, 5, players=3).with_(occluders=2)
    _image, truth = render_scene(spec, 5)
    assert truth.params.occluders == 2 and truth.params.tilt_deg <= 35.0
    assert truth.occluded  # hands reach over tiles


def test_4k_renders_with_the_same_geometry_at_twice_the_scale() -> None:
    spec = SceneSpec(SMALL, tilt_deg=0.0, yaw_deg=0.0)
    _a, t1 = render_scene(spec, 0)
    _b, t4 = render_scene(spec.with_(resolution=RES_4K), 0)
    assert t4.px_per_mm == pytest.approx(2 * t1.px_per_mm, rel=1e-6)


def test_render_die_truth() -> None:
    image, dice = render_die(5, Colour.GREEN, size_px=48, tilt_deg=20, neighbours=[(2, Colour.RED)], seed=3)
    assert len(dice) == 2
    assert sorted(d.value for d in dice) == [2, 5]
    for d in dice:
        x0, y0, x1, y1 = d.box
        assert 0 <= x0 < x1 <= image.shape[1] and 0 <= y0 < y1 <= image.shape[0]
        width = float(np.linalg.norm(d.top_face[1] - d.top_face[0]))
        assert width == pytest.approx(48, rel=0.25)
    with pytest.raises(ValueError, match=r"1\.\.6"):
        render_die(7, Colour.RED)


def test_colours_layouts_and_dice_split() -> None:
    assert set(DIE_COLOURS) == set(PIP_COLOURS) == set(Colour)
    assert dice_for({Colour.RED: 13}) == [(Colour.RED, 6), (Colour.RED, 6), (Colour.RED, 1)]
    rng = np.random.default_rng(0)
    for players in range(2, 7):
        layout = random_layout(players, rng)
        ids = list(layout.values())
        assert len(ids) == len(set(ids))
        assert sum(i.startswith("K") for i in ids) == players

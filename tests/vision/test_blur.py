"""A blurred frame is recognised and not read (`vision.blur`, `Status.BLURRED`): seeded scenes, defocus and
motion blur; a sharp frame of a bare table is not called blurred."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from vision.blur import edge_widths, frame_sharpness, sticker_sharpness
from vision.pipeline import TableReader
from vision.sources import Status
from vision.synth import SceneSpec, TrueDie, render_scene

RED, BLUE = Colour.RED, Colour.BLUE
LAYOUT = {Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "T03", Hex(-1, 1): "T04", Hex(1, -1): "K1"}
KNIGHTS = {"K1": {RED: 3}, "T01": {BLUE: 2}}


def table(**kw: object) -> SceneSpec:
    return SceneSpec(LAYOUT, KNIGHTS, {}, layout_seed=21, tilt_deg=25.0).with_(**kw)


def smeared(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    """The frame as a camera moving `length` px along `angle` (radians) during the exposure sees it."""
    k = np.zeros((41, 41), np.float32)
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    start = (round((20 - dx) * 16), round((20 - dy) * 16))
    cv2.line(k, start, (round((20 + dx) * 16), round((20 + dy) * 16)), 1.0, 1, cv2.LINE_AA, shift=4)
    return np.asarray(cv2.filter2D(image, -1, k / k.sum()), np.uint8)


def codes(truth: object) -> list[np.ndarray]:
    return [t.corners for t in truth.tags if not t.covered]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("sigma", "motion", "blurred"),
    [(0.4, 0.0, False), (1.0, 0.0, False), (2.5, 0.0, True), (0.5, 7.0, True)],
)
def test_edges_on_the_stickers_tell_a_sharp_frame_from_a_blurred_one(
    sigma: float, motion: float, blurred: bool
) -> None:
    image, truth = render_scene(table(blur_sigma=sigma), 3)
    if motion:
        image = smeared(image, motion, 0.6)
    sharpness = sticker_sharpness(image, codes(truth))
    assert sharpness.measured and sharpness.stickers >= 5
    assert sharpness.blurred is blurred, sharpness.describe()
    # the frame's strongest ink-on-paper edges, for a frame whose stickers were not found, agree
    assert frame_sharpness(image).blurred is blurred


def test_a_sharp_frame_without_stickers_is_never_called_blurred() -> None:
    bare, _ = render_scene(SceneSpec({}, {}, {}, layout_seed=2), 4)
    assert not frame_sharpness(bare).blurred
    tiles, _ = render_scene(table(stickers=False, blur_sigma=0.5), 5)
    assert not frame_sharpness(tiles).blurred
    # a code that is not there (a hand, a blank) is not measured at all
    flat = np.full((200, 200), 128, np.uint8)
    assert edge_widths(flat, np.array([[50.0, 50.0], [150.0, 50.0], [150.0, 150.0], [50.0, 150.0]])) is None
    assert not sticker_sharpness(flat, []).measured


def test_a_blurred_frame_is_not_read_and_the_last_reading_stands() -> None:
    truth_box: list[object] = []

    def dice(image: np.ndarray, region: object = None, calibration: object = None) -> list[TrueDie]:
        return [TrueDie(d.box, d.value) for d in truth_box[-1].dice if not d.hidden]  # type: ignore[attr-defined]

    def frame(spec: SceneSpec, seed: int) -> np.ndarray:
        image, truth = render_scene(spec, seed)
        truth_box.append(truth)
        return image

    reader = TableReader(hold_frames=2, dice_reader=dice)
    for seed in (10, 11):
        assert reader.read(frame(table(), seed)).status is Status.OK
    before = reader.stable
    assert {k: dict(v) for k, v in before.knights.items()} == KNIGHTS
    # a knight added while the camera shakes: the blurred frames are no evidence of it
    moved = {"K1": {RED: 3}, "T01": {BLUE: 2}, "T02": {RED: 1}}
    for seed in (12, 13, 14):
        result = reader.read(smeared(frame(table(knights=moved), seed), 8.0, 1.2))
        assert result.status is Status.BLURRED, result.message
        assert "blurred" in result.message and result.raw is None and result.reading == before
    result = reader.read(frame(table(knights=moved, blur_sigma=3.0), 15))
    assert result.status is Status.BLURRED and result.reading == before
    # sharp again: the change is seen, and held as any other
    reader.read(frame(table(knights=moved), 16))
    reader.read(frame(table(knights=moved), 17))
    assert {k: dict(v) for k, v in reader.stable.knights.items()} == moved

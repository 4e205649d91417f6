"""Artefact cards beside the map read where a decoder cannot: recognised by their codes' look on the table
plane (`vision.recognise`), tracked once seen (`vision.tracked`); never named wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from vision import tracked
from vision.mapreader import read_map
from vision.pipeline import TableReader
from vision.qr import decode_tags, to_gray
from vision.recognise import recognise
from vision.synth import GroundTruth, SceneSpec, TrueDie, render_scene
from vision.tracked import CARD_IDS
from vision.tracking import Pose

RED = Colour.RED
LAYOUT = {
    Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "T03", Hex(-1, 1): "T04", Hex(-1, 0): "T05",
    Hex(0, -1): "T06", Hex(1, -1): "L1", Hex(2, -1): "K1", Hex(-2, 1): "K2",
}
CARDS = {"A02": True, "A05": True, "A09": True, "A11": False, "A14": True, "A17": True}


def table(**kw: object) -> SceneSpec:
    return SceneSpec(LAYOUT, {"K1": {RED: 2}}, CARDS, layout_seed=31, tilt_deg=50.0, yaw_deg=0.0).with_(**kw)


def face_up(truth: GroundTruth) -> dict[str, np.ndarray]:
    return {t.component: t.corners for t in truth.tags if t.component.startswith("A")}


def test_cards_too_small_to_decode_are_recognised_and_never_misnamed() -> None:
    image, truth = render_scene(table(), 1)
    up = face_up(truth)
    decoded = {t.id for t in decode_tags(to_gray(image)).tags if t.id.startswith("A")}
    assert len(decoded) < len(up)  # at 50 degrees the decoder alone misses cards
    reading = read_map(image, budget_ms=1e9)
    assert set(reading.cards) == set(up)
    for aid, tag in reading.cards.items():
        assert math.dist(tag.centre, tuple(up[aid].mean(axis=0))) < 3.0


def test_a_tile_sticker_or_a_bare_table_is_never_named_a_card() -> None:
    image, truth = render_scene(table(), 2)
    gray = to_gray(image)
    pose = Pose.of(np.linalg.inv(truth.homography))
    for tag in truth.tags[:6]:
        if tag.component.startswith("A") or tag.covered:
            continue
        centre = pose.to_table(tag.corners).mean(axis=0)
        place = (float(centre[0]), float(centre[1]))
        assert recognise(gray, pose, place, CARD_IDS) is None
        # the same place, asked among the tiles' ids, is that tile
        named = recognise(gray, pose, place, sorted(LAYOUT.values()))
        assert named is not None and named.id == tag.component
    far = pose.to_table(np.array([[30.0, 1050.0]]))[0]  # a corner of the bare table
    assert recognise(gray, pose, (float(far[0]), float(far[1])), CARD_IDS) is None


@pytest.mark.parametrize("tilt", [35.0, 50.0])
def test_cards_are_read_on_every_frame_once_the_map_is_tracked(tilt: float) -> None:
    """A card dealt after the map was confirmed, and one turned face down, at 35 and 50 degrees."""
    truths: list[GroundTruth] = []

    def dice(image: np.ndarray, region: object = None, calibration: object = None) -> list[TrueDie]:
        return [TrueDie(d.box, d.value) for d in truths[-1].dice if not d.hidden]

    def frame(spec: SceneSpec, seed: int) -> np.ndarray:
        image, truth = render_scene(spec, seed)
        truths.append(truth)
        return image

    reader = TableReader(hold_frames=2, dice_reader=dice)
    before = {k: v for k, v in CARDS.items() if k != "A17"}
    reader.read(frame(table(tilt_deg=tilt, artefacts=before), 3))
    reader.confirm_map(LAYOUT)
    seen = []
    for seed in range(4, 10):
        result = reader.read(frame(table(tilt_deg=tilt), seed))
        assert result.raw is not None
        seen.append({a for a, up in result.raw.artefacts.items() if up})
    assert all(s == {a for a, up in CARDS.items() if up} for s in seen[2:]), seen
    flipped = dict(CARDS, A05=False)
    for seed in range(10, 14):
        reader.read(frame(table(tilt_deg=tilt, artefacts=flipped), seed))
    # a card never seen face up (A11) is not judged; one turned face down is, once it has held
    assert dict(reader.stable.artefacts) == {a: up for a, up in flipped.items() if a != "A11"}


def test_a_place_that_named_nothing_is_looked_at_again_after_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    """A card a frame could not name (a hand passing over it, a blur) is not left alone for good: its place
    is looked at again once `CARD_RETRY_FRAMES` frames have passed (frames, not looks around)."""
    setup, _ = render_scene(table(artefacts={}), 3)
    image, truth = render_scene(table(), 3)
    decoded = {t.id for t in decode_tags(to_gray(image)).tags}
    unread = {a for a in face_up(truth) if a not in decoded}
    assert unread  # cards only their look names
    reader = TableReader(hold_frames=1, dice_reader=lambda *a, **k: [], incremental=False)
    reader.read(setup)
    reader.confirm_map(LAYOUT)
    blind = [True]
    real = tracked.recognise
    monkeypatch.setattr(tracked, "recognise", lambda *a: None if blind[0] else real(*a))
    for _ in range(tracked.LOOK_AROUND_FIRST):
        result = reader.read(image)
        assert result.raw is not None and not unread & set(result.raw.artefacts)
    blind[0] = False
    frames = 0
    while frames < tracked.CARD_RETRY_FRAMES + 2 * tracked.LOOK_AROUND_EVERY:
        frames += 1
        result = reader.read(image)
        assert result.raw is not None
        if unread <= {a for a, up in result.raw.artefacts.items() if up}:
            break
    assert frames <= tracked.CARD_RETRY_FRAMES + tracked.LOOK_AROUND_EVERY

"""vision.changes: which locations of a camera stream changed since they were last read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from vision.changes import ChangeWatch
from vision.synth import GroundTruth, SceneSpec, render_scene

RED, BLUE = Colour.RED, Colour.BLUE
LAYOUT = {
    Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "T03", Hex(-1, 1): "T04", Hex(-1, 0): "T05",
    Hex(0, -1): "T06", Hex(1, -1): "L1", Hex(2, -1): "K1", Hex(-2, 1): "K2",
}
KNIGHTS = {"K1": {RED: 8}, "K2": {BLUE: 5}, "T01": {RED: 2}, "T05": {BLUE: 1}}


def frame(knights: dict[str, dict[Colour, int]], seed: int, **kw: object) -> tuple[np.ndarray, GroundTruth]:
    spec = SceneSpec(LAYOUT, knights, {"A01": True}, layout_seed=5, tilt_deg=10.0, steady_seed=9)
    return render_scene(spec.with_(**kw), seed)


def watching(image: np.ndarray, truth: GroundTruth) -> ChangeWatch:
    watch = ChangeWatch()
    watch.start(image, {k: v for k, v in truth.tile_polygons.items() if k[0] in "TK"})
    return watch


def test_sensor_noise_alone_changes_nothing() -> None:
    image, truth = frame(KNIGHTS, 0)
    watch = watching(image, truth)
    for seed in range(1, 6):
        changes = watch.look(frame(KNIGHTS, seed)[0])
        assert changes is not None and changes.none, changes


@pytest.mark.parametrize(
    ("after", "where"),
    [
        ({**KNIGHTS, "T01": {RED: 3}}, {"T01"}),  # a die turned to another face
        ({**KNIGHTS, "T03": {RED: 1}}, {"T03"}),  # a die put down on an empty territory
        ({**KNIGHTS, "K1": {RED: 6}}, {"K1"}),  # knights taken out of a castle
    ],
)
def test_a_move_changes_its_locations_only(after: dict[str, dict[Colour, int]], where: set[str]) -> None:
    image, truth = frame(KNIGHTS, 0)
    watch = watching(image, truth)
    changes = watch.look(frame(after, 1)[0])
    assert changes is not None and changes.locations == where and not changes.elsewhere


def test_a_hand_reaching_in_is_a_change_elsewhere() -> None:
    image, truth = frame(KNIGHTS, 0)
    watch = watching(image, truth)
    changes = watch.look(frame(KNIGHTS, 1, occluders=1)[0])
    assert changes is not None and changes.elsewhere


def test_a_turned_card_is_a_change_elsewhere() -> None:
    image, truth = frame(KNIGHTS, 0)
    watch = watching(image, truth)
    spec = SceneSpec(LAYOUT, KNIGHTS, {"A01": False}, layout_seed=5, tilt_deg=10.0, steady_seed=9)
    changes = watch.look(render_scene(spec, 1)[0])
    assert changes is not None and changes.elsewhere and not changes.locations


def test_something_at_the_frame_edge_is_a_change_elsewhere_even_over_a_tile() -> None:
    image, truth = frame(KNIGHTS, 0)
    watch = watching(image, truth)
    edged = image.copy()
    edged[:6, :] = 255 - edged[:6, :]
    changes = watch.look(edged)
    assert changes is not None and changes.elsewhere


def test_a_slow_drift_adds_up_until_it_is_noticed() -> None:
    """References move only when a location is read: a light that dims by 4 grey levels a frame is noticed
    after a few frames rather than never."""
    image, truth = frame(KNIGHTS, 0)
    watch = watching(image, truth)
    seen_at = None
    for k in range(1, 12):
        dimmer = np.asarray(cv2.subtract(image, np.full_like(image, 4 * k)), np.uint8)
        changes = watch.look(dimmer)
        assert changes is not None
        if not changes.none:
            seen_at = k
            break
    assert seen_at is not None and 3 <= seen_at <= 6


def test_a_location_read_again_takes_the_new_look_as_its_reference() -> None:
    image, truth = frame(KNIGHTS, 0)
    watch = watching(image, truth)
    after = {**KNIGHTS, "T01": {RED: 3}}
    moved = frame(after, 1)[0]
    changes = watch.look(moved)
    assert changes is not None and changes.locations == {"T01"}
    watch.accept(changes.locations)
    again = watch.look(frame(after, 2)[0])
    assert again is not None and again.none


def test_no_reference_or_another_frame_size_means_read_it_whole() -> None:
    image, truth = frame(KNIGHTS, 0)
    assert ChangeWatch().look(image) is None
    watch = watching(image, truth)
    assert watch.look(cv2.resize(image, (1280, 720))) is None
    watch.reset()
    assert not watch.ready and watch.look(image) is None

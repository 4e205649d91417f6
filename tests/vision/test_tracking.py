"""The map read once and then tracked (`vision.tracking`, `TableReader.confirm_map`): seeded scenes with exact
ground truth; a hand over the map, a camera moved mid-game, a frame without stickers, a stray tile, a
confirmation the table contradicts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from vision.geometry import apply_homography
from vision.mapreader import MapReading, read_map
from vision.pipeline import MapMode, TableReader
from vision.qr import TagDetection, to_gray
from vision.sources import Status
from vision.synth import GroundTruth, SceneSpec, TrueDie, render_scene
from vision.tracking import (
    MapConflictError,
    MapTracker,
    Pose,
    TableMap,
    Track,
    table_map,
)

RED, BLUE = Colour.RED, Colour.BLUE
LAYOUT = {
    Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "T03", Hex(-1, 1): "T04", Hex(-1, 0): "T05",
    Hex(0, -1): "T06", Hex(1, -1): "L1", Hex(2, -1): "K1", Hex(-2, 1): "K2", Hex(1, 1): "T07",
}
KNIGHTS = {"K1": {RED: 2}, "K2": {BLUE: 4}, "T01": {RED: 2}, "T05": {BLUE: 3}}
# the app numbers the same map from another origin and turn than any camera frame does
APP = {Hex(-h.r, h.q + h.r) + Hex(4, -2): t for h, t in LAYOUT.items()}


class Camera:
    """Renders frames, and reads the dice of the frame last rendered from its ground truth (these tests are
    about the map: where the dice are counted, not how a die is read)."""

    def __init__(self) -> None:
        self.truth: GroundTruth | None = None

    def frame(self, spec: SceneSpec, seed: int) -> np.ndarray:
        image, self.truth = render_scene(spec, seed)
        return image

    def dice(self, image: np.ndarray, region: object = None, calibration: object = None) -> list[TrueDie]:
        assert self.truth is not None
        return [TrueDie(d.box, d.value) for d in self.truth.dice if not d.hidden]

    def reader(self, hold: int = 2) -> TableReader:
        return TableReader(hold_frames=hold, dice_reader=self.dice)


def table(**kw: object) -> SceneSpec:
    base = SceneSpec(LAYOUT, KNIGHTS, {"A03": True}, layout_seed=11, tilt_deg=30.0, yaw_deg=12.0)
    return base.with_(**kw)


def stuck(reading: MapReading, tag: TagDetection) -> tuple[str, np.ndarray]:
    """A tile sticker a reading read, on its table plane (mm)."""
    assert reading.homography is not None
    return tag.id, apply_homography(reading.homography, tag.corners)


def centre_error(polygons: dict[str, np.ndarray], truth: GroundTruth) -> float:
    """The largest distance (px) between a tile's outline's middle and the true one's."""
    return max(
        math.dist(polygons[t].mean(axis=0), truth.tile_polygons[t].mean(axis=0)) for t in truth.tile_polygons
    )


@pytest.fixture(scope="module")
def camera() -> Camera:
    return Camera()


@pytest.fixture(scope="module")
def confirmed(camera: Camera) -> TableReader:
    reader = camera.reader()
    reader.read(camera.frame(table(knights={}), 1))
    assert reader.confirm_map(APP) is MapMode.TRACKING
    return reader


def test_a_confirmed_map_is_placed_by_the_set_up_reading_in_the_apps_numbering() -> None:
    image, truth = render_scene(table(knights={}), 2)
    reading = read_map(image)
    stickers = [stuck(reading, t) for t in reading.tags if t.id[0] != "A"]
    placed = table_map(APP, reading.hexes, reading.lattice, stickers)
    assert dict(placed.tiles) == APP and all(p.measured for p in placed.places.values())
    pose = Pose.of(reading.homography)
    for tid, place in placed.places.items():
        # the tile lies where the camera saw it, and the lattice cell of its hex (app's numbering) is there
        seen = pose.to_image(np.array([place.centre]))[0]
        assert math.dist(seen, truth.tile_centres[tid]) < 3.0
        cell = placed.lattice.centre(placed.hexes[tid])
        assert math.dist(cell, place.centre) < 0.25 * placed.lattice.pitch
    assert TableMap.from_json(placed.to_json()).to_json() == placed.to_json()
    # a layout the camera contradicts (two tiles swapped) is refused, saying which tiles
    swapped = dict(APP)
    a, b = next(h for h, t in APP.items() if t == "T01"), next(h for h, t in APP.items() if t == "T03")
    swapped[a], swapped[b] = "T03", "T01"
    with pytest.raises(MapConflictError, match="T01"):
        table_map(swapped, reading.hexes, reading.lattice, stickers)


def test_a_tracked_table_reads_the_confirmed_map_and_its_knights(
    camera: Camera, confirmed: TableReader
) -> None:
    for seed in (3, 4, 5):
        result = confirmed.read(camera.frame(table(), seed))
        truth = camera.truth
        assert truth is not None
        assert result.status is Status.OK, result.message
        assert result.map is not None and centre_error(dict(result.map.polygons), truth) < 3.0
    stable = confirmed.stable
    assert dict(stable.tiles) == APP
    assert {k: dict(v) for k, v in stable.knights.items()} == KNIGHTS
    assert dict(stable.artefacts) == {"A03": True}


def test_a_hand_over_the_map_keeps_the_pose_and_loses_nothing(camera: Camera) -> None:
    reader = camera.reader()
    reader.read(camera.frame(table(knights={}), 1))
    reader.confirm_map(APP)
    for seed in (6, 7):
        reader.read(camera.frame(table(), seed))
    before = reader.stable
    assert reader.table_map is not None
    pose = reader._tracked.pose.image_to_table.copy()  # type: ignore[union-attr]
    # paper scraps over most codes and a hand: the codes left say the camera has not moved
    result = reader.read(camera.frame(table(hide_tags=0.8, occluders=2), 8))
    assert np.allclose(reader._tracked.pose.image_to_table, pose)  # type: ignore[union-attr]
    assert result.status in (Status.OK, Status.NO_TAGS, Status.HALF_BOARD)
    assert dict(reader.stable.tiles) == APP and reader.stable.knights == before.knights


def test_a_camera_moved_mid_game_is_placed_again_from_the_stickers(camera: Camera) -> None:
    reader = camera.reader()
    reader.read(camera.frame(table(knights={}), 1))
    reader.confirm_map(APP)
    reader.read(camera.frame(table(), 9))
    moved = table(tilt_deg=18.0, yaw_deg=-20.0)
    result = reader.read(camera.frame(moved, 10))
    assert camera.truth is not None
    assert result.map is not None and result.map.source.tracked.track is Track.MOVED
    assert "camera moved" in "; ".join(result.map.problems)
    assert centre_error(dict(result.map.polygons), camera.truth) < 3.0
    result = reader.read(camera.frame(moved, 11))
    assert result.map is not None and result.map.source.tracked.track is Track.KEPT
    assert dict(reader.stable.tiles) == APP
    assert {k: dict(v) for k, v in reader.stable.knights.items()} == KNIGHTS


def test_a_frame_without_stickers_and_a_stray_tile_change_nothing(
    camera: Camera, confirmed: TableReader
) -> None:
    confirmed.read(camera.frame(table(), 12))
    before = confirmed.stable
    bare = confirmed.read(camera.frame(table(stickers=False), 13))
    assert bare.status is Status.NO_TAGS and bare.reading == before
    stray = dict(LAYOUT)
    stray[Hex(2, 0)] = "T20"  # a tile that is not on the map confirmed, laid beside it
    result = confirmed.read(camera.frame(table(tiles=stray), 14))
    assert result.map is not None and "not on the map confirmed: T20" in "; ".join(result.map.problems)
    assert "T20" not in result.reading.tiles.values() and dict(result.reading.tiles) == APP


def test_a_confirmation_the_table_contradicts_waits_and_says_why() -> None:
    reader = TableReader(hold_frames=2)
    reader.read(render_scene(table(knights={}), 1)[0])
    wrong = dict(APP)
    a, b = next(h for h, t in APP.items() if t == "T02"), next(h for h, t in APP.items() if t == "T06")
    wrong[a], wrong[b] = "T06", "T02"
    assert reader.confirm_map(wrong) is MapMode.WAITING
    assert dict(reader.stable.tiles) == wrong  # the stable reading has the confirmed map at once
    result = reader.read(render_scene(table(), 15)[0])
    assert "differs from the table" in result.message or "differs from the table" in "; ".join(
        result.map.problems if result.map is not None else ()
    )
    assert dict(reader.stable.tiles) == wrong  # the owner's word stands; nothing is tracked
    assert reader.map_mode is MapMode.WAITING
    with pytest.raises(MapConflictError):
        reader.confirm_map({Hex(0, 0): "T01", Hex(1, 0): "T01"})


def test_a_steep_blurred_far_row_keeps_its_map_once_confirmed(camera: Camera) -> None:
    """At 55 degrees and blurred, the far rows' codes are about 1.4 px a module: the frame read alone misses
    tiles, but where the pose puts their codes they are found by their look."""
    steep = table(tilt_deg=55.0, blur_sigma=1.2)
    reader = camera.reader(hold=1)
    reader.read(camera.frame(steep.with_(knights={}, blur_sigma=0.4), 16))
    reader.confirm_map(APP)
    image = camera.frame(steep, 17)
    alone = read_map(image)
    result = reader.read(image)
    assert result.status is Status.OK, result.message
    assert result.map is not None and len(result.map.tiles) > len(alone.tiles)
    assert dict(reader.stable.tiles) == APP


def test_the_tracker_alone_refines_a_drifted_pose() -> None:
    image, truth = render_scene(table(knights={}), 18)
    reading = read_map(image)
    stickers = [stuck(reading, t) for t in reading.tags if t.id[0] != "A"]
    placed = table_map(APP, reading.hexes, reading.lattice, stickers)
    # the pose a few pixels off (a camera nudged): the codes found put it back
    shift = np.array([[1.0, 0.0, 2.5], [0.0, 1.0, -2.0], [0.0, 0.0, 1.0]])
    tracker = MapTracker(placed, Pose.of(np.asarray(reading.homography) @ shift))
    tracked = tracker.track(to_gray(render_scene(table(), 19)[0]))
    assert tracked.track is Track.REFINED
    for tid, place in placed.places.items():
        seen = tracked.pose.to_image(np.array([place.centre]))[0]
        assert math.dist(seen, truth.tile_centres[tid]) < 3.0

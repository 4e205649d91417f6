"""TableReader end to end on synthetic frames: stable readings, bad inputs, a hand crossing mid-move.

`Oracle` stands in for the map reader and dice finder with the renderer's ground truth where a test is
about what the pipeline does with their output; `test_real_readers_*` runs the real map and dice readers.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from engine.reading import Doubt
from vision.pipeline import RECHECK_UNSURE, MapView, Reread, TableReader, align_tiles, is_no_signal
from vision.sources import Status
from vision.synth import GroundTruth, SceneSpec, TrueDie, render_scene

RED, BLUE = Colour.RED, Colour.BLUE

LAYOUT = {
    Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "T03", Hex(-1, 1): "T04", Hex(-1, 0): "T05",
    Hex(0, -1): "T06", Hex(1, -1): "L1", Hex(2, -1): "K1", Hex(-2, 1): "K2",
}
BEFORE = {"K1": {RED: 8}, "K2": {BLUE: 5}, "T01": {RED: 2}, "T05": {BLUE: 1}}
AFTER = {"K1": {RED: 5}, "K2": {BLUE: 5}, "T01": {RED: 2}, "T02": {RED: 3}, "T05": {BLUE: 1}}


class Oracle:
    """Renders frames and hands the pipeline the truth of the frame last rendered, as map and dice readers."""

    def __init__(self) -> None:
        self.truth: GroundTruth | None = None

    def render(self, spec: SceneSpec, seed: int) -> np.ndarray:
        image, self.truth = render_scene(spec, seed)
        return image

    def map_reader(self, image: np.ndarray) -> MapView:
        t = self.truth
        assert t is not None
        # QR codes survive a die on a corner (error correction H); a hand hides them.
        visible = [tag for tag in t.tags if not (tag.covered and t.params.occluders)]
        per_tile: dict[str, int] = {}
        for tag in visible:
            per_tile[tag.component] = per_tile.get(tag.component, 0) + 1
        # A tile with a sticker partly under a die is still found (its other sticker, the lattice).
        tiles = {h: tid for h, tid in t.tiles.items() if any(tag.component == tid for tag in t.tags)}
        if not visible:
            tiles = {}
        return MapView(
            tiles=tiles,
            polygons={tid: t.tile_polygons[tid] for tid in tiles.values()},
            image_to_table=np.linalg.inv(t.homography),
            tag_quads=[tag.corners for tag in visible],
            tags_per_tile={k: v for k, v in per_tile.items() if not k.startswith("A")},
            artefact_quads={tag.component: tag.corners for tag in visible if tag.component.startswith("A")},
        )

    def dice_reader(
        self, image: np.ndarray, region: np.ndarray | None = None, calibration: object = None
    ) -> list[TrueDie]:
        t = self.truth
        assert t is not None
        out = []
        for d in t.dice:
            if d.hidden:
                continue
            out.append(TrueDie(d.box, d.value))  # whole-die boxes, as vision.dice reports
        return out

    def reader(self, hold: int = 3) -> TableReader:
        return TableReader(map_reader=self.map_reader, dice_reader=self.dice_reader, hold_frames=hold)


def spec(knights: dict[str, dict[Colour, int]], **kw: object) -> SceneSpec:
    base = SceneSpec(LAYOUT, knights, {"A01": True, "A02": True}, layout_seed=5, tilt_deg=12.0)
    return base.with_(**kw)


def run(reader: TableReader, oracle: Oracle, frames: list[SceneSpec], start_seed: int = 0) -> list:  # type: ignore[type-arg]
    return [reader.read(oracle.render(s, start_seed + i)) for i, s in enumerate(frames)]


def test_a_still_table_is_read_exactly_after_the_hold() -> None:
    oracle = Oracle()
    reader = oracle.reader(hold=3)
    results = run(reader, oracle, [spec(BEFORE)] * 4)
    assert [r.status for r in results] == [Status.OK] * 4
    assert results[0].raw.knights == BEFORE and results[0].reading.knights == {}
    assert results[2].reading.knights == BEFORE and results[2].changed
    assert dict(results[3].reading.tiles) == LAYOUT
    assert dict(results[3].reading.artefacts) == {"A01": True, "A02": True}
    assert not results[3].reading.unsure


def test_a_hand_crossing_mid_move_never_shows_a_half_made_move() -> None:
    """Red moves 3 knights from K1 to T02; a hand carries them over the board (renderer's hand occluder)."""
    oracle = Oracle()
    reader = oracle.reader(hold=3)
    half = {"K1": {RED: 5}, "K2": {BLUE: 5}, "T01": {RED: 2}, "T05": {BLUE: 1}}
    frames = [spec(BEFORE)] * 4 + [spec(half, occluders=1)] * 4 + [spec(half)] * 2
    frames += [spec(AFTER, occluders=1)] * 2
    frames += [spec(AFTER)] * 5
    results = run(reader, oracle, frames)
    stable = [r.reading.knights for r in results]
    assert all(k in ({}, BEFORE, AFTER) for k in stable), [dict(k) for k in stable]
    assert stable[-1] == AFTER
    # under the hand, the places it hides are asked about for the hand, both in the frame and held
    hidden = results[4]
    assert hidden.raw is not None and hidden.occluded
    assert all(hidden.raw.doubt(loc) is Doubt.HAND for loc in hidden.occluded & hidden.raw.unsure)
    assert all(hidden.reading.doubt(loc) is Doubt.HAND for loc in hidden.occluded & hidden.reading.unsure)
    assert hidden.occluded & hidden.reading.unsure


def test_bad_frames_keep_the_last_good_reading() -> None:
    oracle = Oracle()
    reader = oracle.reader(hold=2)
    run(reader, oracle, [spec(BEFORE)] * 2)
    good = reader.stable
    assert good.knights == BEFORE
    black = reader.read(np.zeros((1080, 1920, 3), np.uint8))
    assert black.status is Status.NO_SIGNAL and black.reading == good and black.raw is None
    grey = reader.read(np.full((720, 1280, 3), 128, np.uint8))
    assert grey.status is Status.NO_SIGNAL
    bad = reader.read(np.zeros((10, 10), np.float32))
    assert bad.status is Status.CORRUPTED_FRAME and bad.reading == good
    no_tags = reader.read(oracle.render(spec(BEFORE, stickers=False), 9))
    assert no_tags.status is Status.NO_TAGS and no_tags.reading.knights == BEFORE
    assert "no tile stickers" in no_tags.message


def test_a_black_frame_with_specks_of_noise_is_no_signal_but_a_dim_table_is_a_table() -> None:
    black = np.zeros((1080, 1920, 3), np.uint8)
    specks = black.copy()
    rng = np.random.default_rng(3)
    specks[rng.integers(0, 1080, 4000), rng.integers(0, 1920, 4000)] = 255  # 0.2 % of the pixels
    assert is_no_signal(black) and is_no_signal(specks)
    table, _truth = render_scene(spec(BEFORE), 1)
    dim = (table.astype(np.float32) * 0.15).astype(np.uint8)  # the lights down low
    assert not is_no_signal(table) and not is_no_signal(dim)
    assert not is_no_signal(table[::-1, ::2])  # another size, and a view with strides of its own


def test_half_a_board_is_reported_and_the_unseen_half_kept() -> None:
    oracle = Oracle()
    reader = oracle.reader(hold=2)
    run(reader, oracle, [spec(BEFORE)] * 2)
    half_layout = {h: t for h, t in LAYOUT.items() if t in ("T01", "T02", "K1")}
    moved = {"K1": {RED: 7}, "T01": {RED: 2}, "T02": {RED: 1}}
    results = run(reader, oracle, [SceneSpec(half_layout, moved, layout_seed=8)] * 3, start_seed=20)
    assert all(r.status is Status.HALF_BOARD for r in results)
    assert "out of view: K2, L1, T03, T04, T05, T06" in results[-1].message
    final = results[-1].reading
    assert final.knights["K2"] == {BLUE: 5} and final.knights["T05"] == {BLUE: 1}  # kept from before
    assert final.knights["K1"] == {RED: 7} and final.knights["T02"] == {RED: 1}
    assert {"K2", "T05"} <= final.unsure


def test_tiles_are_aligned_to_the_stable_map_whatever_the_lattice_origin() -> None:
    turned = {Hex(-h.r, h.q + h.r) + Hex(3, -2): t for h, t in LAYOUT.items()}  # a 60-degree turn and a shift
    assert align_tiles(turned, LAYOUT) == LAYOUT
    assert align_tiles(LAYOUT, {}) == LAYOUT


def test_tiles_the_stable_map_cannot_place_are_left_out_never_put_on_a_guessed_hex() -> None:
    stable = {h: t for h, t in LAYOUT.items() if t in ("T01", "T02", "T03")}
    shifted = {h + Hex(2, -1): t for h, t in LAYOUT.items()}  # the frame's own numbering
    # nothing in common: another table, or too little of this one in view
    others = {h + Hex(5, 5): t for h, t in LAYOUT.items() if t not in ("T01", "T02", "T03")}
    assert align_tiles(others, stable) == {}
    # one tile in common fixes its own hex, not the turn: the others stay out
    one = {h: t for h, t in shifted.items() if t in ("T01", "T04", "T05", "K2")}
    assert align_tiles(one, stable) == {Hex(0, 0): "T01"}
    # two in common fix the turn and shift: everything lands on its own hex
    assert align_tiles(shifted, stable) == LAYOUT
    # two in common that disagree (no majority): nothing is placed
    apart = {Hex(0, 0): "T01", Hex(2, 0): "T02", Hex(0, 2): "T04"}  # T01 and T02 are neighbours in `stable`
    assert align_tiles(apart, stable) == {}
    # a majority places the tiles, and a tile the frame sees elsewhere lands where the frame sees it
    moved = dict(shifted)
    moved[Hex(4, -4)] = moved.pop(Hex(0, 0) + Hex(2, -1))  # T01 moved away; T02 and T03 agree
    got = align_tiles(moved, stable)
    assert got[Hex(2, -3)] == "T01" and all(got[h] == t for h, t in LAYOUT.items() if t != "T01")


def test_a_frame_of_another_table_places_nothing_until_it_has_held() -> None:
    """Frames sharing no tile with the stable map add nothing to it; held for `hold_frames` frames, that
    other table's map replaces the stable one (a new set-up), in its own numbering."""
    oracle = Oracle()
    reader = oracle.reader(hold=2)
    run(reader, oracle, [spec(BEFORE)] * 2)
    assert dict(reader.stable.tiles) == LAYOUT
    other = {Hex(5, 5): "T20", Hex(6, 5): "T21", Hex(5, 6): "T22", Hex(6, 4): "K3"}
    results = run(reader, oracle, [SceneSpec(other, {}, layout_seed=9)] * 4, start_seed=50)
    assert "cannot place" in results[0].message and dict(results[0].reading.tiles) == LAYOUT
    assert dict(results[-1].reading.tiles) == other


@pytest.mark.parametrize(
    "make", [lambda: None, lambda: "not an image", lambda: np.zeros((0, 0, 3), np.uint8)]
)
def test_garbage_is_a_corrupted_frame(make: Callable[[], object]) -> None:
    oracle = Oracle()
    result = oracle.reader().read(make())
    assert result.status is Status.CORRUPTED_FRAME and result.raw is None


@pytest.mark.parametrize("temperature", [-0.8, 0.0, 0.8])
def test_real_readers_read_a_table_exactly(temperature: float) -> None:
    """the map reader and the dice reader end to end, on a still table in cool, neutral and warm light."""
    reader = TableReader(hold_frames=2)
    s = spec(BEFORE, temperature=temperature)
    results = [reader.read(render_scene(s, 40 + i)[0]) for i in range(4)]
    assert all(r.status is Status.OK for r in results), [r.message for r in results]
    final = results[-1].reading
    assert align_tiles(dict(final.tiles), LAYOUT) == LAYOUT
    assert {k: dict(v) for k, v in final.knights.items()} == BEFORE
    assert dict(final.artefacts) == {"A01": True, "A02": True}


def test_dice_found_while_the_map_is_read_give_the_same_readings() -> None:
    """`dice_ahead`: a worker reads the map while the dice are found over the last whole read's outlines. On a
    still table they stand (one dice read a frame); when the camera moved they are found again on the new
    outlines (the dice reader here keeps only dice inside the region it is given, so dice found over the old
    outlines would differ). The readings are those read one step after the other."""
    frames = [spec(BEFORE)] * 3 + [spec(BEFORE, tilt_deg=24.0, yaw_deg=9.0)] * 2
    readings = {}
    calls = {}
    for ahead in (False, True):
        oracle = Oracle()
        regions: list[np.ndarray] = []

        def in_region(image: np.ndarray, region: np.ndarray | None = None, calibration: object = None,
                      oracle: Oracle = oracle, regions: list[np.ndarray] = regions) -> list[TrueDie]:
            assert region is not None
            regions.append(region)
            return [d for d in oracle.dice_reader(image)
                    if region[(d.box[1] + d.box[3]) // 2, (d.box[0] + d.box[2]) // 2]]

        reader = TableReader(map_reader=oracle.map_reader, dice_reader=in_region, hold_frames=1,
                             incremental=False, dice_ahead=ahead)
        results = run(reader, oracle, frames)
        assert all(r.status is Status.OK for r in results)
        readings[ahead] = [(r.raw.knights, [(d.box, d.location) for d in r.knights.dice]) for r in results]
        calls[ahead] = len(regions)
    assert readings[True] == readings[False]
    assert readings[True][0][0] == BEFORE and readings[True][-1][0] == BEFORE
    assert calls == {False: 5, True: 6}  # the frame after the camera moved: found twice


def test_a_dice_reader_that_fails_leaves_no_map_reading_running() -> None:
    """The error reaches the caller as it would without `dice_ahead`, once the map reader is done."""
    oracle = Oracle()
    done: list[bool] = []
    armed: list[bool] = []

    def slow_map(image: np.ndarray) -> MapView:
        time.sleep(0.2)
        view = oracle.map_reader(image)
        done.append(True)
        return view

    def broken(*args: object, **kwargs: object) -> list[TrueDie]:
        if armed:
            raise RuntimeError("the dice reader broke")
        return oracle.dice_reader(*args)  # type: ignore[arg-type]

    reader = TableReader(map_reader=slow_map, dice_reader=broken, hold_frames=1, incremental=False)
    reader.read(oracle.render(spec(BEFORE), 1))
    done.clear()
    armed.append(True)
    with pytest.raises(RuntimeError, match="broke"):
        reader.read(oracle.render(spec(BEFORE), 2))
    assert done == [True]  # raised while the map was read (0.2 s), reported once it was done


def test_real_readers_read_alike_with_the_dice_found_while_the_map_is_read() -> None:
    """The real map reader (in the worker) and dice reader: set-up, then the table under other light."""
    frames = [render_scene(spec({}), 70)[0], render_scene(spec(BEFORE, temperature=0.4), 71)[0]]
    dice = {}
    for ahead in (False, True):
        reader = TableReader(hold_frames=1, incremental=False, dice_ahead=ahead)
        results = [reader.read(f) for f in frames]
        last = results[-1]
        assert last.raw is not None and last.knights is not None
        dice[ahead] = (last.raw.knights, [(d.box, d.value, d.colour) for d in last.knights.dice])
    assert dice[True] == dice[False]
    assert dice[True][0] == BEFORE


def test_synthetic_camera_through_the_worker_gives_only_whole_moves() -> None:
    """The app's path: a synthetic camera, the worker thread, the reader; every frame in order."""
    from vision.sources import CameraWorker, Frame, SyntheticCamera, WorkerUpdate

    oracle = Oracle()
    reader = oracle.reader(hold=2)
    half = {"K1": {RED: 5}, "K2": {BLUE: 5}, "T01": {RED: 2}, "T05": {BLUE: 1}}
    states = [spec(BEFORE), spec(half, occluders=1), spec(AFTER, occluders=1), spec(AFTER)]
    cam = SyntheticCamera(states, frames_per_state=3, seed=60)

    def process(frame: Frame):  # type: ignore[no-untyped-def]
        oracle.truth = cam.truths[frame.index]
        return reader(frame)

    stable: list[dict[str, dict[Colour, int]]] = []

    def on_update(u: WorkerUpdate) -> None:  # type: ignore[type-arg]
        if u.fresh and u.result is not None:
            stable.append({k: dict(v) for k, v in u.result.reading.knights.items()})

    worker = CameraWorker(cam, process, status_of=TableReader.status_of, on_update=on_update, realtime=False)
    worker.start()
    assert worker.join(60)
    assert len(stable) == 12
    assert all(k in ({}, BEFORE, AFTER) for k in stable), stable
    assert stable[2] == BEFORE and stable[-1] == AFTER
    assert worker.status is Status.ENDED


# --- a camera stream: only what changed is read again ------------------------------------------------------


def steady(knights: dict[str, dict[Colour, int]], **kw: object) -> SceneSpec:
    """A frame of a camera stream: light, glare and table fixed, only sensor noise (and hands) per frame."""
    return spec(knights, steady_seed=3, **kw)


def test_a_table_at_rest_is_read_until_it_holds_then_not_again() -> None:
    oracle = Oracle()
    reader = oracle.reader(hold=3)
    results = run(reader, oracle, [steady(BEFORE)] * 8)
    kinds = [r.reread for r in results]
    # Read whole until the stable reading is what the frames show (three readings of three frames), then
    # the frames look the same: nothing is read, the reading stands.
    assert kinds[:3] == [Reread.WHOLE] * 3 and kinds[3:] == [Reread.NOTHING] * 5, kinds
    assert all(r.reading.knights == BEFORE for r in results[2:])
    assert results[-1].raw is not None and results[-1].raw.frame_index == 7


def test_now_and_then_the_whole_frame_is_read_again() -> None:
    oracle = Oracle()
    reader = TableReader(map_reader=oracle.map_reader, dice_reader=oracle.dice_reader, hold_frames=2,
                         refresh_frames=4)
    kinds = [r.reread for r in run(reader, oracle, [steady(BEFORE)] * 12)]
    assert kinds.count(Reread.WHOLE) >= 4 and Reread.NOTHING in kinds


def test_a_die_turned_is_read_at_its_location_only() -> None:
    oracle = Oracle()
    reader = oracle.reader(hold=3)
    turned = {**BEFORE, "T01": {RED: 3}}  # red's die on T01 turned from 2 to 3, no hand in the picture
    results = run(reader, oracle, [steady(BEFORE)] * 5 + [steady(turned)] * 5)
    after = results[5:]
    assert all(r.reread is Reread.CHANGED and r.looked == {"T01"} for r in after[:3]), [
        (r.reread, sorted(r.looked)) for r in after
    ]
    assert [r.reading.knights for r in after] == [BEFORE, BEFORE, turned, turned, turned]
    assert after[-1].reread is Reread.NOTHING


class UnsureOf(Oracle):
    """The dice reader is unsure of the pips of every die at `where`, in every frame."""

    def __init__(self, where: set[str]) -> None:
        super().__init__()
        self.where = where

    def dice_reader(
        self, image: np.ndarray, region: np.ndarray | None = None, calibration: object = None
    ) -> list[TrueDie]:
        t = self.truth
        assert t is not None
        doubtful = {d.box for d in t.dice if d.location in self.where}
        return [TrueDie(d.box, d.value, unsure=d.box in doubtful) for d in super().dice_reader(image, region)]


def test_unsure_locations_of_a_table_at_rest_are_read_again_in_turn() -> None:
    """Every die unsure: of the locations whose look did not change, `RECHECK_UNSURE` a frame are read
    again, the longest unread first, so each is looked at again within a few frames; the others keep their
    last reading, unsure, and the stable reading never takes them."""
    where = {"K1", "K2", "T01", "T05"}
    oracle = UnsureOf(where)
    reader = oracle.reader(hold=2)
    results = run(reader, oracle, [steady(BEFORE)] * 10)
    after = [r for r in results if r.reread is Reread.CHANGED]
    assert len(after) >= 6, [r.reread for r in results]
    assert all(len(r.looked) == RECHECK_UNSURE for r in after), [sorted(r.looked) for r in after]
    assert set().union(*(r.looked for r in after[:2])) == where  # four locations, two frames
    assert all(r.raw is not None and r.raw.unsure == where for r in results)
    assert all(r.reading.knights == {} and r.reading.unsure == where for r in results[1:])


def test_a_move_is_read_at_once_beside_unsure_locations() -> None:
    oracle = UnsureOf({"K1", "K2", "T05"})
    reader = oracle.reader(hold=2)
    turned = {**BEFORE, "T01": {RED: 3}}
    results = run(reader, oracle, [steady(BEFORE)] * 5 + [steady(turned)] * 3)
    moved = results[5:]
    assert all(r.reread is Reread.CHANGED and "T01" in r.looked for r in moved[:2])
    assert all(len(r.looked - {"T01"}) <= RECHECK_UNSURE for r in moved)
    assert moved[1].reading.knights == {"T01": {RED: 3}}


def test_a_hand_reaching_in_sends_frames_to_be_read_whole() -> None:
    oracle = Oracle()
    reader = oracle.reader(hold=3)
    results = run(reader, oracle, [steady(BEFORE)] * 5 + [steady(BEFORE, occluders=1)] * 3 + [steady(BEFORE)])
    assert [r.reread for r in results[5:]] == [Reread.WHOLE] * 4
    assert all(r.occluded for r in results[5:8])
    assert all(r.reading.knights == BEFORE for r in results[2:])


class OneBadFrame(Oracle):
    """The dice reader misreads T01's die in one frame only (as glare might)."""

    def __init__(self, bad_call: int) -> None:
        super().__init__()
        self.calls = 0
        self.bad_call = bad_call

    def dice_reader(
        self, image: np.ndarray, region: np.ndarray | None = None, calibration: object = None
    ) -> list[TrueDie]:
        self.calls += 1
        dice = super().dice_reader(image, region, calibration)
        if self.calls != self.bad_call:
            return dice
        t01 = next(d for d in self.truth.dice if d.location == "T01") if self.truth else None
        return [TrueDie(d.box, 6) if t01 is not None and d.box == t01.box else d for d in dice]


def test_a_misreading_is_never_reused_into_a_stable_reading() -> None:
    """A frame that reads differently from the stable reading is not reused: the next frames are read
    afresh, so a hold is always made of readings of different frames."""
    oracle = OneBadFrame(bad_call=3)
    reader = oracle.reader(hold=3)
    results = run(reader, oracle, [steady(BEFORE)] * 10)
    assert results[2].raw is not None and results[2].raw.knights["T01"] == {RED: 6}
    assert results[3].reread is Reread.CHANGED and "T01" in results[3].looked
    assert all(r.reading.knights in ({}, BEFORE) for r in results)
    assert results[-1].reading.knights == BEFORE and results[-1].reread is Reread.NOTHING


def test_without_incremental_reading_every_frame_is_read_whole() -> None:
    oracle = Oracle()
    reader = TableReader(map_reader=oracle.map_reader, dice_reader=oracle.dice_reader, hold_frames=2,
                         incremental=False)
    assert {r.reread for r in run(reader, oracle, [steady(BEFORE)] * 5)} == {Reread.WHOLE}


def test_knights_put_down_on_a_sticker_after_set_up_are_not_a_hand() -> None:
    """The camera saw every sticker at set-up; then dice cover one of T05's and one of K2's codes (25° tilt).
    A sticker missing under a die found in the frame is no hand: the knights are read at once, not after
    `relearn_frames` (the real map and dice readers)."""
    reader = TableReader(hold_frames=2)
    setup = reader.read(render_scene(spec({}, tilt_deg=25.0), 1)[0])
    assert setup.map is not None and setup.map.tags_per_tile["T05"] == 2
    results = [reader.read(render_scene(spec(BEFORE, tilt_deg=25.0), 10 + i)[0]) for i in range(2)]
    assert results[-1].map is not None and results[-1].map.tags_per_tile["T05"] == 1
    assert not any(r.occluded for r in results), [sorted(r.occluded) for r in results]
    assert {k: dict(v) for k, v in results[-1].reading.knights.items()} == BEFORE


def test_a_sticker_missing_with_no_die_over_it_still_holds_the_location() -> None:
    """Codes gone with no die over them (scraps of paper here; a sleeve, a book at the table) still make
    their tiles occluded (the real map and dice readers)."""
    reader = TableReader(hold_frames=2)
    [reader.read(render_scene(spec(BEFORE), i)[0]) for i in range(2)]
    covered = [reader.read(render_scene(spec(BEFORE, hide_tags=0.3), 10 + i)[0]) for i in range(2)]
    assert all(r.occluded for r in covered), [sorted(r.occluded) for r in covered]
    assert all({k: dict(v) for k, v in r.reading.knights.items()} == BEFORE for r in covered)


class CodesUnderDice(Oracle):
    """After `named` frames, K2's codes are under its dice: the map reader places the castle (from the
    lattice) but cannot name it in the frame, as `vision.mapreader` reports an `inferred` tile."""

    def __init__(self, named: int) -> None:
        super().__init__()
        self.frames = 0
        self.named = named

    def map_reader(self, image: np.ndarray) -> MapView:
        view = super().map_reader(image)
        self.frames += 1
        if self.frames <= self.named:
            return view
        tiles = {h: t for h, t in view.tiles.items() if t != "K2"}
        return MapView(tiles, view.polygons, view.image_to_table, view.tag_quads, view.tags_per_tile,
                       view.artefact_quads)


def test_a_tile_the_frame_cannot_name_does_not_keep_the_table_from_resting() -> None:
    """Set-up (every tile named), then a hand puts the knights down, K2's on its codes (read whole while the
    hand is there and once after), then the table rests: it is not read whole frame after frame."""
    oracle = CodesUnderDice(named=3)
    reader = oracle.reader(hold=3)
    frames = [steady({})] * 3 + [steady(BEFORE, occluders=1)] * 2 + [steady(BEFORE)] * 8
    results = run(reader, oracle, frames)
    assert results[-1].reading.knights == BEFORE and "K2" in results[-1].reading.tiles.values()
    assert results[-1].reread is Reread.NOTHING, [r.reread for r in results]


def test_a_tile_hidden_in_this_frame_keeps_the_outline_its_stickers_gave_it() -> None:
    """A tile not seen in this frame (`inferred`) is drawn where the reading has it (a still table keeps each
    tile's own outline, shifted and turned as it lies), and only without one where its lattice cell is."""
    from vision.hexfit import Lattice
    from vision.mapreader import MapReading, MapStatus
    from vision.pipeline import map_view

    lattice = Lattice(0.0, 90.0, (0.0, 0.0))
    own = lattice.corners((6.0, -4.0), 0.1) + 500.0  # a tile lying a little off its cell, turned
    reading = MapReading(
        MapStatus.OK,
        tiles={Hex(0, 0): "T01", Hex(1, 0): "T02"},
        hexes={"T01": Hex(0, 0), "T02": Hex(1, 0)},
        tile_polygons={"T01": own},
        homography=np.eye(3),
        table_to_image=np.array([[1.0, 0, 500.0], [0, 1.0, 500.0], [0, 0, 1.0]]),
        lattice=lattice,
        inferred=frozenset({"T01", "T02"}),
    )
    view = map_view(reading)
    assert np.allclose(view.polygons["T01"], own)
    cell = reading.polygon_of(Hex(1, 0))
    assert cell is not None and np.allclose(view.polygons["T02"], cell)

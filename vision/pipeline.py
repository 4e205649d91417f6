"""From a camera frame to a stable `engine.reading.TableReading`, with a status and what to draw.

`TableReader.read(image)` runs, per frame: a signal check (black or uniform frame), the map reading
(`vision.mapreader.read_map`: tags, hexes, tile polygons, table plane), a sharpness check (`vision.blur`),
occluder detection, the knights (`vision.knights` over the dice finder), the artefact cards
(`vision.artefacts`), and the `Stabilizer`. The stable reading only changes under the rules in
`vision.stability`; on a bad frame (no signal, no tags, blurred) the last good reading is returned unchanged
with the frame's status, and the frame is no evidence of anything: every hold restarts after it.

The map is read once and then tracked. Until the owner confirms it (`TableReader.confirm_map`: the app does
when a game starts) each frame's map is read afresh from its stickers (`MapMode.READING`). Once confirmed,
it is placed on the table by the set-up reading (or by the first frame that agrees with it:
`MapMode.WAITING`) and from then on never read again (`MapMode.TRACKING`): the stable map is the confirmed
one, and a frame only keeps the camera's pose over it, from the stickers found where the pose puts them,
held through hands, re-found when the camera moves (`vision.tracked`, `vision.tracking`). A tracked frame
costs less than a frame read afresh and keeps far rows at 35-60 degrees and mildly blurred codes that no
decoder reads.

Once the map is confirmed, each knight location's bare look (`vision.bare`, learned from the last frame read
whole with no hand over the map before the confirmation, over every location of the map as the next frame
places it) tells a location where something stands that no die read accounts for (a kind of die the finder
never met): that location is flagged unsure, never read empty; a die read on a territory that still looks
bare is flagged too.

A blurred frame (the camera or a hand moving, a camera out of focus) is recognised by its stickers' edges
(`vision.blur`) and not read: `Status.BLURRED`.

A camera stream (`incremental`, the default) mostly shows a table at rest, so not every frame is read whole
(`Reread`). `vision.changes.ChangeWatch` compares a small grey thumbnail of each frame with the table as it
was when each location was last read:
- nothing changed, and every location's last reading is already the stable one: the last reading stands for
  this frame too (a few milliseconds);
- only some locations changed, and nothing outside them (no card turned, nothing came in over the frame's
  edge, so no hand is over the table): the last map, occluders and cards stand and only those locations'
  dice are read, together with every location with a change on hold and, in turn, `RECHECK_UNSURE` of the
  unsure ones (`TableReader._due`);
- anything else (something outside the locations changed, the last frame had a hand in it or was not OK, or
  `refresh_frames` frames passed): the frame is read whole. Even then, when no sticker moved since the last
  reading, the map reader keeps its plane fit and costs the decode alone (`vision.mapreader.unmoved`): what a
  whole frame costs is the dice finder over every location.
A frame read whole has its map (and the sticker white and skin mask, which need the map and the frame alone)
read in a worker thread while the dice are found over the last whole read's outlines (`dice_ahead`; both let
go of Python's lock, so on two cores they overlap); the dice stand when the map came out with the same
outlines, else they are found again (`TableReader._map_and_dice`).
A location whose reading differs from the stable one is read afresh in every frame until it commits, so a
hold is always made of readings of different frames: one misreading is never repeated into a stable one.

Hex coordinates from a map reading are only defined up to a shift and a turn of the lattice (the camera
decides where the origin falls). Each frame's tiles are therefore aligned to the stable map first (the
translation and 60-degree turn under which most tile ids agree), so a camera that moves does not move the map.

Occluders, per location: a sticker of the tile read before is missing now and covered (a hand on it: it no
longer looks like itself, and no die found in this frame lies over it, as knights put down on a code do), or
smooth skin-coloured pixels (`vision.knights.occluder_mask`, at a scale fixed relative to the tiles so that
"smooth" does not depend on the zoom) cover more than `SKIN_SHARE` of the tile and `SKIN_EXCESS` more than
its own usual share (tiles whose art looks like skin do not count). A tile
that stays "occluded" for `relearn_frames` frames in a row is no hand passing by: its current look becomes
its usual one (so a die left over a sticker cannot freeze the table's readings for good).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from engine.hexgrid import Hex
from engine.reading import Doubt, TableReading, merge_doubts
from vision import bare
from vision.artefacts import ArtefactObservation, ArtefactTracker
from vision.bare import BareTable
from vision.blur import Sharpness, frame_sharpness, sticker_sharpness
from vision.calibration import BGR, ColourCalibration, default_calibration, sticker_white
from vision.changes import ChangeWatch
from vision.dicecolour import DieModel
from vision.geometry import mean_radius
from vision.knights import (
    DiceReader,
    DieOnTable,
    KnightsReading,
    doubt,
    find_dice,
    in_frame_share,
    is_castle,
    is_knight_location,
    mask_share,
    merged,
    occluder_mask,
    read_knights,
)
from vision.owncastle import measured_on_castles, misfits
from vision.sources import CorruptedFrameError, Frame, Status, check_image
from vision.stability import FrameObservation, Stabilizer, StableTable
from vision.tracked import TrackedFrame, TrackedReader
from vision.tracking import MapConflictError, Pose, TableMap, Track, table_map

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

# A sticker the decoder missed still looks like itself: this much of its contrast, its mean within this share.
STILL_CONTRAST = 0.7
STILL_MEAN = 0.2
# A location is occluded when skin covers this much more of it than its baseline.
SKIN_SHARE = 0.1
SKIN_EXCESS = 0.1
# Unsure locations whose look did not change, read again per frame of a stream (`TableReader._due`).
RECHECK_UNSURE = 2
# Fewer than this share of the stable map's tiles in view: "half a board".
HALF_BOARD_SHARE = 0.6
# Occluders are looked for at a scale where a tile is this many pixels from centre to corner, so that "smooth"
# means the same thing whatever the camera's zoom.
OCCLUDER_TILE_PX = 16.0


@dataclass(frozen=True, slots=True)
class MapView:
    """What the pipeline uses of a map reading (see `map_view` for `MapReading`)."""

    tiles: Mapping[Hex, str]
    polygons: Mapping[str, FloatArray]  # tile id -> polygon, image px
    image_to_table: FloatArray | None
    tag_quads: Sequence[FloatArray]  # every sticker of ours decoded, image px (white reference)
    tags_per_tile: Mapping[str, int]
    artefact_quads: Mapping[str, FloatArray]
    problems: tuple[str, ...] = ()
    tile_tags: Mapping[str, Sequence[FloatArray]] = field(default_factory=dict)  # tile id -> stickers read
    source: Any = None  # the original map reading, for annotation
    sharpness: Sharpness | None = None  # as the map reader measured it; None: on `tag_quads` (`vision.blur`)


MapReader = Callable[[Image], MapView]


class Reread(Enum):
    """How much of a frame was read: all of it, the map and the locations that changed, or nothing (the
    table looks as it did: the last frame's reading stands)."""

    WHOLE = "whole"
    CHANGED = "changed"
    NOTHING = "nothing"


@runtime_checkable
class ConfirmsMap(Protocol):
    """A reader that can be told the map the owner confirmed (`TableReader.confirm_map`)."""

    def confirm_map(
        self,
        tiles: Mapping[Hex, str],
        players: Collection[Colour] = (),
        castles: Mapping[str, Colour] | None = None,
    ) -> object: ...


class MapMode(Enum):
    """How the reader knows the map: read afresh from every frame, or the map the owner confirmed."""

    READING = "reading"  # no map confirmed: each frame's map is read from its stickers
    WAITING = "waiting"  # a map confirmed; waiting for a view of the table that agrees with it, to place it
    TRACKING = "tracking"  # the map confirmed, placed: frames only keep the camera's pose over it


@dataclass(frozen=True, slots=True)
class FrameResult:
    """One processed frame. `reading` is the stable reading (kept through bad frames); `raw` this frame's."""

    frame_index: int
    status: Status
    message: str
    reading: TableReading
    raw: TableReading | None
    changed: bool
    map: MapView | None = None
    knights: KnightsReading | None = None
    artefacts: ArtefactObservation | None = None
    occluded: frozenset[str] = frozenset()
    white: BGR | None = None
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    reread: Reread = Reread.WHOLE
    looked: frozenset[str] = frozenset()  # with `Reread.CHANGED`: the locations whose dice were read

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status.value,
            "message": self.message,
            "frame_index": self.frame_index,
            "reading": self.reading.to_json(),
            "frame": None if self.raw is None else self.raw.to_json(),
            "occluded": sorted(self.occluded),
        }
        if self.knights is not None:
            out["dice"] = [d.to_json() for d in self.knights.dice]
        if self.map is not None and self.map.problems:
            out["problems"] = list(self.map.problems)
        out["timings_ms"] = {k: round(v, 2) for k, v in self.timings_ms.items()}
        out["reread"] = self.reread.value
        return out


def is_no_signal(image: Image) -> bool:
    """A black, blank or uniform frame (lens cap, lights off, a dead HDMI grabber), judged on a 160 x 120 grid
    of its pixels: nearly uniform, or under 1 % of them as bright as a dark grey (24)."""
    # OpenCV's nearest-pixel resize gathers the grid in a tenth of the time slicing took (0.2 ms at 1080p)
    small = cv2.resize(np.ascontiguousarray(image), (160, 120), interpolation=cv2.INTER_NEAREST)
    gray = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), np.uint8)
    _mean, std = cv2.meanStdDev(gray)
    return bool(float(std[0, 0]) < 4.0 or np.count_nonzero(gray >= 24) < 0.01 * gray.size)


_ROTATIONS = 6


def _turned(q: int, r: int, k: int) -> tuple[int, int]:
    """A hex (q, r) turned by k * 60 degrees about the origin (cube coordinates)."""
    x, z = q, r
    y = -x - z
    for _ in range(k % _ROTATIONS):
        x, y, z = -z, -x, -y
    return x, z


def align_tiles(new: Mapping[Hex, str], stable: Mapping[Hex, str]) -> dict[Hex, str]:
    """`new` expressed in `stable`'s hex coordinates, as far as the tiles both hold fix them.

    A frame numbers its hexes from what it sees; only tiles it shares with `stable` say how its numbering
    lies on `stable`'s (a turn by sixths and a shift). The alignments that the most shared tiles agree on,
    and a majority of them, are the candidates; a tile of `new` is placed only where every candidate puts
    it. So a frame sharing no tile with `stable` (another table, or too little of this one in view), or one
    tile only (its turn is anyone's guess), or tiles that disagree with no majority, places no tile it
    cannot place for sure: those are left out, never put on a guessed hex. With `stable` empty, `new` is
    taken as it is."""
    if not stable:
        return dict(new)
    where = {tid: (h.q, h.r) for h, tid in stable.items()}
    shared = sum(1 for tid in new.values() if tid in where)
    if not shared:
        return {}
    best: list[tuple[int, tuple[int, int]]] = []
    most = 0
    for k in range(_ROTATIONS):
        # votes as plain pairs: a Hex per vote cost 2 ms a frame
        votes: Counter[tuple[int, int]] = Counter()
        for h, tid in new.items():
            if tid in where:
                q, r = _turned(h.q, h.r, k)
                wq, wr = where[tid]
                votes[wq - q, wr - r] += 1
        for shift, n in votes.items():
            if n > most:
                best, most = [(k, shift)], n
            elif n == most:
                best.append((k, shift))
    if 2 * most <= shared:
        return {}
    placed: dict[Hex, str] = {}
    for h, tid in new.items():
        spots = {(q + dq, r + dr) for k, (dq, dr) in best for q, r in (_turned(h.q, h.r, k),)}
        if len(spots) == 1:
            q, r = spots.pop()
            placed[Hex(q, r)] = tid
    return placed


@dataclass(frozen=True, slots=True)
class _MapSide:
    """A frame's map and what follows from it and the frame alone (`TableReader._map_side`)."""

    view: MapView
    map_ms: float
    white: BGR | None = None
    occluders: Image | None = None  # the skin mask, at `occluder_scale`
    occluder_scale: float = 0.25
    occluders_ms: float = 0.0
    # for `TableReader._occluded`: each tile's stickers read in this frame with their look (`_look`), and the
    # share of each tile's outline under the skin mask
    looks: Mapping[str, list[tuple[FloatArray, tuple[float, float]]]] = field(default_factory=dict)
    skin: Mapping[str, float] = field(default_factory=dict)
    sharpness: Sharpness = field(default_factory=Sharpness)


class TableReader:
    """Frame -> stable `TableReading`. Not thread-safe: one reader per camera (its worker's thread). With
    `dice_ahead` (the default) it calls `map_reader` in a thread of its own, one frame at a time."""

    def __init__(
        self,
        *,
        calibration: ColourCalibration | None = None,
        map_reader: MapReader | None = None,
        dice_reader: DiceReader | None = None,
        hold_frames: int = 5,
        loss_frames: int | None = None,
        detect_occluders: bool = True,
        backend: Any = None,
        relearn_frames: int = 90,
        incremental: bool = True,
        refresh_frames: int = 30,
        dice_ahead: bool = True,
    ) -> None:
        self._players: frozenset[Colour] = frozenset()
        self._castles: dict[str, Colour] = {}  # each castle's owner, from the confirmed game
        # the players measured on their own castles during a game (`_owners_measured`), not saved anywhere
        self.measured_in_play: dict[Colour, DieModel] = {}
        self._owner_tried: dict[str, int] = {}  # castle -> the frame its owner's dice were last refused in
        self.calibration = calibration if calibration is not None else default_calibration()
        self.map_reader = map_reader if map_reader is not None else default_map_reader(backend)
        self.dice_reader = dice_reader
        self.detect_occluders = detect_occluders
        self.relearn_frames = relearn_frames
        self.stabilizer = Stabilizer(hold_frames, loss_frames)
        self.artefacts = ArtefactTracker()
        self._frame_index = -1
        self._max_tags: dict[str, int] = {}
        self._skin_baseline: dict[str, float] = {}
        self._occluded_run: dict[str, int] = {}
        # a tile's stickers when most of them were read: where, and how they looked (grey mean, contrast)
        self._tag_places: dict[str, list[tuple[FloatArray, tuple[float, float]]]] = {}
        self._occluder_scale = 0.25
        self._last: TableReading = TableReading()
        self.incremental = incremental
        self.refresh_frames = refresh_frames
        self._watch = ChangeWatch()
        self._previous: FrameResult | None = None  # the last frame read, when the next may build on it
        self._since_whole = 0
        self._read_at: dict[str, int] = {}  # per location, the frame its dice were last read in
        self.dice_ahead = dice_ahead
        # the last whole read's frame shape, knight outlines and table homography
        self._outlines: tuple[tuple[int, ...], dict[str, FloatArray], FloatArray | None] | None = None
        self._worker: ThreadPoolExecutor | None = None
        self._foreign_frames = 0  # frames in a row whose map shares no tile with the stable one
        self.backend = backend
        self._lock = threading.RLock()  # a frame and a map confirmation, one at a time
        self._confirmed: dict[Hex, str] | None = None  # the map the owner confirmed
        self._tracked: TrackedReader | None = None  # ... placed on the table, its pose kept
        self._conflict = ""  # why the map confirmed is not placed yet
        self._last_reading: Any = None  # the last frame's map reading with tiles (`MapView.source`)
        self._bare: BareTable | None = None  # the knight locations' bare look (`vision.bare`), once confirmed
        self._bare_from: _BareSource | None = None  # the last frame read whole, to learn it from
        # ... and of the frames kept since the map was laid as it is, the one with the fewest dice on it: it
        # saw what the dice set down since hide (a castle's middle under the set-up's die)
        self._barest: _BareSource | None = None

    @property
    def stable(self) -> TableReading:
        return self._last

    def __call__(self, frame: Frame) -> FrameResult:
        return self.read(frame.image, frame.index)

    @staticmethod
    def status_of(result: FrameResult) -> Status:
        return result.status

    @property
    def map_mode(self) -> MapMode:
        if self._confirmed is None:
            return MapMode.READING
        return MapMode.WAITING if self._tracked is None else MapMode.TRACKING

    @property
    def table_map(self) -> TableMap | None:
        """The map confirmed, as placed on the table (None until it is)."""
        return None if self._tracked is None else self._tracked.map

    def proposed_map(self) -> TableMap | None:
        """The map as the last frame read it, tiles in its numbering, placed on the table: what the owner
        is asked to confirm (None before a frame showed tiles)."""
        reading = self._last_reading
        if reading is None or reading.lattice is None:
            return None
        return table_map(dict(reading.tiles), dict(reading.hexes), reading.lattice, _tile_stickers(reading))

    @property
    def calibration(self) -> ColourCalibration:
        """The players' dice as measured, with a stand-in for each player of the confirmed game whose dice
        were not (`ColourCalibration.playing`: their dice are asked, not named another player's)."""
        return self._calibration

    @calibration.setter
    def calibration(self, measured: ColourCalibration) -> None:
        self._measured = measured
        self._calibration = measured.playing(self._players)

    def confirm_map(
        self,
        tiles: Mapping[Hex, str] | TableMap,
        players: Collection[Colour] = (),
        castles: Mapping[str, Colour] | None = None,
    ) -> MapMode:
        """The owner confirmed the map: tile ids on hexes (the app's numbering), or a `TableMap` (say,
        `proposed_map()` kept from earlier), and the game's `players`. From now on it is the map: tiles are
        never read again, only the camera's pose over them is kept (`vision.tracking`), and the stable
        reading's tiles are these.
        A layout is placed on the table by the last frame's reading of it, or, if none agrees with it yet
        (`MapMode.WAITING`), by the first that does; a reading that puts a tile on another hex is a conflict
        (said in every frame's message until the table agrees). `castles`: each castle's owner (tile id to
        colour): a die on a castle named another player is asked (`_strangers`). Raises `MapConflictError`
        (a ValueError) for a layout that names a tile twice, or an empty one."""
        with self._lock:
            if isinstance(tiles, TableMap):
                layout, placed = dict(tiles.tiles), tiles
            else:
                layout, placed = dict(tiles), None
            ids = list(layout.values())
            if not ids or len(set(ids)) != len(ids):
                raise MapConflictError([f"a map names each tile once, got {sorted(ids)!r}"])
            self._players = frozenset(players)
            self._castles = dict(castles or {})
            self._owner_tried = {}
            self.calibration = self._measured
            self.stabilizer.set_tiles(layout)
            self._last = _to_reading(self.stabilizer.current())  # the stable reading has this map from now
            if self._tracked is not None and placed is None and dict(self._tracked.map.tiles) == layout:
                return self.map_mode  # the same map confirmed again (a game resumed): it is placed already
            self._confirmed = layout
            self._tracked = None
            self._conflict = ""
            self._previous = None  # the next frame is read whole
            self._watch.reset()
            self._bare = None  # learned from `_bare_from` at the next frame, over the whole map placed
            if placed is not None:
                self._track(placed, self._last_reading)
            else:
                self._adopt(self._last_reading)
            return self.map_mode

    def forget_map(self) -> None:
        """No map confirmed any more (a new game): frames are read afresh, the stable tiles kept until they
        change."""
        with self._lock:
            self._confirmed = None
            self._tracked = None
            self._conflict = ""
            self._bare = None
            self._players = frozenset()
            self._castles = {}
            self.calibration = self._measured

    def _adopt(self, reading: Any) -> None:
        """Place the map confirmed by `reading` (a `vision.mapreader.MapReading`), if it agrees with it."""
        if self._confirmed is None or reading is None or reading.lattice is None or not reading.tiles:
            return
        try:
            placed = table_map(self._confirmed, dict(reading.hexes), reading.lattice, _tile_stickers(reading))
        except MapConflictError as exc:
            self._conflict = str(exc)
            return
        self._track(placed, reading)

    def _track(self, placed: TableMap, reading: Any) -> None:
        """Track `placed` from `reading`'s pose (a `MapReading`; None: the first frame's codes find it)."""
        from vision.qr import Backend

        backend = self.backend if isinstance(self.backend, Backend) else Backend.ZXING
        pose = None
        if reading is not None and reading.homography is not None:
            pose = Pose.of(np.asarray(reading.homography, np.float64), reading.lens)
        self._tracked = TrackedReader(placed, pose, backend)
        self._tracked.know_cards(self.artefacts.positions())
        self._conflict = ""

    def _keep(self, index: int, status: Status, message: str, **extra: Any) -> FrameResult:
        return FrameResult(index, status, message, self._last, None, False, **extra)

    def read(self, image: object, frame_index: int | None = None) -> FrameResult:
        with self._lock:
            return self._read(image, frame_index)

    def _read(self, image: object, frame_index: int | None = None) -> FrameResult:
        self._frame_index = self._frame_index + 1 if frame_index is None else frame_index
        index = self._frame_index
        t0 = time.perf_counter()
        try:
            frame = check_image(image, f"frame {index}")
        except CorruptedFrameError as exc:
            return self._keep(index, Status.CORRUPTED_FRAME, str(exc))
        if is_no_signal(frame):
            self._nothing_seen(index)
            return self._keep(index, Status.NO_SIGNAL, "the frame is black or blank: is the camera covered?")
        timings: dict[str, float] = {}
        previous = self._previous if self.incremental else None
        changes = self._watch.look(frame) if previous is not None else None
        pending = self._pending()
        if (
            previous is not None
            and changes is not None
            and not changes.elsewhere
            and pending is not None
            and self._since_whole + 1 < self.refresh_frames  # now and then all of it, in case a change hid
        ):
            looked = changes.locations | self._due(pending, changes.locations)
            if not looked:
                return self._again(previous, index, t0)
            return self._partly(previous, frame, index, looked, t0)
        side, found = self._map_and_dice(frame)
        view, white = side.view, side.white
        t1 = time.perf_counter()
        timings["map"] = side.map_ms
        if found is not None:  # the map's time overlaps the dice's: both were in after this
            timings["map_and_dice"] = (t1 - t0) * 1000
        if side.sharpness.blurred:
            self._nothing_seen(index)
            return self._keep(index, Status.BLURRED, blurred(side.sharpness), map=view, timings_ms=timings)
        if not view.tiles:
            self._nothing_seen(index)
            why = "; ".join(view.problems) if view.problems else "no tile stickers found in the frame"
            return self._keep(index, Status.NO_TAGS, why, map=view, timings_ms=timings)
        stable_tiles, tiles = self._placed(view)
        status, message = Status.OK, f"{len(tiles)} tiles"
        # Out of view: known tiles with no outline in this frame, or one mostly outside it. Tiles whose
        # stickers are merely covered are still placed by the lattice (`inferred`): occluded, not gone.
        out_of_view = sorted(
            t for t in stable_tiles.values()
            if t not in view.polygons or in_frame_share(frame.shape, view.polygons[t]) < 0.5
        )
        if stable_tiles and len(out_of_view) > (1.0 - HALF_BOARD_SHARE) * len(stable_tiles):
            status = Status.HALF_BOARD
            message = (
                f"{len(stable_tiles) - len(out_of_view)} of {len(stable_tiles)} tiles in view; "
                f"out of view: {', '.join(out_of_view)}"
            )
        if len(tiles) < len(view.tiles):
            message += f" ({len(view.tiles) - len(tiles)} seen that the known map cannot place yet)"

        polygons, knights = self._knights(frame, view, white, found=found, side=side)
        self._outlines = (frame.shape, polygons, view.image_to_table)
        t2 = time.perf_counter()
        timings["knights"] = (t2 - t1) * 1000
        knights, blind = self._unread(frame, view, knights, polygons, side)
        if blind:
            places = ", ".join(sorted(blind))
            message += f"; never seen without dice, so asked while none is read there: {places}"
        timings["bare"] = (time.perf_counter() - t2) * 1000
        t2 = time.perf_counter()
        mask = side.occluders
        if mask is not None:
            self._occluder_scale = side.occluder_scale
        occluded = self._occluded(frame, view, side, [d.box for d in knights.dice])
        timings["occluders"] = side.occluders_ms + (time.perf_counter() - t2) * 1000
        arts = self.artefacts.update(
            frame, view.artefact_quads, view.image_to_table, mask, self._occluder_scale
        )
        occluded_all = frozenset(occluded | (knights.occluded & knights.seen))
        self._learn_bare(frame, view, polygons, knights, side=side, occluded=occluded_all)
        busy = bool(occluded_all)
        obs = FrameObservation(
            frame_index=index,
            tiles=tiles,
            knights=knights.knights,
            seen=knights.seen,
            occluded=frozenset(occluded_all & knights.seen),
            busy=busy,
            artefacts=arts.sides,
            doubts=_seen_doubts(knights),
        )
        table = self.stabilizer.update(obs)
        self._last = _to_reading(table)
        doubts = merge_doubts(dict.fromkeys(occluded_all, Doubt.HAND), knights.doubts)
        raw = TableReading(
            tiles=tiles,
            knights=knights.knights,
            artefacts=dict(arts.sides),
            unsure=frozenset(doubts),
            frame_index=max(0, index),
            doubts=doubts,
        )
        timings["total"] = (time.perf_counter() - t0) * 1000
        result = FrameResult(
            index, status, message, self._last, raw, table.changed, view, knights, arts, occluded_all,
            white, timings,
        )
        self._remember(frame, result, polygons)
        return result

    def _unread(
        self, frame: Image, view: MapView, knights: KnightsReading, polygons: Mapping[str, FloatArray],
        side: _MapSide,
    ) -> tuple[KnightsReading, frozenset[str]]:
        """`knights` with the locations where something unread stands flagged unsure (`vision.bare`), once
        the map is confirmed, and those flagged for a spot never seen bare alone. The first frame after the
        confirmation has the whole map placed: the bare look is learned from the frame kept before it over
        every location of that map (a steep camera's far tiles, whose codes no frame read alone, included)."""
        if self._confirmed is None or view.image_to_table is None:
            return knights, frozenset()
        if self._bare is None and self._bare_from is not None:
            source = self._bare_from
            self._bare = source.over(polygons, view.image_to_table).learn(self._earlier(source))
        knights = _strangers(knights, self._castles)
        if self._bare is None:
            return knights, frozenset()
        doubted, unseen = _doubted(self._bare, frame, view.image_to_table, knights, hands=side.occluders)
        # A location asked only for a spot never seen bare, with no die read on it and no hand over it, is
        # bare: from now on that spot is known (players asked to lift a castle's dice once, or a castle left
        # empty in play).
        empty = {
            loc for loc in unseen - knights.unsure
            if not self._skin_over(loc, side) and all(d.location != loc for d in knights.dice)
        }
        if empty:
            self._bare = bare.seen_bare(self._bare, frame, view.image_to_table, empty)
        return doubted, unseen - knights.unsure

    def _learn_bare(
        self, frame: Image, view: MapView, polygons: Mapping[str, FloatArray], knights: KnightsReading, *,
        side: _MapSide, occluded: Collection[str],
    ) -> None:
        """Keep a frame with no hand over the map to learn the bare look from when the map is confirmed (or
        learn it now, when the map was confirmed before such a frame came)."""
        learned = self._confirmed is not None and self._bare is not None
        if view.image_to_table is None or occluded or learned:
            return
        # a copy: a camera may refill the same buffer (a millisecond, and only until a game starts)
        source = _BareSource(frame.copy(), view.image_to_table, polygons, knights.dice, side.occluders)
        if self._confirmed is not None:
            self._bare = source.learn(self._earlier(source))
            return
        self._bare_from = source
        barest = self._barest
        if barest is None or not source.aligned(barest)[1] or source.on_map() <= barest.on_map():
            self._barest = source

    def _earlier(self, source: _BareSource) -> list[_BareSource]:
        """The barest frame kept, to fill in what `source`'s dice hide, if it is another."""
        barest = self._barest
        return [barest] if barest is not None and barest is not source else []

    def _placed(self, view: MapView) -> tuple[dict[Hex, str], dict[Hex, str]]:
        """The stable map, and `view`'s tiles in its numbering (`align_tiles`: only those it can place).
        A frame that shares no tile with the stable map places none; after `hold_frames` such frames in a
        row, each with two tiles or more, another table has taken this one's place: its map becomes the stable
        one, as the first table's did. With a map confirmed, every frame's map is the confirmed one: a frame
        never says where a tile lies, and a tile hidden in it is still there."""
        if self._confirmed is not None:
            return dict(self._confirmed), dict(self._confirmed)
        stable = dict(self.stabilizer.current().tiles)
        shared = set(view.tiles.values()) & set(stable.values())
        if not stable or shared or len(view.tiles) < 2:
            self._foreign_frames = 0
            return stable, align_tiles(view.tiles, stable)
        self._foreign_frames += 1
        if self._foreign_frames < self.stabilizer.hold_frames:
            return stable, {}
        self._foreign_frames = 0
        self.stabilizer.set_tiles({})
        return {}, dict(view.tiles)

    def _remember(self, frame: Image, result: FrameResult, polygons: Mapping[str, FloatArray]) -> None:
        """Keep what the next frame may build on: only a frame read cleanly (every location seen and none
        under a hand, so holds and the occluder bookkeeping need no fresh look while nothing moves)."""
        hidden_cards = result.artefacts is not None and bool(result.artefacts.hidden)
        clean = result.status is Status.OK and not result.occluded and not hidden_cards
        if not (self.incremental and clean):
            self._previous = None
            self._watch.reset()
            return
        if result.reread is Reread.WHOLE:
            self._watch.start(frame, polygons)
            self._since_whole = 0
            self._read_at = dict.fromkeys(polygons, result.frame_index)
        else:
            self._watch.accept(result.looked)
            self._since_whole += 1
            self._read_at |= dict.fromkeys(result.looked, result.frame_index)
        self._previous = result

    def _covered(self, tid: str, frame: Image, view: MapView, dice: Sequence[Sequence[float]]) -> bool:
        """Some sticker of `tid` read before and missing now is covered by something other than a die. A
        sticker that still looks like itself (a code the decoder missed this once: blur, noise) is not; one
        under a die found in this frame is not either (knights put down on a code after set-up)."""
        now = [q.mean(axis=0) for q in view.tile_tags.get(tid, ())]
        for quad, (mean, contrast) in self._tag_places.get(tid, []):
            side = float(np.linalg.norm(quad[1] - quad[0]))
            if any(float(np.linalg.norm(c - quad.mean(axis=0))) < side / 2 for c in now):
                continue  # read in this frame
            look_mean, look_contrast = _look(frame, quad)
            if look_contrast >= STILL_CONTRAST * contrast and abs(look_mean - mean) <= STILL_MEAN * mean:
                continue
            if any(_overlap(_box_of(quad), d) for d in dice):
                continue
            return True
        return False

    def _due(self, pending: frozenset[str], changed: frozenset[str]) -> frozenset[str]:
        """Of the locations `pending`, those to read again in this frame besides the `changed` ones: every one
        with a change on hold, so a hold is always made of readings of different frames; of the unsure ones
        whose look did not change, the `RECHECK_UNSURE` read longest ago. An unsure location commits nothing
        (`vision.stability`, rules 2 and 3), so one left out keeps its last reading, doubts and all; reading
        them all in every frame made a table with many of them as slow to read as a table changed all over."""
        previous = self._previous
        unsure = previous.raw.unsure if previous is not None and previous.raw is not None else frozenset()
        waiting = sorted((pending & unsure) - changed, key=lambda loc: (self._read_at.get(loc, -1), loc))
        return (pending - unsure) | frozenset(waiting[:RECHECK_UNSURE])

    def _pending(self) -> frozenset[str] | None:
        """Locations whose last reading is not yet the stable one (a change on hold, or unsure): they are read
        afresh (`_due`) until it is. None when the map itself is on hold (read everything)."""
        previous = self._previous
        if previous is None or previous.raw is None:
            return None
        raw, stable = previous.raw, self._last
        # A tile this frame could not name (its codes under dice: `inferred`) is missing from the frame's
        # tiles while the stable map keeps it: that is no change on hold.
        if any(stable.tiles.get(h) != t for h, t in raw.tiles.items()):
            return None
        if dict(raw.artefacts) != dict(stable.artefacts):
            return None
        locs = {k for k in raw.tiles.values() if is_knight_location(k)}
        return frozenset(
            k for k in locs if k in raw.unsure or dict(raw.knights_at(k)) != dict(stable.knights_at(k))
        )

    def _partly(
        self, previous: FrameResult, frame: Image, index: int, looked: frozenset[str], t0: float
    ) -> FrameResult:
        """Only some locations changed and nothing came in from the frame's edge (so no hand is over the
        table): the last frame's map, occluders and cards stand, and only `looked`'s dice are read."""
        view, kept = previous.map, previous.knights
        if view is None or kept is None:
            raise AssertionError("a frame kept for the next one always has a map and knights")
        sharpness = sticker_sharpness(frame, view.tag_quads)  # the stickers are where they were
        if sharpness.blurred:
            self._nothing_seen(index)
            return self._keep(index, Status.BLURRED, blurred(sharpness), reread=Reread.CHANGED)
        polygons, fresh = self._knights(frame, view, previous.white, looked)
        fresh = _strangers(fresh, self._castles)
        if self._bare is not None and view.image_to_table is not None:
            fresh = _doubted(self._bare, frame, view.image_to_table, fresh, looked=looked)[0]
        knights = merged(kept, fresh, looked)
        now = (time.perf_counter() - t0) * 1000
        timings = {"knights": now, "total": now}
        result = self._restated(
            previous, index, knights, reread=Reread.CHANGED, looked=looked, timings=timings
        )
        self._remember(frame, result, polygons)
        return result

    def _knights(
        self,
        frame: Image,
        view: MapView,
        white: BGR | None,
        search: frozenset[str] | None = None,
        *,
        found: Sequence[Any] | None = None,
        side: _MapSide | None = None,
    ) -> tuple[dict[str, FloatArray], KnightsReading]:
        """The knight locations' polygons of `view`, and the knights on them (on `search` alone, if given;
        `found`: the dice over them, when `_map_and_dice` had them). With the frame's `side`, a player left
        unmeasured is measured on their own castle when it shows their dice plainly (`_owners_measured`),
        and the frame's dice are named with that."""
        polygons = _knight_outlines(view)
        if found is None:
            i2t, reader = view.image_to_table, self.dice_reader
            found = find_dice(frame, polygons, dice_reader=reader, search=search, image_to_table=i2t)

        def named(calibration: ColourCalibration) -> KnightsReading:
            return read_knights(
                frame, polygons, calibration, image_to_table=view.image_to_table, white_bgr=white,
                occluders=None, dice_reader=self.dice_reader, search=search, found=found,
                owners=self._castles,
            )  # fmt: skip

        knights = named(self.calibration)
        if side is not None:
            knights = self._owners_measured(frame, view, white, side, knights, named=named)
        return polygons, knights

    def _owners_measured(
        self, frame: Image, view: MapView, white: BGR | None, side: _MapSide, knights: KnightsReading, *,
        named: Callable[[ColourCalibration], KnightsReading],
    ) -> KnightsReading:
        """`knights`, or, when a player of the game whose dice were not measured was measured now on their own
        castle (`vision.owncastle`), the frame's dice `named` with that: kept in the calibration, for this
        game and the next. A measurement that another castle's dice would lie nearest is not kept: those
        dice are their own castle's owner's (`owncastle.misfits`)."""
        stand_ins, now = self._calibration.stand_ins, self._frame_index
        waiting = {k for k, t in self._owner_tried.items() if 0 <= now - t < OWNER_RETRY_FRAMES}
        castles = {k: c for k, c in self._castles.items() if c in stand_ins and k not in waiting}
        if self._confirmed is None or not castles:
            return knights
        hands = {k for k in castles if self._skin_over(k, side)}
        found = measured_on_castles(
            frame, knights, castles, self._calibration, white, stickers=view.tag_quads, hands=hands
        )
        models = {c: m.model for c, m in found.items() if m.ok}
        again = knights
        while models:
            again = named(self._measured.with_models(models).playing(self._players))
            wrong = misfits(knights, again, self._castles, models)
            if not wrong:
                break
            models = {c: m for c, m in models.items() if c not in wrong}
        self._owner_tried.update({k: now for k, c in castles.items() if c in found and c not in models})
        if not models:
            return knights
        self.calibration = self._measured.with_models(models)
        self.measured_in_play = {**self.measured_in_play, **models}
        return again

    def _map_and_dice(self, frame: Image) -> tuple[_MapSide, list[Any] | None]:
        """The frame's map and what follows from it alone (`_map_side`); the dice over its knight locations
        when they could be found meanwhile.

        With `dice_ahead`, once a frame of this size was read whole, a worker thread reads the map while this
        one finds the dice over the last whole read's outlines: the QR decoder and the networks let go of
        Python's lock, so on two cores they overlap (a 1080p table: about 5 of the decode's and the finder's
        23 ms). The dice stand when the map came out with the same outlines (a still table: the map reader
        keeps its fit, `vision.mapreader.unmoved`); otherwise they are found again on the new ones, as
        without `dice_ahead`. Either way the reading is the same."""
        if not self.dice_ahead:
            return self._map_side(frame), None
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="seneschal-map")
        # the first read starts the worker too (a thread costs about a millisecond to start)
        reading = self._worker.submit(self._map_side, frame)
        before = self._outlines
        if before is None or before[0] != frame.shape:
            return reading.result(), None
        try:
            found = find_dice(frame, before[1], dice_reader=self.dice_reader, image_to_table=before[2])
        finally:
            wait([reading])  # never leave the map reader running on into the next frame
        side = reading.result()
        outlines = _knight_outlines(side.view)
        same = (
            outlines.keys() == before[1].keys()
            and all(np.array_equal(v, before[1][k]) for k, v in outlines.items())
            and _same_homography(side.view.image_to_table, before[2])
        )
        return side, found if same else None

    def _map_side(self, frame: Image) -> _MapSide:
        """The map, and what needs it and the frame alone: the sticker white, the skin mask and what
        `_occluded` measures of each tile (in the worker thread with `dice_ahead`, so these overlap the dice
        too). Of the reader's state it touches only the map's: what places and tracks the map confirmed."""
        start = time.perf_counter()
        view = self._map_view(frame)
        sharpness = view.sharpness
        if sharpness is None:
            sharpness = sticker_sharpness(frame, view.tag_quads) if view.tag_quads else frame_sharpness(frame)
        map_ms = (time.perf_counter() - start) * 1000
        if not view.tiles or sharpness.blurred:
            return _MapSide(view, map_ms, sharpness=sharpness)
        start = time.perf_counter()
        white = sticker_white(frame, list(view.tag_quads)) if view.tag_quads else None
        looks = {tid: [(q, _look(frame, q)) for q in quads] for tid, quads in view.tile_tags.items()}
        if not self.detect_occluders:
            return _MapSide(view, map_ms, white, looks=looks, sharpness=sharpness)
        scale = occluder_scale(view.polygons.values())
        mask = occluder_mask(frame, white, scale=scale, full_size=False)
        skin = {tid: mask_share(mask, poly, scale) for tid, poly in view.polygons.items()}
        elapsed = (time.perf_counter() - start) * 1000
        return _MapSide(view, map_ms, white, mask, scale, elapsed, looks, skin, sharpness)

    def _map_view(self, frame: Image) -> MapView:
        """This frame's map: tracked over the map confirmed, or read afresh (which may place it)."""
        if self._tracked is not None:
            return tracked_view(self._tracked.read(frame), self._tracked.map)
        view = self.map_reader(frame)
        if view.tiles and view.source is not None:
            self._last_reading = view.source
            if self._confirmed is not None:
                self._adopt(view.source)
        if self._conflict:
            view = replace(view, problems=(*view.problems, self._conflict))
        return view

    def _again(self, previous: FrameResult, index: int, t0: float) -> FrameResult:
        """A frame that looks like the last one read: its reading again, as this frame's observation."""
        if previous.knights is None:
            raise AssertionError("a frame kept for the next one always has a reading")
        self._since_whole += 1
        timings = {"total": (time.perf_counter() - t0) * 1000}
        return self._restated(
            previous, index, previous.knights, reread=Reread.NOTHING, looked=frozenset(), timings=timings
        )

    def _restated(
        self,
        previous: FrameResult,
        index: int,
        knights: KnightsReading,
        *,
        reread: Reread,
        looked: frozenset[str],
        timings: Mapping[str, float],
    ) -> FrameResult:
        """Frame `index` as `previous` (its map, cards and occluders: none, as nothing crossed the frame's
        edge) with `knights`, fed to the stabiliser as this frame's observation."""
        raw = previous.raw
        if raw is None:
            raise AssertionError("a frame kept for the next one always has a reading")
        obs = FrameObservation(
            frame_index=index,
            tiles=dict(raw.tiles),
            knights=knights.knights,
            seen=knights.seen,
            occluded=frozenset(),
            busy=False,
            artefacts=dict(raw.artefacts),
            doubts=_seen_doubts(knights),
        )
        table = self.stabilizer.update(obs)
        self._last = _to_reading(table)
        return replace(
            previous,
            frame_index=index,
            reading=self._last,
            raw=replace(
                raw, knights=knights.knights, unsure=knights.unsure, doubts=knights.doubts,
                frame_index=max(0, index),
            ),
            changed=table.changed,
            knights=knights,
            timings_ms=timings,
            reread=reread,
            looked=looked,
        )

    def _nothing_seen(self, index: int) -> None:
        """A frame that showed nothing still interrupts every location's hold (no change across a gap)."""
        self.stabilizer.update(FrameObservation(index, {}, {}, frozenset(), busy=True))

    def _occluded(
        self, frame: Image, view: MapView, side: _MapSide, dice: Sequence[Sequence[float]] = ()
    ) -> set[str]:
        occluded: set[str] = set()
        mask = side.occluders
        for tid in view.polygons:
            n = view.tags_per_tile.get(tid, 0)
            best = self._max_tags.get(tid, n)
            hidden_tags = n < best and self._covered(tid, frame, view, dice)
            if n >= best and tid in view.tile_tags:
                self._tag_places[tid] = side.looks[tid]
            skin = self._skin_over(tid, side)
            share = side.skin.get(tid, 0.0)
            if mask is not None and not skin:
                base = self._skin_baseline.get(tid)
                self._skin_baseline[tid] = share if base is None else 0.9 * base + 0.1 * share
            if hidden_tags or skin:
                occluded.add(tid)
                run = self._occluded_run.get(tid, 0) + 1
                if run >= self.relearn_frames:
                    # Covered for this long is no hand passing by: it is how the tile looks now.
                    run = 0
                    best = n
                    if mask is not None:
                        self._skin_baseline[tid] = share
                self._occluded_run[tid] = run
            else:
                self._occluded_run[tid] = 0
            self._max_tags[tid] = max(best, n)
        return occluded

    def _skin_over(self, tid: str, side: _MapSide) -> bool:
        """Whether a hand is over tile `tid`: more of it under the skin mask than its art's usual share."""
        if side.occluders is None:
            return False
        base = self._skin_baseline.get(tid)
        return side.skin.get(tid, 0.0) > (SKIN_SHARE if base is None else max(SKIN_SHARE, base + SKIN_EXCESS))


# A player's dice refused on their castle (`_owners_measured`) are measured there again this many frames
# later, not before: a measurement costs 5-15 ms, and the same dice in the same light fail the same way.
OWNER_RETRY_FRAMES = 30


# A location whose centre two frames place this close on the table (mm) lies where it lay: a tile nudged
# further would show its print beside where the bare look expects it.
SAME_PLACE_MM = 2.0


@dataclass(frozen=True, slots=True)
class _BareSource:
    """A frame read whole, kept until the map is confirmed: the bare look is learned from it then."""

    frame: Image
    image_to_table: FloatArray
    outlines: Mapping[str, FloatArray]
    dice: Sequence[DieOnTable]
    hands: Image | None

    def learn(self, earlier: Sequence[_BareSource] = ()) -> BareTable:
        """The bare look, from this frame and, where its dice stand, from `earlier` frames that saw there (on
        the locations that lay there as they lie here)."""
        fills = []
        for e in earlier:
            moved, unmoved = self.aligned(e)
            if unmoved:
                fills.append(bare.Earlier(e.frame, moved, [d.extent for d in e.dice], unmoved))
        boxes = [d.extent for d in self.dice]
        return bare.learn(
            self.frame, self.image_to_table, self.outlines, boxes, self.hands, earlier=fills,
            tops=_tops(self.dice),
        )

    def on_map(self) -> int:
        """How many dice stand on the knight locations."""
        return sum(d.location is not None for d in self.dice)

    def aligned(self, other: _BareSource) -> tuple[FloatArray, frozenset[str]]:
        """`other`'s homography onto this frame's table (a frame read alone numbers the map's lattice its own
        way: a rigid fit over the locations both place), and the locations that lie where they did, within
        `SAME_PLACE_MM` of the fit (none: another table, or the map laid anew)."""
        mine, theirs = self._centres(), other._centres()
        shared = sorted(mine.keys() & theirs.keys())
        if len(shared) < 3:
            return other.image_to_table, frozenset()
        a = np.array([theirs[k] for k in shared])
        b = np.array([mine[k] for k in shared])
        keep = np.ones(len(shared), bool)
        while True:  # refitted without the location that fits worst, until every one left fits
            rigid = _rigid(a[keep], b[keep])
            off = np.linalg.norm(a @ rigid[:2, :2].T + rigid[:2, 2] - b, axis=1)
            if off[keep].max() <= SAME_PLACE_MM:
                break
            keep[int(np.argmax(np.where(keep, off, -1.0)))] = False
            if keep.sum() < 3:
                return other.image_to_table, frozenset()
        moved: FloatArray = rigid @ np.asarray(other.image_to_table, np.float64)
        return moved, frozenset(k for k, d in zip(shared, off, strict=True) if d <= SAME_PLACE_MM)

    def _centres(self) -> dict[str, tuple[float, float]]:
        centres = np.array([np.asarray(v, np.float64).reshape(-1, 2).mean(axis=0)
                            for v in self.outlines.values()])
        if not len(centres):
            return {}
        table = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), self.image_to_table).reshape(-1, 2)
        return {k: (float(x), float(y)) for k, (x, y) in zip(self.outlines, table, strict=True)}

    def over(self, outlines: Mapping[str, FloatArray], image_to_table: FloatArray) -> _BareSource:
        """This frame with `outlines` (another frame's, whose table homography is `image_to_table`) for its
        locations: the table plane carries them across."""
        to_here = np.linalg.inv(self.image_to_table) @ np.asarray(image_to_table, np.float64)
        here = {
            k: np.asarray(cv2.perspectiveTransform(np.asarray(v, np.float64).reshape(-1, 1, 2), to_here),
                          np.float64).reshape(-1, 2)
            for k, v in outlines.items()
        }
        return replace(self, outlines=here)


def _rigid(a: FloatArray, b: FloatArray) -> FloatArray:
    """The turn and shift (3x3) taking points `a` onto `b` (n x 2) best in least squares (Kabsch)."""
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    u, _s, vt = np.linalg.svd((a - ca).T @ (b - cb))
    d = np.sign(np.linalg.det(vt.T @ u.T))
    turn = vt.T @ np.diag([1.0, d]) @ u.T
    out = np.eye(3)
    out[:2, :2] = turn
    out[:2, 2] = cb - turn @ ca
    return out


def _strangers(knights: KnightsReading, castles: Mapping[str, Colour]) -> KnightsReading:
    """`knights` with every castle flagged where a die was named a player other than the castle's owner. A
    castle holds its owner's knights alone (Components, p. 2; no other player conquers it, p. 8); only the
    optional castle siege (p. 14) brings another's, for one battle. A die named a stranger there is most
    likely the owner's, misnamed: the castle is printed in its owner's colour, which a die on it picks up."""
    strange = {
        loc for d in knights.dice
        if (loc := d.location) is not None and loc in castles and d.colour not in (None, castles[loc])
    }
    return doubt(knights, strange, Doubt.STRANGER) if strange else knights


def _doubted(
    table: BareTable, frame: Image, image_to_table: FloatArray, knights: KnightsReading, *,
    looked: Collection[str] | None = None, hands: Image | None = None,
) -> tuple[KnightsReading, frozenset[str]]:
    """`knights` with every location flagged where something no die accounts for stands, where a die was
    read on a territory that still looks bare, or where a spot never seen bare is free of dice read
    (`vision.bare.look`); and the locations flagged for such a spot alone."""
    dice = knights.dice
    plain = [d.location is not None and not is_castle(d.location) for d in dice]
    boxes = [d.extent for d in dice]
    unread = bare.look(
        table, frame, image_to_table, boxes, looked=looked, plain=plain, occluders=hands, tops=_tops(dice)
    )
    phantoms = {loc for k in unread.phantoms if (loc := dice[k].location) is not None}
    blind = unread.blind - phantoms
    knights = doubt(knights, (unread.locations - blind) | phantoms, Doubt.UNREAD)
    return doubt(knights, blind, Doubt.NEVER_BARE), blind


def _tops(dice: Sequence[DieOnTable]) -> list[tuple[int, int, int, int]] | None:
    """The dice's top faces' boxes when every one was read from above (`vision.bare` then takes each die's
    place whichever way it is turned), else None (their whole-die boxes stand for them)."""
    return [d.box for d in dice] if all(d.whole is not None for d in dice) else None


def blurred(sharpness: Sharpness) -> str:
    """The status message of a blurred frame."""
    return (
        "the picture is blurred (the camera or a hand moving, or out of focus): this frame is not read; "
        + sharpness.describe()
    )


def _look(frame: Image, quad: FloatArray) -> tuple[float, float]:
    """Grey mean and standard deviation (a code's black-and-white contrast) inside a sticker's box."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = _box_of(quad)
    patch = frame[max(0, int(y0)) : min(h, int(y1) + 1), max(0, int(x0)) : min(w, int(x1) + 1)]
    if patch.size == 0:
        return 0.0, 0.0
    grey = cv2.cvtColor(np.ascontiguousarray(patch), cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    mean, std = cv2.meanStdDev(grey)
    return float(mean[0, 0]), float(std[0, 0])


def _box_of(quad: FloatArray) -> tuple[float, float, float, float]:
    xs, ys = quad[:, 0].tolist(), quad[:, 1].tolist()  # four corners: plain floats beat numpy's reductions
    return min(xs), min(ys), max(xs), max(ys)


def _overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def occluder_scale(polygons: Iterable[FloatArray]) -> float:
    """The scale at which tiles measure `OCCLUDER_TILE_PX` from centre to corner."""
    radii = [mean_radius(p) for p in polygons]
    if not radii:
        return 0.25
    scale = float(np.clip(OCCLUDER_TILE_PX / max(float(np.median(radii)), 1.0), 0.05, 1.0))
    return 1.0 / max(1, round(1.0 / scale))  # one over a whole number, as `occluder_mask` uses


def _same_homography(a: FloatArray | None, b: FloatArray | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def _knight_outlines(view: MapView) -> dict[str, FloatArray]:
    """The polygons of `view`'s knight locations: what the dice are found over."""
    return {k: v for k, v in view.polygons.items() if is_knight_location(k)}


def _to_reading(table: StableTable) -> TableReading:
    knights: dict[str, dict[Colour, int]] = {k: dict(v) for k, v in table.knights.items()}
    return TableReading(
        tiles=dict(table.tiles),
        knights=knights,
        artefacts=dict(table.artefacts),
        unsure=table.unsure,
        frame_index=max(0, table.frame_index),
        doubts=table.doubts,
    )


def _seen_doubts(knights: KnightsReading) -> dict[str, Doubt]:
    """`knights`' doubts on the locations it saw."""
    return {loc: why for loc, why in knights.doubts.items() if loc in knights.seen}


def default_map_reader(backend: Any = None) -> MapReader:
    """the map reader, adapted to `MapView`; each frame is read with the previous reading as a guide so the
    hex numbering stays put and tiles hidden in one frame keep their place."""
    from vision import mapreader
    from vision.qr import Backend

    chosen: Backend = backend if isinstance(backend, Backend) else Backend.ZXING
    previous: list[mapreader.MapReading] = []

    def read(image: Image) -> MapView:
        reading = mapreader.read_map(image, backend=chosen, previous=previous[0] if previous else None)
        if reading.tiles:
            previous[:] = [reading]
        return map_view(reading)

    return read


def _tile_stickers(reading: Any) -> list[tuple[str, FloatArray]]:
    """A map reading's tile stickers on its table plane (mm): those it was fitted to and those it read."""
    tags = [*reading.anchor, *reading.tags]
    return [(t.id, reading.to_table(t.corners)) for t in tags if not t.id.startswith("A")]


def tracked_view(frame: TrackedFrame, placed: TableMap) -> MapView:
    """Adapt a frame read over the confirmed map (`vision.tracking.TrackedReader`): tiles with a code found
    in this frame; every tile's outline where the pose puts it (tiles hidden by a hand are there too)."""
    tracked = frame.tracked
    pose = tracked.pose
    tile_tags: dict[str, list[FloatArray]] = {}
    for s in tracked.seen():
        tile_tags.setdefault(s.sticker.id, []).append(s.corners)
    hexes = placed.hexes
    polygons = {}
    for tid in placed.places:
        poly = pose.to_image(placed.outline(tid))
        if np.all(np.isfinite(poly)):
            polygons[tid] = poly
    problems: list[str] = []
    if tracked.track is Track.HELD:
        problems.append("most of the map's codes are hidden (a hand?) or out of place: the last pose is kept")
    elif tracked.track is Track.MOVED:
        problems.append("the camera moved: the map confirmed is placed again")
    if frame.strays:
        problems.append(f"tile stickers seen that are not on the map confirmed: {', '.join(frame.strays)}")
    return MapView(
        tiles={hexes[t]: t for t in tile_tags},
        polygons=polygons,
        image_to_table=pose.image_to_table,
        tag_quads=[q for quads in tile_tags.values() for q in quads] + list(frame.cards.values()),
        tags_per_tile={t: len(q) for t, q in tile_tags.items()},
        artefact_quads=dict(frame.cards),
        problems=tuple(problems),
        tile_tags=tile_tags,
        source=frame,
        sharpness=frame.sharpness,
    )


def map_view(reading: Any) -> MapView:
    """Adapt `vision.mapreader.MapReading`: tiles seen in this frame; polygons for those and for tiles
    kept from earlier frames (`inferred`): their outline from the reading (a still table keeps each tile's
    own, as its stickers placed it), else their lattice cell's."""
    inferred = frozenset(reading.inferred)
    tiles = {h: t for h, t in reading.tiles.items() if t not in inferred}
    polygons: dict[str, FloatArray] = {t: np.asarray(p, np.float64) for t, p in reading.tile_polygons.items()}
    for t in inferred - set(polygons):
        hx = reading.hexes.get(t)
        poly = reading.polygon_of(hx) if hx is not None else None
        if poly is not None:
            polygons[t] = np.asarray(poly, np.float64)
    homography = None if reading.homography is None else np.asarray(reading.homography, np.float64)
    tile_tags: dict[str, list[FloatArray]] = {}
    for tag in reading.tags:
        if not tag.id.startswith("A"):
            tile_tags.setdefault(tag.id, []).append(np.asarray(tag.corners, np.float64))
    return MapView(
        tiles=tiles,
        polygons=polygons,
        image_to_table=homography,
        tag_quads=[np.asarray(t.corners, np.float64) for t in reading.tags],
        tags_per_tile=dict(reading.tags_per_tile),
        artefact_quads={k: np.asarray(v.corners, np.float64) for k, v in reading.cards.items()},
        problems=tuple(reading.problems),
        source=reading,
        tile_tags=tile_tags,
    )

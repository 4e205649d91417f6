"""Read the map from a frame: which tile lies on which hex, and where each tile is in the image.

1. Find the stickers once, on the whole frame (frames wider than 2000 px are halved first).
2. Fit the table plane to the codes (`vision.geometry`; with the camera's barrel distortion when the codes
   spread over the frame say it, once, kept by later frames: `lens`) and estimate each tile's centre on the
   table: a code's "up" points at the tile edge it is stuck against, so the centre lies
   `STICKER_CENTRE_OFFSET_MM` behind it. One sticker places its tile; nobody looks for the second.
3. Fit the hex lattice and assign hexes (`vision.hexfit`).
4. Look again only where a tile may be unread: lattice cells next to the tiles read that look like sticker
   paper or dice on a cheap strong-edge map (`_Busy`) and hold no code read (plus, with a previous reading,
   the cells of its tiles missing now). Small codes and such a cell: first one more whole-frame pass with
   twice the pixels; then crops of those cells at full resolution, enlarged and sharpened, repeated while the
   map grows; last, cells that still look like a hidden tile, enlarged 3x and deblurred hard. Fit again.
5. With a `previous` reading, keep its hex numbering (the origin follows the tiles, not the frame) and keep
   tiles that are hidden this frame as `inferred` (and `unsure`). Cells that hold a tile nobody could name
   in this frame (codes all covered) are `unknown_hexes`: occupied, never guessed (docs/stickers.md).
6. Cards no decode read: found by their codes' look on the plane (`_cards_by_look`: where `previous` saw
   them, and at places beside the map that look like a code, named by `vision.recognise`).

A still table skips 2..4: when every tile sticker read in step 1 lies where a sticker of the same tile lay
at `previous`'s plane fit, or, read for the first time, places its tile where that fit has it, and
`previous` named every tile it saw and left no cell next to the map that looks like an unread tile
(`loose_hexes`, unless `LOOSE_SEARCHES` fresh fits in a row left the same ones; `unmoved`: the camera is on
a stand and nobody moved a tile),
`previous`'s plane, lattice and outlines stand, and only what the codes say anew is taken from the frame:
which tiles show a sticker (the others are `inferred`), which cards lie face up, which codes were ignored; a
tile none of whose codes the whole-frame pass read, and a card `previous` saw that it missed, are decoded
again where their codes were, and such a card is then looked for by its look where it lay. A frame after
set-up costs about half of a fitted one (the decode and those crops); any sticker out of place, a new tile,
another frame size fits afresh.

Never raises on bad input: a black frame, garbage, a frame without stickers give a status and a reason.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.hexgrid import Hex
from vision.artefacts import card_region
from vision.errors import FrameError, TagRejection
from vision.geometry import LENS_CODES, PINHOLE, Lens, PlaneFit, apply_homography, fit_plane
from vision.hexfit import (
    Lattice,
    LatticeFit,
    TileEstimate,
    align_numbering,
    fit_lattice,
    renumbered,
    rotate60,
)
from vision.qr import (
    PYZBAR_MAX_UPSCALE,
    Backend,
    DecodeResult,
    IgnoredCode,
    TagDetection,
    decode_tags,
    to_gray,
)
from vision.recognise import candidates, recognise
from vision.tags import (
    CODE_MM,
    STICKER_CENTRE_OFFSET_MM,
    STICKERS_PER_TILE,
    TILE_ACROSS_FLATS_MM,
    TagKind,
    TagPayload,
    all_sticker_ids,
    kind_of,
)
from vision.tracking import KnownSticker, Pose, sight

if TYPE_CHECKING:
    from engine.catalogue import Catalogue

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float64]

REDUCED_MAX_SIDE = 2000  # frames larger than this are searched at half resolution first
# refinement enlarges (and sharpens) crops so modules reach about this size, for either decoder (zbar misread
# 1.9 px modules enlarged to 3.5 px; its crops cost more, but its refine budget allows for that)
TARGET_MODULE_PX = 5.5
MAX_REFINE_CROPS = 80
# the map grows by a ring of cells per round when the first pass read few tiles (small, blurred codes);
# zbar's crops cost ten times zxing's, so it keeps to fewer rounds
REFINE_ROUNDS = {Backend.ZXING: 8, Backend.PYZBAR: 3}
# how far from the tiles read the rounds look for more (busy cells only): zbar's whole-frame pass misses a
# blurred castle standing a cell apart from the map that zxing's reads (seed 200005's K1)
SEARCH_REACH = {Backend.ZXING: 1, Backend.PYZBAR: 2}
# no new refinement round starts after this much time on a frame (keeps a live camera responsive);
# SENESCHAL_REFINE_BUDGET_MS overrides both ("inf": no limit) so that tests and benchmarks of accuracy do not
# depend on how loaded the machine is
REFINE_BUDGET_MS = {Backend.ZXING: 150.0, Backend.PYZBAR: 2000.0}
if os.environ.get("SENESCHAL_REFINE_BUDGET_MS"):
    try:
        _budget = float(os.environ["SENESCHAL_REFINE_BUDGET_MS"])
        REFINE_BUDGET_MS = {backend: _budget for backend in REFINE_BUDGET_MS}
    except ValueError:
        logging.getLogger(__name__).warning(
            "ignoring SENESCHAL_REFINE_BUDGET_MS=%r: not a number of milliseconds",
            os.environ["SENESCHAL_REFINE_BUDGET_MS"],
        )
CARD_LOOKS = 8  # places beside the map that look like a code, named by their look per fitted frame at most
_CARD_IDS = tuple(i for i in all_sticker_ids() if kind_of(i) is TagKind.ARTEFACT)
ESCALATE_MODULE_PX = 2.6  # below this (in the searched image), search again at twice the resolution
LAST_TRIES = 6  # rounds of last tries at most: each follows a tile found, whose neighbours may be blind too
DEBLUR = 2.0  # how hard the last tries deblur their crops (`_deblurred`)
BUSY_CELL = 0.1  # share of strong edges in a cell's middle above which it may hold a sticker worth decoding
ESCALATE_CELL = 0.25  # ... above which an unread cell next to the map is worth a second whole-frame pass
UNKNOWN_CELL = 0.25  # ... above which an unread cell between read tiles counts as an occupied, unknown tile
# Frames in a row fitted afresh, each searching, while the same cells beside the map look like unread tiles
# (`loose_hexes`): after these, such cells are taken for what no search reads (a dice tray, a notepad,
# paper) and a still table keeps its fit again until a sticker moves or new cells look so.
LOOSE_SEARCHES = 3
# The camera and the tiles have not moved when every tile sticker read has its centre within this of where it
# lay at the last plane fit, and each corner within twice that: zxing gives whole-pixel corners that move by
# 2..3 px when the light changes; a tile moved far enough to matter (a few millimetres) moves its codes by
# more, and then the frame is fitted afresh.
STILL_PX = 3.0
STILL_MODULES = 1.5  # ... or this many of the code's modules, whichever is more
STILL_TAGS = 3  # ... and at least this many stickers read to tell
# A sticker read for the first time (its tile's other one placed the tile) has not moved when it puts its
# tile's centre within this of where the tile was: the benchmark's tables, 1080p, 1.2 mm for 95 % of stickers
# read before, 2.7 mm at most for those read first; tiles whose stickers were stuck on by hand differ more.
STILL_NEW_MM = 4.0


class MapStatus(Enum):
    OK = "ok"  # every tile seen was placed on the grid
    PARTIAL = "partial"  # tiles read, with problems listed (conflicts, tiles off the grid)
    NO_TAGS = "no-tags"  # a picture, but none of our tile stickers in it
    BLANK = "blank"  # a uniform frame: lens covered, lights off, camera not delivering
    BAD_FRAME = "bad-frame"  # not an image we can read


@dataclass(frozen=True, slots=True, eq=False)
class MapReading:
    """The map as seen in one frame."""

    status: MapStatus
    tiles: dict[Hex, str] = field(default_factory=dict)  # the layout engine.maps.Board.from_layout takes
    hexes: dict[str, Hex] = field(default_factory=dict)
    tile_polygons: dict[str, FloatArray] = field(default_factory=dict)  # 6x2 image px, each tile's outline
    tile_centres: dict[str, tuple[float, float]] = field(default_factory=dict)  # image px
    homography: FloatArray | None = None  # image px (undistorted by `lens`) -> table mm
    table_to_image: FloatArray | None = None  # table mm -> image px (to distort by `lens`)
    lens: Lens = PINHOLE  # the camera's distortion, as the codes said it (`vision.geometry`)
    lens_settled: bool = False  # fitted on enough codes (or given by an earlier frame): later frames keep it
    lattice: Lattice | None = None
    hex_size_mm: float = TILE_ACROSS_FLATS_MM / math.sqrt(3.0)
    hex_size_px: float = 0.0  # centre-to-corner in the image, near the map's centre
    tags: tuple[TagDetection, ...] = ()
    ignored: tuple[IgnoredCode, ...] = ()
    cards: dict[str, TagDetection] = field(default_factory=dict)  # artefact stickers seen (face-up cards)
    tags_per_tile: dict[str, int] = field(default_factory=dict)
    unsure: frozenset[str] = frozenset()
    inferred: frozenset[str] = frozenset()  # kept from `previous`, not seen in this frame
    # lattice cells inside or against the map that hold a tile whose stickers are all hidden in this frame
    # (sticker paper, dice or a hand there, no code read): occupied, tile unknown; never in `tiles`
    unknown_hexes: frozenset[Hex] = frozenset()
    # empty lattice cells next to the map that look like a tile's sticker paper yet gave no code, even after
    # the search: a tile may lie there, unread (`unmoved` then fits the next frame afresh, which searches, for
    # `LOOSE_SEARCHES` frames in a row)
    loose_hexes: frozenset[Hex] = frozenset()
    loose_searches: int = 0  # frames in a row, this one included, fitted afresh that left these loose_hexes
    problems: tuple[str, ...] = ()
    frame_size: tuple[int, int] = (0, 0)
    elapsed_ms: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    # the tile stickers the plane and lattice were fitted to (this frame's, or an earlier one's when nothing
    # has moved since: `unmoved`)
    anchor: tuple[TagDetection, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is MapStatus.OK

    def layout(self) -> dict[Hex, str]:
        return dict(self.tiles)

    def polygon_of(self, hx: Hex) -> FloatArray | None:
        """The image outline of lattice cell `hx` (where a tile there would lie), if the plane is known."""
        if self.lattice is None or self.table_to_image is None:
            return None
        if not self.hexes:
            return None
        return self.to_image(self.lattice.corners(self.lattice.centre(hx)))

    def to_table(self, px: FloatArray) -> FloatArray:
        """Image px -> table mm (the plane must be known: `homography`)."""
        if self.homography is None:
            raise ValueError("a map reading without a table plane maps no pixel to the table")
        return apply_homography(self.homography, self.lens.undistort(px))

    def to_image(self, mm: FloatArray) -> FloatArray:
        """Table mm -> image px (the plane must be known: `table_to_image`)."""
        if self.table_to_image is None:
            raise ValueError("a map reading without a table plane maps no table point to the image")
        return self.lens.distort(apply_homography(self.table_to_image, mm))

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "tiles": [{"hex": h.to_json(), "id": t} for h, t in sorted(self.tiles.items())],
            "tile_polygons": {k: np.round(v, 1).tolist() for k, v in sorted(self.tile_polygons.items())},
            "cards": sorted(self.cards),
            "unsure": sorted(self.unsure),
            "inferred": sorted(self.inferred),
            "unknown_hexes": [h.to_json() for h in sorted(self.unknown_hexes)],
            "loose_hexes": [h.to_json() for h in sorted(self.loose_hexes)],
            "ignored": [{"text": i.text, "reason": i.reason.value, "detail": i.detail} for i in self.ignored],
            "problems": list(self.problems),
            "hex_size_px": round(self.hex_size_px, 2),
            "elapsed_ms": round(self.elapsed_ms, 2),
        }


def _failed(status: MapStatus, problem: str, size: tuple[int, int], start: float) -> MapReading:
    return MapReading(
        status, problems=(problem,), frame_size=size, elapsed_ms=(time.perf_counter() - start) * 1000.0
    )


def read_map(
    frame: object,
    catalogue: Catalogue | None = None,
    *,
    backend: Backend = Backend.ZXING,
    previous: MapReading | None = None,
    refine: bool = True,
    budget_ms: float | None = None,
) -> MapReading:
    """Read the map from a BGR (or grey) frame up to 3840x2160. See the module docstring."""
    start = time.perf_counter()
    timings: dict[str, float] = {}
    try:
        if not isinstance(frame, np.ndarray):
            raise FrameError(f"a frame is a numpy image, got {type(frame).__name__}")
        gray = to_gray(frame)
    except FrameError as exc:
        return _failed(MapStatus.BAD_FRAME, str(exc), (0, 0), start)
    h, w = gray.shape
    size = (w, h)
    small = gray[:: max(1, h // 64), :: max(1, w // 64)]
    if float(small.std()) < 2.0:
        return _failed(
            MapStatus.BLANK,
            f"the frame is blank (uniform grey level {float(small.mean()):.0f}): "
            "lens covered, lights off, or the camera sends nothing",
            size,
            start,
        )

    # 1. find at reduced resolution
    # (pyzbar's candidate search works at reduced resolution by itself and decodes full-resolution crops)
    factor = 2 if max(w, h) > REDUCED_MAX_SIDE and backend is Backend.ZXING else 1
    work = cv2.resize(gray, (w // factor, h // factor), interpolation=cv2.INTER_AREA) if factor > 1 else gray
    t0 = time.perf_counter()
    first = decode_tags(work, backend)
    timings["decode_ms"] = (time.perf_counter() - t0) * 1000.0
    tags = [_scaled(t, factor) for t in first.tags]
    ignored = [_scaled_ignored(i, factor) for i in first.ignored]
    known = _known_ids(catalogue)
    tile_tags, cards, rejected = _split(tags, known)
    ignored.extend(rejected)
    if previous is not None and frame.shape[:2] == previous.frame_size[::-1] and unmoved(previous, tile_tags):
        return _as_before(previous, gray, tile_tags, cards, ignored, known, backend, timings, start)
    # With a previous reading that shares tiles with this frame we are "warm": the map does not change
    # during a game, so only tiles the previous reading had and this frame lacks are looked for again.
    prev_ids = set(previous.hexes) if previous is not None else set()
    found_ids = {t.payload.id for t in tile_tags}
    warm = bool(prev_ids & found_ids)

    # Small modules (a big map in a 1080p frame, a far camera) or nothing found: search again with more
    # pixels per module, the full-resolution frame or, when that is what we searched, an enlarged one. Cold,
    # that second pass costs more than the first, so it runs only when it can change the map: no tile read,
    # or a lattice cell next to the tiles read that holds sticker-like paper but no code read (a tile none of
    # whose codes was read; the bare table and read cards do not count).
    module = float(np.median([t.module_px for t in first.tags])) if first.tags else 0.0
    busy = _Busy(gray) if refine else None
    initial = previous.homography if previous is not None and warm else None
    lens = _Lensing(previous if previous is not None and previous.frame_size == size else None, size)
    solution = lens.solve(tile_tags, initial)
    if warm:
        need_more = len(prev_ids & found_ids) < 0.5 * len(prev_ids)
    elif busy is None or solution is None:
        need_more = True
    else:
        need_more = module < ESCALATE_MODULE_PX and _unexplained_cells(
            solution, busy, _others(cards, ignored)
        )
    if refine and backend is Backend.ZXING and need_more:
        t0 = time.perf_counter()
        second = decode_tags(gray, backend) if factor > 1 else decode_tags(gray, backend, upscale=2.0)
        timings["escalate_ms"] = (time.perf_counter() - t0) * 1000.0
        more_tiles = _absorb(second, known, cards, ignored)
        if solution is None and not more_tiles:
            # Still nothing: codes blurred across 2 px modules. Sharpen the whole frame once (a frame with no
            # table in it pays for this too: about three first passes).
            enlarge = 2.0 if factor == 1 else 1.0
            third = decode_tags(gray, backend, regions=[(0, 0, w, h)], upscale=enlarge, sharpen=True)
            more_tiles = _absorb(third, known, cards, ignored)
            timings["escalate_ms"] = (time.perf_counter() - t0) * 1000.0
        tile_tags = _merge(tile_tags, more_tiles)
        if len(more_tiles) or solution is None:
            solution = lens.solve(tile_tags, initial if solution is None else solution[0].image_to_table)

    # zxing's crops are always sharpened; zbar's only in a frame where it read no tile unsharpened (blur
    # across 2 px modules: sharpening every frame's crops costs sharp codes theirs). Enlarged as far as zbar's
    # crops go: the candidates' size, which sets the usual enlargement, overstates small modules when dice
    # and pairs of stickers make up the candidates (seed 200004: 1.4 px modules taken for 2.7).
    sharpen = backend is Backend.ZXING
    if refine and backend is Backend.PYZBAR and solution is None:
        sharpen = True
        t0 = time.perf_counter()
        more = decode_tags(gray, backend, upscale=PYZBAR_MAX_UPSCALE, sharpen=True)
        more_tiles = _absorb(more, known, cards, ignored)
        timings["escalate_ms"] = (time.perf_counter() - t0) * 1000.0
        if more_tiles:
            tile_tags = _merge(tile_tags, more_tiles)
            solution = lens.solve(tile_tags, initial)

    # refine at full resolution where the lattice expects stickers we did not read; a tile found this way
    # makes its own neighbours worth a look, so repeat (each spot is tried once)
    if refine and solution is not None:
        t0 = time.perf_counter()
        tried: set[tuple[str, object]] = set()
        budget = budget_ms if budget_ms is not None else REFINE_BUDGET_MS[backend]
        for _round in range(REFINE_ROUNDS[backend]):
            if (time.perf_counter() - start) * 1000.0 > budget:
                break
            # cold: the empty cells around the tiles read, less the bare table and cards read; warm: the
            # cells of the previous reading's tiles missing now, and those busy cells too (the previous
            # reading may itself have missed a tile)
            cells = _cells_to_search(solution, None, SEARCH_REACH[backend])
            if busy is not None:
                seen = _explained(solution, _others(cards, ignored))
                cells = [c for c in cells if c not in seen and busy.share(solution, c) >= BUSY_CELL]
            if warm:
                cells = sorted(set(cells) | set(_cells_to_search(solution, previous)))
            lost_cards = [] if previous is None or _round else _boxes_of_lost_cards(previous, cards, w, h)
            extra = _refine(
                gray,
                solution,
                tile_tags,
                backend,
                cells=cells,
                tried=tried,
                extra_boxes=lost_cards,
                sharpen=sharpen,
            )
            if not (extra.tags or extra.ignored):
                break
            new_tiles = _merge(tile_tags, _absorb(extra, known, cards, ignored))
            if len(new_tiles) == len(tile_tags):
                break
            grew = len({t.payload.id for t in new_tiles}) > len({t.payload.id for t in tile_tags})
            tile_tags = new_tiles
            if not grew:  # only second stickers of tiles already placed: the fit stands
                break
            solution = lens.solve(tile_tags, solution[0].image_to_table if solution else None)
            if solution is None:
                break
        # last tries: cells that look like a tile with stickers but gave no code (blur across 2 px
        # modules): enlarge more and deblur hard; costly per crop, so only these few cells
        if busy is not None and solution is not None:
            for _try in range(LAST_TRIES):
                if solution is None:
                    break
                blind = sorted(_unknown_cells(solution, busy, _others(cards, ignored)))
                if not blind or (time.perf_counter() - start) * 1000.0 > budget:
                    break
                last = _refine(gray, solution, tile_tags, backend, cells=blind, tried=set(), deblur=True)
                more_tiles = _absorb(last, known, cards, ignored, foreign=False)
                if not more_tiles:
                    break
                tile_tags = _merge(tile_tags, more_tiles)
                solution = lens.solve(tile_tags, solution[0].image_to_table)
        timings["refine_ms"] = (time.perf_counter() - t0) * 1000.0
        if solution is not None and (time.perf_counter() - start) * 1000.0 <= budget:
            t0 = time.perf_counter()
            cards.update(_cards_by_look(gray, solution, cards, previous, known))
            timings["cards_ms"] = (time.perf_counter() - t0) * 1000.0
    all_tags = tuple(tile_tags) + tuple(cards.values())
    if solution is None:
        problem = "no tile stickers found in the frame"
        if ignored:
            problem += f" ({len(ignored)} QR code(s) that are not ours ignored)"
        return MapReading(
            MapStatus.NO_TAGS,
            tags=all_tags,
            ignored=tuple(ignored),
            cards=cards,
            problems=(problem,),
            frame_size=size,
            elapsed_ms=(time.perf_counter() - start) * 1000.0,
            timings=timings,
        )
    plane, estimates, fit, problems, unsure = solution
    reading = _assemble(plane, estimates, fit, tile_tags, problems=problems, unsure=unsure)
    unknown: set[Hex] = set()
    loose: set[Hex] = set()
    if busy is not None:
        others = _others(cards, ignored)
        unknown = _unknown_cells(solution, busy, others)
        loose = _loose_cells(solution, busy, others) - unknown
    if previous is not None and previous.hexes:
        reading = _follow_previous(reading, previous, plane)
        if unknown or loose:  # the previous numbering; a cell the previous reading fills is inferred
            aligned = align_numbering(dict(solution[2].hexes), reading["hexes"])
            if aligned is not None:
                turn, shift = aligned
                unknown = {rotate60(h, turn) + shift for h in unknown}
                loose = {rotate60(h, turn) + shift for h in loose}
            unknown -= set(reading["tiles"])
            loose -= set(reading["tiles"])
    searches = 0
    if loose:  # in the previous reading's numbering when there is one
        searches = 1
        if previous is not None and previous.loose_hexes == loose:
            searches = previous.loose_searches + 1
    status = MapStatus.OK if not reading["problems"] else MapStatus.PARTIAL
    return MapReading(
        status=status,
        tiles=reading["tiles"],
        hexes=reading["hexes"],
        tile_polygons=reading["polygons"],
        tile_centres=reading["centres"],
        homography=plane.image_to_table,
        table_to_image=plane.table_to_image,
        lens=plane.lens,
        lens_settled=lens.settled,
        lattice=reading["lattice"],
        hex_size_mm=reading["lattice"].hex_size,
        hex_size_px=reading["hex_size_px"],
        tags=all_tags,
        ignored=tuple(ignored),
        cards=cards,
        tags_per_tile=reading["tags_per_tile"],
        unsure=frozenset(reading["unsure"]),
        inferred=frozenset(reading["inferred"]),
        unknown_hexes=frozenset(unknown),
        loose_hexes=frozenset(loose),
        loose_searches=searches,
        problems=tuple(reading["problems"]),
        frame_size=size,
        elapsed_ms=(time.perf_counter() - start) * 1000.0,
        timings=timings,
        anchor=tuple(tile_tags),
    )


def unmoved(previous: MapReading, tile_tags: Sequence[TagDetection]) -> bool:
    """Whether the tile stickers read in a frame show the table exactly as `previous` had it: every one lies
    where a sticker of the same tile lay at `previous`'s plane fit (`STILL_PX`, `STILL_MODULES`), and enough
    were read to tell. Stickers not read (under dice, a hand) do not count against it."""
    if previous.status is not MapStatus.OK or previous.lattice is None or len(tile_tags) < STILL_TAGS:
        return False
    # Not the whole map, or maybe not: fit afresh, which looks for the tiles it could not name or read (a
    # tile whose stickers the set-up frame missed is otherwise never looked for while the table stays still);
    # cells beside the map that `LOOSE_SEARCHES` searches in a row left as they were are not looked for again
    if previous.unknown_hexes or (previous.loose_hexes and previous.loose_searches < LOOSE_SEARCHES):
        return False
    by_tile: dict[str, list[TagDetection]] = {}
    for a in previous.anchor:
        by_tile.setdefault(a.payload.id, []).append(a)
    return all(
        any(_same_place(t, a) for a in by_tile.get(t.payload.id, ())) or _places_as_before(t, previous)
        for t in tile_tags
    )


def _places_as_before(tag: TagDetection, previous: MapReading) -> bool:
    """A sticker `previous`'s fit did not use (its tile's other one, hidden or unread then) that puts its
    tile's centre where `previous` has it, within `STILL_NEW_MM`: read for the first time, not moved (a
    table's first frame with knights read 11 of the benchmark's 72 1080p tables afresh for that)."""
    centre = previous.tile_centres.get(tag.payload.id)
    if centre is None or previous.homography is None:
        return False
    placed, _turn = _tile_centre(previous.to_table(tag.corners))
    before = previous.to_table(np.array([centre], np.float64))[0]
    return float(np.linalg.norm(placed - before)) <= STILL_NEW_MM


def _tile_centre(corners_mm: FloatArray) -> tuple[FloatArray, float]:
    """Where a sticker (its corners on the table, mm) puts its tile's centre, and which way it points
    (radians): the centre lies `STICKER_CENTRE_OFFSET_MM` behind the code."""
    centre = corners_mm.mean(axis=0)
    up = (corners_mm[0] + corners_mm[1]) / 2 - (corners_mm[3] + corners_mm[2]) / 2
    n = float(np.linalg.norm(up)) or 1.0
    up = up / n
    return centre - up * STICKER_CENTRE_OFFSET_MM, math.atan2(float(up[1]), float(up[0]))


def _same_place(tag: TagDetection, before: TagDetection) -> bool:
    """The same tile's sticker, where it was (`STILL_PX`, `STILL_MODULES`)."""
    if tag.payload.id != before.payload.id:
        return False
    tol = max(STILL_PX, STILL_MODULES * tag.module_px)
    # each corner's shift, in plain floats (numpy's numbers; its overhead was most of a still frame's check)
    shift = [
        math.sqrt((x0 - x1) * (x0 - x1) + (y0 - y1) * (y0 - y1))
        for (x0, y0), (x1, y1) in zip(tag.corners.tolist(), before.corners.tolist(), strict=True)
    ]
    return sum(shift) / len(shift) <= tol and max(shift) <= 2.0 * tol


def _as_before(  # noqa: PLR0917
    previous: MapReading,
    gray: npt.NDArray[np.uint8],
    tile_tags: list[TagDetection],
    cards: dict[str, TagDetection],
    ignored: list[IgnoredCode],
    known: frozenset[str] | None,
    backend: Backend,
    timings: dict[str, float],
    start: float,
) -> MapReading:
    """`previous`'s map for a frame in which nothing has moved (`unmoved`): its plane, lattice and outlines
    stand; this frame's codes say which tiles show their stickers, which cards lie face up, what was ignored.
    Tiles none of whose stickers this frame's pass read, and cards `previous` saw that it missed, are looked
    for where their codes were, enlarged and sharpened, as a frame fitted afresh looks again in the cells of
    the tiles it lacks (glare or blur, not only dice and hands, hide a code from the whole-frame pass)."""
    h, w = gray.shape
    read = {t.payload.id for t in tile_tags}
    missing = [a for a in previous.anchor if a.payload.id not in read]
    boxes = [_box_of_code(a.corners, w, h) for a in missing] + _boxes_of_lost_cards(previous, cards, w, h)
    if boxes:
        more_tiles = _absorb(_decode_boxes(gray, tile_tags, backend, boxes), known, cards, ignored)
        # a sticker found again counts where it was: the plane stands only for stickers that did not move
        tile_tags = _merge(tile_tags, [t for t in more_tiles if any(_same_place(t, a) for a in missing)])
    cards.update(_cards_where_they_were(gray, previous, cards))
    seen = {t.payload.id for t in tile_tags}
    inferred = frozenset(t for t in previous.hexes if t not in seen)
    fitted_unsure = previous.unsure - previous.inferred
    counts = Counter(t.payload.id for t in tile_tags)
    return replace(
        previous,
        tags=tuple(tile_tags) + tuple(cards.values()),
        ignored=tuple(ignored),
        cards=cards,
        tags_per_tile={k: min(v, STICKERS_PER_TILE) for k, v in counts.items()},
        unsure=frozenset(fitted_unsure | inferred),
        inferred=inferred,
        elapsed_ms=(time.perf_counter() - start) * 1000.0,
        timings=timings,
    )


# --- steps --------------------------------------------------------------------------------------------------


def _scaled(t: TagDetection, factor: int) -> TagDetection:
    if factor == 1:
        return t
    return TagDetection(t.payload, (t.corners + 0.5) * factor - 0.5, t.backend)


def _scaled_ignored(i: IgnoredCode, factor: int) -> IgnoredCode:
    if factor == 1 or i.corners is None:
        return i
    return IgnoredCode(i.text, i.reason, i.detail, (i.corners + 0.5) * factor - 0.5)


def _seen(ignored: Sequence[IgnoredCode], item: IgnoredCode) -> bool:
    return any(i.text == item.text for i in ignored)


def _known_ids(catalogue: Catalogue | None) -> frozenset[str] | None:
    if catalogue is None:
        return None
    ids = set(catalogue.tile_ids)
    ids.update(a.id for a in catalogue.artefacts)
    return frozenset(ids)


def _split(
    tags: Sequence[TagDetection], known: frozenset[str] | None
) -> tuple[list[TagDetection], dict[str, TagDetection], list[IgnoredCode]]:
    tiles: list[TagDetection] = []
    cards: dict[str, TagDetection] = {}
    rejected: list[IgnoredCode] = []
    for t in tags:
        if known is not None and t.payload.id not in known:
            detail = f"{t.payload.id!r} is not in this box's catalogue"
            log.info("QR code %r ignored: %s", t.payload.text, detail)
            rejected.append(IgnoredCode(t.payload.text, TagRejection.UNKNOWN_ID, detail, t.corners))
        elif t.payload.kind is TagKind.ARTEFACT:
            cards.setdefault(t.payload.id, t)
        else:
            tiles.append(t)
    return tiles, cards, rejected


def _merge(old: list[TagDetection], new: list[TagDetection]) -> list[TagDetection]:
    out = list(old)
    for t in new:
        c = np.array(t.centre)
        size = t.module_px * 21
        if any(
            o.payload.id == t.payload.id and float(np.linalg.norm(np.array(o.centre) - c)) < 0.5 * size
            for o in out
        ):
            continue
        out.append(t)
    return out


_Solution = tuple[PlaneFit, dict[str, TileEstimate], LatticeFit, list[str], set[str]]


class _Lensing:
    """A frame's lens: an earlier frame's, when it settled one; else fitted with the plane (`fit_plane`),
    once, on the first fit with enough codes, and kept for the frame's later fits."""

    def __init__(self, previous: MapReading | None, size: tuple[int, int]) -> None:
        self.size = size
        self.lens: Lens | None = previous.lens if previous is not None and previous.lens_settled else None

    @property
    def settled(self) -> bool:
        return self.lens is not None

    def solve(self, tile_tags: Sequence[TagDetection], initial: FloatArray | None) -> _Solution | None:
        solution = _solve(tile_tags, initial, lens=self.lens, frame=self.size)
        if solution is not None and self.lens is None and len(tile_tags) >= LENS_CODES:
            self.lens = solution[0].lens
        return solution


def _solve(
    tile_tags: Sequence[TagDetection],
    initial: FloatArray | None = None,
    *,
    lens: Lens | None = None,
    frame: tuple[int, int] | None = None,
) -> _Solution | None:
    if not tile_tags:
        return None
    plane = fit_plane([t.corners for t in tile_tags], CODE_MM, initial=initial, lens=lens, frame=frame)
    if plane is None:
        return None
    problems: list[str] = []
    unsure: set[str] = set()
    # a sticker that refuses to be a square on the plane (misread corners, a curled sticker) places its tile
    # only when nothing else does, and then the tile is unsure
    outliers = {tile_tags[i].payload.id for i in plane.outliers}
    inlier_ids = {tile_tags[i].payload.id for i in plane.inliers}
    per_id: dict[str, list[tuple[FloatArray, float]]] = {}
    for k, t in enumerate(tile_tags):
        if k in plane.outliers and t.payload.id in inlier_ids:
            log.debug(
                "sticker %s does not fit the table plane; its tile's other sticker is used", t.payload.text
            )
            continue
        per_id.setdefault(t.payload.id, []).append(_tile_centre(plane.to_table(t.corners)))
    estimates: dict[str, TileEstimate] = {}
    for tid, obs in per_id.items():
        clusters = _cluster([o[0] for o in obs], 0.35 * TILE_ACROSS_FLATS_MM)
        clusters.sort(key=len, reverse=True)
        main = clusters[0]
        if len(clusters) > 1:
            problems.append(
                f"tile {tid} seen at {len(clusters)} places (duplicate stickers?); "
                f"using the one with {len(main)} sticker(s)"
            )
            unsure.add(tid)
        pts = np.array([obs[i][0] for i in main])
        centre = pts.mean(axis=0)
        spread = float(np.max(np.linalg.norm(pts - centre, axis=1))) if len(pts) > 1 else 0.0
        estimates[tid] = TileEstimate(
            tid, float(centre[0]), float(centre[1]), obs[main[0]][1], len(main), spread
        )
    unsure.update(outliers - inlier_ids)
    fit = fit_lattice(list(estimates.values()))
    if fit is None:
        return None
    problems.extend(fit.problems)
    unsure.update(fit.unassigned)
    return plane, estimates, fit, problems, unsure


def _cluster(points: list[FloatArray], radius: float) -> list[list[int]]:
    clusters: list[list[int]] = []
    for i, p in enumerate(points):
        for c in clusters:
            if float(np.linalg.norm(points[c[0]] - p)) < 2 * radius:
                c.append(i)
                break
        else:
            clusters.append([i])
    return clusters


def _tile_turn(angle: float | None, lattice: Lattice) -> float:
    """A tile's own rotation off the lattice, from a sticker's edge normal (mod 60 degrees)."""
    if angle is None:
        return 0.0
    w = math.pi / 3
    return float((angle - lattice.angle + w / 2) % w - w / 2)


def _assemble(
    plane: PlaneFit,
    estimates: Mapping[str, TileEstimate],
    fit: LatticeFit,
    tile_tags: Sequence[TagDetection],
    *,
    problems: list[str],
    unsure: set[str],
) -> dict[str, Any]:
    lattice = fit.lattice
    polygons: dict[str, FloatArray] = {}
    centres: dict[str, tuple[float, float]] = {}
    for tid, est in estimates.items():
        corners = lattice.corners((est.x, est.y), _tile_turn(est.angle, lattice))
        polygons[tid] = plane.to_image(corners)
        c = plane.to_image(np.array([[est.x, est.y]]))[0]
        centres[tid] = (float(c[0]), float(c[1]))
    counts = Counter(t.payload.id for t in tile_tags)
    tiles = {h: tid for tid, h in fit.hexes.items()}
    mid = np.mean([[e.x, e.y] for e in estimates.values()], axis=0)
    hex_px = lattice.hex_size * plane.px_per_mm(float(mid[0]), float(mid[1]))
    return {
        "tiles": tiles,
        "hexes": dict(fit.hexes),
        "polygons": polygons,
        "centres": centres,
        "lattice": lattice,
        "hex_size_px": hex_px,
        "tags_per_tile": {k: min(v, STICKERS_PER_TILE) for k, v in counts.items()},
        "unsure": set(unsure),
        "inferred": set(),
        "problems": list(problems),
    }


def _follow_previous(reading: dict[str, Any], previous: MapReading, plane: PlaneFit) -> dict[str, Any]:
    """Renumber hexes to agree with the previous reading and keep its tiles hidden in this frame."""
    hexes: dict[str, Hex] = reading["hexes"]
    aligned = align_numbering(hexes, previous.hexes)
    if aligned is None:  # nothing in common: a different table, or the camera moved a lot
        return reading
    k, delta = aligned
    if k or delta != Hex(0, 0):
        hexes = {t: rotate60(h, k) + delta for t, h in hexes.items()}
        reading["lattice"] = renumbered(reading["lattice"], k, delta)
    for t, h in hexes.items():
        if t in previous.hexes and previous.hexes[t] != h:
            log.info("tile %s moved from %s to %s", t, previous.hexes[t], h)
    tiles = {h: t for t, h in hexes.items()}
    lattice: Lattice = reading["lattice"]
    inferred = set()
    for t, h in previous.hexes.items():
        if t not in hexes and h not in tiles:
            tiles[h] = t
            hexes[t] = h
            inferred.add(t)
            centre = lattice.centre(h)
            reading["polygons"][t] = plane.to_image(lattice.corners(centre))
            c = plane.to_image(np.array([centre]))[0]
            reading["centres"][t] = (float(c[0]), float(c[1]))
    reading["tiles"] = tiles
    reading["hexes"] = hexes
    reading["inferred"] = inferred
    reading["unsure"] = set(reading["unsure"]) | inferred
    return reading


def _cells_to_search(solution: _Solution, previous: MapReading | None, reach: int = 1) -> list[Hex]:
    """Lattice cells (current numbering) worth decoding again: cold, the empty cells up to `reach` cells from
    the tiles found; warm, the cells where the previous reading had tiles that this frame lacks."""
    _plane, _estimates, fit, _problems, _unsure = solution
    occupied = set(fit.hexes.values())
    if previous is None:
        near = {hx + d for hx in occupied for d in Hex(0, 0).spiral(reach)}
        return sorted(near - occupied)
    # previous numbering -> current: invert the alignment of current onto previous
    inverse = align_numbering(previous.hexes, dict(fit.hexes))
    if inverse is None:
        return []
    k, delta = inverse
    return sorted(
        {rotate60(h, k) + delta for t, h in previous.hexes.items() if t not in fit.hexes} - occupied
    )


def _refine(
    gray: npt.NDArray[np.uint8],
    solution: _Solution,
    tile_tags: Sequence[TagDetection],
    backend: Backend,
    *,
    cells: Sequence[Hex],
    tried: set[tuple[str, object]],
    extra_boxes: Sequence[tuple[int, int, int, int]] = (),
    deblur: bool = False,
    sharpen: bool | None = None,
) -> DecodeResult:
    """Decode full-resolution crops of lattice cells (enlarged, and sharpened: see `_decode_boxes`)."""
    plane, _estimates, fit, _problems, _unsure = solution
    lattice = fit.lattice
    h, w = gray.shape
    boxes: list[tuple[int, int, int, int]] = list(extra_boxes)
    for hx in cells:
        # the key is the cell's rough table position: hex numbers change between fits, places do not
        centre = lattice.centre(hx)
        key = ("cell", (round(centre[0] / (lattice.pitch / 2)), round(centre[1] / (lattice.pitch / 2))))
        if key in tried:
            continue
        tried.add(key)
        boxes.append(_box_around(plane, centre, lattice.pitch * 0.62, w, h))
    return _decode_boxes(gray, tile_tags, backend, boxes, deblur=deblur, sharpen=sharpen)


def _decode_boxes(
    gray: npt.NDArray[np.uint8],
    tile_tags: Sequence[TagDetection],
    backend: Backend,
    boxes: Sequence[tuple[int, int, int, int]],
    *,
    deblur: bool = False,
    sharpen: bool | None = None,
) -> DecodeResult:
    """Decode full-resolution crops, enlarged so the codes' modules (as `tile_tags` show them) reach
    `TARGET_MODULE_PX`, and sharpened (by default zxing's only; or, `deblur`, enlarged more and deblurred
    hard)."""
    module_px = float(np.median([t.module_px for t in tile_tags]))
    scale = min(4.0, max(1.0, TARGET_MODULE_PX / max(module_px, 0.5)))
    boxes = [b for b in boxes if b[2] - b[0] >= 8 and b[3] - b[1] >= 8][:MAX_REFINE_CROPS]
    if not boxes:
        return DecodeResult((), (), backend)
    if deblur:
        return _deblurred(gray, backend, boxes, scale)
    if sharpen is None:
        sharpen = backend is Backend.ZXING
    found = decode_tags(gray, backend, regions=boxes, upscale=scale, sharpen=sharpen)
    if backend is Backend.PYZBAR and not sharpen:
        # zbar reads few codes blurred across 2 px modules unless they are deblurred (seed 200005's set-up: 3
        # of 52 plain, all deblurred), and deblurring costs sharp codes theirs: so the boxes in which the
        # plain crops read nothing are read again deblurred
        found = _again_where_empty(found, boxes, lambda empty: _deblurred(gray, backend, empty, scale))
    return found


def _deblurred(
    gray: npt.NDArray[np.uint8], backend: Backend, boxes: Sequence[tuple[int, int, int, int]], scale: float
) -> DecodeResult:
    """Crops enlarged at least 3x and deblurred hard, for codes blurred across their 2 px modules: zxing's
    after enlarging; zbar's before, and after too in the boxes where that reads nothing: each reads codes the
    other does not (seed 200069's three far tiles: all sharpened before, none after; seed 200005's T22, easy:
    only after)."""
    upscale = max(3.0, scale)
    if backend is Backend.ZXING:
        return decode_tags(gray, backend, regions=boxes, upscale=upscale, deblur=DEBLUR)
    found = decode_tags(gray, backend, regions=boxes, upscale=upscale, sharpen=DEBLUR)
    return _again_where_empty(
        found, boxes, lambda empty: decode_tags(gray, backend, regions=empty, upscale=upscale, deblur=DEBLUR)
    )


_Box = tuple[int, int, int, int]


def _again_where_empty(
    found: DecodeResult, boxes: Sequence[_Box], decode: Callable[[list[_Box]], DecodeResult]
) -> DecodeResult:
    """`found`, and what `decode` reads in the boxes where `found` has no code (both as one result)."""
    empty = [b for b in boxes if not _holds_code(b, found)]
    if not empty:
        return found
    more = decode(empty)
    elapsed, calls = found.elapsed_ms + more.elapsed_ms, found.candidates + more.candidates
    return DecodeResult(found.tags + more.tags, found.ignored + more.ignored, found.backend, elapsed, calls)


def _holds_code(box: _Box, result: DecodeResult) -> bool:
    """Whether a code `result` read (ours or not) has its centre in `box`."""
    centres = [t.centre for t in result.tags]
    centres += [tuple(i.corners.mean(axis=0)) for i in result.ignored if i.corners is not None]
    return any(box[0] <= x < box[2] and box[1] <= y < box[3] for x, y in centres)


def _absorb(
    result: DecodeResult,
    known: frozenset[str] | None,
    cards: dict[str, TagDetection],
    ignored: list[IgnoredCode],
    *,
    foreign: bool = True,
) -> list[TagDetection]:
    """A further decode's tile stickers; its cards go into `cards` (the first read of each stands), codes
    of ids outside the catalogue and (`foreign`) codes not ours into `ignored`, each once."""
    tiles, more_cards, rejected = _split(list(result.tags), known)
    for k, v in more_cards.items():
        cards.setdefault(k, v)
    if foreign:
        ignored.extend(i for i in result.ignored if not _seen(ignored, i))
    ignored.extend(rejected)
    return tiles


class _Busy:
    """Strong-edge map of the frame at about 960 px wide: sticker paper and dice make many strong edges,
    the bare table almost none. Cheap enough (~1 ms) to decide which lattice cells deserve a decode."""

    def __init__(self, gray: npt.NDArray[np.uint8]) -> None:
        h, w = gray.shape
        self.factor = max(1, round(w / 960))
        small = cv2.resize(gray, (w // self.factor, h // self.factor), interpolation=cv2.INTER_AREA)
        grad = cv2.morphologyEx(small, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        self.grad = np.asarray(grad, np.uint8)
        self.edges = np.asarray(grad > 70, np.uint8)
        self.integral = np.asarray(cv2.integral(self.edges), np.float64)
        self._memo: dict[tuple[Lattice, bytes, Hex], float] = {}

    def share(self, solution: _Solution, hx: Hex) -> float:
        """Share of strong-edge pixels in the middle of cell `hx` (a square of 0.7 pitch, not reaching into
        the neighbours)."""
        key = (solution[2].lattice, solution[0].image_to_table.tobytes(), hx)
        got = self._memo.get(key)
        if got is not None:
            return got
        plane, _estimates, fit, _problems, _unsure = solution
        lattice = fit.lattice
        h, w = self.edges.shape
        x0, y0, x1, y1 = _box_around(
            plane, lattice.centre(hx), lattice.pitch * 0.35, w * self.factor, h * self.factor
        )
        x0, y0, x1, y1 = x0 // self.factor, y0 // self.factor, x1 // self.factor, y1 // self.factor
        value = 0.0
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            ii = self.integral
            total = ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]
            value = float(total) / float((x1 - x0) * (y1 - y0))
        self._memo[key] = value
        return value


def _others(
    cards: Mapping[str, TagDetection], ignored: Sequence[IgnoredCode]
) -> list[TagDetection | FloatArray | None]:
    return [*cards.values(), *(i.corners for i in ignored)]


def _explained(solution: _Solution, others: Sequence[TagDetection | FloatArray | None]) -> set[Hex]:
    """Lattice cells holding a code read that is not a tile's (a card, a foreign code)."""
    plane, _estimates, fit, _problems, _unsure = solution
    out: set[Hex] = set()
    for o in others:
        if o is None:
            continue
        corners = o.corners if isinstance(o, TagDetection) else o
        centre = plane.to_table(np.asarray(corners, np.float64)).mean(axis=0).reshape(1, 2)
        q, r = np.round(fit.lattice.to_axial(centre)[0]).astype(int)
        out.add(Hex(int(q), int(r)))
    return out


def _unexplained_cells(
    solution: _Solution | None, busy: _Busy, others: Sequence[TagDetection | FloatArray | None]
) -> bool:
    """True when a lattice cell next to the tiles read looks like sticker paper but holds no code read."""
    return solution is None or bool(_loose_cells(solution, busy, others))


def _loose_cells(
    solution: _Solution, busy: _Busy, others: Sequence[TagDetection | FloatArray | None]
) -> set[Hex]:
    """The lattice cells next to the tiles read that look like sticker paper but hold no code read."""
    return {c for c in _beside(solution, others) if busy.share(solution, c) >= ESCALATE_CELL}


def _beside(solution: _Solution, others: Sequence[TagDetection | FloatArray | None]) -> set[Hex]:
    """The empty lattice cells next to the tiles read, less those holding another code read (a card)."""
    occupied = set(solution[2].hexes.values())
    return {n for h in occupied for n in h.neighbours()} - occupied - _explained(solution, others)


def _unknown_cells(
    solution: _Solution, busy: _Busy, others: Sequence[TagDetection | FloatArray | None] = ()
) -> set[Hex]:
    """Empty lattice cells with at least two read neighbours that look as busy as a tile with stickers and
    hold no other code read (a card): a tile there whose codes are all covered. The bare table is not busy;
    cards are read or lie beside the map with one read neighbour at most."""
    occupied = set(solution[2].hexes.values())
    return {
        hx
        for hx in _beside(solution, others)
        if sum(n in occupied for n in hx.neighbours()) >= 2 and busy.share(solution, hx) >= UNKNOWN_CELL
    }


def _cards_by_look(
    gray: npt.NDArray[np.uint8],
    solution: _Solution,
    cards: Mapping[str, TagDetection],
    previous: MapReading | None,
    known: frozenset[str] | None,
) -> dict[str, TagDetection]:
    """Face-up cards no decode read, found by their codes' look on the table plane the fit gives: a card
    `previous` saw, where it was (`vision.tracking.sight`); a place beside the map that looks like a code,
    named among the cards' ids (`vision.recognise`, `CARD_LOOKS` places at most). A card's code at 45 degrees
    and more is too small to decode (1.3-1.6 px a module at 1080p) but not to recognise."""
    plane, estimates, fit, _problems, _unsure = solution
    pose = Pose.of(plane.image_to_table, plane.lens)
    found = {} if previous is None else _cards_where_they_were(gray, previous, cards)
    ids = [a for a in _CARD_IDS if a not in cards and a not in found and (known is None or a in known)]
    if not ids:
        return found
    # the tiles read and the cells next to them (tiles unread, dice): cards lie beside the map
    avoid = [plane.to_image(fit.lattice.corners((e.x, e.y))) for e in estimates.values()]
    avoid += [plane.to_image(fit.lattice.corners(fit.lattice.centre(c))) for c in _beside(solution, [])]
    avoid += [card_region(t.corners) for t in [*cards.values(), *found.values()]]
    for place in candidates(gray, pose, avoid, most=CARD_LOOKS):
        named = recognise(gray, pose, place, [a for a in ids if a not in found])
        if named is not None:
            found[named.id] = TagDetection(TagPayload.of(named.id), named.sighting.corners)
    return found


def _cards_where_they_were(
    gray: npt.NDArray[np.uint8], previous: MapReading, cards: Mapping[str, TagDetection]
) -> dict[str, TagDetection]:
    """Cards `previous` saw face up that this frame's decode missed, found by their look where they lay
    (`vision.tracking.sight`, three modules around)."""
    found: dict[str, TagDetection] = {}
    if previous.homography is None:
        return found
    for aid, tag in previous.cards.items():
        if aid in cards:
            continue
        mm = previous.to_table(tag.corners)
        got = sight(gray, KnownSticker(aid, mm), tag.corners, 3)
        if got is not None and got.seen:
            found[aid] = TagDetection(tag.payload, got.corners, tag.backend)
    return found


def _boxes_of_lost_cards(
    previous: MapReading, cards: Mapping[str, TagDetection], w: int, h: int
) -> list[tuple[int, int, int, int]]:
    """Where artefact stickers seen in the previous frame should be, when this frame has not read them."""
    return [_box_of_code(tag.corners, w, h) for aid, tag in previous.cards.items() if aid not in cards]


def _box_of_code(corners: FloatArray, w: int, h: int) -> tuple[int, int, int, int]:
    """A box around a code's corners with a margin of most of a code on every side, inside the frame."""
    c = corners.mean(axis=0)
    r = float(np.linalg.norm(corners[0] - corners[2])) * 0.9
    x0, y0, x1, y1 = int(c[0] - r), int(c[1] - r), int(c[0] + r), int(c[1] + r)
    return (max(0, x0), max(0, y0), min(w, x1), min(h, y1))


def _box_around(
    plane: PlaneFit, centre: tuple[float, float], half_mm: float, w: int, h: int
) -> tuple[int, int, int, int]:
    cx, cy = centre
    corners = np.array(
        [
            [cx - half_mm, cy - half_mm],
            [cx + half_mm, cy - half_mm],
            [cx + half_mm, cy + half_mm],
            [cx - half_mm, cy + half_mm],
        ]
    )
    px = plane.to_image(corners)
    if not np.all(np.isfinite(px)):
        return (0, 0, 0, 0)
    x0, y0 = np.floor(px.min(axis=0)).astype(int)
    x1, y1 = np.ceil(px.max(axis=0)).astype(int)
    return (max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1)))


# --- comparing layouts (tests, benchmarks) ------------------------------------------------------------------


def same_layout(a: Mapping[Hex, str], b: Mapping[Hex, str]) -> bool:
    """True when two layouts are the same map up to where Hex(0, 0) is and how the table is turned (a camera
    numbers hexes from what it sees; the engine only cares about which tile borders which)."""
    if len(a) != len(b) or set(a.values()) != set(b.values()) or not a:
        return len(a) == len(b) == 0
    ids_b = {v: k for k, v in b.items()}
    ref_id = next(iter(a.values()))
    ref_a = next(k for k, v in a.items() if v == ref_id)
    for k in range(6):
        delta = ids_b[ref_id] - rotate60(ref_a, k)
        if all(b.get(rotate60(h, k) + delta) == t for h, t in a.items()):
            return True
    return False


def consistent_layout(read: Mapping[Hex, str], truth: Mapping[Hex, str]) -> bool:
    """True when every tile in `read` lies where `truth` has it, up to the camera's hex numbering (origin and
    turn); `read` may hold fewer tiles (some hidden). False for an empty reading."""
    if not read or not set(read.values()) <= set(truth.values()):
        return False
    ids_t = {v: k for k, v in truth.items()}
    ref_id = next(iter(read.values()))
    ref = next(k for k, v in read.items() if v == ref_id)
    for k in range(6):
        delta = ids_t[ref_id] - rotate60(ref, k)
        if all(truth.get(rotate60(h, k) + delta) == t for h, t in read.items()):
            return True
    return False

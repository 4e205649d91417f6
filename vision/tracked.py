"""A frame read over the confirmed map: the tiles tracked (`vision.tracking.MapTracker`), the cards found.

`TrackedReader.read` per frame:

1. `MapTracker.track`: the pose kept, refined or re-found; every known tile code looked for where it puts it.
2. Cards: a card's code once seen face up is looked for where it lay, by its look, as the tiles' codes are
   (a card far across the table at 45 degrees and more, or blurred, is found where a decoder misses it).
3. The frame's sharpness, on the known codes found where they should be (`vision.blur`).
That is a tracked frame's whole cost (a few milliseconds at 1080p), except in the frames that look around:
the first `LOOK_AROUND_FIRST` after the map was placed or the camera moved, then one in `LOOK_AROUND_EVERY`.
Those also decode the whole frame (zxing: a few milliseconds at 1080p; frames wider than 2000 px halved)
for what a decoder reads (cards turned face up, tiles whose stickers were never found, stray tiles, codes
not ours); search the cells of tiles none of whose stickers was ever found (`read_rectified`, then their
codes' look against the cells' edges; `CELL_SEARCHES` a frame); and find cards never seen face up (dealt
since, or not read at set-up) by `vision.recognise`: places beside the map that look like a code are warped
fronto-parallel and named by their modules among the cards' ids, `CARD_TRIES` places a frame; a place that
names nothing is left alone for `CARD_RETRY_FRAMES` frames. A frame in which the tracker lost the pose
decodes the whole frame too, to re-find it by.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.artefacts import card_region
from vision.blur import Sharpness, frame_sharpness, sticker_sharpness
from vision.geometry import apply_homography, fit_plane
from vision.qr import Backend, DecodeResult, IgnoredCode, TagDetection, decode_tags, to_gray
from vision.recognise import candidates, recognise
from vision.tags import CODE_MM, QR_MODULES, STICKER_CENTRE_OFFSET_MM, TagKind, all_sticker_ids, kind_of
from vision.tracking import (
    POSE_STICKERS,
    KnownSticker,
    MapTracker,
    Pose,
    Relocation,
    TableMap,
    Track,
    Tracked,
    sight,
)

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

LOOK_AROUND_FIRST = 3  # tracked frames after the map was placed (or the camera moved) that look around
LOOK_AROUND_EVERY = 6  # ... and after those, one frame in this many
CELL_MODULE_PX = 4.5  # px per module of a lattice cell warped to be searched for a tile's first sticker
CELL_SEARCHES = 2  # cells of unplaced tiles searched per frame at most
CARD_SEARCH_MODULES = 3  # a card known face up is looked for this far from where it lay
CARD_TRIES = 8  # places beside the map that look like a code, named per frame at most
CARD_RETRY_FRAMES = 45  # a place that named nothing is not tried again for this many frames
CARD_PLACE_MM = 20.0  # two places this near are one
SHARPNESS_PROBE = 0.3  # a known code correlating this well is there to measure the frame's sharpness on
ALL_IDS = all_sticker_ids()
CARD_IDS = tuple(i for i in ALL_IDS if kind_of(i) is TagKind.ARTEFACT)


@dataclass(frozen=True, slots=True, eq=False)
class TrackedFrame:
    """A frame read over the confirmed map: the tracking, the face-up cards' codes found (image corners),
    codes read that are not ours, tile codes read that are not on the map, the tiles placed in this frame
    (their first sticker found), and how sharp the frame is."""

    tracked: Tracked
    cards: Mapping[str, FloatArray]
    ignored: tuple[IgnoredCode, ...]
    strays: tuple[str, ...]
    placed: tuple[str, ...]
    sharpness: Sharpness
    elapsed_ms: float


class TrackedReader:
    """A confirmed map's frames (module docstring). Not thread-safe: one frame at a time."""

    def __init__(self, table_map: TableMap, pose: Pose | None, backend: Backend = Backend.ZXING) -> None:
        self.tracker = MapTracker(table_map, pose)
        self.backend = backend
        self._cards: dict[str, FloatArray] = {}  # card id -> its code's corners on the table (mm)
        self._searched: dict[str, int] = {}  # unplaced tile -> frames its cell was searched
        self._barren: dict[tuple[float, float], int] = {}  # places that named nothing -> until which frame
        self._frames = 0  # since the map was placed or the camera moved
        self._read = 0  # frames read

    @property
    def map(self) -> TableMap:
        return self.tracker.map

    @property
    def pose(self) -> Pose:
        return self.tracker.pose

    def know_cards(self, cards: Mapping[str, FloatArray]) -> None:
        """Cards seen face up before the map was confirmed: their codes' corners on the table (mm)."""
        for aid, mm in cards.items():
            self._cards.setdefault(aid, np.asarray(mm, np.float64).reshape(4, 2))

    def read(self, frame: Image) -> TrackedFrame:
        start = time.perf_counter()
        gray = to_gray(frame)
        memo: list[DecodeResult] = []

        def decoded() -> DecodeResult:  # the whole frame's codes, decoded once, when asked for
            if not memo:
                memo.append(_decode_whole(gray, self.backend))
            return memo[0]

        known = set(self.map.places)
        tracked = self.tracker.track(gray, lambda: self._relocation(gray, _tiles(decoded())))
        if tracked.track is Track.MOVED:
            self._frames = 0
        around = self._frames < LOOK_AROUND_FIRST or self._frames % LOOK_AROUND_EVERY == 0
        self._frames += 1
        self._read += 1
        placed: list[str] = []
        if around and tracked.track is not Track.HELD:
            tiles = _tiles(decoded())
            placed = self.tracker.place_unplaced((t.id, t.corners) for t in tiles if t.id in known)
            placed += self._search_cells(gray)
        cards = self._cards_seen(gray, decoded().tags if around else (), tracked, around=around)
        probes = [s.corners for s in tracked.sightings if s.score >= SHARPNESS_PROBE]
        sharpness = sticker_sharpness(gray, probes) if probes else frame_sharpness(gray)
        ignored = decoded().ignored if memo else ()
        strays = tuple(sorted({t.id for t in _tiles(memo[0])} - known)) if memo else ()
        elapsed = (time.perf_counter() - start) * 1000.0
        return TrackedFrame(tracked, cards, tuple(ignored), strays, tuple(placed), sharpness, elapsed)

    def _relocation(self, gray: Image, tiles: Sequence[TagDetection]) -> Relocation | None:
        """The frame's codes on a plane of their own, for `MapTracker` to re-find the pose: the whole-frame
        decode's, or, when it read one or two, a cold map reading's (which searches harder). None when it
        read none (a hand over the map: nothing to re-find the pose by)."""
        if not tiles:
            return None
        if len(tiles) < POSE_STICKERS - 1:
            from vision.mapreader import read_map

            cold = read_map(gray, backend=self.backend)
            if cold.homography is None:
                return None
            codes = [(t.id, t.corners) for t in cold.tags if t.payload.kind is not TagKind.ARTEFACT]
            return cold.to_table, codes
        plane = fit_plane([t.corners for t in tiles], CODE_MM, lens=self.pose.lens)
        if plane is None:
            return None
        return plane.to_table, [(t.id, t.corners) for t in tiles]

    def _search_cells(self, gray: Image) -> list[str]:
        """Tiles of the map none of whose stickers was ever found (`CELL_SEARCHES` a frame, those searched
        least first): their cells warped fronto-parallel and decoded; failing that, their codes recognised by
        their look where a sticker against each of the cell's six edges would lie (`vision.recognise`,
        among every id we print: a code of another tile there is not taken for this one)."""
        todo = sorted(
            (t for t, p in self.map.places.items() if not p.measured), key=lambda t: self._searched.get(t, 0)
        )
        found: list[str] = []
        for tid in todo[:CELL_SEARCHES]:
            self._searched[tid] = self._searched.get(tid, 0) + 1
            centre = self.map.places[tid].centre
            half = 0.62 * self.map.lattice.pitch
            codes = [(t.id, t.corners) for t in read_rectified(gray, self.pose, centre, half, self.backend)]
            if not any(t == tid for t, _c in codes):
                codes = self._recognised_on_edges(gray, tid, centre)
            found += self.tracker.place_unplaced((t, c) for t, c in codes if t == tid)
        return found

    def _recognised_on_edges(
        self, gray: Image, tid: str, centre: tuple[float, float]
    ) -> list[tuple[str, FloatArray]]:
        """`tid`'s code recognised where a sticker against one of its cell's edges would lie."""
        angle = self.map.lattice.angle
        for j in range(6):
            a = angle + j * math.pi / 3
            reach = STICKER_CENTRE_OFFSET_MM
            place = (centre[0] + reach * math.cos(a), centre[1] + reach * math.sin(a))
            named = recognise(gray, self.pose, place, ALL_IDS)
            if named is not None and named.id == tid:
                return [(tid, named.sighting.corners)]
        return []

    def _cards_seen(
        self, gray: Image, decoded: Sequence[TagDetection], tracked: Tracked, *, around: bool
    ) -> dict[str, FloatArray]:
        """Face-up cards' codes in this frame (image corners): read by the decode, found where they lay, or
        (`around`) recognised beside the map (module docstring)."""
        pose = tracked.pose
        cards = {t.id: t.corners for t in decoded if t.payload.kind is TagKind.ARTEFACT}
        for aid, mm in self._cards.items():
            if aid in cards:
                continue
            known, where = KnownSticker(aid, mm), pose.to_image(mm)
            got = sight(gray, known, where, 0)  # where it lay: cards seldom move
            if got is not None and not got.seen:
                got = sight(gray, known, where, CARD_SEARCH_MODULES)
            if got is not None and got.seen:
                cards[aid] = got.corners
        if tracked.track is Track.HELD:
            return cards
        if around:
            cards.update(self._new_cards(gray, pose, cards))
        for aid, px in cards.items():
            self._cards[aid] = pose.to_table(np.asarray(px, np.float64))
        return cards

    def _new_cards(self, gray: Image, pose: Pose, cards: Mapping[str, FloatArray]) -> dict[str, FloatArray]:
        """Cards recognised beside the map by their look, at places nothing known explains."""
        self._barren = {p: until for p, until in self._barren.items() if until > self._read}
        ids = [a for a in CARD_IDS if a not in cards]
        if not ids:
            return {}
        avoid = [pose.to_image(self.map.outline(t)) for t in self.map.places]
        avoid += [card_region(q) for q in cards.values()]
        found: dict[str, FloatArray] = {}
        tries = 0
        for place in candidates(gray, pose, avoid, most=CARD_TRIES + len(self._barren)):
            if tries >= CARD_TRIES:
                break
            if any(math.dist(place, p) < CARD_PLACE_MM for p in self._barren):
                continue
            tries += 1
            named = recognise(gray, pose, place, [a for a in ids if a not in found])
            if named is None:
                self._barren[place] = self._read + CARD_RETRY_FRAMES
            else:
                found[named.id] = named.sighting.corners
        return found


def _tiles(decoded: DecodeResult) -> list[TagDetection]:
    return [t for t in decoded.tags if t.payload.kind is not TagKind.ARTEFACT]


def _decode_whole(gray: Image, backend: Backend) -> DecodeResult:
    """Every code of the frame, as `read_map`'s first pass reads them (frames wider than 2000 px halved)."""
    h, w = gray.shape
    if max(w, h) <= 2000 or backend is not Backend.ZXING:
        return decode_tags(gray, backend)
    half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    found = decode_tags(half, backend)
    tags = tuple(TagDetection(t.payload, (t.corners + 0.5) * 2 - 0.5, t.backend) for t in found.tags)
    return replace(found, tags=tags)


def read_rectified(
    gray: Image, pose: Pose, centre: tuple[float, float], half_mm: float, backend: Backend = Backend.ZXING
) -> list[TagDetection]:
    """The codes in a square of the table plane (`centre` +- `half_mm`), warped fronto-parallel to
    `CELL_MODULE_PX` px per module before decoding, with their image corners: a code foreshortened at a
    steep angle, or small, is decoded square and large."""
    ppm = CELL_MODULE_PX * QR_MODULES / CODE_MM
    n = max(16, round(2 * half_mm * ppm))
    cx, cy = centre
    crop_to_table = np.array(
        [[1 / ppm, 0.0, cx - half_mm + 0.5 / ppm], [0.0, 1 / ppm, cy - half_mm + 0.5 / ppm], [0.0, 0.0, 1.0]]
    )
    crop_to_image = pose.local(crop_to_table, n)
    crop = cv2.warpPerspective(
        gray, crop_to_image, (n, n), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT, borderValue=255,
    )
    found = decode_tags(np.asarray(crop, np.uint8), backend)
    return [
        TagDetection(t.payload, apply_homography(crop_to_image, t.corners), t.backend) for t in found.tags
    ]

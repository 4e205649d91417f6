"""The map read once and then tracked.

Tiles do not move during a game. Once the owner has confirmed the map (`vision.pipeline.TableReader
.confirm_map`), the set-up reading is the map: a `TableMap` holds every tile on its hex, where it lies on the
table plane (millimetres) and where each of its stickers lies, as measured at set-up. A later frame needs only
the camera's pose, the homography from image pixels to the table plane, and `MapTracker` keeps it:

1. The pose puts every known sticker somewhere in the image. Each is looked for there, not decoded: the
   frame around the predicted code is warped to a fronto-parallel crop of `CROP_PX` pixels per module and
   correlated with the code's own look (a sticker's QR code is fixed by its payload, `vision.tags.
   qr_modules`) over `SEARCH_MODULES` modules either way. A code whose correlation reaches `SEEN` is there;
   one that does not is covered (a hand, a die), too blurred, or gone. This reads far rows at 35-60 degrees
   and blurred codes that no decoder reads: it asks "is this known code here?", not "what does it say?".
2. The codes found well (`ANCHOR`) say where they are to a fraction of a module. When they say, together,
   that the pose is off by more than `REFIT_MODULES`, the pose is fitted again to them (RANSAC over their
   corners) and the codes looked for again; otherwise it stands, so a still camera's tile outlines stay the
   same to the bit and what was read over them stands too.
3. Too few codes found (fewer than `POSE_STICKERS`, or under `LOST_SHARE` of those in view): a hand over
   the map, or the camera moved. The caller's cold reading of the frame (`relocate`) decides: codes it read
   that agree with the pose mean a hand (the pose is kept: `HELD`); codes that agree with each other on
   another pose mean the camera moved (the pose is fitted again from them: `MOVED`); nothing read keeps the
   last pose (`HELD`).

A tile's stickers not measured at set-up are predicted from its other one (the two lie against opposite
edges, a half turn about the tile's centre apart: `docs/stickers.md`) and taken as measured once found.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.hexgrid import Hex
from vision.blur import module_px
from vision.errors import VisionError
from vision.geometry import PINHOLE, Lens, apply_homography
from vision.hexfit import Lattice, align_numbering, renumbered, rotate60
from vision.tags import (
    CODE_MM,
    QR_MODULES,
    QUIET_MODULES,
    STICKER_CENTRE_OFFSET_MM,
    format_payload,
    qr_modules,
)

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

CROP_PX = 3  # pixels per module of the fronto-parallel crops a code is looked for in
SEARCH_MODULES = 2  # how far (modules) from where the pose puts a code it is looked for, each way
WIDE_SEARCH_MODULES = 5  # ... just after the pose was fitted from a cold reading (its own error is larger)
SEEN = 0.45  # correlation from which a code is there (covered, hand-hidden codes: under 0.4; blurred: 0.5+)
ANCHOR = 0.7  # ... from which it places the pose
REFIT_MODULES = 0.35  # the anchors' median offset (modules) beyond which the pose is fitted again
POSE_STICKERS = 4  # anchors needed to fit or to vouch for the pose
LOST_SHARE = 0.25  # under this share of the codes in view found: a hand over the map, or the camera moved
RANSAC_MM = 2.0  # a code's corner this far from where a pose puts it does not vote for that pose
RELOCATE_MM = 12.0  # a code read cold this far from a known one of its id is not that one
STILL_MM = 3.0  # ... and one this near it, under the current pose, says the pose still holds
SCOUTS = 10  # codes spread over the map looked for around their place in every frame; the rest only there


class MapConflictError(VisionError, ValueError):
    """A confirmed map that the camera's own reading of the table contradicts (a tile on another hex)."""

    def __init__(self, conflicts: Sequence[str]) -> None:
        self.conflicts = tuple(conflicts)
        super().__init__("the map confirmed differs from the table: " + "; ".join(self.conflicts))


# --- the map as data --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class KnownSticker:
    """A tile's sticker on the table plane: its code's corners (mm; top-left, top-right, bottom-right,
    bottom-left of the code itself). `measured`: read at set-up or later; else predicted from its tile's other
    sticker."""

    id: str
    corners: FloatArray
    measured: bool = True

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return (float(c[0]), float(c[1]))

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "corners": np.round(self.corners, 3).tolist(), "measured": self.measured}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> KnownSticker:
        corners = np.asarray(obj["corners"], np.float64).reshape(4, 2)
        return KnownSticker(str(obj["id"]), corners, bool(obj.get("measured", True)))


@dataclass(frozen=True, slots=True)
class TilePlace:
    """Where a tile lies on the table plane: its centre (mm) and its turn off the lattice (radians).
    `measured`: placed by a sticker of its own; else its lattice cell's middle, until one is found."""

    centre: tuple[float, float]
    turn: float = 0.0
    measured: bool = True


@dataclass(frozen=True, slots=True, eq=False)
class TableMap:
    """The confirmed map: every tile on its hex (the app's numbering), where it and its stickers lie on the
    table plane (mm), and the lattice that numbers the plane's cells."""

    tiles: Mapping[Hex, str]
    lattice: Lattice
    places: Mapping[str, TilePlace]
    stickers: tuple[KnownSticker, ...]

    @property
    def hexes(self) -> dict[str, Hex]:
        return {t: h for h, t in self.tiles.items()}

    def outline(self, tile: str) -> FloatArray:
        """A tile's six corners on the table plane (mm)."""
        place = self.places[tile]
        return self.lattice.corners(place.centre, place.turn)

    def found(self, sticker: KnownSticker, corners: FloatArray) -> TableMap:
        """This map with `sticker` measured at `corners` (mm): a predicted one found, or a tile's first
        sticker found, which places the tile and predicts its other sticker."""
        measured = KnownSticker(sticker.id, np.asarray(corners, np.float64), True)
        rest = [s for s in self.stickers if s is not sticker]
        stickers = [*rest, measured]
        places = dict(self.places)
        if not self.places[sticker.id].measured:
            centre, up = _tile_centre(measured.corners)
            places[sticker.id] = TilePlace(centre, _turn(up, self.lattice), True)
            stickers.append(KnownSticker(sticker.id, _opposite(measured.corners, centre), False))
        return replace(self, places=places, stickers=tuple(stickers))

    def to_json(self) -> dict[str, Any]:
        lat = self.lattice
        return {
            "tiles": [{"hex": h.to_json(), "id": t} for h, t in sorted(self.tiles.items())],
            "lattice": {"angle": lat.angle, "pitch": lat.pitch, "origin": list(lat.origin)},
            "places": {
                t: {"centre": list(p.centre), "turn": p.turn, "measured": p.measured}
                for t, p in sorted(self.places.items())
            },
            "stickers": [s.to_json() for s in self.stickers],
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> TableMap:
        lat = obj["lattice"]
        return TableMap(
            tiles={Hex.from_json(e["hex"]): str(e["id"]) for e in obj["tiles"]},
            lattice=Lattice(float(lat["angle"]), float(lat["pitch"]), (float(lat["origin"][0]),
                                                                     float(lat["origin"][1]))),
            places={
                str(t): TilePlace((float(p["centre"][0]), float(p["centre"][1])), float(p["turn"]),
                                  bool(p["measured"]))
                for t, p in obj["places"].items()
            },
            stickers=tuple(KnownSticker.from_json(s) for s in obj["stickers"]),
        )


def _tile_centre(corners_mm: FloatArray) -> tuple[tuple[float, float], float]:
    """Where a sticker puts its tile's centre (mm) and which way its code's top points (radians): the
    centre lies `STICKER_CENTRE_OFFSET_MM` behind the code (`docs/stickers.md`)."""
    centre = corners_mm.mean(axis=0)
    up = (corners_mm[0] + corners_mm[1]) / 2 - (corners_mm[3] + corners_mm[2]) / 2
    up = up / (float(np.linalg.norm(up)) or 1.0)
    c = centre - up * STICKER_CENTRE_OFFSET_MM
    return (float(c[0]), float(c[1])), math.atan2(float(up[1]), float(up[0]))


def _turn(up: float, lattice: Lattice) -> float:
    """A tile's turn off the lattice from its sticker's up direction (mod 60 degrees)."""
    w = math.pi / 3
    return float((up - lattice.angle + w / 2) % w - w / 2)


def _opposite(corners_mm: FloatArray, centre: tuple[float, float]) -> FloatArray:
    """A tile's other sticker: half a turn about the tile's centre (corner order kept: it is the same code
    turned)."""
    c = np.asarray(centre, np.float64)
    return np.asarray(2 * c - corners_mm, np.float64)


def table_map(
    layout: Mapping[Hex, str],
    reading_hexes: Mapping[str, Hex],
    lattice: Lattice,
    stickers: Iterable[tuple[str, FloatArray]],
) -> TableMap:
    """The confirmed `layout` (hex -> tile id, the app's numbering) placed by a reading of the table: its
    tiles' hexes (its own numbering), its lattice on its table plane, and the tile stickers it read (id,
    corners in mm on that plane). The reading's numbering is turned and shifted onto the layout's by the
    tiles both hold; a tile the reading puts on another hex than the layout is a conflict
    (`MapConflictError`, nothing confirmed). Layout tiles the reading did not see lie in their lattice cell
    until a sticker of theirs is found; the reading's tiles outside the layout are left out."""
    ids = list(layout.values())
    if len(set(ids)) != len(ids):
        dup = sorted({t for t in ids if ids.count(t) > 1})
        raise MapConflictError([f"tile {t} is on more than one hex of the map confirmed" for t in dup])
    confirmed = {t: h for h, t in layout.items()}
    shared = {t: h for t, h in reading_hexes.items() if t in confirmed}
    aligned = align_numbering(shared, confirmed)
    if aligned is None:
        raise MapConflictError(["the camera has not read a tile of this map yet"])
    k, delta = aligned
    conflicts = [
        f"{t}: the camera sees it on another hex than the map confirmed"
        for t, h in sorted(shared.items())
        if rotate60(h, k) + delta != confirmed[t]
    ]
    if conflicts:
        raise MapConflictError(conflicts)
    lat = renumbered(lattice, k, delta) if k or delta != Hex(0, 0) else lattice
    found: dict[str, list[FloatArray]] = {}
    for tid, corners in stickers:
        if tid in shared:
            found.setdefault(tid, []).append(np.asarray(corners, np.float64).reshape(4, 2))
    places: dict[str, TilePlace] = {}
    known: list[KnownSticker] = []
    for tid, hx in confirmed.items():
        own = _distinct(found.get(tid, []))
        if not own:
            places[tid] = TilePlace(lat.centre(hx), 0.0, False)
            continue
        placed = [_tile_centre(c) for c in own]
        centre = tuple(np.mean([p[0] for p in placed], axis=0).tolist())
        places[tid] = TilePlace((float(centre[0]), float(centre[1])), _turn(placed[0][1], lat), True)
        known.extend(KnownSticker(tid, c) for c in own)
        if len(own) == 1:
            known.append(KnownSticker(tid, _opposite(own[0], places[tid].centre), False))
    return TableMap(dict(layout), lat, places, tuple(known))


def _distinct(quads: Sequence[FloatArray]) -> list[FloatArray]:
    """A tile's stickers read, one per place (a sticker read twice, from two passes, counts once)."""
    out: list[FloatArray] = []
    for q in quads:
        if all(float(np.linalg.norm(q.mean(axis=0) - o.mean(axis=0))) > CODE_MM / 2 for o in out):
            out.append(q)
    return out


# --- the pose ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Pose:
    """The camera's pose over the table plane: image px <-> table mm, through the camera's lens (the
    homographies map undistorted pixels: `vision.geometry.Lens`)."""

    image_to_table: FloatArray
    table_to_image: FloatArray
    lens: Lens = PINHOLE

    @staticmethod
    def of(image_to_table: FloatArray, lens: Lens = PINHOLE) -> Pose:
        h = np.asarray(image_to_table, np.float64)
        return Pose(h, np.asarray(np.linalg.inv(h), np.float64), lens)

    def to_image(self, mm: FloatArray) -> FloatArray:
        return self.lens.distort(apply_homography(self.table_to_image, mm))

    def to_table(self, px: FloatArray) -> FloatArray:
        return apply_homography(self.image_to_table, self.lens.undistort(px))

    def local(self, crop_to_table: FloatArray, n: int) -> FloatArray:
        """The homography from an n x n crop of the table plane (`crop_to_table`: crop px -> mm) to the image:
        exact through a pinhole, and the lens's local shape within a small crop (its corners mapped)."""
        if self.lens.k1 == 0.0:
            return np.asarray(self.table_to_image @ crop_to_table, np.float64)
        box = np.array([[0.0, 0.0], [n - 1.0, 0.0], [n - 1.0, n - 1.0], [0.0, n - 1.0]])
        image = self.to_image(apply_homography(crop_to_table, box)).astype(np.float32)
        return np.asarray(cv2.getPerspectiveTransform(box.astype(np.float32), image), np.float64)

    def square(self, centre: tuple[float, float], side_mm: float) -> FloatArray:
        """A square of the table plane around `centre` (mm), in the image."""
        h = side_mm / 2
        x, y = centre
        return self.to_image(np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]]))


# --- looking for known codes ------------------------------------------------------------------------------

_CODE = np.array([[0, 0], [QR_MODULES, 0], [QR_MODULES, QR_MODULES], [0, QR_MODULES]], np.float32)


@functools.lru_cache(maxsize=512)
def _template(sticker_id: str, blur_tenths: int) -> npt.NDArray[np.float32]:
    """A code with its quiet zone as it looks in a crop of `CROP_PX` px per module, blurred by
    `blur_tenths` / 10 px (the camera's own blur, resampled)."""
    modules = qr_modules(format_payload(sticker_id))
    n = QR_MODULES + 2 * QUIET_MODULES
    code = np.full((n, n), 255.0, np.float32)
    code[QUIET_MODULES : QUIET_MODULES + QR_MODULES, QUIET_MODULES : QUIET_MODULES + QR_MODULES] = np.where(
        modules, 0.0, 255.0
    )
    big = cv2.resize(code, (n * CROP_PX, n * CROP_PX), interpolation=cv2.INTER_NEAREST)
    if blur_tenths > 0:
        big = cv2.GaussianBlur(big, (0, 0), blur_tenths / 10.0)
    out = np.asarray(big, np.float32)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, slots=True, eq=False)
class Sighting:
    """A known code looked for in a frame: where it was found (image corners; where the pose put it when it
    was not), how well it matched its own look (correlation, -1..1) and how far (modules) from where the pose
    put it. `located`: looked for around that place, and found inside the search (a code only checked for
    where the pose puts it, or found at the search's edge, may lie elsewhere)."""

    sticker: KnownSticker
    corners: FloatArray
    score: float
    offset: float
    located: bool = True

    @property
    def seen(self) -> bool:
        return self.score >= SEEN

    @property
    def anchor(self) -> bool:
        return self.score >= ANCHOR and self.located


def sight(
    gray: Image, sticker: KnownSticker, predicted: FloatArray, radius: int = SEARCH_MODULES
) -> Sighting | None:
    """Look for `sticker`'s code near `predicted` (its image corners under the pose): a fronto-parallel crop
    correlated with the code's look (`TM_CCOEFF_NORMED`) over `radius` modules each way (0: only there).
    None when the code with its quiet zone is not wholly inside the frame."""
    h, w = gray.shape[:2]
    margin = QUIET_MODULES + radius
    to_image = cv2.getPerspectiveTransform(_CODE, predicted.astype(np.float32)).astype(np.float64)
    reach = np.array([[-QUIET_MODULES, -QUIET_MODULES], [QR_MODULES + QUIET_MODULES, -QUIET_MODULES],
                      [QR_MODULES + QUIET_MODULES, QR_MODULES + QUIET_MODULES],
                      [-QUIET_MODULES, QR_MODULES + QUIET_MODULES]], np.float64)
    outline = apply_homography(to_image, reach)
    if not np.all(np.isfinite(outline)):
        return None
    if outline[:, 0].min() < 0 or outline[:, 1].min() < 0 or outline[:, 0].max() > w - 1 or (
        outline[:, 1].max() > h - 1
    ):
        return None
    n = (QR_MODULES + 2 * margin) * CROP_PX
    step = 1.0 / CROP_PX
    local = np.array([[step, 0.0, 0.5 * step - margin], [0.0, step, 0.5 * step - margin], [0.0, 0.0, 1.0]])
    crop = cv2.warpPerspective(
        gray, to_image @ local, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    module = module_px(predicted)
    blur = round(10 * max(0.5, 0.5 * CROP_PX / max(module, 0.5)))
    if radius == 0:  # one correlation: numpy's dot beats matchTemplate's transforms tenfold
        look, norm = _centred(sticker.id, blur)
        a = np.asarray(crop, np.float32).ravel()
        a = a - a.mean()
        den = float(np.sqrt(np.dot(a, a))) * norm
        score = float(np.dot(a, look)) / den if den > 0 else 0.0
        return Sighting(sticker, np.asarray(predicted, np.float64), score, 0.0, located=False)
    template = _template(sticker.id, blur)
    res = cv2.matchTemplate(np.asarray(crop, np.float32), template, cv2.TM_CCOEFF_NORMED)
    _lo, best, _at_lo, (x, y) = cv2.minMaxLoc(res)
    last = res.shape[0] - 1
    dx = _parabola(res[y, x - 1], res[y, x], res[y, x + 1]) if 0 < x < last else 0.0
    dy = _parabola(res[y - 1, x], res[y, x], res[y + 1, x]) if 0 < y < last else 0.0
    shift = np.array([(x + dx) * step - radius, (y + dy) * step - radius])
    found = apply_homography(to_image, _CODE.astype(np.float64) + shift)
    located = 0 < x < last and 0 < y < last
    return Sighting(sticker, found, float(best), float(np.hypot(shift[0], shift[1])), located)


@functools.lru_cache(maxsize=512)
def _centred(sticker_id: str, blur_tenths: int) -> tuple[npt.NDArray[np.float32], float]:
    """`_template` flattened less its mean, and its norm: one side of a correlation coefficient."""
    t = _template(sticker_id, blur_tenths).ravel()
    t = np.asarray(t - t.mean(), np.float32)
    t.setflags(write=False)
    return t, float(np.sqrt(np.dot(t, t)))


def _parabola(a: float, b: float, c: float) -> float:
    d = float(a) - 2.0 * float(b) + float(c)
    return 0.0 if d >= 0 else 0.5 * (float(a) - float(c)) / d


# --- keeping the pose -------------------------------------------------------------------------------------


class Track(Enum):
    """What a frame did to the pose."""

    KEPT = "kept"  # the codes found agree with it
    REFINED = "refined"  # fitted again to the codes found (it had drifted)
    MOVED = "moved"  # the camera moved: fitted again from a cold reading's codes
    HELD = "held"  # too few codes found (a hand, the camera moving): the last pose kept


@dataclass(frozen=True, slots=True, eq=False)
class Tracked:
    """One frame's tracking: the pose, and every known code in view looked for."""

    pose: Pose
    sightings: tuple[Sighting, ...]
    track: Track
    elapsed_ms: float = 0.0

    def seen(self) -> list[Sighting]:
        return [s for s in self.sightings if s.seen]


# a cold reading's own plane (image px -> its table mm) and the tile codes it read (id, image corners)
Relocation = tuple[Callable[[FloatArray], FloatArray], Sequence[tuple[str, FloatArray]]]


class MapTracker:
    """Keeps the camera's pose over a confirmed `TableMap` from frame to frame (module docstring). Not
    thread-safe: one frame at a time."""

    def __init__(self, table_map: TableMap, pose: Pose | None) -> None:
        self.map = table_map
        self.pose = pose if pose is not None else Pose.of(np.eye(3))
        self._placed = pose is not None  # False: the pose is found from the first frame's codes

    def track(self, gray: Image, relocate: Any = None) -> Tracked:
        """Look for every known code in view; keep, refine or (with `relocate`, a callable giving a cold
        reading's `Relocation` of this frame, called only when needed) re-find the pose."""
        start = time.perf_counter()
        if not self._placed:
            outcome, sightings = self._relocate(gray, relocate, [])
            self._placed = outcome is Track.MOVED
            return Tracked(self.pose, tuple(sightings), outcome, (time.perf_counter() - start) * 1000.0)
        checked = self._check(gray)
        outcome = Track.KEPT
        if checked is not None:
            sightings = checked
        else:  # the scouts doubt the pose: look for every code around its place
            sightings = self._look(gray, self.pose, SEARCH_MODULES)
            if self._lost(sightings):
                outcome, sightings = self._relocate(gray, relocate, sightings)
            elif _median_offset(sightings) > REFIT_MODULES:
                outcome, sightings = self._refine(gray, sightings)
        if outcome is not Track.HELD:
            self._learn(sightings)
        elapsed = (time.perf_counter() - start) * 1000.0
        return Tracked(self.pose, tuple(sightings), outcome, elapsed)

    def _check(self, gray: Image) -> list[Sighting] | None:
        """The cheap look of a frame whose pose has not moved: `SCOUTS` codes spread over the map looked for
        around their place; when enough are found where the pose puts them, every other code is only checked
        there (one correlation each). None when the scouts doubt the pose."""
        pose = self.pose
        predicted = [(k, pose.to_image(k.corners)) for k in self.map.stickers]
        scouts = set(_spread([k.centre for k, _p in predicted], SCOUTS))
        out: list[Sighting] = []
        found = []
        for i, (k, corners) in enumerate(predicted):
            if i in scouts:
                got = sight(gray, k, corners, SEARCH_MODULES)
                if got is not None:
                    found.append(got)
                    out.append(got)
        anchors = [s for s in found if s.anchor]
        if len(anchors) < max(POSE_STICKERS, len(found) // 2) or _median_offset(found) > REFIT_MODULES:
            return None
        for i, (k, corners) in enumerate(predicted):
            if i not in scouts:
                got = sight(gray, k, corners, 0)
                if got is not None:
                    out.append(got)
        return out

    def _relocate(
        self, gray: Image, relocate: Any, sightings: list[Sighting]
    ) -> tuple[Track, list[Sighting]]:
        """Too few codes where the pose puts them: a hand, or the camera moved (module docstring)."""
        moved = self._relocated(relocate()) if relocate is not None else None
        if moved is None:
            return Track.HELD, sightings
        wide = self._look(gray, moved, WIDE_SEARCH_MODULES)
        refitted = _fit_pose(wide, moved.lens)
        pose = Pose.of(refitted, moved.lens) if refitted is not None else moved
        again = self._look(gray, pose, SEARCH_MODULES)
        if self._lost(again):
            return Track.HELD, sightings
        self.pose = pose
        return Track.MOVED, again

    def _refine(self, gray: Image, sightings: list[Sighting]) -> tuple[Track, list[Sighting]]:
        """The codes found say the pose drifted: fit it to them, and look again."""
        refitted = _fit_pose(sightings, self.pose.lens)
        if refitted is None:
            return Track.KEPT, sightings
        pose = Pose.of(refitted, self.pose.lens)
        again = self._look(gray, pose, SEARCH_MODULES)
        if self._lost(again):
            return Track.KEPT, sightings
        self.pose = pose
        return Track.REFINED, again

    def place_unplaced(self, codes: Iterable[tuple[str, FloatArray]]) -> list[str]:
        """Codes read in this frame (tile id, image corners) of tiles the map has no sticker of yet: each that
        lies in its tile's lattice cell under the pose places the tile. Returns the tiles placed."""
        placed = []
        for tid, corners in codes:
            place = self.map.places.get(tid)
            if place is None or place.measured:
                continue
            mm = self.pose.to_table(np.asarray(corners, np.float64))
            centre, _up = _tile_centre(mm)
            if math.dist(centre, place.centre) > 0.5 * self.map.lattice.pitch:
                continue
            self.map = self.map.found(KnownSticker(tid, mm, False), mm)
            placed.append(tid)
        return placed

    def _look(self, gray: Image, pose: Pose, radius: int) -> list[Sighting]:
        out = []
        for sticker in self.map.stickers:
            predicted = pose.to_image(sticker.corners)
            got = sight(gray, sticker, predicted, radius)
            if got is not None:
                out.append(got)
        return out

    @staticmethod
    def _lost(sightings: Sequence[Sighting]) -> bool:
        anchors = sum(1 for s in sightings if s.anchor)
        seen = sum(1 for s in sightings if s.seen)
        return anchors < POSE_STICKERS or seen < LOST_SHARE * len(sightings)

    def _learn(self, sightings: Sequence[Sighting]) -> None:
        """Predicted stickers found well become measured ones."""
        for s in sightings:
            if not s.sticker.measured and s.anchor:
                self.map = self.map.found(s.sticker, self.pose.to_table(s.corners))

    def _relocated(self, relocation: Relocation | None) -> Pose | None:
        """The pose a cold reading's codes agree on, when it is not the current one; None when they agree
        with the current pose (a hand over the map), or do not agree on any (too few read)."""
        if relocation is None:
            return None
        to_own_table, codes = relocation
        by_id: dict[str, list[KnownSticker]] = {}
        for k in self.map.stickers:
            by_id.setdefault(k.id, []).append(k)
        read = [(tid, np.asarray(c, np.float64)) for tid, c in codes if tid in by_id]
        if not read:
            return None
        if self._placed and 3 * _agreeing(self.pose, read, by_id) >= 2 * len(read):
            return None
        own = [(tid, to_own_table(px), px) for tid, px in read]
        best: list[tuple[FloatArray, FloatArray]] = []
        for tid, mm, _px in own:
            for k in by_id[tid]:
                rigid = _rigid(mm, k.corners)
                pairs = _pairs(rigid, own, by_id)
                if len(pairs) > len(best):
                    best = pairs
        if len({tuple(np.round(t[0].mean(axis=0))) for t in best}) < 2:
            return None  # one code alone vouches for nothing
        lens = self.pose.lens  # the camera's own: a moved camera keeps its lens
        image = lens.undistort(np.vstack([p for p, _k in best]))
        table = np.vstack([k for _p, k in best])
        fitted, _mask = cv2.findHomography(image, table, 0)
        return None if fitted is None else Pose.of(np.asarray(fitted, np.float64), lens)


def _agreeing(
    pose: Pose, read: Sequence[tuple[str, FloatArray]], by_id: Mapping[str, list[KnownSticker]]
) -> int:
    """How many codes read lie, under `pose`, where a known code of their id lies (`STILL_MM`)."""
    n = 0
    for tid, px in read:
        c = pose.to_table(px).mean(axis=0)
        if any(math.dist(c, k.centre) <= STILL_MM for k in by_id[tid]):
            n += 1
    return n


def _rigid(src: FloatArray, dst: FloatArray) -> FloatArray:
    """The turn and shift (3x3) taking a code's corners `src` onto `dst` (least squares)."""
    a, b = src - src.mean(axis=0), dst - dst.mean(axis=0)
    angle = math.atan2(float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])), float(np.sum(a * b)))
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, -s], [s, c]])
    t = dst.mean(axis=0) - rot @ src.mean(axis=0)
    return np.array([[c, -s, t[0]], [s, c, t[1]], [0.0, 0.0, 1.0]])


def _pairs(
    rigid: FloatArray,
    own: Sequence[tuple[str, FloatArray, FloatArray]],
    by_id: Mapping[str, list[KnownSticker]],
) -> list[tuple[FloatArray, FloatArray]]:
    """(image corners, known table corners) of every code read that `rigid` puts on a known code of its id."""
    out = []
    for tid, mm, px in own:
        c = apply_homography(rigid, mm).mean(axis=0)
        near = min(by_id[tid], key=lambda k: math.dist(c, k.centre))
        if math.dist(c, near.centre) <= RELOCATE_MM:
            out.append((px, near.corners))
    return out


def _spread(points: Sequence[tuple[float, float]], n: int) -> list[int]:
    """Indices of `n` of `points` spread over them (farthest-point sampling from the first)."""
    if len(points) <= n:
        return list(range(len(points)))
    pts = np.asarray(points, np.float64)
    chosen = [0]
    dist = np.linalg.norm(pts - pts[0], axis=1)
    while len(chosen) < n:
        nxt = int(np.argmax(dist))
        chosen.append(nxt)
        dist = np.minimum(dist, np.linalg.norm(pts - pts[nxt], axis=1))
    return chosen


def _median_offset(sightings: Sequence[Sighting]) -> float:
    offsets = [s.offset for s in sightings if s.anchor]
    return float(np.median(offsets)) if offsets else 0.0


def _fit_pose(sightings: Sequence[Sighting], lens: Lens) -> FloatArray | None:
    """The homography (undistorted image -> table) the anchors agree on: RANSAC over their corners, then
    least squares over the codes all of whose corners agree."""
    anchors = [s for s in sightings if s.anchor]
    if len(anchors) < POSE_STICKERS:
        return None
    image = lens.undistort(np.vstack([s.corners for s in anchors]).astype(np.float64))
    table = np.vstack([s.sticker.corners for s in anchors]).astype(np.float64)
    fitted, mask = cv2.findHomography(image, table, cv2.RANSAC, RANSAC_MM)
    if fitted is None or mask is None:
        return None
    agree = mask.reshape(-1, 4).all(axis=1)
    if int(agree.sum()) < POSE_STICKERS:
        return None
    keep = np.repeat(agree, 4)
    refined, _mask = cv2.findHomography(image[keep], table[keep], 0)
    return None if refined is None else np.asarray(refined, np.float64)

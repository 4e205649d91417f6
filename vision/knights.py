"""Knights on the map: the dice on every territory and castle, by player colour, summed per location.

Dice are found by the dice reader (`vision.dice.read_dice`), run once over the union of all knight locations
(territory and castle polygons from the map reading, grown a little so that a die overhanging a tile edge is
still found). Each die is then assigned to the location whose polygon contains its centre on the table plane:
the centre of its box (the whole die's) in the image lies about half a die's height above the table, so it is
mapped through the homography of the plane at that height (`plane_at_height`), which puts it over the die's
footprint even when the camera is tilted 35 degrees. On that plane, a die the reader is unsure of within three
quarters of a side of a die it is sure of is that die read twice (`seen_twice`), and left out; of two sure
dice closer than two cubes can be, the weaker is doubted (`too_close`). A die whose centre lies in the gap
between two tiles goes to the nearer one within `edge_tolerance` of the tile size, and a die farther out (the
supply next to the board, a die in someone's hand) belongs to no location. Its player is its top face's body
colour classified by the `ColourCalibration` after white balance from the stickers' white (a die read from
above is left unnamed when its pips show on the other side of its body from that player's, or do not show dark
where that player's are: `vision.pipside`);
its knights are its pips.

A location is *unsure* when a die on it has a colour no calibration accepts, pips the reader is unsure of, or
a sure neighbour too close to it (`KnightsReading.doubts` says which: `engine.reading.Doubt`); *occluded*
when the occluder mask (a hand, an arm) covers more than `max_occluded` of its polygon.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import itertools
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from engine.reading import Doubt, merge_doubts
from vision import pipside, topview
from vision.calibration import (
    ColourCalibration,
    ColourMatch,
    white_balance_gains,
)
from vision.dicecolour import FaceSamples, sample_crops, sample_faces
from vision.framecolours import name_together
from vision.geometry import mean_radius
from vision.tags import DIE_MM, TILE_ACROSS_FLATS_MM
from vision.topview import FACE_BOX, TopView

if TYPE_CHECKING:
    from vision.dice import DieReading

Image = npt.NDArray[np.uint8]
Polygon = npt.NDArray[np.float64]  # Nx2, image pixels
Homography = npt.NDArray[np.float64]
Box = tuple[int, int, int, int]


class DieLike(Protocol):
    """What we use of `vision.dice.DieReading`."""

    @property
    def box(self) -> tuple[int, int, int, int]: ...

    @property
    def value(self) -> int: ...

    @property
    def confidence(self) -> float: ...

    @property
    def unsure(self) -> bool: ...


DiceReader = Callable[..., Sequence[Any]]


def default_dice_reader() -> DiceReader:
    """`vision.dice.read_dice` (imported when first needed, so the rest works and type-checks alone)."""
    reader: DiceReader = importlib.import_module("vision.dice").read_dice
    return reader


def is_knight_location(location_id: str) -> bool:
    """Territories (T..) and castles (K..) hold knights; lakes never do."""
    return location_id[:1] in ("T", "K")


def is_castle(location_id: str) -> bool:
    return location_id[:1] == "K"


@dataclass(frozen=True, slots=True)
class DieOnTable:
    """One die found on (or near) the board."""

    box: Box
    value: int
    colour: Colour | None  # None: no player's colour (rejected or ambiguous)
    colour_match: ColourMatch
    location: str | None  # None: not on any territory or castle
    centre: tuple[float, float]  # image px
    confidence: float
    unsure: bool
    whole: Box | None = None  # read from above: where the whole die can show (`box` is its top face's)

    @property
    def doubt(self) -> Doubt | None:
        """Why this die's knights are not counted surely: its player (never measured, or not told), then its
        pips; None for a die read surely."""
        colour = None
        if self.colour is None:
            colour = Doubt.UNMEASURED if self.colour_match.stand_in else Doubt.COLOUR
        return Doubt.first(colour, Doubt.PIPS if self.unsure else None)

    @property
    def extent(self) -> Box:
        """The whole die's box in the frame."""
        return self.box if self.whole is None else self.whole

    def to_json(self) -> dict[str, Any]:
        return {
            "box": list(self.box),
            "value": self.value,
            "colour": None if self.colour is None else self.colour.value,
            "colour_distance": round(self.colour_match.distance, 2),
            "location": self.location,
            "confidence": round(self.confidence, 3),
            "unsure": self.unsure,
            "doubt": None if self.doubt is None else self.doubt.value,
        }


@dataclass(frozen=True, slots=True)
class KnightsReading:
    """Knights per location per colour in one frame, with what the frame could not tell."""

    knights: Mapping[str, Mapping[Colour, int]]
    dice: tuple[DieOnTable, ...]
    seen: frozenset[str]
    occluded: frozenset[str]
    doubts: Mapping[str, Doubt]  # the unsure locations, each with why

    @property
    def unsure(self) -> frozenset[str]:
        return frozenset(self.doubts)


def _to_table(points: npt.ArrayLike, homography: Homography | None) -> npt.NDArray[np.float64]:
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if homography is None or len(p) == 0:
        return p
    return np.asarray(cv2.perspectiveTransform(p.reshape(-1, 1, 2), homography), np.float64).reshape(-1, 2)


def plane_at_height(
    table_to_image: Homography, image_size: tuple[int, int], height_mm: float
) -> Homography:
    """The homography table (mm) -> image for the plane `height_mm` above the table (`topview.lifted`)."""
    return topview.lifted(table_to_image, image_size, height_mm)


def centres_on_table(
    centres: Sequence[tuple[float, float]],
    image_to_table: Homography,
    image_size: tuple[int, int],
    height_mm: float,
) -> npt.NDArray[np.float64]:
    """Table-plane positions (mm) under image points that lie `height_mm` above the table."""
    table_to_image: Homography = np.asarray(np.linalg.inv(image_to_table), np.float64)
    lifted = plane_at_height(table_to_image, image_size, height_mm)
    return _to_table(centres, np.asarray(np.linalg.inv(lifted), np.float64))


def assign_to_locations(
    centres: Sequence[tuple[float, float]],
    polygons: Mapping[str, Polygon],
    image_to_table: Homography | None = None,
    edge_tolerance: float = 0.2,
    table_points: npt.NDArray[np.float64] | None = None,
) -> list[str | None]:
    """The location each centre lies in on the table plane (see the module docstring), or None.
    `table_points`, when given, are the centres already on the table plane (e.g. corrected for height)."""
    if not polygons or not centres:
        return [None] * len(centres)
    names = list(polygons)
    points = table_points if table_points is not None else _to_table(centres, image_to_table)
    shapes = [np.asarray(polygons[n], np.float64).reshape(-1, 2) for n in names]
    # every polygon in one transform; in float32, as OpenCV measured them once, so ties fall as they did
    corners = _to_table(np.concatenate(shapes), image_to_table).astype(np.float32).astype(np.float64)
    scores = np.empty((len(points), len(names)))
    bounds = np.cumsum([0] + [len(q) for q in shapes])
    # polygons of one corner count (a frame's tiles: all hexagons) measured together
    for count in {len(q) for q in shapes}:
        which = [k for k, q in enumerate(shapes) if len(q) == count]
        polys = np.stack([corners[bounds[k] : bounds[k + 1]] for k in which])
        sizes = np.linalg.norm(polys - polys.mean(axis=1, keepdims=True), axis=2).mean(axis=1)
        # Signed distance (positive inside), in units of the tile's size so tiles of any scale compare.
        scores[:, which] = signed_distances(points, polys) / np.maximum(sizes, 1e-9)
    best = np.argmax(scores, axis=1)
    return [
        names[b] if scores[i, b] >= -edge_tolerance else None for i, b in enumerate(best.tolist())
    ]


def signed_distances(
    points: npt.NDArray[np.float64], polys: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Each of N points' distance to each of P polygons' outline (P x E x 2 corners), positive inside and
    negative outside, as OpenCV's `pointPolygonTest(..., measureDist=True)` gives it: N x P, at once (a
    table's dice against its tiles: a fraction of the time of a call per pair)."""
    a = polys[None]  # 1 x P x E x 2
    edge = np.roll(polys, -1, axis=1)[None] - a
    rel = points[:, None, None, :] - a  # N x P x E x 2
    length2 = np.maximum((edge * edge).sum(axis=3), 1e-18)
    t = np.clip((rel * edge).sum(axis=3) / length2, 0.0, 1.0)
    nearest = rel - t[..., None] * edge
    distance = np.sqrt((nearest * nearest).sum(axis=3)).min(axis=2)
    # inside by the crossing rule (any simple polygon), as OpenCV decides it
    ay, ey = a[..., 1], edge[..., 1]
    px, py = points[:, 0, None, None], points[:, 1, None, None]
    crosses = (ay > py) != (ay + ey > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_at = a[..., 0] + (py - ay) * edge[..., 0] / ey
    inside = (crosses & (px < x_at)).sum(axis=2) % 2 == 1
    out: npt.NDArray[np.float64] = np.where(inside, distance, -distance)
    return out


def polygon_mask(shape: tuple[int, ...], polygons: Sequence[Polygon], grow_px: int = 0) -> Image:
    mask = np.zeros(shape[:2], np.uint8)
    for poly in polygons:
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32).reshape(-1, 1, 2)], 255)
    if grow_px > 0:
        k = 2 * grow_px + 1
        mask = np.asarray(cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))), np.uint8)
    return mask


def in_frame_share(shape: tuple[int, ...], poly: Polygon) -> float:
    """Share of a convex polygon's area that lies inside the frame."""
    h, w = shape[:2]
    p = poly.astype(np.float32).reshape(-1, 2)
    area = abs(float(cv2.contourArea(p)))
    if area <= 0:
        return 0.0
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inter, _ = cv2.intersectConvexConvex(p, frame)
    return min(1.0, float(inter) / area)


def mask_share(mask: Image, poly: Polygon, scale: float = 1.0) -> float:
    """Share of the polygon (full-frame px) covered by `mask` (non-zero), `scale` times the frame's size."""
    p = np.asarray(poly, np.float64).reshape(-1, 2) * scale
    xs, ys = p[:, 0].tolist(), p[:, 1].tolist()  # a few corners: plain floats beat numpy's reductions
    h, w = mask.shape[:2]
    x0, y0 = max(0, math.floor(min(xs))), max(0, math.floor(min(ys)))
    x1, y1 = min(w, math.ceil(max(xs)) + 1), min(h, math.ceil(max(ys)) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    pm = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(pm, [np.round(p - [x0, y0]).astype(np.int32).reshape(-1, 1, 2)], 255)
    area = int(np.count_nonzero(pm))
    if area == 0:
        return 0.0
    return float(np.count_nonzero(np.asarray(mask[y0:y1, x0:x1]) & pm)) / area


def grown(poly: Polygon, factor: float) -> Polygon:
    centre = poly.mean(axis=0)
    out: Polygon = (poly - centre) * factor + centre
    return out


def die_px(polygons: Iterable[Polygon], die_mm: float = DIE_MM) -> float | None:
    """The expected side of a die's face in pixels, from the tiles' size in the image (median centre-to-corner
    radius against the tile's `TILE_ACROSS_FLATS_MM / sqrt(3)`); None without tiles."""
    shapes = (np.asarray(q, np.float64).reshape(-1, 2) for q in polygons)
    radii = [mean_radius(p) for p in shapes if len(p) >= 3]
    if not radii:
        return None
    return float(np.median(radii)) * die_mm / (TILE_ACROSS_FLATS_MM / math.sqrt(3.0))


def accepts_keyword(func: Callable[..., Any], name: str) -> bool:
    """Whether `func` takes the keyword argument `name` (or any keyword, through **kwargs)."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def read_knights(
    image: Image,
    polygons: Mapping[str, Polygon],
    calibration: ColourCalibration,
    *,
    image_to_table: Homography | None = None,
    white_bgr: Sequence[float] | None = None,
    occluders: Image | None = None,
    dice_reader: DiceReader | None = None,
    edge_tolerance: float = 0.2,
    max_occluded: float = 0.15,
    min_in_frame: float = 0.9,
    die_height_mm: float = DIE_MM / 2.0,
    search: Collection[str] | None = None,
    found: Sequence[Any] | None = None,
    owners: Mapping[str, Colour] | None = None,
) -> KnightsReading:
    """Knights per location in `image`. `polygons`: location id -> polygon (image px) for every tile in view;
    lakes are ignored. `occluders`: a mask (non-zero = hand/unknown blob) the same size as `image`.
    `search`: look for dice on these locations only (the rest are still there to assign dice to, so a die
    overhanging from a neighbour is not counted here); the reading then covers these alone. `found`: what
    `find_dice` gave for the same image, polygons and `search`, when the caller had it found already.
    `owners`: castle id -> its owner, whose dice a castle holds (`player_of`)."""
    locs = _knight_locations(polygons)
    looked = set(locs) if search is None else set(locs) & set(search)
    seen: set[str] = set()
    occluded: set[str] = set()
    for loc, poly in locs.items():
        if loc in looked and in_frame_share(image.shape, poly) >= min_in_frame:
            seen.add(loc)
            if occluders is not None and mask_share(occluders, poly) > max_occluded:
                occluded.add(loc)
    dice: list[DieOnTable] = []
    if looked:
        if found is None:
            found = find_dice(
                image, polygons, dice_reader=dice_reader, search=search, image_to_table=image_to_table
            )
        centres = [((d.box[0] + d.box[2]) / 2.0, (d.box[1] + d.box[3]) / 2.0) for d in found]
        table_points = None
        if found and all(getattr(d, "where", None) is not None for d in found):
            # read from above: each die's place on the table is known
            table_points = np.array([d.where for d in found], np.float64).reshape(-1, 2)
        elif image_to_table is not None and die_height_mm:
            size = (image.shape[1], image.shape[0])
            table_points = centres_on_table(centres, image_to_table, size, die_height_mm)
        where = assign_to_locations(centres, locs, image_to_table, edge_tolerance, table_points)
        twice = seen_twice(found, table_points) if table_points is not None else set()
        doubted = too_close(found, table_points) if table_points is not None else set()
        kept = [
            (die, centre, place, (int(die.box[0]), int(die.box[1]), int(die.box[2]), int(die.box[3])), k)
            for k, (die, centre, place) in enumerate(zip(found, centres, where, strict=True))
            # a neighbour's die, or one off the board: read with its own location
            if (search is None or place in looked) and k not in twice
        ]
        matches = _name_players(image, calibration, kept, white_bgr)
        for (die, centre, place, box, index), match in zip(kept, matches, strict=True):
            value = int(die.value)
            dice.append(
                DieOnTable(
                    box=box,
                    value=value,
                    colour=player_of(match, place, owners or {}),
                    colour_match=match,
                    location=place,
                    centre=centre,
                    confidence=float(die.confidence),
                    unsure=bool(die.unsure) or index in doubted or not 1 <= value <= 6,
                    whole=_box_of(getattr(die, "whole", None)),
                )
            )
    return tally(dice, seen, occluded)


def player_of(match: ColourMatch, location: str | None, owners: Mapping[str, Colour]) -> Colour | None:
    """The player a die's colour `match` names, or None. A castle holds its owner's knights alone (Components,
    p. 2; nobody conquers it, p. 8), so a die on a castle (`owners`: castle id -> owner) whose likeliest
    player is the owner is the owner's, though too far from the owner's measured dice or too near another
    player's to be named anywhere else. A die whose likeliest player is another, a stand-in (its player never
    measured) or one whose pips refute the owner stays unnamed. Only the optional castle siege (p. 14) brings
    another player's dice onto a castle, for one battle, and those are most likely named their own player
    (and then the castle is asked: `vision.pipeline`)."""
    if match.accepted:
        return match.colour
    owner = owners.get(location or "")
    if owner is not None and match.colour is owner and not (match.stand_in or match.refuted):
        return owner
    return None


def _box_of(box: Sequence[float] | None) -> Box | None:
    return None if box is None else (int(box[0]), int(box[1]), int(box[2]), int(box[3]))


def _name_players(
    image: Image,
    calibration: ColourCalibration,
    kept: Sequence[tuple[Any, ...]],
    white_bgr: Sequence[float] | None,
) -> list[ColourMatch]:
    """Each kept die's player from its top face against the players' die models (body colours and pips), the
    frame's dice together (`vision.framecolours`): a die read from above by its rectified face, any other by
    its box in the frame."""
    above = [k for k, d in enumerate(kept) if getattr(d[0], "face", None) is not None]
    framed = [k for k, d in enumerate(kept) if getattr(d[0], "face", None) is None]
    parts = []
    if above:
        parts.append(sample_crops([kept[k][0].face for k in above], FACE_BOX, white_bgr))
    if framed:
        parts.append(sample_faces(image, [kept[k][3] for k in framed], white_bgr))
    out = dict(zip(above + framed, name_together(calibration, FaceSamples.joined(parts)), strict=True))
    for k in above:
        die, match = kept[k][0], out[k]
        model = calibration.models.get(match.colour)
        if match.accepted and model is not None and pipside.refutes(model, die.face, int(die.value)):
            out[k] = dataclasses.replace(match, refuted=True)
    return [out[k] for k in range(len(kept))]


# Two dice are solid cubes: their centres lie at least a side apart. Box centres err by a few mm, so distinct
# dice side by side in a castle were measured as close as 0.74 of a side (seeds 200000..200071, easy and
# medium, both decoders), never closer. The finder sometimes reads a tilted die twice, its top face and again
# lower down over its side face; the second box is one the reader is unsure of (those pips are the side
# face's), and on those seeds its centre lay 0.57-0.69 of a side from the first's in 5 of 6 cases (the sixth
# at 0.97 stays unsure). An unsure die was never measured within a side of a distinct die on those seeds, nor
# within 0.87 of a side on hard tables (200000..200047).
SAME_DIE_MM = 0.75 * DIE_MM


def seen_twice(found: Sequence[DieLike], table_points: npt.NDArray[np.float64]) -> set[int]:
    """Indices into `found` of dice the reader is unsure of whose centre on the dice's mid-height plane
    (`table_points`, mm) lies within `SAME_DIE_MM` of a die it is sure of: that die read a second time."""
    sure = [k for k, d in enumerate(found) if not d.unsure]
    if not sure:
        return set()
    anchors = table_points[sure]
    return {
        k
        for k, d in enumerate(found)
        if d.unsure and float(np.min(np.linalg.norm(anchors - table_points[k], axis=1))) < SAME_DIE_MM
    }


# A die's side face read as a die of its own lies towards the camera from its top face: on the dice's
# mid-height plane the two centres are about half a side plus the top's lean (half a side times the tangent
# of the view ray's tilt) apart: 15 mm for a box-setup die at 30-35 degrees (dev seed 500009), 21-23 mm at
# the far side of a table seen at 45-50 degrees. Both boxes unsure, one over the other along the die's upright
# in the frame: of such a pair `side_faces` keeps the top. Two distinct dice one behind the other lie a side
# or more apart and may be taken for one die: then one die is left unmeasured, nothing worse.
SIDE_FACE_MM = 1.5 * DIE_MM
SIDE_FACE_ALIGNED = 0.8


def side_faces(
    found: Sequence[DieLike], image_to_table: Homography, image_size: tuple[int, int]
) -> set[int]:
    """Indices into `found` of dice the reader is unsure of that lie below another such die in the frame,
    along a die's upright (`SIDE_FACE_ALIGNED`: the cosine between the two) and within `SIDE_FACE_MM` of it on
    the dice's mid-height plane: one die read twice, the lower box over its side face. `image_size` is
    (width, height)."""
    unsure = [k for k, d in enumerate(found) if d.unsure]
    if len(unsure) < 2:
        return set()
    boxes = [found[k].box for k in unsure]
    centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes], np.float64)
    points = centres_on_table([(x, y) for x, y in centres.tolist()], image_to_table, image_size, DIE_MM / 2)
    table_to_image: Homography = np.asarray(np.linalg.inv(image_to_table), np.float64)
    top = _to_table(points, plane_at_height(table_to_image, image_size, DIE_MM))
    up = top - _to_table(points, table_to_image)
    out: set[int] = set()
    for i, j in itertools.combinations(range(len(unsure)), 2):
        apart, upright = centres[i] - centres[j], up[i] + up[j]
        norms = float(np.linalg.norm(apart) * np.linalg.norm(upright))
        along = float(np.dot(apart, upright)) / norms if norms > 0 else 0.0
        if abs(along) >= SIDE_FACE_ALIGNED and float(np.linalg.norm(points[i] - points[j])) < SIDE_FACE_MM:
            out.add(unsure[j] if along > 0 else unsure[i])
    return out


# Two dice the reader is sure of can be too close to both be dice: one of them is a die's side face read as a
# die of its own (seen on tables tilted 30-35 degrees). Which one is not known, so the weaker is doubted and
# its location asks. Distinct dice were measured as close as 0.74 of a side (above), so the doubt begins
# below that: at 0.7 of a side. One die read twice with both boxes sure lay 0.6-0.8 of a side apart on the
# seeds the benchmark does not use (200000..200143 easy and medium, 200000..200047 hard; both decoders), and
# such a pair is a silent miscount (200128's castle, medium 4K, pyzbar: 20 knights read for 15).
TOO_CLOSE_MM = 0.7 * DIE_MM


def too_close(found: Sequence[DieLike], table_points: npt.NDArray[np.float64]) -> set[int]:
    """Indices into `found` of dice the reader is sure of whose centre on the dice's mid-height plane
    (`table_points`, mm) lies within `TOO_CLOSE_MM` of another sure die's of higher confidence (of two
    alike, the later): the two cannot both be dice."""
    sure = np.flatnonzero([not d.unsure for d in found])
    if len(sure) < 2:
        return set()
    points = table_points[sure]
    # all pairs at once: a castle-filled table has a few hundred, and a loop over them cost a millisecond
    near = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2) < TOO_CLOSE_MM
    doubted: set[int] = set()
    for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
        a, b = int(sure[i]), int(sure[j])
        doubted.add(b if float(found[a].confidence) >= float(found[b].confidence) else a)
    return doubted


def _knight_locations(polygons: Mapping[str, Polygon]) -> dict[str, Polygon]:
    return {k: np.asarray(v, np.float64).reshape(-1, 2) for k, v in polygons.items() if is_knight_location(k)}


def find_dice(
    image: Image,
    polygons: Mapping[str, Polygon],
    *,
    dice_reader: DiceReader | None = None,
    search: Collection[str] | None = None,
    image_to_table: Homography | None = None,
) -> list[Any]:
    """The dice the dice reader finds over the knight locations of `polygons` (those in `search`, if given):
    what `read_knights` assigns to locations and names the players of. With the table's homography
    (`image_to_table`) and the default reader, the dice are read from above (`vision.topview`): each with
    its place on the table. Nothing here depends on anything but the image, the polygons and the
    homography, so `vision.pipeline` runs it while the map is read."""
    locs = _knight_locations(polygons)
    looked = set(locs) if search is None else set(locs) & set(search)
    if not looked:
        return []
    if dice_reader is None and image_to_table is not None:
        from vision.dice import read_from_above

        key = tuple(locs[k].tobytes() for k in sorted(locs))
        view = _view_from_above(image.shape[:3], np.asarray(image_to_table, np.float64).tobytes(), key)
        where = _region_from_above(view, tuple(locs[k].tobytes() for k in sorted(looked)))
        return list(read_from_above(image, view, where))
    reader = dice_reader or default_dice_reader()
    region = _drawn_region(image.shape[:2], tuple(locs[k].tobytes() for k in sorted(looked)))
    extra: dict[str, Any] = {}
    side = _die_side(tuple(p.tobytes() for p in locs.values()))
    if side is not None and accepts_keyword(reader, "die_px"):
        extra["die_px"] = side
    if accepts_keyword(reader, "body_colours"):
        extra["body_colours"] = False  # `read_knights` looks at the faces' colours itself
    # The player is named from the top face's colours (body or pips), so the reader need not.
    return list(reader(image, region=region, calibration=None, **extra))


def expected_die(
    image: Image, polygons: Mapping[str, Polygon], location: str, image_to_table: Homography
) -> list[DieReading]:
    """The die known to stand on `location` (box setup asks for one on each castle), read from above where
    `find_dice` reported none: the strongest candidate there with a die score of `vision.dice.EXPECTED_DIE`,
    unsure (`vision.dice.read_expected`), when its place lies on `location` of `polygons`; else none."""
    from vision.dice import read_expected

    locs = _knight_locations(polygons)
    if location not in locs:
        raise ValueError(f"no knight location {location!r} among the polygons ({sorted(locs)})")
    key = tuple(locs[k].tobytes() for k in sorted(locs))
    view = _view_from_above(image.shape[:3], np.asarray(image_to_table, np.float64).tobytes(), key)
    found = read_expected(image, view, _region_from_above(view, (locs[location].tobytes(),)))
    places = [d.where for d in found]
    centres = [((d.box[0] + d.box[2]) / 2.0, (d.box[1] + d.box[3]) / 2.0) for d in found]
    where = assign_to_locations(centres, locs, image_to_table, table_points=np.asarray(places, np.float64))
    return [d for d, place in zip(found, where, strict=True) if place == location]


# A camera on its stand sees the same outlines under the same homography frame after frame: the view from
# above and its regions are kept (keyed by the arrays' bytes).
@functools.lru_cache(maxsize=2)
def _view_from_above(shape: tuple[int, ...], homography: bytes, outlines: tuple[bytes, ...]) -> TopView:
    i2t = np.frombuffer(homography, np.float64).reshape(3, 3)
    return topview.above(shape, i2t, [np.frombuffer(b, np.float64).reshape(-1, 2) for b in outlines])


@functools.lru_cache(maxsize=4)
def _region_from_above(view: TopView, outlines: tuple[bytes, ...]) -> Image:
    mask = topview.region(view, [np.frombuffer(b, np.float64).reshape(-1, 2) for b in outlines])
    mask.setflags(write=False)
    return mask


# A still table's outlines come again frame after frame: what is drawn from them alone is kept (at 1080p the
# region costs 0.75 ms to draw, the die's side 0.3 ms to measure). The outlines come as their float64 points'
# bytes, N x 2, so that they can be the key. Two regions: the whole table's and the last few locations' a
# stream looked at again (a 4K region is 8 MB).
@functools.lru_cache(maxsize=2)
def _drawn_region(shape: tuple[int, ...], outlines: tuple[bytes, ...]) -> Image:
    """The mask of `outlines` grown by 12% (so that a die overhanging a tile's edge is found whole),
    read-only, as it is shared."""
    polygons = [grown(np.frombuffer(b, np.float64).reshape(-1, 2), 1.12) for b in outlines]
    mask = polygon_mask(shape, polygons)
    mask.setflags(write=False)
    return mask


@functools.lru_cache(maxsize=4)
def _die_side(outlines: tuple[bytes, ...]) -> float | None:
    return die_px(np.frombuffer(b, np.float64).reshape(-1, 2) for b in outlines)


def tally(dice: Iterable[DieOnTable], seen: Iterable[str], occluded: Iterable[str]) -> KnightsReading:
    """Knights per location and colour from the dice; a location with a die of no colour or unsure pips is
    unsure."""
    dice = tuple(dice)
    seen = frozenset(seen)
    knights: dict[str, dict[Colour, int]] = {}
    doubts: list[dict[str, Doubt]] = []
    for die in dice:
        if die.location is None:
            continue
        why = die.doubt
        if why is not None:
            doubts.append({die.location: why} if die.location in seen else {})
        elif die.colour is not None:  # always, with no doubt
            per = knights.setdefault(die.location, {})
            per[die.colour] = per.get(die.colour, 0) + die.value
    return KnightsReading(
        knights=knights, dice=dice, seen=seen, occluded=frozenset(occluded), doubts=merge_doubts(*doubts)
    )


def doubt(reading: KnightsReading, locations: Collection[str], why: Doubt) -> KnightsReading:
    """`reading` with `locations` (those it saw) flagged unsure too, for `why` (unless flagged for a more
    useful reason already)."""
    more = {loc: why for loc in locations if loc in reading.seen}
    return dataclasses.replace(reading, doubts=merge_doubts(reading.doubts, more))


def merged(kept: KnightsReading, fresh: KnightsReading, looked: Collection[str]) -> KnightsReading:
    """`kept` with the locations in `looked` replaced by `fresh`'s reading of them (see `read_knights`'s
    `search`). Each location keeps every doubt of the reading it is taken from, those of no die too
    (something unread there, a spot never seen bare, a stranger on a castle)."""
    looked = frozenset(looked)
    dice = [d for d in kept.dice if d.location not in looked]
    dice += [d for d in fresh.dice if d.location in looked]
    out = tally(
        dice,
        (kept.seen - looked) | (fresh.seen & looked),
        (kept.occluded - looked) | (fresh.occluded & looked),
    )
    doubts = {loc: why for loc, why in kept.doubts.items() if loc not in looked}
    doubts |= {loc: why for loc, why in fresh.doubts.items() if loc in looked}
    return dataclasses.replace(out, doubts=merge_doubts(out.doubts, doubts))


def occluder_mask(
    image: Image,
    white_bgr: Sequence[float] | None = None,
    *,
    min_area_share: float = 0.002,
    scale: float = 0.25,
    full_size: bool = True,
    max_texture: float = 6.0,
) -> Image:
    """Smooth skin-coloured blobs (hands, arms) as a full-size mask; small specks (a red die) are dropped.

    With `full_size=False` the mask is returned at `scale` of the frame's size (`scale` is rounded to one over
    a whole number).

    Skin is found in YCrCb (Cr 135..180, Cb 85..135, Y > 40, a widely used range that holds across skin tones
    under balanced light, hence the white balance from `white_bgr` first) at reduced resolution, then cleaned
    with a morphological opening. Only smooth pixels count (grey-level deviation under `max_texture` in a 5x5
    window at that scale): a red castle's printed art is skin-coloured but textured. Dice, even red
    and yellow ones, are far smaller than `min_area_share` of the frame and so never count as occluders.
    """
    h, w = image.shape[:2]
    factor = max(1, round(1.0 / scale))
    # Bilinear point sampling for big shrinks (INTER_AREA costs 20-40 ms on a 4K frame): aliasing can only
    # make a surface look more textured, so a smooth hand stays smooth and textured art is not taken for one.
    interpolation = cv2.INTER_AREA if factor <= 3 else cv2.INTER_LINEAR
    small = cv2.resize(image, (max(1, w // factor), max(1, h // factor)), interpolation=interpolation)
    if white_bgr is not None:
        # a table of every byte's balanced value per channel: the same bytes as scaling the image in float32,
        # in a third of the time
        gains = np.asarray(white_balance_gains(white_bgr), np.float32)
        table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains, 0, 255).astype(np.uint8)
        small = np.asarray(cv2.LUT(small, table.reshape(256, 1, 3)), np.uint8)
    ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
    skin = cv2.inRange(ycc, np.array([40, 133, 77], np.uint8), np.array([255, 173, 127], np.uint8))
    # Skin is smooth at this scale; printed tile art, wood grain and dice edges are not.
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mean = cv2.blur(gray, (5, 5))
    var = cv2.blur(gray * gray, (5, 5)) - mean * mean
    smooth = (np.sqrt(np.maximum(var, 0.0)) < max_texture).astype(np.uint8) * 255
    skin = cv2.bitwise_and(skin, smooth)
    skin = cv2.morphologyEx(skin, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(skin, connectivity=8)
    min_area = min_area_share * small.shape[0] * small.shape[1]
    keep = np.zeros(count, np.uint8)
    for i in range(1, count):
        if stats[i, cv2.CC_STAT_AREA] >= min_area:
            keep[i] = 255
    mask_small: Image = keep[labels]
    if not full_size:
        return mask_small
    return np.asarray(cv2.resize(mask_small, (w, h), interpolation=cv2.INTER_NEAREST), np.uint8)

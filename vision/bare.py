"""The knight locations as they looked bare, so that a die the dice finder missed still shows.

The dice finder knows the dice looks it was trained on; a kind of die it never met (a swirl, a translucent
body, coloured pips) can go unseen, and a location read empty while a knight stands on it is the worst error a
referee can make, because nobody is asked. Tiles never move during a game, so what each location looks like
bare is known from a frame with no hand over the map, read before the confirmation (`learn`), away from
the dice read there. In a later frame (`look`), a change on the table plane that no die read in that frame
accounts for is *something unread*, and its location is flagged unsure, whatever the thing looks like. The
converse: a die read on a territory that still looks bare (tile art that fooled the finder) is a *phantom*,
and flagged too. Castles are not judged for phantoms: a castle is printed in its owner's colour, and a die
of that colour on it can look like the castle itself.

Both frames are warped onto the table plane (`PX_PER_MM`, in table millimetres), so the camera may move in
between. The comparison stands what changes with no die:
- the light: the frame's lightness is fitted to the bare look's over a sample of the known pixels (most of a
  table is bare at any time), and its colour cast is taken off by the median shift of a and b (Lab);
- a millimetre of registration: a pixel differs only by how far it lies outside the range of the bare look
  within `SLACK_MM` of it;
- glare and soft shadows: a broad, smooth change of lightness is a lamp or a shadow; a die brings colour or
  edges. A pixel has changed when its colour moved by `CHROMA_DELTA`, or its lightness by `LIGHT_DELTA`
  where the frame has edges the bare look has not.
A place has changed when `DENSITY` of a `WINDOW_MM` square around it changed (a die is a solid patch of
change; noise and JPEG blocks are specks), or half that on a castle (`CASTLE_DENSITY`): a castle is printed in
its owner's colour, so a die of that colour on it changes little but its pips. A changed piece of
`MIN_AREA_MM2` or more that no die's footprint (grown by `DIE_ROOM_MM` for its shadow) accounts for flags the
location holding most of it, and every other location holding `SHARE_MM2` of it (room for a die): a die's
change joins whatever changed beside it (an arm the reader did not find, a card), and the piece's larger part
may lie next door. A change touching a hand the reader found is the hand's: the reader judges locations under
a hand itself (skin-coloured print the bare look already had is the table's own, never a hand). Of such a
piece, only a part beyond `HAND_MM` of the skin that is no longer nor wider than `BESIDE_HAND_MM` is kept: a
die set down beside the hand (at a slant its change runs 40 mm along the table). On the realism renderer's dev
scenes (training kinds, 0-50 degrees; one territory's read dice left out of the look at a time, as if the
finder had missed them) the look flagged 917 of 941 such territories with the location holding most alone and
every hand's piece dropped, and 933 with both rules. They ask about 0-1.2 points more of the locations read
right (beside arms the skin mask did not find, under cards), and more of those under a hand. Keeping every
part beyond a hand's reach, whatever its size, caught 3 more of the 941 and asked 0.4-1 points more; counting
printed detail that vanished (a white die over a sticker's code) as a change caught one more and lost another.
Only the tiles are compared, not their rims nor the table around them (a cloth may move).

Where a die stood in the frame the bare look is learned from (on castles, the set-up's dice), the table was
not seen there: for a die read from above, the place it takes whichever way it is turned (`_turned_mask`,
below), not its whole-die box. The table reader keeps, of the frames it read whole before the confirmation,
the one with the fewest dice on the map (the map laid, before the dice came): its look fills those spots in
(`Earlier`), in the learning frame's light and for the locations that lay then as they lie now.

Where the bare look was never seen (a set-up's die stood there in every frame before the confirmation), a
missed die changes nothing it can tell. Such a spot is asked about (`blind`) whenever no die read stands on
it and it could hold most of a die's top face (`BLIND_MM` square): the reader says it cannot see there
rather than vouching for it. On the realism renderer's dev scenes (training kinds, seeds 500000+, where the
bench learns the bare look from its set-up frame, one die on each castle) this cut the locations silently
wrong from 13 to 9 over six dev sets, and cost 1-5 points of knights right (castles whose set-up die had
moved); a half-top-face area instead of the square cost 5-10 points, a whole face's square caught one
fewer. With a frame of the map before the dice, as the new game screen asks, no spot is blind. A later frame
that shows such a location with no die read on it, nothing else changed there and no hand over it shows it
bare: the table reader learns the spot from it (`seen_bare`), so a castle whose dice are lifted once is known
from then on (a die the finder missed there while no other die stood on the castle would be learned as the
table: the reader was blind to it before, too). Asking wherever a die could stand clear of the dice read
(16 mm from each one's centre) with a never-seen square around it caught 2 of 4 dev castles read short,
black dice between others, but cost 6-7 points of knights right: a set-up die's unseen spot reaches well
past where a die stands, by parallax.

A die read from above accounts for its place whichever way it is turned, seen from the camera (`tops`,
`_turned_mask`), not for its whole-die box: that box stands square to the frame, and in a castle's crowd
the boxes of the dice read covered a die between them. On the dev scenes above, one read castle die left out
of the look at a time was flagged 211 times of 263 with the boxes and 233 with the places, and the
locations flagged with no die left out went from 55 to 59 of 608. On the seven dev sets this caught 3 of
the 4 castles read short (black dice between black dice), for 0.5-1.3 points of knights right. The middle
80 % of each box caught as many and flagged more.

The set-up's dice hide only their places too, so less of a castle is never seen bare, and fewer castles
whose set-up die moved are asked for a blind spot. On four dev sets (training kinds, seeds 500000+, 0-50
degrees, 3809 locations) that alone stated 21 more locations right, but one black die missed among black
dice on the black castle, which the wider blind spot had happened to cover, went silent. With
`CASTLE_DENSITY` as well, on those and two more sets (9153 locations), silently wrong went 5 -> 3 (a
white die missed on the white castle and a black one on the black castle now asked; left: another such
black one, and two dice named the wrong player) and knights right +14 locations; a castle density of 0.1
caught no more and cost 40. On the realism bench's held-out kinds the two did not carry over: silently
wrong rose by a location or two per group (docs/realism-bench.md, the latest full run).

What it cannot see: a die the colour of the print under it whose pips are too small to change
`CASTLE_DENSITY` of a square (a black 1 or 2 among black dice on the black castle).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.knights import is_castle
from vision.tags import DIE_MM
from vision.topview import lifted

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]
Box = Sequence[float]

PX_PER_MM = 1.0  # a top face is 16 px: enough to see that something is there
MARGIN_MM = 10.0  # table beyond the outlines, for a die on a tile's edge
GROW = 1.06  # a location's outline grown so that a die overhanging its edge belongs to it
EDGE_MM = 2.0  # a tile's rim, left out of the comparison
DIE_ROOM_MM = 2.0  # around a die read: its contact shadow and anti-aliased edge
CHROMA_DELTA = 14.0  # a, b units (OpenCV's 8-bit Lab): a colour this far from the bare look has changed
LIGHT_DELTA = 30.0  # L units: a lightness change this big with new edges has changed
EDGE_DELTA = 18.0  # gradient (L per px) the new frame has beyond the bare look's
MIN_AREA_MM2 = DIE_MM * DIE_MM / 5.0  # a fifth of a top face
BLIND_MM = 0.75 * DIE_MM  # a square this big never seen bare and free now: a die may stand there
SURE_BARE = 0.1  # a die read where under this share of its footprint changed stands on bare table
FIT_PIXELS = 5000  # known pixels the light is fitted on (two numbers, and a median per colour)
BLUR_PX = 0.8  # against noise and JPEG blocks, in bare px
HAND_MM = 12.0  # a change this near a hand is the hand's
BESIDE_HAND_MM = 3.0 * DIE_MM  # ... but a piece of it beyond that, no longer nor wider than this, is a die's
SHARE_MM2 = DIE_MM * DIE_MM  # a location holding this much of a piece is flagged, not only the one with most
SLACK_MM = 1.0  # registration: a pixel may match its bare look this far away
WINDOW_MM = 8.0  # changes are counted in squares of half a die's side ...
DENSITY = 0.3  # ... and a square this full of them has changed
CASTLE_DENSITY = 0.15  # ... or this full, on a castle (a die of its print's colour: its pips alone change)


@dataclass(frozen=True, slots=True, eq=False)
class BareTable:
    """The knight locations' bare look on the table plane: bare px = (table mm - `origin`) x `PX_PER_MM`.
    `lab`: OpenCV 8-bit Lab as float32; `known`: where the bare look was seen (on a tile, off its rim, no
    die, in frame); `places`: each pixel's location, as an index into `ids` plus one (0: none)."""

    origin: tuple[float, float]
    size: tuple[int, int]
    lab: npt.NDArray[np.float32]
    known: npt.NDArray[np.bool_]
    places: npt.NDArray[np.int32]
    ids: tuple[str, ...]
    high: npt.NDArray[np.float32]  # the bare look's highest and lowest values `SLACK_MM` around each pixel
    low: npt.NDArray[np.float32]
    edges: npt.NDArray[np.float32]  # its strongest lightness edge as near
    skin: npt.NDArray[np.bool_]  # skin-coloured in the bare look (tile art, the table): never a hand
    sample: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]  # known pixels to fit the light on
    hidden: npt.NDArray[np.bool_]  # on a tile, in frame, never seen bare: a die stood there (`blind`)
    castle: npt.NDArray[np.bool_]  # on a castle (`CASTLE_DENSITY`)


@dataclass(frozen=True, slots=True)
class Unread:
    """What a frame shows that its dice do not account for. `locations`: something unread is on them;
    `phantoms`: indexes (into the dice given) of dice read where the table still looks bare."""

    locations: frozenset[str]
    phantoms: frozenset[int]
    blind: frozenset[str] = frozenset()  # of `locations`, those asked only for a spot never seen bare


def _to_bare(image_to_table: FloatArray, origin: tuple[float, float]) -> FloatArray:
    shift = np.array([[PX_PER_MM, 0.0, -origin[0] * PX_PER_MM], [0.0, PX_PER_MM, -origin[1] * PX_PER_MM],
                      [0.0, 0.0, 1.0]])
    out: FloatArray = shift @ np.asarray(image_to_table, np.float64)
    return out


def _points(points: npt.ArrayLike, homography: FloatArray) -> FloatArray:
    p = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(p, homography), np.float64).reshape(-1, 2)


def _lab(frame: Image, to_bare: FloatArray, size: tuple[int, int]) -> npt.NDArray[np.float32]:
    flat = cv2.warpPerspective(frame, to_bare, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    flat = cv2.GaussianBlur(flat, (0, 0), BLUR_PX)  # noise and JPEG blocks
    return np.asarray(cv2.cvtColor(flat, cv2.COLOR_BGR2LAB), np.float32)


def _in_frame(frame_shape: tuple[int, ...], to_bare: FloatArray, size: tuple[int, int]
              ) -> npt.NDArray[np.bool_]:
    """Where the frame shows the table plane (a coarse mask warped, not the frame's corners: a steep camera
    can see past the horizon, where corners have no place on the table)."""
    h, w = frame_shape[:2]
    step = 8
    inside = np.zeros((h // step + 2, w // step + 2), np.uint8)
    inside[1:-1, 1:-1] = 1  # a border of a frame px or so, where the warp replicates
    scaled = to_bare @ np.array([[step, 0.0, -step], [0.0, step, -step], [0.0, 0.0, 1.0]])
    mask = cv2.warpPerspective(inside, scaled, size, flags=cv2.INTER_NEAREST, borderValue=0)
    return np.asarray(mask > 0)


def _dice_mask(boxes: Sequence[Box], to_bare: FloatArray, size: tuple[int, int]) -> Image:
    """Where the dice read show, on the table plane: each whole-die box's footprint, grown for its shadow."""
    mask = np.zeros((size[1], size[0]), np.uint8)
    for x0, y0, x1, y1 in boxes:
        corners = _points([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], to_bare)
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 255)
    return _with_room(mask)


def _with_room(mask: Image) -> Image:
    """Dice's `mask` grown by `DIE_ROOM_MM`: their contact shadows and anti-aliased edges."""
    room = max(1, round(DIE_ROOM_MM * PX_PER_MM))
    return np.asarray(cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * room + 1,) * 2)))


def _turned_mask(tops: Sequence[Box], image_to_table: FloatArray, frame_shape: tuple[int, ...],
                 origin: tuple[float, float], size: tuple[int, int]) -> Image:
    """Where the dice whose top faces are `tops` (frame px) show on the table plane, whichever way each is
    turned: the hull of the circle round its base and that round its top face (a die's half diagonal),
    seen from the camera (its pose from the table's homography), grown by `DIE_ROOM_MM`. Tighter than the
    whole-die box, which stands square to the frame: in a castle's crowd those boxes cover a die between."""
    mask = np.zeros((size[1], size[0]), np.uint8)
    if not tops:
        return mask
    h, w = frame_shape[:2]
    top_to_image = lifted(np.linalg.inv(image_to_table), (w, h), DIE_MM)
    centres = np.array([((x0 + x1) / 2.0, (y0 + y1) / 2.0) for x0, y0, x1, y1 in tops])
    # the table under each top face's centre
    under = _points(centres, np.asarray(np.linalg.inv(top_to_image), np.float64))
    turn = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
    ring = np.column_stack([np.cos(turn), np.sin(turn)]) * (DIE_MM / np.sqrt(2.0))
    seen_on_table = np.asarray(image_to_table @ top_to_image, np.float64)  # via the camera
    for centre in under:
        base = ring + centre
        top = _points(base, seen_on_table)
        place = (np.vstack([base, top]) - origin) * PX_PER_MM
        cv2.fillConvexPoly(mask, cv2.convexHull(np.round(place).astype(np.int32)), 255)
    return _with_room(mask)


def _skin(occluders: Image | None, frame_shape: tuple[int, ...], to_bare: FloatArray, size: tuple[int, int]
          ) -> npt.NDArray[np.bool_]:
    """A skin mask (at any scale of the frame) on the table plane."""
    if occluders is None:
        return np.zeros((size[1], size[0]), bool)
    sx = occluders.shape[1] / frame_shape[1]
    sy = occluders.shape[0] / frame_shape[0]
    scaled = to_bare @ np.diag([1.0 / sx, 1.0 / sy, 1.0])
    return np.asarray(cv2.warpPerspective(occluders, scaled, size, flags=cv2.INTER_NEAREST) > 0)


@dataclass(frozen=True, slots=True)
class Earlier:
    """An earlier frame of the table with no hand over the map, where `locations` lay as they lie now: its
    `dice` (whole-die boxes, frame px) stood elsewhere, so it saw some of what the learning frame's dice
    hid."""

    frame: Image
    image_to_table: npt.ArrayLike
    dice: Sequence[Box]
    locations: Collection[str]


def learn(
    frame: Image,
    image_to_table: npt.ArrayLike,
    outlines: Mapping[str, npt.ArrayLike],
    dice: Sequence[Box],
    occluders: Image | None = None,
    *,
    earlier: Sequence[Earlier] = (),
    tops: Sequence[Box] | None = None,
) -> BareTable:
    """The bare look of the knight locations `outlines` (frame px) in `frame` (a frame with no hand over the
    map), away from `dice` (whole-die boxes, frame px; with `tops`, their top faces' boxes when read from
    above, away from their places whichever way each is turned, `_turned_mask`). `occluders`: the frame's
    skin mask (any size over the frame), whose skin is the table's own: a later frame's skin there is not a
    hand. Where `frame`'s dice stand, the bare look is taken from `earlier` frames that saw the table there
    (`_filled`)."""
    i2t = np.asarray(image_to_table, np.float64)
    table = {k: _points(v, i2t) for k, v in outlines.items()}
    if not table:
        raise ValueError("no knight locations to learn the bare look of")
    every = np.concatenate(list(table.values()))
    lo, hi = every.min(axis=0) - MARGIN_MM, every.max(axis=0) + MARGIN_MM
    origin = (float(lo[0]), float(lo[1]))
    size = (int(np.ceil((hi[0] - lo[0]) * PX_PER_MM)), int(np.ceil((hi[1] - lo[1]) * PX_PER_MM)))
    to_bare = _to_bare(i2t, origin)
    ids = tuple(sorted(table))
    places = np.zeros((size[1], size[0]), np.int32)
    tiles = np.zeros((size[1], size[0]), np.uint8)
    for index, loc in enumerate(ids):
        poly = table[loc]
        centre = poly.mean(axis=0)
        cv2.fillPoly(places, [np.round((centre + (poly - centre) * GROW - lo) * PX_PER_MM).astype(np.int32)],
                     index + 1)
        cv2.fillPoly(tiles, [np.round((poly - lo) * PX_PER_MM).astype(np.int32)], 1)
    # Only the tiles themselves are compared: the table around them (a cloth, its folds) may change, and
    # their edges cast shadows.
    on_tiles = cv2.erode(tiles, _square(EDGE_MM)) > 0
    if tops is None:
        standing = _dice_mask(dice, to_bare, size)
    else:
        standing = _turned_mask(tops, i2t, frame.shape, origin, size)
    known = on_tiles & _in_frame(frame.shape, to_bare, size) & (standing == 0)
    lab = _lab(frame, to_bare, size)
    for other in earlier:
        same = np.isin(places, [i + 1 for i, loc in enumerate(ids) if loc in other.locations])
        lab, known = _filled(lab, known, on_tiles & same, other, origin)
    kernel = _square(SLACK_MM)
    edges = np.asarray(cv2.dilate(_edges(lab[..., 0]), kernel), np.float32)
    ys, xs = np.nonzero(known)
    pick = np.random.default_rng(0).permutation(len(ys))[:FIT_PIXELS]
    hidden = on_tiles & _in_frame(frame.shape, to_bare, size) & ~known
    return BareTable(
        origin, size, lab, known, places, ids, np.asarray(cv2.dilate(lab, kernel), np.float32),
        np.asarray(cv2.erode(lab, kernel), np.float32), edges, _skin(occluders, frame.shape, to_bare, size),
        (ys[pick], xs[pick]), hidden, np.array([False] + [is_castle(loc) for loc in ids])[places],
    )


def _filled(
    lab: npt.NDArray[np.float32], known: npt.NDArray[np.bool_], where: npt.NDArray[np.bool_],
    other: Earlier, origin: tuple[float, float],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """`lab` with its unknown pixels in `where` (the tiles `other` saw lie as they lie now) filled where
    `other` saw them bare, in `lab`'s light (fitted over the pixels both saw, as a later frame's is:
    `_relit`), and the grown `known`. A die set down on a castle at set-up hides the castle's middle from the
    frame the bare look is learned from; a frame from before the dice were set down saw it."""
    h, w = known.shape
    to_bare = _to_bare(np.asarray(other.image_to_table, np.float64), origin)
    seen = where & _in_frame(other.frame.shape, to_bare, (w, h))
    seen &= _dice_mask(other.dice, to_bare, (w, h)) == 0
    fill = seen & ~known
    both = seen & known
    if not fill.any() or int(both.sum()) < FIT_PIXELS // 10:
        return lab, known
    ys, xs = np.nonzero(both)
    pick = np.random.default_rng(0).permutation(len(ys))[:FIT_PIXELS]
    then = _relit(_lab(other.frame, to_bare, (w, h)), lab, (ys[pick], xs[pick]))
    out = lab.copy()
    out[fill] = then[fill]
    return out, known | fill


def _normalised(now: npt.NDArray[np.float32], bare: BareTable, seen: npt.NDArray[np.bool_]
                ) -> npt.NDArray[np.float32]:
    """`now` with the light of `bare`, fitted over its sample of the known pixels that `now` shows."""
    ys, xs = bare.sample
    inside = seen[ys, xs]
    return _relit(now, bare.lab, (ys[inside], xs[inside]))


def _relit(now: npt.NDArray[np.float32], reference: npt.NDArray[np.float32],
           sample: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]) -> npt.NDArray[np.float32]:
    """`now` with the light of `reference` (both Lab on the same pixels), fitted over `sample`: lightness by a
    least-squares line (refitted without the pixels it fits worst: dice and hands), colour cast by the median
    shift of a, b."""
    ys, xs = sample
    if len(ys) < 100:
        return now
    x, y = now[ys, xs, 0], reference[ys, xs, 0]
    keep = np.ones(x.shape, bool)
    for _ in range(2):
        gain, offset = np.polyfit(x[keep], y[keep], 1)
        residual = np.abs(gain * x + offset - y)
        keep = residual <= np.percentile(residual, 80)
    shift = [float(np.median(reference[ys, xs, c] - now[ys, xs, c])) for c in (1, 2)]
    affine = np.array([[gain, 0, 0, offset], [0, 1, 0, shift[0]], [0, 0, 1, shift[1]]], np.float32)
    return np.asarray(cv2.transform(now, affine), np.float32)


def _outside(now: npt.NDArray[np.float32], bare: BareTable) -> npt.NDArray[np.float32]:
    """How far each pixel of `now` lies outside its bare neighbourhood's range (`SLACK_MM` each way)."""
    return np.asarray(np.maximum(now - bare.high, 0) + np.maximum(bare.low - now, 0), np.float32)


def _square(mm: float) -> Image:
    side = 2 * max(1, round(mm * PX_PER_MM)) + 1
    return np.ones((side, side), np.uint8)


def _edges(lightness: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    gx = np.asarray(cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3), np.float32) / 4.0
    gy = np.asarray(cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3), np.float32) / 4.0
    return np.asarray(cv2.magnitude(gx, gy), np.float32)


def changed(bare: BareTable, frame: Image, image_to_table: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Where `frame` differs from the bare look, on the bare table's pixels (only where it is known)."""
    to_bare = _to_bare(np.asarray(image_to_table, np.float64), bare.origin)
    now = _lab(frame, to_bare, bare.size)
    seen = bare.known & _in_frame(frame.shape, to_bare, bare.size)
    now = _normalised(now, bare, seen)
    off = _outside(now, bare)
    colour = np.maximum(off[..., 1], off[..., 2]) > CHROMA_DELTA
    new_edges = _edges(now[..., 0]) - bare.edges
    edgy = cv2.dilate(new_edges, _square(1.0)) > EDGE_DELTA
    light = (off[..., 0] > LIGHT_DELTA) & edgy
    mask = ((colour | light) & seen).astype(np.uint8)
    density = cv2.blur(mask.astype(np.float32), (round(WINDOW_MM * PX_PER_MM),) * 2)
    return np.asarray((density >= np.where(bare.castle, CASTLE_DENSITY, DENSITY)) & seen)


def look(
    bare: BareTable,
    frame: Image,
    image_to_table: npt.ArrayLike,
    dice: Sequence[Box],
    *,
    looked: Collection[str] | None = None,
    plain: Sequence[bool] | None = None,
    occluders: Image | None = None,
    tops: Sequence[Box] | None = None,
) -> Unread:
    """What in `frame` the `dice` read in it (whole-die boxes, frame px) do not account for, over the
    locations `looked` (default: all). `plain[k]`: die k stands where the table is not printed in its own
    colour, so that it cannot look like the bare table (a castle is printed in its owner's colour, and a
    die of that colour on it can): only those dice are judged phantoms (default: all). `tops`: the dice's
    top-face boxes (frame px), when read from above: what they account for is then their place whichever
    way each is turned (`_turned_mask`), not their whole-die boxes."""
    if looked is not None:
        bare = _around(bare, looked)
    i2t = np.asarray(image_to_table, np.float64)
    to_bare = _to_bare(i2t, bare.origin)
    moved = changed(bare, frame, image_to_table)
    if tops is None:
        free = _dice_mask(dice, to_bare, bare.size) == 0
    else:
        free = _turned_mask(tops, i2t, frame.shape, bare.origin, bare.size) == 0
    unread = moved & free
    pieces = _pieces(unread)
    if occluders is not None:
        hands = _skin(occluders, frame.shape, to_bare, bare.size) & ~bare.skin
        kept = _off_hands(unread, pieces[1], cv2.dilate(hands.astype(np.uint8), _square(HAND_MM)) > 0)
        if kept is not unread:
            pieces = _pieces(kept)
    wanted = set(bare.ids if looked is None else looked)
    locations = _holding(bare, pieces) & wanted
    unseen = (blind(bare, free & _in_frame(frame.shape, to_bare, bare.size)) & wanted) - locations
    judged = [box for k, box in enumerate(dice) if plain is None or plain[k]]
    index = [k for k in range(len(dice)) if plain is None or plain[k]]
    phantoms = frozenset(index[k] for k in _phantoms(bare, moved, judged, to_bare))
    return Unread(frozenset(locations | unseen), phantoms, frozenset(unseen))


Pieces = tuple[int, npt.NDArray[np.int32], npt.NDArray[np.int32]]  # count, labels, stats


def _pieces(mask: npt.NDArray[np.bool_]) -> Pieces:
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return count, np.asarray(labels, np.int32), np.asarray(stats, np.int32)


def _off_hands(unread: npt.NDArray[np.bool_], labels: npt.NDArray[np.int32], near: npt.NDArray[np.bool_]
               ) -> npt.NDArray[np.bool_]:
    """`unread` (its pieces `labels`) without what a hand accounts for; `unread` itself when no piece
    touches one. A piece of change touching a hand (`near`: within `HAND_MM` of its skin) is the hand's:
    fingers, sleeve, shadow; the reader asks about a location under a hand by its own rule. Of such a
    piece, what lies beyond `near` in a part no longer nor wider than `BESIDE_HAND_MM` is kept: a die beside
    the hand, merged with it by the change between them."""
    touched = np.unique(labels[near & (labels > 0)])
    if not touched.size:
        return unread
    theirs = np.isin(labels, touched)
    _, beyond, stats = _pieces(theirs & ~near)
    side = BESIDE_HAND_MM * PX_PER_MM
    small = (stats[:, cv2.CC_STAT_WIDTH] <= side) & (stats[:, cv2.CC_STAT_HEIGHT] <= side)
    small[0] = False
    return np.asarray((unread & ~theirs) | small[beyond])


def _holding(bare: BareTable, pieces: Pieces) -> set[str]:
    """The locations holding a piece of an unread change (`pieces`) of `MIN_AREA_MM2` or more: the one
    holding most of it, and any holding `SHARE_MM2` of it (a die's change merged with another's, or a
    hand's, on the next location)."""
    count, labels, stats = pieces
    big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= MIN_AREA_MM2 * PX_PER_MM * PX_PER_MM)
    big = big[big > 0]
    if not big.size:
        return set()
    # each big piece's pixels per location, in one pass
    slots = len(bare.ids) + 1
    on = (labels > 0) & (bare.places > 0)
    counts = np.bincount(labels[on] * slots + bare.places[on], minlength=count * slots).reshape(count, slots)
    share = SHARE_MM2 * PX_PER_MM * PX_PER_MM
    out: set[str] = set()
    for i in big:
        if counts[i].any():
            held = set(np.flatnonzero(counts[i] >= share).tolist()) | {int(counts[i].argmax())}
            out |= {bare.ids[k - 1] for k in held if k > 0}
    return out


def blind(bare: BareTable, free: npt.NDArray[np.bool_]) -> set[str]:
    """The locations where a piece of table never seen bare (`BareTable.hidden`) that no die read now stands
    on (`free`) could hold most of a die's top face (`BLIND_MM` square): a die missed there would change
    nothing the bare look can tell."""
    pieces = (bare.hidden & free).astype(np.uint8)
    core = cv2.erode(pieces, _square(BLIND_MM / 2.0), borderValue=0) > 0
    where = bare.places[core]
    return {bare.ids[i - 1] for i in np.unique(where[where > 0]).tolist()}


def seen_bare(bare: BareTable, frame: Image, image_to_table: npt.ArrayLike, locations: Collection[str]
              ) -> BareTable:
    """`bare` with the spots of `locations` it never saw (`hidden`) learned from `frame`, which shows them
    bare (no die read on them, nothing else changed there, no hand over them), in the bare look's light."""
    to_bare = _to_bare(np.asarray(image_to_table, np.float64), bare.origin)
    wanted = np.isin(bare.places, [i + 1 for i, loc in enumerate(bare.ids) if loc in locations])
    fill = bare.hidden & wanted & _in_frame(frame.shape, to_bare, bare.size)
    if not fill.any():
        return bare
    seen = bare.known & _in_frame(frame.shape, to_bare, bare.size)
    now = _normalised(_lab(frame, to_bare, bare.size), bare, seen)
    lab = bare.lab.copy()
    lab[fill] = now[fill]
    kernel = _square(SLACK_MM)
    return dataclasses.replace(
        bare, lab=lab, known=bare.known | fill, hidden=bare.hidden & ~fill,
        high=np.asarray(cv2.dilate(lab, kernel), np.float32),
        low=np.asarray(cv2.erode(lab, kernel), np.float32),
        edges=np.asarray(cv2.dilate(_edges(lab[..., 0]), kernel), np.float32),
    )


def _around(bare: BareTable, locations: Collection[str]) -> BareTable:
    """`bare` cut down to the box around `locations` (views of its arrays, no copies): a camera stream
    re-reads a few locations at a time, and the rest of the table need not be warped for them."""
    wanted = [i + 1 for i, loc in enumerate(bare.ids) if loc in locations]
    ys, xs = np.nonzero(np.isin(bare.places, wanted))
    if not len(ys):
        return bare
    margin = round((WINDOW_MM + HAND_MM) * PX_PER_MM)
    h, w = bare.places.shape
    y0, y1 = max(0, int(ys.min()) - margin), min(h, int(ys.max()) + margin + 1)
    x0, x1 = max(0, int(xs.min()) - margin), min(w, int(xs.max()) + margin + 1)
    cut = (slice(y0, y1), slice(x0, x1))
    sy, sx = bare.sample
    inside = (sy >= y0) & (sy < y1) & (sx >= x0) & (sx < x1)
    origin = (bare.origin[0] + x0 / PX_PER_MM, bare.origin[1] + y0 / PX_PER_MM)
    return BareTable(
        origin, (x1 - x0, y1 - y0), bare.lab[cut], bare.known[cut], bare.places[cut], bare.ids,
        bare.high[cut], bare.low[cut], bare.edges[cut], bare.skin[cut], (sy[inside] - y0, sx[inside] - x0),
        bare.hidden[cut], bare.castle[cut],
    )


def _phantoms(bare: BareTable, moved: npt.NDArray[np.bool_], dice: Sequence[Box], to_bare: FloatArray
              ) -> frozenset[int]:
    out: set[int] = set()
    h, w = moved.shape
    for k, (x0, y0, x1, y1) in enumerate(dice):
        corners = np.round(_points([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], to_bare)).astype(np.int32)
        lo = np.clip(corners.min(axis=0), 0, (w, h))
        hi = np.clip(corners.max(axis=0) + 1, 0, (w, h))
        if (hi <= lo).any():
            continue
        mask = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
        cv2.fillConvexPoly(mask, corners - lo, 1)
        window = (slice(lo[1], hi[1]), slice(lo[0], hi[0]))
        inside = (mask > 0) & bare.known[window]
        enough = int(inside.sum()) >= MIN_AREA_MM2 * PX_PER_MM * PX_PER_MM
        if enough and moved[window][inside].mean() < SURE_BARE:
            out.add(k)
    return frozenset(out)

"""Our codes recognised by their look where no decoder reads them: a card's code far across a table at 50
degrees, or blurred, is a patch of 1.3 px modules that zxing and zbar give up on; but there are only 57 codes
we print, and each one's modules are fixed by its payload (`vision.tags.qr_modules`).

Where the table plane is known (`vision.tracking.Pose`), places beside the map that look like a code are
found by `candidates` (dense strong edges over a code's extent as the pose sizes it there, paper white and
ink black around), and a patch around each is warped to a fronto-parallel crop and

1. turned so that its edges run along the crop's axes (the strongest direction of its gradients, mod 90
   degrees);
2. located, and its quarter turn found, by the three finder patterns every code has (with their separators
   and quiet zone; the rest of the code left out of the correlation);
3. named by its modules: sampled at the module centres, correlated with each candidate id's modules as a
   camera sees them (blurred into their neighbours: `BLUR_MODULES`) over the 233 modules in which our codes
   differ (the finder, timing and format modules are alike in all). A name is
   taken only when it correlates at least `NAMED` and beats every other id by `MARGIN`: a patch that is no
   code of ours, or one too blurred to tell from its neighbours, is named nothing (never guessed);
4. found again by its whole look (`vision.tracking.sight`), which gives its corners.

Decoding comes first wherever it works (`vision.tracking.read_rectified`): this is for what it misses.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.artefacts import looks_like_a_code
from vision.tags import CODE_MM, QR_MODULES, QUIET_MODULES, all_sticker_ids, format_payload, qr_modules
from vision.tracking import CROP_PX, KnownSticker, Pose, Sighting, sight

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

NAMED = 0.55  # correlation of a patch's modules with an id's from which it may be that id
MARGIN = 0.25  # ... and by which it must beat every other id
FINDER_SEEN = 0.3  # correlation with the finder patterns from which a patch may be a code at all
LOCATE_SLACK = 0.1  # a turn whose finders fit the halved crop this much under FINDER_SEEN is looked at
LOCATE_REFINE_PX = 4  # ... in full, within this many crop px of where the halved crop put them
REGISTER_PX = 3  # the modules are sampled this far (crop px, a module is 3) around where the finders put them
PATCH_MM = CODE_MM * 2.5  # the square of the table warped around a candidate (a code with room to move)
# A module's grey level as sampled carries its neighbours' (lens, defocus, the sensor, enlarging 1.3-2 px
# modules): the ids' modules are compared blurred by this Gaussian (sigma, modules). 0.4-0.8 all named far
# codes that sharp modules missed (dev tables, seeds 500000+: 270 -> 285-288 of 298, none named wrong, no
# name among 2648 places holding no code).
BLUR_MODULES = 0.6
PLACE_EDGES = 0.3  # share of strong-edge pixels over a code's extent from which a place may hold a code
SIZE_STEP = 1.25  # ratio of one box size to the next when the edges are averaged over a code's extent
PLACE_DISC = 0.7  # ... and a disc around it, its radius this many code sides,
PLACE_INK = 0.15  # ... must be this much paper white and this much ink black


@functools.lru_cache(maxsize=1)
def _varying() -> npt.NDArray[np.bool_]:
    """The modules in which our codes differ (the others are finder, timing and format modules)."""
    mods = np.array([qr_modules(format_payload(i)) for i in all_sticker_ids()])
    out = np.asarray(~(mods.all(axis=0) | (~mods).all(axis=0)), np.bool_)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=64)
def _signed(sticker_id: str) -> npt.NDArray[np.float32]:
    """An id's modules as -1 (dark) and +1 (light), 21 x 21."""
    out = np.where(qr_modules(format_payload(sticker_id)), -1.0, 1.0).astype(np.float32)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=1)
def _finders() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The finder patterns every code has, with their separators and the quiet zone around the code, as a
    crop at `CROP_PX` px per module sees them (code top-left up); and the mask of what they cover."""
    n = QR_MODULES + 2 * QUIET_MODULES
    look = np.full((n, n), 255.0, np.float32)
    mask = np.zeros((n, n), np.float32)
    mask[:QUIET_MODULES, :] = mask[-QUIET_MODULES:, :] = 1.0
    mask[:, :QUIET_MODULES] = mask[:, -QUIET_MODULES:] = 1.0
    modules = qr_modules(format_payload("T01"))  # any code: the finders are alike in all
    q = QUIET_MODULES
    for r0, c0 in ((0, 0), (0, QR_MODULES - 8), (QR_MODULES - 8, 0)):
        block = slice(q + r0, q + r0 + 8), slice(q + c0, q + c0 + 8)
        look[block] = np.where(modules[r0 : r0 + 8, c0 : c0 + 8], 0.0, 255.0)
        mask[block] = 1.0
    big = cv2.resize(look, (n * CROP_PX, n * CROP_PX), interpolation=cv2.INTER_NEAREST)
    big_mask = cv2.resize(mask, (n * CROP_PX, n * CROP_PX), interpolation=cv2.INTER_NEAREST)
    return np.asarray(cv2.GaussianBlur(big, (0, 0), 1.0), np.float32), np.asarray(big_mask, np.float32)


@functools.lru_cache(maxsize=1)
def _finder_look() -> npt.NDArray[np.float32]:
    """`_finders`' look with the rest of the code mid-grey: correlated unmasked (several times cheaper than a
    masked correlation), the unknown modules add to the patch's variance but favour no place."""
    look, mask = _finders()
    out = np.asarray(np.where(mask > 0, look, 127.5), np.float32)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, slots=True)
class Named:
    """A patch recognised as one of our codes: its id, how well its modules matched, by how much it beat the
    next id, and where it was found (`sighting`: corners in the image, in the code's own order)."""

    id: str
    score: float
    margin: float
    sighting: Sighting


def recognise(gray: Image, pose: Pose, centre_mm: tuple[float, float], ids: Iterable[str]) -> Named | None:
    """The code of one of `ids` around `centre_mm` on the table plane, recognised by its look (the module
    docstring); None when there is none there to name for sure."""
    candidates = tuple(ids)
    if not candidates:
        return None
    half = PATCH_MM / 2
    ppm = CROP_PX * QR_MODULES / CODE_MM
    n = round(2 * half * ppm)
    turn = _edge_turn(_patch(gray, pose, centre_mm, half, n, 0.0))
    if turn is None:
        return None
    crop = _patch(gray, pose, centre_mm, half, n, turn)
    # each quarter turn where the finders put it (at steep angles the finders alone cannot tell the turn, the
    # modules can), and a module around it (a blurred code's finders place it to a module at best): each id
    # at its best place
    best_of: dict[str, tuple[float, tuple[int, int], int]] = {}
    for (x0, y0), k in _locate(crop):
        places, scores = _registered(crop, x0, y0, k, candidates)
        fitted = _by_finders(crop, x0, y0, k)  # the three finders found one by one: shear and scale too
        if fitted is not None:
            places.append((x0, y0))
            scores = np.hstack([scores, _correlations_with(fitted, candidates)[:, None]])
        for row, i in enumerate(candidates):
            at = int(np.argmax(scores[row]))
            if scores[row, at] > best_of.get(i, (-2.0, (0, 0), 0))[0]:
                best_of[i] = (float(scores[row, at]), places[at], k)
    if not best_of:
        return None
    name = max(best_of, key=lambda i: best_of[i][0])
    best, (x, y), k = best_of[name]
    runner = max((v[0] for i, v in best_of.items() if i != name), default=-1.0)
    if best < NAMED or best - runner < MARGIN:
        return None
    corners_mm = _corners_mm(centre_mm, half, ppm, turn, x, y, k)
    found = sight(gray, KnownSticker(name, corners_mm), pose.to_image(corners_mm), 1)
    if found is None:
        return None
    return Named(name, best, best - runner, found)


def _patch(  # noqa: PLR0917
    gray: Image, pose: Pose, centre: tuple[float, float], half: float, n: int, turn: float
) -> npt.NDArray[np.float32]:
    """The table square `centre` +- `half` (mm), turned by `turn` (radians), warped to `n` x `n` px."""
    return np.asarray(
        cv2.warpPerspective(
            gray,
            pose.local(_crop_to_table(centre, half, n, turn), n),
            (n, n),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        ),
        np.float32,
    )


def _crop_to_table(centre: tuple[float, float], half: float, n: int, turn: float) -> FloatArray:
    step = 2 * half / n
    c, s = math.cos(turn), math.sin(turn)
    # crop px (x, y) -> offset from the square's middle (mm), turned, then placed at `centre`
    local = np.array([[step, 0.0, -half + 0.5 * step], [0.0, step, -half + 0.5 * step], [0.0, 0.0, 1.0]])
    rot = np.array([[c, -s, centre[0]], [s, c, centre[1]], [0.0, 0.0, 1.0]])
    return np.asarray(rot @ local, np.float64)


def _edge_turn(crop: npt.NDArray[np.float32]) -> float | None:
    """The direction (radians, mod 90 degrees) its edges run along, each weighed by its strength; None for
    a flat patch. By strength, not its square: a patch of the plane seen at a slant is blurred more along
    the view than across it, and squared strengths leaned the turn that way (1.3-1.8 px modules: off by
    over 10 degrees for 8 of 143 codes on dev tables, 1 weighed by strength)."""
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    strength = cv2.magnitude(gx, gy)
    if float(strength.sum()) <= 0:
        return None
    angle = np.arctan2(gy, gx)
    z = complex(float(np.sum(strength * np.cos(4 * angle))), float(np.sum(strength * np.sin(4 * angle))))
    if abs(z) < 0.05 * float(strength.sum()):
        return None  # no square grid of edges: not a code
    return math.atan2(z.imag, z.real) / 4


def _locate(crop: npt.NDArray[np.float32]) -> list[tuple[tuple[int, int], int]]:
    """For each quarter turn k of the code (its top-left at the crop's corner k, counted clockwise from the
    top-left) that its finder patterns fit well enough, where the code's top-left corner, with its quiet
    zone, lies in the crop. Looked for in the crop halved first (a sixteenth of the work), then at full size
    within `LOCATE_REFINE_PX` of where that put it."""
    look = _finder_look()
    half = cv2.resize(crop, (crop.shape[1] // 2, crop.shape[0] // 2), interpolation=cv2.INTER_AREA)
    out = []
    for k in range(4):
        turned = np.ascontiguousarray(np.rot90(look, -k))
        coarse = cv2.matchTemplate(half, _halved(k), cv2.TM_CCOEFF_NORMED)
        _lo, rough, _at, (cx, cy) = cv2.minMaxLoc(coarse)
        if rough < FINDER_SEEN - LOCATE_SLACK:
            continue
        r = LOCATE_REFINE_PX
        x0 = min(max(0, 2 * cx - r), crop.shape[1] - turned.shape[1])
        y0 = min(max(0, 2 * cy - r), crop.shape[0] - turned.shape[0])
        window = crop[y0 : y0 + turned.shape[0] + 2 * r, x0 : x0 + turned.shape[1] + 2 * r]
        res = cv2.matchTemplate(window, turned, cv2.TM_CCOEFF_NORMED)
        _lo, score, _at, (ax, ay) = cv2.minMaxLoc(res)
        if score >= FINDER_SEEN:
            out.append(((int(x0 + ax), int(y0 + ay)), k))
    return out


@functools.lru_cache(maxsize=4)
def _halved(k: int) -> npt.NDArray[np.float32]:
    """`_finder_look` turned k, halved as `_locate` halves the crop."""
    look = np.ascontiguousarray(np.rot90(_finder_look(), -k))
    out = np.asarray(cv2.resize(look, (look.shape[1] // 2, look.shape[0] // 2), interpolation=cv2.INTER_AREA))
    out.setflags(write=False)
    return np.asarray(out, np.float32)


@functools.lru_cache(maxsize=64)
def _seen(sticker_id: str) -> npt.NDArray[np.float32]:
    """An id's modules as a camera sees a small code (`_signed` blurred by `BLUR_MODULES`, the quiet zone
    light): each module's grey level carries some of its neighbours'."""
    padded = np.pad(_signed(sticker_id), 2, mode="constant", constant_values=1.0)
    out = np.asarray(cv2.GaussianBlur(padded, (5, 5), BLUR_MODULES)[2:-2, 2:-2], np.float32)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=32)
def _turned_signatures(ids: tuple[str, ...], k: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float32]]:
    """The varying modules as a crop shows a code turned k, and each id's look there (`_seen`) less its
    mean."""
    mask = np.ascontiguousarray(np.rot90(_varying(), -k))
    signatures = np.stack([np.rot90(_seen(i), -k)[mask] for i in ids])
    signatures -= signatures.mean(axis=1, keepdims=True)
    signatures.setflags(write=False)
    return mask, signatures


def _registered(
    crop: npt.NDArray[np.float32], x: int, y: int, k: int, ids: Sequence[str]
) -> tuple[list[tuple[int, int]], npt.NDArray[np.float32]]:
    """The code's modules sampled at every place within `REGISTER_PX` of (x, y) (its quiet zone's top-left
    in the crop; the code turned k quarter turns), and each id's correlation with them there (ids x places)
    over the modules our codes differ in."""
    mask, signatures = _turned_signatures(tuple(ids), k)
    places: list[tuple[int, int]] = []
    rows: list[npt.NDArray[np.float32]] = []
    last = CROP_PX * (QR_MODULES - 1)
    for dy in range(-REGISTER_PX, REGISTER_PX + 1):
        for dx in range(-REGISTER_PX, REGISTER_PX + 1):
            x0 = x + dx + QUIET_MODULES * CROP_PX + CROP_PX // 2
            y0 = y + dy + QUIET_MODULES * CROP_PX + CROP_PX // 2
            if x0 < 0 or y0 < 0 or x0 + last >= crop.shape[1] or y0 + last >= crop.shape[0]:
                continue
            rows.append(crop[y0 : y0 + last + 1 : CROP_PX, x0 : x0 + last + 1 : CROP_PX][mask])
            places.append((x + dx, y + dy))
    if not rows:
        return [], np.full((len(ids), 1), -2.0, np.float32)
    samples = np.stack(rows)
    samples -= samples.mean(axis=1, keepdims=True)
    dots = signatures @ samples.T
    norms = np.sqrt(np.sum(signatures**2, axis=1))[:, None] * np.sqrt(np.sum(samples**2, axis=1))[None, :]
    return places, np.asarray(dots / np.where(norms > 0, norms, 1.0), np.float32)


_OWN_FINDERS = np.array([[3.5, 3.5], [17.5, 3.5], [3.5, 17.5]], np.float32)  # finder centres, code modules


@functools.lru_cache(maxsize=1)
def _finder_alone() -> npt.NDArray[np.float32]:
    """A finder pattern with its one-module light separator, at `CROP_PX` px per module, blurred a little."""
    block = np.full((9, 9), 255.0, np.float32)
    block[1:8, 1:8] = 0.0
    block[2:7, 2:7] = 255.0
    block[3:6, 3:6] = 0.0
    big = cv2.resize(block, (9 * CROP_PX, 9 * CROP_PX), interpolation=cv2.INTER_NEAREST)
    return np.asarray(cv2.GaussianBlur(big, (0, 0), 1.0), np.float32)


def _in_crop(x: int, y: int, k: int, own: FloatArray) -> FloatArray:
    """Code module coordinates (its own orientation) -> crop px, for a code whose quiet zone's top-left lies
    at (x, y) and which the crop shows turned k quarter turns (its top-left at the crop's corner k)."""
    u, v = own[:, 0], own[:, 1]
    n = float(QR_MODULES)
    turned = {0: (u, v), 1: (n - v, u), 2: (n - u, n - v), 3: (v, n - u)}[k % 4]
    q = QUIET_MODULES
    return np.column_stack([x + (q + turned[0]) * CROP_PX, y + (q + turned[1]) * CROP_PX])


def _by_finders(crop: npt.NDArray[np.float32], x: int, y: int, k: int) -> npt.NDArray[np.float32] | None:
    """The code's 21 x 21 module grey levels (own orientation), sampled through the affine map its three
    finder patterns give, each found within two modules of where the coarse location puts it; None when one
    is not found."""
    finder = _finder_alone()
    half = finder.shape[0] / 2.0
    reach = 2 * CROP_PX
    found = []
    for cx, cy in _in_crop(x, y, k, _OWN_FINDERS.astype(np.float64)):
        x0, y0 = round(cx - half - reach), round(cy - half - reach)
        size = finder.shape[0] + 2 * reach
        if x0 < 0 or y0 < 0 or x0 + size > crop.shape[1] or y0 + size > crop.shape[0]:
            return None
        res = cv2.matchTemplate(crop[y0 : y0 + size, x0 : x0 + size], finder, cv2.TM_CCOEFF_NORMED)
        _lo, score, _at, (bx, by) = cv2.minMaxLoc(res)
        if score < FINDER_SEEN:
            return None
        found.append((x0 + bx + half, y0 + by + half))
    affine = cv2.getAffineTransform(_OWN_FINDERS, np.asarray(found, np.float32))
    grid = np.arange(QR_MODULES, dtype=np.float32) + 0.5
    gu, gv = np.meshgrid(grid, grid)
    mx = (affine[0, 0] * gu + affine[0, 1] * gv + affine[0, 2] - 0.5).astype(np.float32)
    my = (affine[1, 0] * gu + affine[1, 1] * gv + affine[1, 2] - 0.5).astype(np.float32)
    return np.asarray(cv2.remap(crop, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), np.float32)


def _correlations_with(samples: npt.NDArray[np.float32], ids: Sequence[str]) -> npt.NDArray[np.float32]:
    """Each id's correlation with a code's module grey levels (own orientation), over the varying modules."""
    mask, signatures = _turned_signatures(tuple(ids), 0)
    v = samples[mask]
    v = v - v.mean()
    norms = np.sqrt(np.sum(signatures**2, axis=1)) * math.sqrt(float(np.dot(v, v)))
    return np.asarray((signatures @ v) / np.where(norms > 0, norms, 1.0), np.float32)


def _corners_mm(  # noqa: PLR0917
    centre: tuple[float, float], half: float, ppm: float, turn: float, x: int, y: int, k: int
) -> FloatArray:
    """The code's corners on the table (mm; its own TL, TR, BR, BL) from where it lies in the crop."""
    n = round(2 * half * ppm)
    q = QUIET_MODULES * CROP_PX
    side = QR_MODULES * CROP_PX
    x0, y0 = x + q - 0.5, y + q - 0.5
    box = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float64)
    own = np.roll(box, -k, axis=0)  # the crop's corner k is the code's top-left
    pts = np.column_stack([own, np.ones(4)]) @ _crop_to_table(centre, half, n, turn).T
    return np.asarray(pts[:, :2] / pts[:, 2:3], np.float64)


def edge_density(gray: Image) -> tuple[npt.NDArray[np.uint8], int]:
    """The share of strong-edge pixels (morphological gradient over 40 grey levels) found at up to 1920 px
    wide, in 256ths, averaged over 2 x 2 blocks: an image about 960 px wide, and the factor it is smaller than
    the frame by. The edges are found before the frame is shrunk: a far code's 1.3 px modules make edges at
    full size that a shrunk frame has smoothed away."""
    h, w = gray.shape[:2]
    first = max(1, round(w / 1920))
    full = cv2.resize(gray, (w // first, h // first), interpolation=cv2.INTER_AREA) if first > 1 else gray
    grad = cv2.morphologyEx(full, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    _t, edges = cv2.threshold(grad, 40, 255, cv2.THRESH_BINARY)
    eh, ew = edges.shape
    density = cv2.resize(edges, (ew // 2, eh // 2), interpolation=cv2.INTER_AREA)
    return np.asarray(density, np.uint8), 2 * first


def candidates(
    gray: Image,
    pose: Pose,
    avoid: Sequence[FloatArray],
    most: int = 8,
    edges: tuple[npt.NDArray[np.uint8], int] | None = None,
) -> list[tuple[float, float]]:
    """Places on the table plane (mm) that look like a code outside the image polygons `avoid` (the tiles,
    the codes known), busiest first: dense strong edges over a code's area as the pose sizes a code there
    (at 45 degrees a code at the frame's far edge is a third the size of one near it), and a mix of paper
    white and ink black around the place whatever way the code is turned (`looks_like_a_code` over a disc).
    `edges`: `edge_density(gray)`, when the caller has it."""
    density_in, factor = edges if edges is not None else edge_density(gray)
    dh, dw = density_in.shape
    out_mask = np.ones((dh, dw), np.uint8)
    for poly in avoid:
        pts = np.round(np.asarray(poly, np.float64) / factor).astype(np.int32)
        cv2.fillConvexPoly(out_mask, pts, 0)
    scaled = _scaled_density(density_in, factor, pose)
    if scaled is None:
        return []
    density, nms = scaled
    peaks = (density == cv2.dilate(density, np.ones(nms[::-1], np.uint8))) & (density > 255 * PLACE_EDGES)
    peaks &= out_mask > 0
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-density[ys, xs])[: 6 * most]
    if not len(order):
        return []
    at = np.asarray(np.column_stack([xs[order], ys[order]]), np.float64) * factor + (factor - 1) / 2
    out: list[tuple[float, float]] = []
    for p in pose.to_table(at):  # a plateau of equal density gives several peaks: one place each
        if not all(math.dist(p, q) > CODE_MM for q in out):
            continue
        place = (float(p[0]), float(p[1]))
        if looks_like_a_code(gray, _disc(pose, place, PLACE_DISC * CODE_MM), share=PLACE_INK):
            out.append(place)
            if len(out) == most:
                break
    return out


def _scaled_density(
    density: npt.NDArray[np.uint8], factor: int, pose: Pose
) -> tuple[npt.NDArray[np.uint8], tuple[int, int]] | None:
    """`density` averaged over a code's extent in the image wherever it lies (in `density`'s px: a few box
    sizes, each used where the pose gives a code about that size), and the smallest box (x, y); None when
    the pose puts no code of a sensible size in the frame."""
    dh, dw = density.shape
    step = 32
    gy, gx = np.mgrid[0:dh:step, 0:dw:step]
    at = np.column_stack([gx.ravel(), gy.ravel()]).astype(np.float64) * factor
    with np.errstate(all="ignore"):
        mm = pose.to_table(at)
        a = np.abs(pose.to_image(mm + np.array([CODE_MM, 0.0])) - at)  # a code's sides along the table's axes
        b = np.abs(pose.to_image(mm + np.array([0.0, CODE_MM])) - at)
    # a code turned any way spans about the larger of its sides' extents across and down the image
    reach_x = np.maximum(a[:, 0], b[:, 0]) / factor
    reach_y = np.maximum(a[:, 1], b[:, 1]) / factor
    good = np.isfinite(reach_x) & np.isfinite(reach_y) & (reach_x > 2) & (reach_y > 2)
    if not good.any():
        return None
    side = np.sqrt(reach_x * reach_y)
    root = math.sqrt(float(np.median(reach_x[good] / reach_y[good])))
    lo = max(4.0, float(np.percentile(side[good], 2)))
    hi = max(lo, float(np.percentile(side[good], 98)))
    sizes = [lo]
    while sizes[-1] * SIZE_STEP < hi * math.sqrt(SIZE_STEP):
        sizes.append(sizes[-1] * SIZE_STEP)
    side = np.where(good, side, lo).reshape(gy.shape)
    nearest = np.argmin(np.abs(np.log(side[None] / np.asarray(sizes)[:, None, None])), axis=0)
    which = cv2.resize(nearest.astype(np.uint8), (dw, dh), interpolation=cv2.INTER_NEAREST)
    boxes = [(max(3, round(s * root)), max(3, round(s / root))) for s in sizes]
    out = np.zeros((dh, dw), np.uint8)
    for i, (bx, by) in enumerate(boxes):
        here = which == i
        rows, cols = np.flatnonzero(here.any(axis=1)), np.flatnonzero(here.any(axis=0))
        if not len(rows):
            continue
        # the part of the frame this size is used in, and room for its box around it
        y0, y1 = max(0, int(rows[0]) - by), min(dh, int(rows[-1]) + 1 + by)
        x0, x1 = max(0, int(cols[0]) - bx), min(dw, int(cols[-1]) + 1 + bx)
        band = cv2.boxFilter(density[y0:y1, x0:x1], -1, (bx, by))
        np.copyto(out[y0:y1, x0:x1], band, where=here[y0:y1, x0:x1])
    return out, boxes[0]


def _disc(pose: Pose, place: tuple[float, float], radius_mm: float) -> FloatArray:
    """A disc of the table plane around `place` (a 12-gon), in the image."""
    a = np.linspace(0.0, 2 * math.pi, 12, endpoint=False)
    x, y = place
    return pose.to_image(np.column_stack([x + radius_mm * np.cos(a), y + radius_mm * np.sin(a)]))

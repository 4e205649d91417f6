"""Dice on the table: where each die is, its top face's value 1..6, and how sure we are.

A classical OpenCV reader that starts from the pips, the one thing every die has whatever its colour:

1. *Pips*: small round blobs much lighter (white top-hat) or much darker (black top-hat) than their
   surroundings, in lightness L of true CIELAB, searched over a few pip sizes. Pips that run together at the
   first threshold (a six's columns) are split at a higher one. Each pip keeps the colour of the ring just
   around it (the die's body there, other pips masked out); a blob whose ring is not one flat colour is
   printed art, a QR module or noise, not a pip.
2. *Faces*: pips of the same polarity and size whose rings have the same colour are joined when the straight
   line between them runs over that colour only. The dark rims between touching dice and the step in shade
   between a die's top and its sides break the line, so a group holds one face's pips and nothing else.
3. *Checks*: a group is a top face when its pips fit the standard layout of their count, their spacing matches
   their size (a pip is 0.17 of the face), the face around them is flat body colour, and that patch of colour
   ends near the face's edge (a sticker's white or a tile's wash runs on far beyond it). Side faces are lit
   less than the top: a face that overlaps a brighter one is dropped, so only the top face's pips count. All
   dice in a view are about the same size, so faces far from the typical size are dropped too.
4. *Confidence*: layout fit x size agreement x flatness x pip roundness; below `UNSURE_BELOW` (or a count
   outside 1..6) the die is reported `unsure` rather than guessed.

The expected die size (`die_px`) sets the pip sizes searched; without it, it is estimated from a region made
of tile polygons (as `vision.knights` passes), else a broad range from the image's size. `calibration`
(anything with `nearest(bgr, white_bgr)`) names each die's player. Figures on real photographs:
`bench/dice_real.py`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from vision.errors import VisionError

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
Box = tuple[int, int, int, int]

MIN_SIDE_PX = 10  # smaller faces cannot carry countable pips
UNSURE_BELOW = 0.6
LOOSE = 2.2  # the second pass's colour tolerance (x the first's): glossy, marbled real dice
DROP_BELOW = 0.25  # weaker candidates are not dice at all (art, print), not unsure dice
PIP_FRACTION = 0.17  # a pip's diameter over the face's side (standard dice and our renderer)
PIP_CONTRAST = 18.0  # L units a pip stands out from its ring, at least
TILE_SIDE_MM = 90.0 / math.sqrt(3.0)  # vision.tags: tiles are 90 mm across flats
DIE_SIDE_MM = 16.0  # vision.tags.DIE_MM
REGION_GROWTH = 1.12  # vision.knights grows tile polygons by 12% before passing them


class DiceInputError(VisionError, ValueError):
    """The image (or region) given to the dice reader is not readable."""


class Nearest(Protocol):
    def nearest(
        self, bgr: Sequence[float], white_bgr: Sequence[float] | None = None
    ) -> tuple[Colour, float]: ...


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die: its top face's box in the image (x0, y0, x1, y1), value, confidence 0..1, measured colour."""

    box: Box
    value: int
    confidence: float
    unsure: bool
    colour_bgr: tuple[float, float, float]
    player: Colour | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "box": list(self.box),
            "value": self.value,
            "confidence": round(self.confidence, 3),
            "unsure": self.unsure,
            "colour_bgr": [round(c, 1) for c in self.colour_bgr],
            "player": None if self.player is None else self.player.value,
        }


def _check_image(image: object) -> Image:
    if not isinstance(image, np.ndarray):
        raise DiceInputError(f"expected a numpy image, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise DiceInputError(f"expected an 8-bit image, got dtype {image.dtype}")
    if image.ndim != 3 or image.shape[2] != 3:
        raise DiceInputError(f"expected a BGR image (HxWx3), got shape {image.shape!r}")
    if min(image.shape[:2]) < 2 * MIN_SIDE_PX:
        raise DiceInputError(f"image of {image.shape[1]}x{image.shape[0]} px is too small to hold a die")
    return image


def _region_mask(shape: tuple[int, ...], region: object) -> npt.NDArray[np.uint8] | None:
    if region is None:
        return None
    try:
        arr = np.asarray(region)
    except (TypeError, ValueError) as exc:
        raise DiceInputError(f"region must be a mask or a polygon, got {type(region).__name__}") from exc
    if arr.ndim == 2 and arr.shape == shape[:2]:
        return (arr > 0).astype(np.uint8)
    if arr.dtype.kind not in "iuf" or arr.size < 6 or arr.size % 2:
        raise DiceInputError(
            f"region must be a mask of the image's size {shape[:2]!r} or an Nx2 polygon, "
            f"got shape {arr.shape!r}"
        )
    pts = arr.reshape(-1, 2).astype(np.float64)
    if not np.all(np.isfinite(pts)):
        raise DiceInputError("region polygon has non-finite points")
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
    return mask


# Pip centres of each value on a unit face, for rating a count's layout.
LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}
_TEMPLATES = {n: np.array(p, np.float64) - 0.5 for n, p in LAYOUTS.items()}
_SPREAD = {n: float(np.sqrt((t**2).sum(axis=1)).mean()) for n, t in _TEMPLATES.items()}


def _layout_fit(
    points: npt.NDArray[np.float64], centre: npt.NDArray[np.float64], side: float
) -> tuple[float, float]:
    """(fit 0..1, angle rad): how well pip centres match the standard layout of their count, best over
    rotations."""
    n = len(points)
    if n not in _TEMPLATES:
        return 0.0, 0.0
    if n == 1:
        return 1.0, 0.0
    rel = (points - centre) / max(side, 1e-6)
    best, best_angle = math.inf, 0.0
    for deg in range(0, 180, 3):  # 2, 3 and 6 look the same only after a half turn
        a = math.radians(deg)
        c, s = math.cos(a), math.sin(a)
        local = np.stack([rel[:, 0] * c + rel[:, 1] * s, -rel[:, 0] * s + rel[:, 1] * c], axis=1)
        d = np.linalg.norm(local[:, None, :] - _TEMPLATES[n][None, :, :], axis=2)
        used: set[int] = set()
        total = 0.0
        for i in np.argsort(d.min(axis=1)):
            for j in np.argsort(d[i]):
                if int(j) not in used:
                    used.add(int(j))
                    total += float(d[i, j])
                    break
        if total / n < best:
            best, best_angle = total / n, a
    return float(max(0.0, 1.0 - best / 0.12)), best_angle


def _lab(img: Image) -> FloatImage:
    """True CIELAB (L 0..100), as the calibration's references are."""
    return np.asarray(cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB), np.float32)


@dataclass(slots=True)
class _Pip:
    x: float
    y: float
    r: float
    light: bool
    aspect: float
    ring: npt.NDArray[np.float32]  # median Lab of the ring around the pip
    contrast: float
    flat: float


def _tolerance(ring: npt.NDArray[np.float32]) -> tuple[float, float]:
    """(L, ab) tolerances for 'the same body colour' around a body of Lab `ring`."""
    return max(3.5, 0.12 * float(ring[0])), 9.0


def _same_colour(
    lab: npt.NDArray[np.float32], ref: npt.NDArray[np.float32], scale: float = 1.0
) -> npt.NDArray[np.bool_]:
    tl, tab = _tolerance(ref)
    dl = np.abs(lab[..., 0] - ref[0])
    dab = np.hypot(lab[..., 1] - ref[1], lab[..., 2] - ref[2])
    out: npt.NDArray[np.bool_] = (dl < tl * scale) & (dab < tab * scale)
    return out


_Blob = tuple[int, int, npt.NDArray[np.uint8], bool, int]  # x, y, mask, light, scale index


def _blobs_at_scale(
    lum: Image, d: float, valid: npt.NDArray[np.uint8] | None, scale: int, guard: npt.NDArray[np.uint8]
) -> list[_Blob]:
    """Pip-sized blobs of diameter about `d` px, light and dark; marks them in `guard`."""
    h, w = lum.shape
    k = max(5, round(d * 1.8) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    area_lo, area_hi = math.pi * (d / 3.0) ** 2, math.pi * (d * 0.6) ** 2
    out: list[_Blob] = []
    for op, light in ((cv2.MORPH_TOPHAT, True), (cv2.MORPH_BLACKHAT, False)):
        response = cv2.morphologyEx(lum, op, kernel)
        binary = (response > PIP_CONTRAST * 2.55).astype(np.uint8)
        if valid is not None:
            binary &= valid
        n, labels, stats, _c = cv2.connectedComponentsWithStats(binary, connectivity=8)
        parts: list[tuple[int, int, npt.NDArray[np.uint8]]] = []
        for i in range(1, n):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            if area < area_lo or area > 8 * area_hi:
                continue
            sub = (labels[y : y + bh, x : x + bw] == i).astype(np.uint8)
            if area > area_hi or max(bw, bh) > 1.6 * min(bw, bh):
                # Close pips (a six's columns) run together at the first threshold: split them at a higher one
                # and grow each core back within the first blob.
                patch = response[y : y + bh, x : x + bw]
                level = 0.6 * float(patch[sub > 0].max())
                cores = ((patch > level) & (sub > 0)).astype(np.uint8)
                sn, slabels = cv2.connectedComponents(cores, connectivity=4)
                for j in range(1, sn):
                    core = (slabels == j).astype(np.uint8)
                    parts.append((x, y, cv2.dilate(core, np.ones((3, 3), np.uint8)) & sub))
            else:
                parts.append((x, y, sub))
        for px, py, part in parts:
            ys, xs = np.nonzero(part)
            if len(xs) == 0:
                continue
            sx0, sy0, sx1, sy1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
            sub = np.ascontiguousarray(part[sy0:sy1, sx0:sx1])
            x, y = px + sx0, py + sy0
            bh, bw = sub.shape
            area = len(xs)
            if area < max(4.0, area_lo) or area > area_hi:
                continue
            if max(bw, bh) > 3.0 * min(bw, bh):
                continue
            if bw >= 8 and bh >= 8 and area > 0.9 * bw * bh:  # a square: a QR module, not a pip
                continue
            if x + bw > w or y + bh > h:
                continue
            guard[y : y + bh, x : x + bw] |= sub
            out.append((x, y, sub, light, scale))
    return out


def _find_pips(
    lab: FloatImage, valid: npt.NDArray[np.uint8] | None, pip_lo: float, pip_hi: float, tol: float = 1.0
) -> tuple[list[_Pip], npt.NDArray[np.uint8]]:
    """Candidate pips (diameter `pip_lo`..`pip_hi` px) and a mask of the pips kept."""
    lum = np.clip(lab[..., 0] * 2.55, 0, 255).astype(np.uint8)
    h, w = lum.shape
    guards: list[npt.NDArray[np.uint8]] = []
    blobs: list[_Blob] = []
    d = 2.5  # one fixed ladder of pip sizes (2.5 x 1.5^k px) whatever the range, for stable readings
    while d * 1.5 <= pip_lo:
        d *= 1.5
    while d <= pip_hi * 1.01:
        guard = np.zeros((h, w), np.uint8)
        blobs.extend(_blobs_at_scale(lum, d, valid, len(guards), guard))
        guards.append(guard)
        d *= 1.5
    # Other pips are left out of a pip's ring: those found at the same scale (a larger scale merges pips).
    guards = [np.asarray(cv2.dilate(g, np.ones((3, 3), np.uint8)), np.uint8) for g in guards]
    pips: list[_Pip] = []
    subs: list[tuple[int, int, npt.NDArray[np.uint8]]] = []
    for x, y, sub, light, scale in blobs:
        guard = guards[scale]
        bh, bw = sub.shape
        area = int(sub.sum())
        r = math.sqrt(area / math.pi)
        if area < 0.55 * bw * bh * math.pi / 4:  # not a filled round/elliptic blob
            continue
        m = cv2.moments(sub, binaryImage=True)
        cx, cy = x + m["m10"] / m["m00"], y + m["m01"] / m["m00"]
        mu20, mu02, mu11 = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
        common = math.sqrt(max(0.0, ((mu20 - mu02) / 2) ** 2 + mu11**2))
        l1, l2 = (mu20 + mu02) / 2 + common, (mu20 + mu02) / 2 - common
        aspect = math.sqrt(max(l2, 1e-6) / max(l1, 1e-6))
        r_out = max(r * 2.0, r + 2.0)
        x0, y0 = max(0, int(cx - r_out - 1)), max(0, int(cy - r_out - 1))
        x1, y1 = min(w, int(cx + r_out + 2)), min(h, int(cy + r_out + 2))
        yy, xx = np.mgrid[y0:y1, x0:x1]
        dist = np.hypot(xx - cx, yy - cy)
        ring_sel = (dist >= max(r * 1.4, r + 1.0)) & (dist <= r_out) & (guard[y0:y1, x0:x1] == 0)
        ring_px = lab[y0:y1, x0:x1][ring_sel]
        if len(ring_px) < 8:
            continue
        ring = np.median(ring_px, axis=0).astype(np.float32)
        flat = float(_same_colour(ring_px, ring, tol).mean())
        if flat < 0.65:
            continue
        inner = lab[y : y + bh, x : x + bw][sub > 0][:, 0]
        contrast = float(np.mean(inner) - ring[0]) if light else float(ring[0] - np.mean(inner))
        if contrast < PIP_CONTRAST + 4:
            continue
        pips.append(_Pip(cx, cy, r, light, aspect, ring, contrast, flat))
        subs.append((x, y, sub))
    # The same pip is found at neighbouring scales: keep the reading with the flattest ring.
    kept: list[_Pip] = []
    mask = np.zeros((h, w), np.uint8)
    for i in sorted(range(len(pips)), key=lambda i: -pips[i].flat):
        p = pips[i]
        if all(math.hypot(p.x - q.x, p.y - q.y) > max(p.r, q.r) for q in kept):
            kept.append(p)
            x, y, sub = subs[i]
            mask[y : y + sub.shape[0], x : x + sub.shape[1]] |= sub
    return kept, mask


def _line_on_body(
    lab: FloatImage,
    blobs: npt.NDArray[np.uint8],
    a: _Pip,
    b: _Pip,
    ref: npt.NDArray[np.float32],
    *,
    tol: float = 1.0,
) -> bool:
    """Whether the segment between two pips runs over body colour `ref` only (pips themselves skipped)."""
    length = math.hypot(b.x - a.x, b.y - a.y)
    steps = max(4, int(length))
    t = np.linspace(0.0, 1.0, steps)
    xs = np.round(a.x + (b.x - a.x) * t).astype(int)
    ys = np.round(a.y + (b.y - a.y) * t).astype(int)
    off_pips = blobs[ys, xs] == 0
    # also skip the pips' soft rims
    da = np.hypot(xs - a.x, ys - a.y) > a.r * 1.5
    db = np.hypot(xs - b.x, ys - b.y) > b.r * 1.5
    keep = off_pips & da & db
    if keep.sum() < 2:
        return True
    samples = lab[ys[keep], xs[keep]]
    ok = _same_colour(samples, ref, 1.3 * tol)
    return bool(ok.mean() >= 0.9)


def _group(
    pips: list[_Pip], lab: FloatImage, blobs: npt.NDArray[np.uint8], tol: float = 1.0
) -> list[list[int]]:
    parent = list(range(len(pips)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if pips:
        xy = np.array([[p.x, p.y] for p in pips])
        for i, p in enumerate(pips):
            side = 2 * p.r / PIP_FRACTION
            d = np.hypot(xy[:, 0] - p.x, xy[:, 1] - p.y)
            for j in np.nonzero((d < 0.8 * side) & (np.arange(len(pips)) > i))[0]:
                q = pips[int(j)]
                if q.light != p.light or max(p.r, q.r) > 1.6 * min(p.r, q.r):
                    continue
                if not _same_colour(q.ring[None, :], p.ring, 1.2 * tol)[0]:
                    continue
                if _line_on_body(lab, blobs, p, q, ((p.ring + q.ring) / 2).astype(np.float32), tol=tol):
                    parent[find(int(j))] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(pips)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


@dataclass(slots=True)
class _Face:
    centre: npt.NDArray[np.float64]
    side: float
    angle: float
    value: int
    confidence: float
    body: npt.NDArray[np.float32]  # Lab
    pips: list[_Pip]


def _bounded(
    lab: FloatImage,
    blobs: npt.NDArray[np.uint8],
    centre: npt.NDArray[np.float64],
    side: float,
    body: npt.NDArray[np.float32],
    *,
    tol: float = 1.0,
) -> bool:
    """Whether the patch of body colour around a face ends near the face's edge, as a die's top face does at
    its darker rim: a sticker's white or a tile's wash of colour runs on far beyond it, and printed art's
    speckle breaks it up well inside."""
    h, w = blobs.shape
    reach = math.ceil(1.1 * side)
    cx, cy = round(float(centre[0])), round(float(centre[1]))
    x0, y0, x1, y1 = max(0, cx - reach), max(0, cy - reach), min(w, cx + reach + 1), min(h, cy + reach + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return False
    same = (_same_colour(lab[y0:y1, x0:x1], body, 1.4 * tol) | (blobs[y0:y1, x0:x1] > 0)).astype(np.uint8)
    same = np.asarray(cv2.morphologyEx(same, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    _n, labels, stats, _c = cv2.connectedComponentsWithStats(same, connectivity=4)
    k = int(labels[min(max(cy - y0, 0), y1 - y0 - 1), min(max(cx - x0, 0), x1 - x0 - 1)])
    if k == 0:
        return False
    bw, bh = int(stats[k][2]), int(stats[k][3])
    return 0.55 * side <= min(bw, bh) and max(bw, bh) <= 1.75 * side


def _face_of(
    group: list[_Pip], lab: FloatImage, blobs: npt.NDArray[np.uint8], tol: float = 1.0
) -> _Face | None:
    n = len(group)
    pts = np.array([[p.x, p.y] for p in group], np.float64)
    centre = pts.mean(axis=0)
    r_med = float(np.median([p.r for p in group]))
    side_r = 2 * max(1.0, r_med - 0.5) / PIP_FRACTION  # blur widens a thresholded pip by about half a pixel
    body = np.median(np.array([p.ring for p in group]), axis=0).astype(np.float32)
    if n > 6:  # two dice run together, or not dice: kept (as unsure) only if it looks like one face
        side, size_score = side_r, 0.0
    elif n >= 2:
        spread = float(np.linalg.norm(pts - centre, axis=1).mean())
        side_l = spread / _SPREAD[n]
        agree = side_l / side_r
        if not 0.6 <= agree <= 1.7:
            return None
        side = side_l
        size_score = min(1.0, max(0.0, 1.0 - (abs(math.log(agree)) - math.log(1.3)) / math.log(1.3)))
    else:
        side = side_r
        size_score = 1.0
    fit, angle = _layout_fit(pts, centre, side) if n <= 6 else (0.0, 0.0)
    # The face around the pips is flat body colour: sample a disc of 0.42 side, pips skipped.
    h, w = blobs.shape
    rad = 0.42 * side
    x0, y0 = max(0, int(centre[0] - rad)), max(0, int(centre[1] - rad))
    x1, y1 = min(w, int(centre[0] + rad) + 1), min(h, int(centre[1] + rad) + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    disc = np.hypot(xx - centre[0], yy - centre[1]) <= rad
    guard = cv2.dilate(blobs[y0:y1, x0:x1], np.ones((3, 3), np.uint8)) == 0
    sel = disc & guard
    if sel.sum() < 10:
        return None
    flat = float(_same_colour(lab[y0:y1, x0:x1][sel], body, 1.4 * tol).mean())
    if flat < 0.85:
        return None
    if not _bounded(lab, blobs, centre, side, body, tol=tol):
        return None
    aspect = float(np.median([p.aspect for p in group]))
    flat_score = min(1.0, (flat - 0.85) / 0.08)
    confidence = fit * size_score * flat_score * min(1.0, aspect / 0.7)
    if n > 6:
        confidence = DROP_BELOW  # a clean face with too many pips: two dice run together; ask
    return _Face(centre, side, angle, n, confidence, body, group)


def _lab_to_bgr(lab: npt.NDArray[np.float32]) -> tuple[float, float, float]:
    px = cv2.cvtColor(np.asarray(lab, np.float32).reshape(1, 1, 3), cv2.COLOR_LAB2BGR).reshape(3) * 255.0
    return (float(px[0]), float(px[1]), float(px[2]))


def _drop_side_faces(faces: list[_Face]) -> list[_Face]:
    """A face overlapping a brighter (or surer) face is a side of that die, or that face again: drop it."""
    kept: list[_Face] = []
    for f in sorted(faces, key=lambda f: -float(f.body[0]) - 30.0 * f.confidence):
        if all(float(np.linalg.norm(f.centre - k.centre)) >= 0.475 * (f.side + k.side) for k in kept):
            kept.append(f)
    return kept


def estimate_die_px(region: npt.NDArray[np.uint8] | None) -> float | None:
    """A die's expected side from a region made of (grown) tile hexagons: a tile's side is 52 mm, a die 16 mm.
    The region's outline keeps whole tile sides where a tile meets no neighbour (the longer outline edges are
    such sides), and a tile's inner radius is 45 mm; where tiles merge both only grow, so the smaller wins."""
    if region is None or not region.any():
        return None
    mask = (region > 0).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    edges: list[float] = []
    for c in contours:
        perimeter = cv2.arcLength(c, True)
        poly = cv2.approxPolyDP(c, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
        if len(poly) >= 3:
            edges.extend(np.linalg.norm(poly - np.roll(poly, 1, axis=0), axis=1).tolist())
    if not edges:
        return None
    from_outline = float(np.percentile(edges, 75)) * DIE_SIDE_MM / (TILE_SIDE_MM * REGION_GROWTH)
    inner = float(cv2.distanceTransform(mask, cv2.DIST_L2, 5).max())
    return min(from_outline, inner * DIE_SIDE_MM / (45.0 * REGION_GROWTH))


def _faces(
    lab: FloatImage,
    valid: npt.NDArray[np.uint8] | None,
    *,
    pip_lo: float,
    pip_hi: float,
    lo_side: float,
    hi_side: float,
    tol: float,
) -> list[_Face]:
    pips, blobs = _find_pips(lab, valid, pip_lo, pip_hi, tol)
    faces: list[_Face] = []
    for group in _group(pips, lab, blobs, tol):
        face = _face_of([pips[i] for i in group], lab, blobs, tol)
        if face is None or face.confidence < DROP_BELOW or not lo_side <= face.side <= hi_side:
            continue
        faces.append(face)
    return faces


def read_dice(
    image: Image,
    region: object = None,
    calibration: Nearest | None = None,
    *,
    die_px: float | None = None,
    white_bgr: Sequence[float] | None = None,
) -> list[DieReading]:
    """Every die in `image` (or inside `region`: a polygon Nx2 or a mask of the image's size).

    `die_px`: the expected face side in pixels when known (else estimated from a tile-shaped region, else a
    broad range). `calibration`: an object with `nearest(bgr, white_bgr) -> (Colour, distance)` to name each
    die's player.
    """
    img = _check_image(image)
    mask = _region_mask(img.shape, region)
    h, w = img.shape[:2]
    if die_px is not None:
        if not (isinstance(die_px, int | float) and math.isfinite(die_px) and die_px > 0):
            raise DiceInputError(f"die_px must be a positive size in pixels, got {die_px!r}")
        lo_side, hi_side = 0.5 * die_px, 1.5 * die_px
    elif mask is not None and (estimate := estimate_die_px(mask)) is not None:
        lo_side, hi_side = 0.35 * estimate, 1.6 * estimate
    else:
        lo_side, hi_side = float(MIN_SIDE_PX), min(h, w) / 6.0
    pip_lo, pip_hi = max(2.5, PIP_FRACTION * lo_side * 0.8), max(4.0, PIP_FRACTION * hi_side * 1.2)
    ox, oy = 0, 0
    valid = None
    if mask is not None:
        if not mask.any():
            return []
        ys, xs = np.nonzero(mask)
        pad = int(hi_side)
        ox, oy = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
        ex, ey = min(w, int(xs.max()) + pad + 1), min(h, int(ys.max()) + pad + 1)
        valid = np.ascontiguousarray(mask[oy:ey, ox:ex])
        lab = _lab(np.ascontiguousarray(img[oy:ey, ox:ex]))
    else:
        lab = _lab(img)
    faces = _drop_side_faces(
        _faces(lab, valid, pip_lo=pip_lo, pip_hi=pip_hi, lo_side=lo_side, hi_side=hi_side, tol=1.0)
    )
    # A second, looser pass for glossy and marbled bodies; it only adds sure faces of two pips or more where
    # the first found none (a lone blob on loosely flat ground is too often print or art).
    for f in _drop_side_faces(
        _faces(lab, valid, pip_lo=pip_lo, pip_hi=pip_hi, lo_side=lo_side, hi_side=hi_side, tol=LOOSE)
    ):
        if (
            f.value >= 2
            and f.confidence >= UNSURE_BELOW
            and all(float(np.linalg.norm(f.centre - k.centre)) >= 0.6 * (f.side + k.side) for k in faces)
        ):
            faces.append(f)
    # All dice in one view are about the same size: a face far from the typical multi-pip face is not a die.
    sure = [f.side for f in faces if 2 <= f.value <= 6 and f.confidence >= UNSURE_BELOW]
    if len(sure) >= 2:
        typical = float(np.median(sure))
        faces = [f for f in faces if 0.6 * typical <= f.side <= 1.5 * typical]
    out: list[DieReading] = []
    for f in faces:
        cx, cy = f.centre[0] + ox, f.centre[1] + oy
        turn = abs(math.cos(f.angle)) + abs(math.sin(f.angle)) if f.value > 1 else 1.0
        half = 0.5 * f.side * turn
        x0, y0 = max(0, round(float(cx - half))), max(0, round(float(cy - half)))
        x1, y1 = min(w, round(float(cx + half))), min(h, round(float(cy + half)))
        confidence = f.confidence
        if mask is not None and mask[y0:y1, x0:x1].mean() < 0.6:
            confidence *= 0.5  # cut by the region's edge
        bgr = _lab_to_bgr(f.body)
        player: Colour | None = None
        if calibration is not None:
            player, _distance = calibration.nearest(bgr, white_bgr)
        valid_count = 1 <= f.value <= 6
        out.append(
            DieReading(
                box=(x0, y0, x1, y1),
                value=max(1, min(6, f.value)),
                confidence=confidence if valid_count else 0.0,
                unsure=(not valid_count) or confidence < UNSURE_BELOW,
                colour_bgr=bgr,
                player=player,
            )
        )
    return out


def draw_dice(image: Image, dice: Sequence[DieReading]) -> Image:
    """A copy of `image` with each die's box and value drawn (orange and '?' when unsure)."""
    shown = image.copy()
    for d in dice:
        colour = (0, 165, 255) if d.unsure else (0, 200, 0)
        cv2.rectangle(shown, d.box[:2], d.box[2:], colour, 2)
        cv2.putText(
            shown,
            str(d.value) + ("?" if d.unsure else ""),
            (d.box[0], max(12, d.box[1] - 3)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            colour,
            2,
            cv2.LINE_AA,
        )
    return shown


def dice_main(argv: Sequence[str]) -> int:
    """`seneschal vision dice IMAGE [--show OUT.png]`: the dice in one image as JSON."""
    parser = argparse.ArgumentParser(prog="seneschal vision dice", description=dice_main.__doc__)
    parser.add_argument("image")
    parser.add_argument("--show", metavar="OUT.png", help="write the image with the dice drawn on it")
    parser.add_argument("--die-px", type=float, default=None, help="expected die face side in pixels")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return 2 if exc.code else 0
    path = Path(args.image)
    raw = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
    if raw is None:
        print(f"seneschal vision dice: cannot read an image from {args.image!r}", file=sys.stderr)
        return 2
    image = np.asarray(raw, np.uint8)
    try:
        dice = read_dice(image, die_px=args.die_px)
    except DiceInputError as exc:
        print(f"seneschal vision dice: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"image": str(path), "dice": [d.to_json() for d in dice]}))
    if args.show and not cv2.imwrite(args.show, draw_dice(image, dice)):
        print(f"seneschal vision dice: cannot write {args.show!r}", file=sys.stderr)
        return 2
    return 0

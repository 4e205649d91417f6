"""Dice on the table: where each die is, its top face's value 1..6, and how sure we are.

A classical OpenCV reader. A die's top face is a flat patch of one colour (its body) broken only by pips of a
contrasting colour; the table, tile art and the die's own sides around it are either textured or set off from it
by an edge. So the reader:

1. marks *flat* pixels (low local colour variance in Lab) and splits them into connected patches, which edges
   (die outlines, pip rims) separate from one another;
2. keeps patches shaped like a die face: near-square, solid once its pip holes are filled, within the expected
   size range (from `die_px` when the caller knows the scale, else a broad range);
3. drops side faces: a patch that touches a brighter candidate and is darker is the side of that die, so pips
   on it are never added (only the top face counts);
4. counts pips inside each face: blobs whose colour differs strongly from the face body, of pip size and round;
5. rates the count against the standard pip layouts; an odd layout, a count outside 1..6 or a face cut by the
   region's edge is reported `unsure` rather than guessed.

Measured figures (synthetic scenes, real photographs) are printed by `bench/dice_real.py` and `bench/vision.py`.
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
Box = tuple[int, int, int, int]

FLAT_STD = 9.0
MIN_SIDE_PX = 10  # smaller faces cannot carry countable pips
UNSURE_BELOW = 0.6


class DiceInputError(VisionError, ValueError):
    """The image given to the dice reader is not a readable picture."""


class Nearest(Protocol):
    def nearest(self, bgr: Sequence[float], white_bgr: Sequence[float] | None = None) -> tuple[Colour, float]: ...


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die: its box in the image (x0, y0, x1, y1), top-face value, confidence 0..1 and measured colour."""

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
    arr = np.asarray(region)
    if arr.ndim == 2 and arr.shape == shape[:2]:
        return (arr > 0).astype(np.uint8)
    pts = arr.reshape(-1, 2).astype(np.int32)
    if len(pts) < 3:
        raise DiceInputError(f"region must be a mask of the image's size or a polygon, got shape {arr.shape!r}")
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [pts], 1)
    return mask


# Pip centres of each value on a unit face, for rating a count's layout.
LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5), (0.25, 0.75), (0.75, 0.75)),
}


def _layout_fit(points: npt.NDArray[np.float64], rect: tuple[Any, ...]) -> float:
    """0..1: how well pip centres (image px) match the standard layout of their count, in the face's frame."""
    n = len(points)
    if n not in LAYOUTS:
        return 0.0
    (cx, cy), (w, h), angle = rect
    side = max(1.0, (w + h) / 2.0)
    theta = math.radians(angle)
    c, s = math.cos(theta), math.sin(theta)
    rel = points - np.array([cx, cy])
    local = np.stack([rel[:, 0] * c + rel[:, 1] * s, -rel[:, 0] * s + rel[:, 1] * c], axis=1) / side + 0.5
    best = math.inf
    template = np.array(LAYOUTS[n])
    for turn in range(4):  # the face's frame is known only up to a quarter turn
        t = template - 0.5
        for _ in range(turn):
            t = np.stack([-t[:, 1], t[:, 0]], axis=1)
        t = t + 0.5
        # greedy nearest matching is enough for <= 6 points
        used: set[int] = set()
        total = 0.0
        for p in local:
            d = np.linalg.norm(t - p, axis=1)
            for j in np.argsort(d):
                if int(j) not in used:
                    used.add(int(j))
                    total += float(d[j])
                    break
        best = min(best, total / n)
    return float(max(0.0, 1.0 - best / 0.25))


def _lab(img: Image) -> npt.NDArray[np.float32]:
    """True CIELAB (L 0..100), as the calibration's references are."""
    return np.asarray(cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB), np.float32)


def _colour_masks(
    lab: npt.NDArray[np.float32], calibration: Nearest | None
) -> list[npt.NDArray[np.uint8]]:
    """Pixel masks of die bodies: one per calibrated player colour, or (no calibration) everything that stands
    out from the background's dominant colour."""
    refs = getattr(calibration, "references", None)
    masks = []
    if isinstance(refs, dict) and refs:
        for ref in refs.values():
            r = np.asarray(ref, np.float32)
            neutral = math.hypot(float(r[1]), float(r[2])) < 12
            wl = 0.8 if neutral else 0.35
            d = np.sqrt((wl * (lab[..., 0] - r[0])) ** 2 + (lab[..., 1] - r[1]) ** 2 + (lab[..., 2] - r[2]) ** 2)
            masks.append((d < (18.0 if neutral else 26.0)).astype(np.uint8))
        return masks
    small = lab[::4, ::4].reshape(-1, 3)
    q = np.round(small / np.array([8.0, 8.0, 8.0])).astype(np.int32)
    keys, counts = np.unique(q, axis=0, return_counts=True)
    bg = keys[int(np.argmax(counts))].astype(np.float32) * 8.0
    d = np.sqrt((((lab - bg) * np.array([0.5, 1.0, 1.0], np.float32)) ** 2).sum(axis=2))
    masks.append((d > 14.0).astype(np.uint8))
    return masks


def read_dice(
    image: Image,
    region: object = None,
    calibration: Nearest | None = None,
    *,
    die_px: float | None = None,
    white_bgr: Sequence[float] | None = None,
) -> list[DieReading]:
    """Every die in `image` (or inside `region`: a polygon Nx2 or a mask of the image's size).

    `die_px`: the expected face side in pixels when known; without it faces from 10 px to a fifth of the image's
    short side are accepted. `calibration`: an object with `nearest(bgr, white_bgr) -> (Colour, distance)` (and,
    for the colour search, `references`: Colour -> Lab) to name each die's player.
    """
    img = _check_image(image)
    mask = _region_mask(img.shape, region)
    h, w = img.shape[:2]
    if die_px is not None:
        lo_side, hi_side = 0.55 * die_px, 1.6 * die_px
    else:
        lo_side, hi_side = float(MIN_SIDE_PX), min(h, w) / 5.0
    lab = _lab(img)
    mean = cv2.blur(lab, (3, 3))
    std = np.sqrt(np.maximum(cv2.blur(lab * lab, (3, 3)) - mean * mean, 0).sum(axis=2))
    out: list[DieReading] = []
    close_k = max(3, int(round(lo_side * 0.3)) | 1)
    for body in _colour_masks(lab, calibration):
        if mask is not None:
            body &= mask
        filled = cv2.morphologyEx(body, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close_k, close_k)))
        filled = cv2.morphologyEx(filled, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        count, labels, stats, _c = cv2.connectedComponentsWithStats(filled, connectivity=4)
        for i in range(1, count):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            if area < (0.8 * lo_side) ** 2 or area > (1.5 * hi_side) ** 2:
                continue
            comp = (labels[y : y + bh, x : x + bw] == i).astype(np.uint8)
            top = _top_face(lab[y : y + bh, x : x + bw], comp)
            contours, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if not contours:
                continue
            hull = cv2.convexHull(max(contours, key=cv2.contourArea))
            rect = cv2.minAreaRect(hull)
            rw, rh = rect[1]
            if min(rw, rh) <= 0 or max(rw, rh) / min(rw, rh) > 1.5:
                continue
            side = math.sqrt(rw * rh)
            if not lo_side <= side <= hi_side:
                continue
            face = np.zeros((bh, bw), np.uint8)
            cv2.drawContours(face, [hull], -1, 1, -1)
            body_px = face.astype(bool) & body[y : y + bh, x : x + bw].astype(bool)
            if body_px.sum() < 0.5 * face.sum():
                continue
            # A die's body is smooth; printed tile art and wood grain of the same colour are not.
            if float(np.median(std[y : y + bh, x : x + bw][body_px])) > FLAT_STD:
                continue
            fx, fy, fw, fh = cv2.boundingRect(hull)
            rect_img = ((rect[0][0] + x, rect[0][1] + y), rect[1], rect[2])
            cand = {
                "x": x + fx, "y": y + fy, "w": fw, "h": fh,
                "face": face[fy : fy + fh, fx : fx + fw], "rect": rect_img, "side": side,
                "lab": np.median(lab[y : y + bh, x : x + bw][body_px], axis=0),
                "bgr": np.median(img[y : y + bh, x : x + bw][body_px].astype(np.float64), axis=0),
            }
            reading = _read_face(img, lab, cand, mask, calibration, white_bgr)
            if reading.confidence > 0.0 or reading.unsure:
                out.append(reading)
    return _suppress_overlaps(out)


def _suppress_overlaps(dice: list[DieReading]) -> list[DieReading]:
    """One reading per die: where two boxes overlap by more than half, keep the more confident."""
    kept: list[DieReading] = []
    for d in sorted(dice, key=lambda r: -r.confidence):
        x0, y0, x1, y1 = d.box
        area = max(1, (x1 - x0) * (y1 - y0))
        if all(
            max(0, min(x1, k.box[2]) - max(x0, k.box[0])) * max(0, min(y1, k.box[3]) - max(y0, k.box[1])) < 0.5 * area
            for k in kept
        ):
            kept.append(d)
    return kept


def _top_face(lab: npt.NDArray[np.float32], comp: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The top face of one die blob: its sides are the same colour, darker (lit from above); split by lightness
    when the blob's lightness is clearly two groups, else the blob itself."""
    values = lab[..., 0][comp > 0]
    if values.size < 20:
        return comp
    v8 = np.clip(values * 2.55, 0, 255).astype(np.uint8).reshape(-1, 1)
    t, _ = cv2.threshold(v8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = values * 2.55 > t
    lo, hi = values[~bright], values[bright]
    if lo.size == 0 or hi.size == 0 or float(np.median(hi) - np.median(lo)) < 12 or hi.size < 0.4 * values.size:
        return comp
    top = ((lab[..., 0] * 2.55 > t) & (comp > 0)).astype(np.uint8)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    top = cv2.morphologyEx(top, cv2.MORPH_CLOSE, k)
    n, labels, stats, _c = cv2.connectedComponentsWithStats(top, connectivity=4)
    if n <= 1:
        return comp
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return (labels == biggest).astype(np.uint8)


def _read_face(
    img: Image,
    lab: npt.NDArray[np.float32],
    cand: dict[str, Any],
    mask: npt.NDArray[np.uint8] | None,
    calibration: Nearest | None,
    white_bgr: Sequence[float] | None,
) -> DieReading:
    x, y, bw, bh = cand["x"], cand["y"], cand["w"], cand["h"]
    face = cand["face"]
    side = cand["side"]
    inset = max(1, int(round(side * 0.07)))
    inner = cv2.erode(face, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * inset + 1, 2 * inset + 1)))
    patch = lab[y : y + bh, x : x + bw]
    diff = np.linalg.norm(patch - cand["lab"], axis=2)
    pips = ((diff > 22.0) & (inner > 0)).astype(np.uint8)
    n, _lab2, stats, cents = cv2.connectedComponentsWithStats(pips, connectivity=8)
    pip_area_lo, pip_area_hi = (0.06 * side) ** 2, (0.34 * side) ** 2
    blobs = []
    odd = 0
    for i in range(1, n):
        px, py, pw, ph, area = (int(v) for v in stats[i])
        if area < pip_area_lo:
            continue
        if area > pip_area_hi or max(pw, ph) > 2.2 * max(1, min(pw, ph)):
            odd += 1
            continue
        blobs.append((area, cents[i][0] + x, cents[i][1] + y))
    # Pips on one face are all the same size: a blob far from the typical pip is a rim, a shadow or glare.
    typical = float(np.median([b[0] for b in blobs])) if blobs else 0.0
    centres = [(bx, by) for area, bx, by in blobs if 0.4 * typical <= area <= 2.5 * typical]
    odd += len(blobs) - len(centres)
    value = len(centres)
    fit = _layout_fit(np.array(centres, np.float64).reshape(-1, 2), cand["rect"]) if centres else 0.0
    confidence = fit * (0.7 if odd else 1.0)
    x0, y0, x1, y1 = x, y, x + bw, y + bh
    if mask is not None and mask[y0:y1, x0:x1].mean() < 0.5:
        confidence *= 0.5
    bgr = tuple(float(v) for v in cand["bgr"])
    player: Colour | None = None
    if calibration is not None:
        player, _distance = calibration.nearest(bgr, white_bgr)
    valid = 1 <= value <= 6
    return DieReading(
        box=(x0, y0, x1, y1),
        value=value if valid else max(1, min(6, value)),
        confidence=confidence if valid else 0.0,
        unsure=(not valid) or confidence < UNSURE_BELOW,
        colour_bgr=(bgr[0], bgr[1], bgr[2]),
        player=player,
    )


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
    image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
    if image is None:
        print(f"seneschal vision dice: cannot read an image from {args.image!r}", file=sys.stderr)
        return 2
    try:
        dice = read_dice(image, die_px=args.die_px)
    except DiceInputError as exc:
        print(f"seneschal vision dice: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"image": str(path), "dice": [d.to_json() for d in dice]}))
    if args.show:
        shown = image.copy()
        for d in dice:
            colour = (0, 165, 255) if d.unsure else (0, 200, 0)
            cv2.rectangle(shown, d.box[:2], d.box[2:], colour, 2)
            cv2.putText(shown, str(d.value) + ("?" if d.unsure else ""), (d.box[0], d.box[1] - 3),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2, cv2.LINE_AA)
        if not cv2.imwrite(args.show, shown):
            print(f"seneschal vision dice: cannot write {args.show!r}", file=sys.stderr)
            return 2
    return 0

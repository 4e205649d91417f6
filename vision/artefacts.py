"""Artefact cards: face up (its sticker is seen) or face down (destroyed).

Each artefact card carries one QR sticker in the middle of its face (`vision.tags`); its back has none. The
rule for a card whose sticker is not decoded in a frame, which tells "flipped" from "hidden by a hand":

1. A card is only judged where it was last seen: the tracker remembers, on the table plane, where each card
   lay the last time its sticker was read. A card never seen face up is not judged at all (not reported).
2. Face down needs a clear view of the whole card region: all of it inside the frame, less than
   `max_occluded` of it under a hand (see below), and no QR-like black-and-white pattern where the sticker
   was. A hand is a blob of the occluder mask (skin-coloured or unknown: a hand, a sleeve) over the card that
   also reaches outside it (beyond the card's outline grown by `HAND_REACH`): a hand comes from the table's
   edge, while a blob that lies wholly within the card is the card's own printing (a card back may well be
   skin-coloured) and does not hide it. A sticker that is there but unreadable (glare, blur,
   a finger on one corner) still shows the paper-white and ink-black of a code; a card back does not.
3. Anything else is "hidden": the card's side is not determined in this frame and its last stable side stays
   (the `Stabilizer` also requires `hold_frames` consecutive frames before a side changes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.tags import CARD_H_MM, CARD_W_MM, CODE_MM

Quad = npt.NDArray[np.float64]  # 4x2 corners, image pixels (or table-plane units once mapped)
Homography = npt.NDArray[np.float64]  # 3x3

# The card region around its code: the card is this many times the code's size along each axis (a detection's
# corners are the code's, not the sticker paper's).
CARD_SCALE = (CARD_W_MM / CODE_MM, CARD_H_MM / CODE_MM)
# An occluder blob over a card is a hand only if it reaches beyond the card's outline grown by this factor.
HAND_REACH = 1.2


@dataclass(frozen=True, slots=True)
class ArtefactObservation:
    """One frame's artefact sides: `sides` only holds cards determined in this frame (True = face up)."""

    sides: Mapping[str, bool]
    hidden: frozenset[str]
    regions: Mapping[str, Quad]  # each judged or hidden card's region in this frame's image


def _apply(h: Homography, pts: npt.ArrayLike) -> Quad:
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
    out: Quad = np.asarray(cv2.perspectiveTransform(p, h), np.float64).reshape(-1, 2)
    return out


def card_region(sticker: Quad) -> Quad:
    """The card's outline from its code's corners (the sticker sits in the middle of the card's face)."""
    q = np.asarray(sticker, dtype=np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    # Axis vectors of the sticker square: corners are in order around the square.
    u = (q[1] - q[0] + q[2] - q[3]) / 2.0
    v = (q[3] - q[0] + q[2] - q[1]) / 2.0
    su, sv = CARD_SCALE
    signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    corners = [centre + sx * su * u / 2.0 + sy * sv * v / 2.0 for sx, sy in signs]
    return np.asarray(corners, dtype=np.float64)


def looks_like_a_code(image: npt.NDArray[np.uint8], quad: Quad, share: float = 0.2) -> bool:
    """True when the polygon `quad` holds a QR-like mix of paper white and ink black (an unread but present
    sticker): over `share` of it each, with contrast."""
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [w, h])
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False
    crop = image[y0:y1, x0:x1]
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    mask = np.zeros(gray.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 255)
    pixels = gray[mask > 0]
    if pixels.size < 16:
        return False
    lo, hi = np.percentile(pixels, [10, 90])
    if hi - lo < 60:
        return False
    dark = np.count_nonzero(pixels < lo + 0.25 * (hi - lo))
    light = np.count_nonzero(pixels > hi - 0.25 * (hi - lo))
    return bool(dark > share * pixels.size and light > share * pixels.size)


def _polygon_box(
    poly: Quad, shape: tuple[int, ...]
) -> tuple[int, int, int, int, npt.NDArray[np.uint8]] | None:
    """The polygon's bounding box clipped to `shape` and the polygon's mask inside it (None when empty)."""
    h, w = shape[:2]
    x0, y0 = np.clip(np.floor(poly.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(poly.max(axis=0)).astype(int) + 1, 0, [w, h])
    if x1 <= x0 or y1 <= y0:
        return None
    pm = np.zeros((int(y1 - y0), int(x1 - x0)), np.uint8)
    cv2.fillPoly(pm, [np.round(poly - [x0, y0]).astype(np.int32).reshape(-1, 1, 2)], 1)
    return int(x0), int(y0), int(x1), int(y1), pm


class HandMask:
    """The occluder mask split into blobs, to tell a hand over a card from the card's own skin-coloured art
    (the rule in the module docstring). `scale`: the mask's size as a share of the frame's."""

    def __init__(self, occluders: npt.NDArray[np.uint8], scale: float = 1.0) -> None:
        self.scale = scale
        binary = (np.asarray(occluders) > 0).astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
        self.labels: npt.NDArray[np.int32] = np.asarray(labels, np.int32)
        self.areas: npt.NDArray[np.int64] = np.asarray(stats[:, cv2.CC_STAT_AREA], np.int64)
        self.count = int(count)

    def share(self, region: Quad, reach: float = HAND_REACH) -> float:
        """Share of `region` (full-frame px) under blobs that also reach outside it grown by `reach`."""
        if self.count <= 1:
            return 0.0
        poly = np.asarray(region, np.float64).reshape(-1, 2) * self.scale
        inner = _polygon_box(poly, self.labels.shape)
        if inner is None:
            return 0.0
        x0, y0, x1, y1, pm = inner
        area = int(np.count_nonzero(pm))
        if area == 0:
            return 0.0
        under = self.labels[y0:y1, x0:x1][pm > 0]
        blobs = np.unique(under[under > 0])
        if blobs.size == 0:
            return 0.0
        centre = poly.mean(axis=0)
        outer = _polygon_box((poly - centre) * reach + centre, self.labels.shape)
        within = np.zeros(self.count, np.int64)
        if outer is not None:
            gx0, gy0, gx1, gy1, gm = outer
            inside = self.labels[gy0:gy1, gx0:gx1][gm > 0]
            within = np.bincount(inside.ravel(), minlength=self.count).astype(np.int64)
        hands = [int(b) for b in blobs if self.areas[b] > within[b]]
        if not hands:
            return 0.0
        return float(np.count_nonzero(np.isin(under, hands))) / area


class ArtefactTracker:
    """Remembers where artefact cards lie and judges each frame by the rule in the module docstring."""

    def __init__(self, known: Iterable[str] = (), *, max_occluded: float = 0.05) -> None:
        self.known = set(known)
        self.max_occluded = max_occluded
        self._sticker_on_table: dict[str, Quad] = {}

    def positions(self) -> dict[str, Quad]:
        """Where each card's sticker was last seen, on the table plane."""
        return dict(self._sticker_on_table)

    def update(
        self,
        image: npt.NDArray[np.uint8],
        stickers: Mapping[str, Quad],
        image_to_table: Homography | None,
        occluders: npt.NDArray[np.uint8] | None = None,
        occluder_scale: float = 1.0,
    ) -> ArtefactObservation:
        """Judge every known card. `stickers`: artefact id -> sticker corners decoded in this frame;
        `occluders`: the occluder mask, `occluder_scale` times the frame's size."""
        sides: dict[str, bool] = {}
        hidden: set[str] = set()
        regions: dict[str, Quad] = {}
        for art, quad in stickers.items():
            self.known.add(art)
            sides[art] = True
            regions[art] = card_region(quad)
            if image_to_table is not None:
                self._sticker_on_table[art] = _apply(image_to_table, quad)
        if image_to_table is None:
            return ArtefactObservation(sides, frozenset(self.known - set(sides)), regions)
        table_to_image: Homography = np.asarray(np.linalg.inv(image_to_table), np.float64)
        h, w = image.shape[:2]
        hands = HandMask(occluders, occluder_scale) if occluders is not None else None
        for art in sorted(self.known - set(sides)):
            on_table = self._sticker_on_table.get(art)
            if on_table is None:
                continue  # never seen face up: nothing to judge it by
            sticker = _apply(table_to_image, on_table)
            region = card_region(sticker)
            regions[art] = region
            inside = bool(
                np.all(region[:, 0] >= 0) and np.all(region[:, 0] < w)
                and np.all(region[:, 1] >= 0) and np.all(region[:, 1] < h)
            )
            covered = bool(hands is not None and hands.share(region) > self.max_occluded)
            if not inside or covered or looks_like_a_code(image, sticker):
                hidden.add(art)
            else:
                sides[art] = False
        return ArtefactObservation(sides, frozenset(hidden), regions)

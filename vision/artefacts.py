"""Artefact cards: face up (its sticker is seen) or face down (destroyed).

Each artefact card carries one QR sticker in the middle of its face (`vision.tags`); its back has none. The
rule for a card whose sticker is not decoded in a frame, which tells "flipped" from "hidden by a hand":

1. A card is only judged where it was last seen: the tracker remembers, on the table plane, where each card
   lay the last time its sticker was read. A card never seen face up is not judged at all (not reported).
2. Face down needs a clear view of the whole card region: all of it inside the frame, less than
   `max_occluded` of it under the occluder mask (skin-coloured or unknown blobs: a hand, a sleeve), and no
   QR-like black-and-white pattern where the sticker was. A sticker that is there but unreadable (glare, blur,
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

from vision.knights import mask_share
from vision.tags import CARD_H_MM, CARD_W_MM, CODE_MM

Quad = npt.NDArray[np.float64]  # 4x2 corners, image pixels (or table-plane units once mapped)
Homography = npt.NDArray[np.float64]  # 3x3

# The card region around its code: the card is this many times the code's size along each axis (a detection's
# corners are the code's, not the sticker paper's).
CARD_SCALE = (CARD_W_MM / CODE_MM, CARD_H_MM / CODE_MM)


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


def looks_like_a_code(image: npt.NDArray[np.uint8], quad: Quad) -> bool:
    """True when the quad holds a QR-like mix of paper white and ink black (an unread but present sticker)."""
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
    return bool(dark > 0.2 * pixels.size and light > 0.2 * pixels.size)


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
            covered = bool(
                occluders is not None and mask_share(occluders, region, occluder_scale) > self.max_occluded
            )
            if not inside or covered or looks_like_a_code(image, sticker):
                hidden.add(art)
            else:
                sides[art] = False
        return ArtefactObservation(sides, frozenset(hidden), regions)

"""What changed on the table since it was last read, so a camera stream reads again only what moved.

A table at rest looks the same frame after frame: only sensor noise differs. `ChangeWatch` keeps a small grey
thumbnail of the table as it was when each location was last read (at a scale fixed relative to the tiles,
about `THUMB_TILE_PX` from a tile's centre to a corner, so a die is ~7 px and a pip still moves a pixel by far
more than noise does), and for a new frame says which locations differ from their reference and whether
anything outside them did (an artefact card turned, a hand reaching in over the frame's edge, the camera
bumped, the light changed).

The reference of a location moves on only when that location is read again, so a slow drift (the evening
light) adds up until it is noticed rather than hiding under a per-frame threshold.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry import mean_radius

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

THUMB_TILE_PX = 24.0  # a tile's centre-to-corner distance in the thumbnail
PIXEL_DELTA = 18  # grey levels: a thumbnail pixel this far from its reference has changed (noise: ~1)
CHANGED_PIXELS = 2  # a location with this many changed pixels is read again
EDGE_SHARE = 0.03  # the strip along the frame's edge that counts as outside every location
LOCATION_GROWTH = 1.12  # as the knights reader grows tiles: a die overhanging the edge belongs to the tile


@dataclass(frozen=True, slots=True)
class Changes:
    """`locations`: the locations that changed; `elsewhere`: something outside every location changed."""

    locations: frozenset[str]
    elsewhere: bool

    @property
    def none(self) -> bool:
        return not self.locations and not self.elsewhere


class ChangeWatch:
    """Per-location change detection against the last reading of each location. Not thread-safe."""

    def __init__(self, pixel_delta: int = PIXEL_DELTA, changed_pixels: int = CHANGED_PIXELS) -> None:
        self.pixel_delta = pixel_delta
        self.changed_pixels = changed_pixels
        self._scale = 0.0
        self._shape: tuple[int, ...] = ()
        self._ref: Image | None = None
        # per location: its box in the thumbnail and its (grown) outline's mask within the box
        self._masks: dict[str, tuple[tuple[slice, slice], npt.NDArray[np.bool_]]] = {}
        self._outside: npt.NDArray[np.bool_] | None = None
        self._thumb: Image | None = None

    @property
    def ready(self) -> bool:
        return self._ref is not None

    def reset(self) -> None:
        """Forget the reference (the next frame is read whole)."""
        self._ref = None
        self._thumb = None

    def start(self, image: Image, polygons: Mapping[str, FloatArray]) -> None:
        """Take `image` as everything's reference, with the locations' `polygons` (image px) as read in it."""
        radii = [mean_radius(p) for p in polygons.values()]
        if not radii:
            self.reset()
            return
        # One over a whole number: OpenCV shrinks by whole factors several times faster.
        self._scale = 1.0 / max(1, round(float(np.median(radii)) / THUMB_TILE_PX))
        self._shape = image.shape
        thumb = self._thumbnail(image)
        h, w = thumb.shape
        self._masks = {}
        covered = np.zeros((h, w), np.uint8)
        for loc, poly in polygons.items():
            centre = poly.mean(axis=0)
            grown = np.round((centre + (poly - centre) * LOCATION_GROWTH) * self._scale).astype(np.int32)
            x0, y0 = np.clip(grown.min(axis=0), 0, [w, h])
            x1, y1 = np.clip(grown.max(axis=0) + 1, 0, [w, h])
            if x1 <= x0 or y1 <= y0:
                continue  # wholly outside the frame
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(mask, [grown - [x0, y0]], 1)
            self._masks[loc] = (slice(int(y0), int(y1)), slice(int(x0), int(x1))), mask.astype(bool)
            covered[y0:y1, x0:x1] |= mask
        # Anything that comes into view crosses the frame's edge: a change there is never a location's alone,
        # even where a tile reaches the edge (a hand reaching in must send the frame to be read whole).
        edge = max(2, round(EDGE_SHARE * min(h, w)))
        covered[:edge, :] = covered[-edge:, :] = 0
        covered[:, :edge] = covered[:, -edge:] = 0
        self._outside = covered == 0
        self._ref = thumb
        self._thumb = thumb

    def look(self, image: Image) -> Changes | None:
        """What changed in `image` since each part was last read; None when there is no reference to compare
        with (nothing read yet, or a frame of another size): read the frame whole."""
        if self._ref is None or image.shape != self._shape or self._outside is None:
            self._thumb = None
            return None
        thumb = self._thumbnail(image)
        self._thumb = thumb
        moved = cv2.absdiff(thumb, self._ref) > self.pixel_delta
        changed = frozenset(
            loc
            for loc, (box, mask) in self._masks.items()
            if int(np.count_nonzero(moved[box] & mask)) >= self.changed_pixels
        )
        elsewhere = int(np.count_nonzero(moved & self._outside)) >= self.changed_pixels
        return Changes(changed, elsewhere)

    def accept(self, locations: Collection[str]) -> None:
        """The last frame `look`ed at was read again at `locations`: it becomes their reference."""
        if self._ref is None or self._thumb is None:
            return
        for loc in locations:
            if loc in self._masks:
                box, mask = self._masks[loc]
                self._ref[box][mask] = self._thumb[box][mask]

    def _thumbnail(self, image: Image) -> Image:
        h, w = image.shape[:2]
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        size = (max(8, round(w * self._scale)), max(8, round(h * self._scale)))
        return np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.uint8)

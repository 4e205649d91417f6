"""Is a frame sharp enough to read? Measured on our stickers' black-and-white edges.

A moving camera (motion blur) or one out of focus (defocus) smears every edge of a frame. A code's edges are
the one thing on the table whose sharp look we know: paper white against ink black, along the code's two
axes. Across an edge blurred by a Gaussian of sigma `s` pixels the grey level climbs from black to white with
a steepest slope of `C / (s * sqrt(2 pi))` (`C` the black-to-white contrast); blurred by a motion of `L`
pixels along the edge's normal, with a slope of `C / L`. So each code gives an **edge width**, contrast over
steepest slope (about 2.5 s, or L; a sharp edge sampled by pixels measures about 2 px), across each of its two
axes; a motion smears only the edges across it, so a code's width is the larger of the two, and the frame's
the 75th percentile of its codes' (codes lie at every turn: those across the motion measure it).

A frame is **blurred** when that width reaches `BLURRED_PX` pixels of a 1080p frame (a 4K frame's count
half): a camera's own blur, whatever the framing. On seeded scenes (tilts 0-50 degrees, easy to hard, JPEG
70-90 for some) frames a camera on a stand gives (sigma 0.3-1.2 px, with a shake of up to 3 px) measure
at most 5.2 px; frames out of focus (sigma 2 and more) at least 6.2, moving ones (6 px and more) at least
5.8, and 5-6 px motions 4.9 and more (most over the line). Widths relative to the code's module, what
decides whether a code still decodes, tell these apart worse (a table framed small has small modules and
is called blurred when sharp), so the module size is given (`Sharpness.edge_modules`) but does not decide.

Stickers are measured where they are: read in this frame, or found where the tracked map puts them. A frame
in which no sticker was read or found gets `frame_sharpness`, the same widths over the frame's strongest
ink-on-paper edges; a frame with neither (a bare table, a blank wall) has no measure and is never called
blurred.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.tags import QR_MODULES

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

# Edge width (px of a 1080p frame: a 4K frame's widths count half) from which a frame is too blurred to
# read; chosen on seeded scenes 9000..9059 (the module docstring; docs/stickers.md, held-out figures).
BLURRED_PX = 5.5
MIN_CONTRAST = 40.0  # grey levels from a code's ink to its paper under which it is not measured (glare, hand)
WIDTH_PERCENTILE = 75.0  # of the stickers' widths: a motion smears the codes across it most, others less
MOST_STICKERS = 10  # measured per frame at most (the median of a few is as good as all of theirs)
SLOPE_PERCENTILE = 95.0  # the code's steepest slopes: this percentile of its pixels' slopes across each axis
TYPICAL_MODULE_PX = 2.0  # a 1080p table's module (docs/stickers.md), for a frame with nothing to tell it


@dataclass(frozen=True, slots=True)
class Sharpness:
    """How sharp a frame is: its edge width (px; the module docstring) over `stickers` codes, and their
    median module (px); `scale`: the frame's width over a 1080p frame's."""

    edge_px: float = 0.0
    module_px: float = 0.0
    stickers: int = 0
    scale: float = 1.0  # the frame's width over 1920 (a 1080p frame's)

    @property
    def edge_modules(self) -> float:
        """Edge width in modules (0 without a measure)."""
        return self.edge_px / self.module_px if self.module_px > 0 else 0.0

    @property
    def measured(self) -> bool:
        return self.stickers > 0

    @property
    def edge_1080p(self) -> float:
        """Edge width in pixels of a 1080p frame."""
        return self.edge_px / self.scale if self.scale > 0 else 0.0

    @property
    def blurred(self) -> bool:
        return self.measured and self.edge_1080p >= BLURRED_PX

    def describe(self) -> str:
        if not self.measured:
            return "sharpness not measured (no sticker found)"
        return (
            f"edges {self.edge_1080p:.1f} px wide at 1080p (blurred from {BLURRED_PX:g}), "
            f"{self.edge_modules:.1f} modules of {self.module_px:.1f} px, on {self.stickers} sticker(s)"
        )


def edge_widths(image: Image, quad: FloatArray) -> tuple[float, float, float] | None:
    """A code's edge widths (px) across its two axes and its black-to-white contrast, from its four image
    corners (TL, TR, BR, BL) in a grey or BGR frame; None when the code is not inside the frame or shows
    too little contrast to measure (covered, washed out by glare)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    h, w = image.shape[:2]
    x0, y0 = np.floor(q.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 3
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or x1 - x0 < 8 or y1 - y0 < 8:
        return None
    crop = image[y0:y1, x0:x1]
    grey_crop = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    patch = np.asarray(grey_crop, np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    mask = np.zeros(patch.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(q - [x0, y0]).astype(np.int32), 1)
    inside = mask > 0
    grey = patch[inside]
    if grey.size < 32:
        return None
    lo, hi = _quantiles(grey, (0.03, 0.97))
    contrast = hi - lo
    if contrast < MIN_CONTRAST:
        return None
    u = (q[1] - q[0]) + (q[2] - q[3])
    v = (q[3] - q[0]) + (q[2] - q[1])
    widths = []
    for axis in (u, v):
        n = float(np.hypot(axis[0], axis[1])) or 1.0
        slope = np.abs(gx[inside] * float(axis[0] / n) + gy[inside] * float(axis[1] / n))
        (steepest,) = _quantiles(slope, (SLOPE_PERCENTILE / 100.0,))
        widths.append(contrast / steepest if steepest > 0 else math.inf)
    return widths[0], widths[1], contrast


def _quantiles(values: npt.NDArray[np.float32], qs: Sequence[float]) -> list[float]:
    """Values at these quantiles (nearest rank): a partition, not numpy's sorting percentile (a frame asks
    for dozens, and `np.percentile` cost a millisecond of a tracked frame's few)."""
    n = values.size
    ks = [min(n - 1, max(0, round(q * (n - 1)))) for q in qs]
    part = np.partition(values, ks)
    return [float(part[k]) for k in ks]


def module_px(quad: FloatArray) -> float:
    """A code's module size in pixels: the side of a square of the code's image area, over 21 modules."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = np.asarray(quad, np.float64).reshape(4, 2).tolist()
    area = 0.5 * abs((x0 * y1 - x1 * y0) + (x1 * y2 - x2 * y1) + (x2 * y3 - x3 * y2) + (x3 * y0 - x0 * y3))
    return math.sqrt(area) / QR_MODULES


def sticker_sharpness(image: Image, quads: Sequence[FloatArray]) -> Sharpness:
    """The sharpness of a frame (grey or BGR) measured on these codes (image corners each; see the module
    docstring). The largest are measured first (their edges are the best resolved), `MOST_STICKERS` at
    most."""
    order = sorted(quads, key=module_px, reverse=True)
    widths: list[float] = []
    modules: list[float] = []
    for quad in order:
        got = edge_widths(image, quad)
        if got is None:
            continue
        widths.append(max(got[0], got[1]))
        modules.append(module_px(quad))
        if len(widths) >= MOST_STICKERS:
            break
    scale = image.shape[1] / 1920.0
    if not widths:
        return Sharpness(scale=scale)
    width = float(np.percentile(widths, WIDTH_PERCENTILE))
    return Sharpness(width, float(np.median(modules)), len(widths), scale)


FRAME_WINDOW_PX = 15  # (1080p px) the window over which an edge's ink and paper are looked for
FRAME_ROWS = 3  # rows looked at: one in this many
FRAME_SAMPLES = 60_000  # pixels sampled from those
FRAME_STEEPEST = 0.02  # the share of the frame's ink-on-paper pixels whose slopes measure its edges


def frame_sharpness(image: Image) -> Sharpness:
    """The frame's sharpness without a sticker to measure it on: edge widths over its strongest edges
    between ink and paper (the darkest and lightest grey levels of the frame meeting within
    `FRAME_WINDOW_PX`), in four directions; the widest direction's (motion blurs one). No module size is
    known: `module_px` is `TYPICAL_MODULE_PX` at the frame's scale. A frame without such edges (a bare
    table, a blank wall) has no measure."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = gray.shape[:2]
    scale = w / 1920.0
    lo, hi = np.percentile(gray[:: max(1, h // 200), :: max(1, w // 200)], [1.0, 99.0])
    contrast = float(hi - lo)
    if contrast < 2 * MIN_CONTRAST:
        return Sharpness(scale=scale)
    size = max(5, round(FRAME_WINDOW_PX * scale) | 1)
    kernel = np.ones((size, size), np.uint8)
    spread = cv2.subtract(cv2.dilate(gray, kernel), cv2.erode(gray, kernel))
    ys, xs = np.nonzero(spread[::FRAME_ROWS] >= 0.6 * contrast)  # every few rows: as good, and cheaper
    ys *= FRAME_ROWS
    if len(ys) < 200:
        return Sharpness(scale=scale)
    if len(ys) > FRAME_SAMPLES:  # an even sample: the percentile needs no more
        step = len(ys) // FRAME_SAMPLES
        ys, xs = ys[::step], xs[::step]
    gx = cv2.Sobel(gray, cv2.CV_16S, 1, 0, ksize=3)[ys, xs].astype(np.float32) / 8.0
    gy = cv2.Sobel(gray, cv2.CV_16S, 0, 1, ksize=3)[ys, xs].astype(np.float32) / 8.0
    local = np.maximum(spread[ys, xs].astype(np.float32), 1.0)
    widths = []
    keep = len(ys) - max(1, int(FRAME_STEEPEST * len(ys)))
    half = math.sqrt(0.5)
    for cx, cy in ((1.0, 0.0), (0.0, 1.0), (half, half), (half, -half)):
        ratio = np.abs(gx * cx + gy * cy) / local
        steepest = float(np.partition(ratio, keep)[keep])
        widths.append(1.0 / steepest if steepest > 0 else math.inf)
    return Sharpness(max(widths), TYPICAL_MODULE_PX * scale, 1, scale)

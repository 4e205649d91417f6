"""The table plane from the stickers: a homography between image pixels and table millimetres.

Every code is a square of known size (`vision.tags.CODE_MM`) lying on the table, so each one is a little
calibration target. One code alone gives a homography, but a noisy one far from that code; so we look for the
single plane homography under which *all* codes come out as squares of the right size (each with its own
position and rotation): start from the largest code, then alternate between fitting an ideal square to each
code's table-plane corners and re-estimating the homography from every code's image corners to its ideal
square. A few rounds converge; codes that stay far from square are dropped as outliers (a warped or misread
sticker).

The table frame is then turned so that its x axis runs along the image's x axis at the centre of the codes:
a fixed camera gives the same table frame from frame to frame, whichever codes are visible.

A tablet's or webcam's lens bends straight lines (barrel distortion): a point at radius r from the frame's
middle (over half its diagonal) is seen where a pinhole would show it at r (1 + k1 r^2) (`Lens`). With
enough codes spread over the frame (`LENS_CODES`, radii apart by `LENS_SPREAD`), k1 is fitted with the plane
(one more parameter of the same least squares) and kept when it explains the codes clearly better
(`LENS_GAIN`); the plane then maps undistorted pixels, and `PlaneFit.to_table` / `to_image` undo and redo
the lens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.tags import CODE_MM

FloatArray = npt.NDArray[np.float64]

_TEMPLATE = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])  # TL, TR, BR, BL (y down)
LENS_CODES = 8  # codes needed to fit the lens's distortion
LENS_SPREAD = 0.35  # ... whose radii (over half the frame's diagonal) span at least this
LENS_RMS_MM = 0.38  # codes fitting a pinhole this well need no lens (a pinhole's frames: 0.28-0.33 mm)
LENS_GAIN = 0.85  # a lens is kept when it brings the codes' corner residual under this share of none's
LENS_STEPS = 9  # golden-section steps over k1
LENS_MAX_K1 = 0.35  # ... and bends no more than this (a wider value is a bad fit, not a lens)


@dataclass(frozen=True, slots=True)
class Lens:
    """Radial (barrel) distortion about the frame's middle: a pinhole's point at radius r_u is seen at r_d
    with r_u = r_d (1 + k1 r_d^2), radii over `radius` px (half the frame's diagonal). k1 = 0: a pinhole."""

    k1: float = 0.0
    centre: tuple[float, float] = (0.0, 0.0)
    radius: float = 1.0

    @staticmethod
    def of_frame(k1: float, size: tuple[int, int]) -> Lens:
        w, h = size
        return Lens(k1, (w / 2.0, h / 2.0), math.hypot(w / 2.0, h / 2.0))

    def undistort(self, pts: FloatArray) -> FloatArray:
        """Seen (distorted) image px -> where a pinhole camera would show them."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        if self.k1 == 0.0:
            return p
        c = np.asarray(self.centre, np.float64)
        d = (p - c) / self.radius
        r2 = np.sum(d * d, axis=1, keepdims=True)
        return np.asarray(c + (p - c) * (1.0 + self.k1 * r2), np.float64)

    def distort(self, pts: FloatArray) -> FloatArray:
        """Pinhole image px -> where the lens shows them (Newton on r_d (1 + k1 r_d^2) = r_u)."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        if self.k1 == 0.0:
            return p
        c = np.asarray(self.centre, np.float64)
        u = (p - c) / self.radius
        ru = np.sqrt(np.sum(u * u, axis=1))
        rd = ru.copy()
        for _ in range(6):
            rd -= (rd * (1.0 + self.k1 * rd * rd) - ru) / (1.0 + 3.0 * self.k1 * rd * rd)
        scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)[:, None]
        return np.asarray(c + (p - c) * scale, np.float64)


PINHOLE = Lens()


@dataclass(frozen=True, slots=True)
class PlaneFit:
    """Image <-> table (mm) homographies (between undistorted pixels and the table: see `lens`) and how well
    the codes agree with them."""

    image_to_table: FloatArray
    table_to_image: FloatArray
    rms_mm: float  # corner residual over the inlier codes
    inliers: tuple[int, ...]  # indices of the codes used
    outliers: tuple[int, ...]
    lens: Lens = PINHOLE

    def to_table(self, pts: FloatArray) -> FloatArray:
        return apply_homography(self.image_to_table, self.lens.undistort(pts))

    def to_image(self, pts: FloatArray) -> FloatArray:
        return self.lens.distort(apply_homography(self.table_to_image, pts))

    def px_per_mm(self, x_mm: float, y_mm: float) -> float:
        """Image pixels per table millimetre around a table point."""
        p = self.to_image(np.array([[x_mm, y_mm], [x_mm + 1.0, y_mm], [x_mm, y_mm + 1.0]]))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2)


def mean_radius(polygon: npt.ArrayLike) -> float:
    """A polygon's (N x 2) mean distance from its corners' mean to its corners: numpy's norm and mean's
    numbers, in plain floats (a frame asks for it of every tile several times; numpy's overhead dominated)."""
    points = np.asarray(polygon, np.float64).reshape(-1, 2).tolist()
    n = len(points)
    cx, cy = sum(x for x, _y in points) / n, sum(y for _x, y in points) / n
    return sum(math.sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy)) for x, y in points) / n


def apply_homography(h: FloatArray, pts: FloatArray) -> FloatArray:
    arr = np.asarray(pts, np.float64).reshape(-1, 2)
    if len(arr) == 0:
        return np.zeros((0, 2))
    return np.asarray(cv2.perspectiveTransform(arr[None], h)[0], np.float64)


def _fit_squares(pts: FloatArray, side: float) -> FloatArray:
    """For each Nx4x2 set of corners, the square of side `side` (TL, TR, BR, BL) closest to it (rotation and
    shift only: 2D Procrustes, angle = atan2(sum of cross products, sum of dot products))."""
    c = pts.mean(axis=1, keepdims=True)
    t = _TEMPLATE * side
    p = pts - c
    num = np.sum(t[None, :, 0] * p[:, :, 1] - t[None, :, 1] * p[:, :, 0], axis=1)
    den = np.sum(t[None, :, 0] * p[:, :, 0] + t[None, :, 1] * p[:, :, 1], axis=1)
    a = np.arctan2(num, den)
    ca, sa = np.cos(a)[:, None], np.sin(a)[:, None]
    x = t[None, :, 0] * ca - t[None, :, 1] * sa
    y = t[None, :, 0] * sa + t[None, :, 1] * ca
    return np.asarray(np.stack([x, y], axis=2) + c, np.float64)


def _project(h: FloatArray, quads: FloatArray) -> FloatArray:
    n = quads.shape[0]
    return apply_homography(h, quads.reshape(-1, 2)).reshape(n, 4, 2)


def _metric_affine(quads: FloatArray, side: float) -> FloatArray:
    """An affine image -> table map (3x3) under which the codes are squares of `side`, ignoring perspective:
    each code's edge vectors e1 (TL->TR) and e2 (TL->BL) must satisfy e1'Me1 = e2'Me2 = side^2 and e1'Me2 = 0
    for the metric M = A'A, which is linear in M; A is M's Cholesky factor (up to a rotation)."""
    e1 = ((quads[:, 1] - quads[:, 0]) + (quads[:, 2] - quads[:, 3])) / 2
    e2 = ((quads[:, 3] - quads[:, 0]) + (quads[:, 2] - quads[:, 1])) / 2
    rows, rhs = [], []
    for e, f, target in ((e1, e1, side * side), (e2, e2, side * side), (e1, e2, 0.0)):
        rows.append(
            np.stack([e[:, 0] * f[:, 0], e[:, 0] * f[:, 1] + e[:, 1] * f[:, 0], e[:, 1] * f[:, 1]], 1)
        )
        rhs.append(np.full(len(e), target))
    sol, *_ = np.linalg.lstsq(np.vstack(rows), np.concatenate(rhs), rcond=None)
    m = np.array([[sol[0], sol[1]], [sol[1], sol[2]]])
    if np.linalg.det(m) <= 0 or m[0, 0] <= 0:
        scale = side / max(float(np.mean(np.linalg.norm(e1, axis=1))), 1e-6)
        a = np.eye(2) * scale
    else:
        a = np.linalg.cholesky(m).T  # upper triangular, A'A = M
    c = quads.reshape(-1, 2).mean(axis=0)
    out = np.eye(3)
    out[:2, :2] = a
    out[:2, 2] = -a @ c
    return out


def _cost(h: FloatArray, quads: FloatArray, side: float) -> FloatArray:
    t = _project(h, quads)
    return np.asarray((t - _fit_squares(t, side)).ravel(), np.float64)


def _levenberg_marquardt(h0: FloatArray, quads: FloatArray, side: float, iters: int = 30) -> FloatArray:
    """Minimise the codes' distance from ideal squares over the 8 homography parameters (each code's own
    rotation and position are solved in closed form inside the cost). Parameters are a correction
    H = H0 (I + D) in normalised image coordinates, for conditioning."""
    centre = quads.reshape(-1, 2).mean(axis=0)
    spread = float(np.std(quads.reshape(-1, 2))) or 1.0
    norm = np.array([[1 / spread, 0, -centre[0] / spread], [0, 1 / spread, -centre[1] / spread], [0, 0, 1.0]])
    denorm = np.linalg.inv(norm)
    g0 = h0 @ denorm  # maps normalised image coords -> table

    # No translation parameters: with an affine start, moving the image is moving the table frame, which the
    # cost cannot see (and neither can a turn of the table frame: the ridge below keeps that one still).
    def make(p: FloatArray) -> FloatArray:
        d = np.array([[1 + p[0], p[1], 0.0], [p[2], 1 + p[3], 0.0], [p[4], p[5], 1.0]])
        return np.asarray(g0 @ d @ norm, np.float64)

    npar = 6
    p = np.zeros(npar)
    r = _cost(make(p), quads, side)
    cost = float(r @ r)
    lam = 1e-3
    eps = 1e-7
    for _ in range(iters):
        jac = np.empty((len(r), npar))
        for k in range(npar):
            dp = p.copy()
            dp[k] += eps
            jac[:, k] = (_cost(make(dp), quads, side) - r) / eps
        jtj = jac.T @ jac
        g = jac.T @ r
        ridge = 1e-6 * float(np.trace(jtj)) / npar + 1e-12
        improved = False
        step: FloatArray = np.zeros(npar)
        for _try in range(10):
            step = np.asarray(
                np.linalg.solve(jtj + lam * np.diag(np.diag(jtj)) + ridge * np.eye(npar), -g), np.float64
            )
            cand = p + step
            rc = _cost(make(cand), quads, side)
            cc = float(rc @ rc)
            if np.isfinite(cc) and cc < cost:
                gain = cost - cc
                p, r, cost = cand, rc, cc
                lam = max(lam / 3, 1e-9)
                improved = gain > 1e-7 * (cost + gain)
                break
            lam *= 4
        if not improved or float(np.linalg.norm(step)) < 1e-10:
            break
    return make(p)


def fit_plane(
    corner_sets: Sequence[FloatArray],
    code_mm: float = CODE_MM,
    *,
    outlier_mm: float = 3.0,
    initial: FloatArray | None = None,
    frame: tuple[int, int] | None = None,
    lens: Lens | None = None,
) -> PlaneFit | None:
    """The table plane from codes' image corners (each 4x2, TL/TR/BR/BL); None without any code.

    `initial` (an image -> table homography, e.g. the previous frame's) starts the search when it explains
    the codes better than the affine start: a fixed camera then converges in a step or two. `lens`: the
    camera's distortion, when known (a previous fit's); else, with `frame` (width, height), it is fitted when
    the codes allow (module docstring)."""
    if len(corner_sets) == 0:
        return None
    raw = np.stack([np.asarray(c, np.float64).reshape(4, 2) for c in corner_sets])
    if lens is None and frame is not None:
        plain = _fit_undistorted(raw, code_mm, outlier_mm, initial)
        lens = _fit_lens(raw, code_mm, frame, plain)
        if lens.k1 == 0.0:
            return plain
    lens = lens if lens is not None else PINHOLE
    undistorted = lens.undistort(raw.reshape(-1, 2)).reshape(-1, 4, 2)
    fitted = _fit_undistorted(undistorted, code_mm, outlier_mm, initial)
    return replace(fitted, lens=lens)


def _fit_lens(raw: FloatArray, code_mm: float, frame: tuple[int, int], plain: PlaneFit) -> Lens:
    """The lens the codes say, or a pinhole when they cannot say: too few codes or too close together, codes
    that fit a pinhole well already (`LENS_RMS_MM`), or no clear gain (`LENS_GAIN`)."""
    guess = Lens.of_frame(0.0, frame)
    radii = np.linalg.norm(raw.mean(axis=1) - np.asarray(guess.centre), axis=1) / guess.radius
    if len(raw) < LENS_CODES or float(radii.max() - radii.min()) < LENS_SPREAD:
        return PINHOLE
    if plain.rms_mm < LENS_RMS_MM:
        return PINHOLE
    keep = raw[list(plain.inliers)]

    def cost(k1: float) -> float:
        return _lens_cost(keep, code_mm, Lens.of_frame(k1, frame))

    # golden-section search over k1 (one dimension, one minimum over the range a lens can have)
    lo, hi = -0.05, LENS_MAX_K1
    g = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = cost(a), cost(b)
    for _ in range(LENS_STEPS):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = cost(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = cost(b)
    k1, best = (a, fa) if fa < fb else (b, fb)
    if best > LENS_GAIN**2 * float(np.mean(_residuals(plain.image_to_table, keep, code_mm) ** 2)):
        return PINHOLE
    return Lens.of_frame(float(k1), frame)


def _lens_cost(quads: FloatArray, code_mm: float, lens: Lens) -> float:
    und = lens.undistort(quads.reshape(-1, 2)).reshape(-1, 4, 2)
    h = _levenberg_marquardt(_metric_affine(und, code_mm), und, code_mm, iters=8)
    return float(np.mean(_residuals(h, und, code_mm) ** 2))


def _fit_undistorted(
    quads: FloatArray, code_mm: float, outlier_mm: float, initial: FloatArray | None
) -> PlaneFit:
    h = _metric_affine(quads, code_mm)
    if initial is not None and np.all(np.isfinite(initial)):
        start = np.asarray(initial, np.float64)
        c0, c1 = _cost(h, quads, code_mm), _cost(start, quads, code_mm)
        if np.all(np.isfinite(c1)) and float(c1 @ c1) < float(c0 @ c0):
            h = start
    inliers = np.arange(len(quads))
    if len(quads) >= 3:
        h = _levenberg_marquardt(h, quads, code_mm)
        res = _residuals(h, quads, code_mm)
        keep = inliers[res < max(outlier_mm, 3.0 * float(np.median(res)))]
        if len(quads) - len(keep) > 0 and len(keep) >= max(3, len(quads) // 2):
            inliers = keep
            h = _levenberg_marquardt(h, quads[inliers], code_mm)
    res = _residuals(h, quads[inliers], code_mm)
    rms = float(np.sqrt(np.mean(np.square(res)))) if len(res) else 0.0
    h = _align_to_image(h, quads[inliers].reshape(-1, 2))
    inlier_set = {int(i) for i in inliers}
    outliers = tuple(i for i in range(len(quads)) if i not in inlier_set)
    return PlaneFit(h, np.asarray(np.linalg.inv(h), np.float64), rms, tuple(sorted(inlier_set)), outliers)


def _residuals(h: FloatArray, quads: FloatArray, side: float) -> FloatArray:
    t = _project(h, quads)
    sq = _fit_squares(t, side)
    return np.asarray(np.sqrt(np.mean(np.sum((t - sq) ** 2, axis=2), axis=1)), np.float64)


def _align_to_image(h: FloatArray, points: FloatArray) -> FloatArray:
    """Rotate and shift the table frame: x along the image's x at the codes' centre, origin there."""
    centre = points.mean(axis=0)
    p = apply_homography(h, np.array([centre, centre + np.array([10.0, 0.0])]))
    d = p[1] - p[0]
    a = -math.atan2(float(d[1]), float(d[0]))
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    origin = rot[:2, :2] @ p[0]
    shift = np.array([[1.0, 0.0, -origin[0]], [0.0, 1.0, -origin[1]], [0.0, 0.0, 1.0]])
    out = shift @ rot @ h
    return np.asarray(out / out[2, 2], np.float64)

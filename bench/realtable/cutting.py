"""Cutting a labelled die's top face (and its visible side faces) out of a real photograph.

The photographs are taken from above, slightly off the vertical: a die's labelled box holds its top face and
thin slivers of the side faces turned towards the camera. The cut works from the die itself:

1. the die's turn: the dominant direction (modulo 90 degrees) of the strong gradients inside the box, which
   are the die's straight edges (pips have edges in every direction and cancel out);
2. the top face is a square at that turn that fits inside the box; the square is searched over size and
   place, each candidate straightened and scored by how well its pips match the labelled value's layout
   (normalised correlation of a pip-sized blob response with the layout, over three pip spacings and both
   turns of the 2, 3 and 6) and by how strongly its outline lies on the die's edges. Pips on a side face pull
   a candidate that overlaps the side off the pattern;
3. the visible side faces are the strips of the box beyond the chosen square, where the strip is at least
   `MIN_SIDE_SHARE` of the face wide (their pips are not labelled: side crops carry no value).

Quads are image points (x, y), clockwise from the corner the straightened face shows top-left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
Quad = npt.NDArray[np.float64]  # 4 x 2, image px

RECT_PX = 40  # candidates are scored straightened to this many pixels a side
MIN_SIDE_SHARE = 0.2  # a visible side strip narrower than this share of the face is not cut
PIP_RADIUS = 0.085  # of the face's side (a 16 mm die's pips are about 2.8 mm across)
ONE_PIP_RADIUS = 0.12
EDGE_WEIGHT = 0.35


def pip_layout(value: int, spacing: float) -> list[tuple[float, float]]:
    """Pip centres of a face showing `value`, in face units (-0.5..0.5): the 2 and 3 along the main
    diagonal, the 6 in two columns."""
    a = spacing
    corners = [(-a, -a), (a, a)]
    other = [(a, -a), (-a, a)]
    layouts: dict[int, list[tuple[float, float]]] = {
        1: [(0.0, 0.0)],
        2: corners,
        3: [*corners, (0.0, 0.0)],
        4: corners + other,
        5: [*corners, *other, (0.0, 0.0)],
        6: [(-a, -a), (-a, 0.0), (-a, a), (a, -a), (a, 0.0), (a, a)],
    }
    return layouts[value]


def pip_template(value: int, spacing: float, size: int = RECT_PX, *, turned: bool = False) -> np.ndarray:
    """A float image of the pips of `value` (1 inside a pip, 0 elsewhere, softened), zero mean."""
    out = np.zeros((size, size), np.float32)
    r = (ONE_PIP_RADIUS if value == 1 else PIP_RADIUS) * size
    for px, py in pip_layout(value, spacing):
        x, y = (-py, px) if turned else (px, py)
        centre = (round((x + 0.5) * size * 16), round((y + 0.5) * size * 16))
        cv2.circle(out, centre, round(r * 16), 1.0, -1, cv2.LINE_AA, 4)
    out = cv2.GaussianBlur(out, (0, 0), size / 40)
    return np.asarray(out - out.mean(), np.float32)


_TEMPLATES = {
    (v, a, t): pip_template(v, a, turned=t)
    for v in range(1, 7)
    for a in (0.23, 0.265, 0.30, 0.33)
    for t in (False, True)
}


@dataclass(frozen=True, slots=True)
class Cut:
    """A die's top face and visible sides in its photograph, and how sure the cut is."""

    top: Quad
    sides: tuple[Quad, ...]
    pips: float  # the pip layout's correlation for the chosen square (1: a perfect match)
    edges: float  # how strongly the square's outline lies on edges (gradient across it, box-relative)


def straighten(image: Image, quad: Quad, size: int) -> Image:
    """The quad's content as a `size` x `size` square (corner 0 top-left, clockwise)."""
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(
        image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def blob_response(face: Image) -> np.ndarray:
    """Pip-sized blobs that differ from their surroundings (a difference of Gaussians of the colour distance
    from the face's median): pips stand out, swirls and shading (larger) do not."""
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2Lab).astype(np.float32)
    body = np.median(lab.reshape(-1, 3), axis=0)
    dist = np.linalg.norm(lab - body, axis=2).astype(np.float32)
    n = face.shape[0]
    fine = cv2.GaussianBlur(dist, (0, 0), n * 0.03)
    coarse = cv2.GaussianBlur(dist, (0, 0), n * 0.12)
    return np.asarray(fine - coarse, np.float32)


def pattern_score(face: Image, value: int) -> float:
    """Best normalised correlation of the face's blob response with the value's pip layout."""
    p = blob_response(face)
    p = p - p.mean()
    pn = float(np.linalg.norm(p)) or 1.0
    best = -1.0
    for (v, _a, turned), t in _TEMPLATES.items():
        if v != value or (turned and value not in (2, 3, 6)):
            continue
        best = max(best, float((p * t).sum()) / (pn * float(np.linalg.norm(t))))
    return best


def die_turn(image: Image, box: tuple[float, float, float, float]) -> float:
    """The die's turn in radians (0..pi/2): the dominant gradient direction modulo 90 degrees in the box."""
    x0, y0, x1, y1 = (round(v) for v in box)
    crop = cv2.cvtColor(image[max(0, y0) : y1, max(0, x0) : x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    ang = np.arctan2(gy, gx)
    # angles times 4 wrap the four edge directions of a square onto one
    c = float((mag**2 * np.cos(4 * ang)).sum())
    s = float((mag**2 * np.sin(4 * ang)).sum())
    return (math.atan2(s, c) / 4) % (math.pi / 2)


def square(centre: np.ndarray, u: np.ndarray, v: np.ndarray, side: float) -> Quad:
    h = side / 2
    return np.array(
        [centre - h * u - h * v, centre + h * u - h * v, centre + h * u + h * v, centre - h * u + h * v],
        np.float64,
    )


def edge_score(gx: np.ndarray, gy: np.ndarray, quad: Quad, origin: tuple[int, int], norm: float) -> float:
    """Mean gradient magnitude across the quad's four edges (sampled along them), over the box's mean."""
    h, w = gx.shape
    total, count = 0.0, 0
    centre = quad.mean(axis=0)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        mid = (a + b) / 2
        normal = mid - centre
        normal /= np.linalg.norm(normal) or 1.0
        for t in np.linspace(0.15, 0.85, 8):
            x, y = a + t * (b - a) - np.array(origin, np.float64)
            xi, yi = round(x), round(y)
            if 0 <= xi < w and 0 <= yi < h:
                total += abs(float(gx[yi, xi] * normal[0] + gy[yi, xi] * normal[1]))
                count += 1
    return (total / count) / norm if count else 0.0


def cut_die(image: Image, box: tuple[float, float, float, float], value: int) -> Cut:
    """Find the top face (and the visible sides) of the die labelled `value` in `box`."""
    x0, y0, x1, y1 = (float(v) for v in box)
    theta = die_turn(image, box)
    u = np.array([math.cos(theta), math.sin(theta)])
    v = np.array([-math.sin(theta), math.cos(theta)])
    spread = abs(math.cos(theta)) + abs(math.sin(theta))  # a square's box width over its side at this turn
    s_max = min(x1 - x0, y1 - y0) / spread
    ox, oy = max(0, int(x0) - 2), max(0, int(y0) - 2)
    grey = cv2.cvtColor(image[oy : int(y1) + 3, ox : int(x1) + 3], cv2.COLOR_BGR2GRAY).astype(np.float32)
    grey = cv2.GaussianBlur(grey, (0, 0), 0.8)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    norm = float(np.hypot(gx, gy).mean()) or 1.0

    def score(cx: float, cy: float, side: float, turn: float = 0.0) -> tuple[float, Quad, float, float]:
        ct, st = math.cos(turn), math.sin(turn)
        q = square(np.array([cx, cy]), ct * u + st * v, ct * v - st * u, side)
        pips = pattern_score(straighten(image, q, RECT_PX), value)
        edges = edge_score(gx, gy, q, (ox, oy), norm)
        return pips + EDGE_WEIGHT * min(edges, 3.0) / 3.0 + 0.04 * side / s_max, q, pips, edges

    best: tuple[float, Quad, float, float] | None = None
    place = (0.0, 0.0, 0.0)
    for f in (0.7, 0.76, 0.82, 0.88, 0.94, 1.0):
        s = s_max * f
        half = s * spread / 2
        xs = np.linspace(x0 + half, x1 - half, 5) if x1 - x0 > 2 * half else [(x0 + x1) / 2]
        ys = np.linspace(y0 + half, y1 - half, 5) if y1 - y0 > 2 * half else [(y0 + y1) / 2]
        for cx in xs:
            for cy in ys:
                cand = score(float(cx), float(cy), s)
                if best is None or cand[0] > best[0]:
                    best, place = cand, (float(cx), float(cy), s)
    assert best is not None
    step, turn = 0.06 * s_max, 0.0
    for k in range(5):  # refine around the best: smaller steps in place, size and turn
        cx, cy, s = place
        dt = math.radians(6.0) / 2**k
        for dx, dy, ds, da in (
            (step, 0, 0, 0),
            (-step, 0, 0, 0),
            (0, step, 0, 0),
            (0, -step, 0, 0),
            (0, 0, step, 0),
            (0, 0, -step, 0),
            (0, 0, 0, dt),
            (0, 0, 0, -dt),
        ):
            cand = score(cx + dx, cy + dy, min(s_max * 1.05, s + ds), turn + da)
            if cand[0] > best[0]:
                best, place, turn = cand, (cx + dx, cy + dy, min(s_max * 1.05, s + ds)), turn + da
        step /= 2
    _, top, pips, edges = best
    near_axis = min(theta, math.pi / 2 - theta) < math.radians(15)
    return Cut(top, _sides(top, box, u, v) if near_axis else (), pips, edges)


def _sides(
    top: Quad, box: tuple[float, float, float, float], u: np.ndarray, v: np.ndarray
) -> tuple[Quad, ...]:
    """The strips of the box beyond the top face along the face's own axes, where wide enough."""
    side = float(np.linalg.norm(top[1] - top[0]))
    tc = top.mean(axis=0)
    out: list[Quad] = []
    for axis, other in ((u, v), (v, u)):
        for sign in (-1.0, 1.0):
            width = _box_reach(box, tc, sign * axis) - side / 2
            if width < MIN_SIDE_SHARE * side:
                continue
            width = min(width, 0.45 * side)
            h = side / 2
            near = tc + sign * h * axis
            far = tc + sign * (h + width) * axis
            out.append(np.array([near - h * other, near + h * other, far + h * other, far - h * other]))
    return tuple(out)


def _box_reach(box: tuple[float, float, float, float], origin: np.ndarray, direction: np.ndarray) -> float:
    """How far a ray from `origin` along `direction` runs inside the box."""
    x0, y0, x1, y1 = box
    ts = []
    for d, o, lo, hi in ((direction[0], origin[0], x0, x1), (direction[1], origin[1], y0, y1)):
        if abs(d) > 1e-9:
            ts.append(max((lo - o) / d, (hi - o) / d))
    return min(ts) if ts else 0.0

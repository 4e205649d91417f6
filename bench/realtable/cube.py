"""A die as a 16 mm cube: which value faces which way, and where its corners are.

A standard die: opposite faces sum to 7, and 1, 2, 3 run counter-clockwise around their common corner (the
usual Western die). In the die's own frame 1 faces +z, 2 faces +x, 3 faces +y (so 6 faces -z, 5 -x, 4 -y).
A die lying on the table is one of the 24 rotations of the cube that puts some face up, then turned about
the vertical by any angle. The four side faces of a die showing v therefore never show v or 7 - v.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

DIE_MM = 16.0
# the die's own frame: value -> outward normal
NORMALS: dict[int, tuple[int, int, int]] = {
    1: (0, 0, 1),
    6: (0, 0, -1),
    2: (1, 0, 0),
    5: (-1, 0, 0),
    3: (0, 1, 0),
    4: (0, -1, 0),
}
# world directions of a lying die's faces, as index -> (normal); 0 is the top
DIRECTIONS: tuple[tuple[int, int, int], ...] = (
    (0, 0, 1),
    (1, 0, 0),
    (0, 1, 0),
    (-1, 0, 0),
    (0, -1, 0),
    (0, 0, -1),
)


@cache
def rotations() -> tuple[F64, ...]:
    """The 24 proper rotations of the cube (signed permutation matrices with determinant +1)."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for row, (col, s) in enumerate(zip(perm, signs, strict=True)):
                m[row, col] = s
            if round(np.linalg.det(m)) == 1:
                out.append(m)
    return tuple(out)


def faces_of(rotation: F64) -> dict[tuple[int, int, int], int]:
    """World direction -> the value facing it, for a die turned by `rotation` (die frame -> world)."""
    out = {}
    for value, n in NORMALS.items():
        w = rotation @ np.array(n, np.float64)
        out[(round(w[0]), round(w[1]), round(w[2]))] = value
    return out


@cache
def lying(value: int) -> tuple[dict[tuple[int, int, int], int], ...]:
    """The four ways a die can lie with `value` up (before any turn about the vertical): world direction ->
    value, for the top, the four sides and the bottom."""
    found = []
    for r in rotations():
        f = faces_of(r)
        if f[(0, 0, 1)] == value:
            found.append(f)
    found.sort(key=lambda f: tuple(f[d] for d in DIRECTIONS))
    assert len(found) == 4
    return tuple(found)


@dataclass(frozen=True, slots=True)
class PlacedDie:
    """A die lying on the table: centre of its footprint (mm), turn about the vertical (radians), the face
    values per direction (`DIRECTIONS` order: top, +x, +y, -x, -y, bottom, in the die's turned frame)."""

    x: float
    y: float
    turn: float
    values: tuple[int, int, int, int, int, int]
    size: float = DIE_MM

    @property
    def value(self) -> int:
        return self.values[0]

    def axes(self) -> tuple[F64, F64]:
        c, s = math.cos(self.turn), math.sin(self.turn)
        return np.array([c, s, 0.0]), np.array([-s, c, 0.0])

    def corners(self) -> F64:
        """The 8 corners (world mm): bottom 4 then top 4, each counter-clockwise from (-,-)."""
        u, v = self.axes()
        h = self.size / 2
        base = np.array([self.x, self.y, 0.0])
        ring = [base + a * h * u + b * h * v for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        top = [p + np.array([0.0, 0.0, self.size]) for p in ring]
        return np.array(ring + top)

    def footprint(self) -> F64:
        return self.corners()[:4, :2]

    def face_quads(self) -> list[tuple[int, F64, F64]]:
        """(direction index, 4 corners in world mm, outward normal) for the five faces above the table.
        Corners run so that the face's texture is seen unmirrored from outside: top-left, top-right,
        bottom-right, bottom-left of the face as seen from outside with its "up" towards the die's top
        (for the top face: towards the die's +y)."""
        c = self.corners()
        u, v = self.axes()
        z = np.array([0.0, 0.0, 1.0])
        b0, b1, b2, b3, t0, t1, t2, t3 = c
        return [
            (0, np.array([t3, t2, t1, t0]), z),
            (1, np.array([t1, t2, b2, b1]), u),
            (2, np.array([t2, t3, b3, b2]), v),
            (3, np.array([t3, t0, b0, b3]), -u),
            (4, np.array([t0, t1, b1, b0]), -v),
        ]


def place(x: float, y: float, turn: float, value: int, way: int) -> PlacedDie:
    """A die showing `value`, lying the `way`-th of its four ways, turned `turn` radians."""
    f = lying(value)[way % 4]
    return PlacedDie(x, y, turn, tuple(f[d] for d in DIRECTIONS))  # type: ignore[arg-type]


def overlap(a: F64, b: F64, gap: float = 0.0) -> bool:
    """Whether two convex footprints (N x 2, in order) come closer than `gap` (separating axes)."""
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            e = poly[(i + 1) % n] - poly[i]
            axis = np.array([-e[1], e[0]]) / (np.hypot(*e) or 1.0)
            pa, pb = a @ axis, b @ axis
            if pa.max() + gap <= pb.min() or pb.max() + gap <= pa.min():
                return False
    return True

"""Hexagonal geometry: axial coordinates for the map's hex tiles (pointy-top orientation).

Medieval Mastery's tiles are hexagons; two tiles are adjacent when they share an edge (key terms, page 15).
Axial coordinates (q, r) with the third cube coordinate s = -q - r implied. Pointy-top: a tile's centre for a
size s (centre-to-corner) is x = s*sqrt(3)*(q + r/2), y = s*1.5*r, with y growing downwards as in images.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True, slots=True, order=True)
class Hex:
    """One cell of the hex grid in axial coordinates."""

    q: int
    r: int

    def __post_init__(self) -> None:
        # bool is an int subclass; a Hex(True, 0) is a bug, never a coordinate.
        for name in ("q", "r"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"Hex.{name} must be an int, got {value!r}")

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __add__(self, other: Hex) -> Hex:
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def neighbour(self, direction: int) -> Hex:
        """The neighbour across edge `direction` (0..5, in the order of `DIRECTIONS`)."""
        d = DIRECTIONS[direction % 6]
        return Hex(self.q + d.q, self.r + d.r)

    def neighbours(self) -> tuple[Hex, ...]:
        """The six cells sharing an edge with this one, in the order of `DIRECTIONS`."""
        q, r = self.q, self.r
        return tuple(Hex(q + d.q, r + d.r) for d in DIRECTIONS)

    def is_adjacent(self, other: Hex) -> bool:
        return self.distance(other) == 1

    def distance(self, other: Hex) -> int:
        """Number of edge steps between the two cells."""
        dq = self.q - other.q
        dr = self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def ring(self, radius: int) -> tuple[Hex, ...]:
        """The cells at exactly `radius` steps, walking once around (radius 0 is the cell itself)."""
        if radius < 0:
            raise ValueError(f"ring radius must be >= 0, got {radius!r}")
        if radius == 0:
            return (self,)
        cells: list[Hex] = []
        cell = Hex(self.q + DIRECTIONS[4].q * radius, self.r + DIRECTIONS[4].r * radius)
        for side in range(6):
            for _ in range(radius):
                cells.append(cell)
                cell = cell.neighbour(side)
        return tuple(cells)

    def spiral(self, radius: int) -> Iterator[Hex]:
        """Every cell within `radius` steps, centre first, ring by ring."""
        for k in range(radius + 1):
            yield from self.ring(k)

    def to_pixel(self, size: float) -> tuple[float, float]:
        """Centre of this cell for hexes of `size` (centre-to-corner), pointy-top, origin at Hex(0, 0)."""
        return (size * SQRT3 * (self.q + self.r / 2.0), size * 1.5 * self.r)

    def corners(self, size: float) -> tuple[tuple[float, float], ...]:
        """The six corners (pointy-top: first the one up-right at -30 degrees), clockwise in images."""
        cx, cy = self.to_pixel(size)
        out: list[tuple[float, float]] = []
        for i in range(6):
            angle = math.radians(60 * i - 30)
            out.append((cx + size * math.cos(angle), cy + size * math.sin(angle)))
        return tuple(out)

    @staticmethod
    def from_pixel(x: float, y: float, size: float) -> Hex:
        """The cell containing the point (x, y) for hexes of `size`, pointy-top, origin at Hex(0, 0)."""
        if size <= 0:
            raise ValueError(f"hex size must be > 0, got {size!r}")
        fq = (SQRT3 / 3.0 * x - y / 3.0) / size
        fr = (2.0 / 3.0 * y) / size
        return Hex.round(fq, fr)

    @staticmethod
    def round(fq: float, fr: float) -> Hex:
        """The cell nearest to fractional axial coordinates (cube rounding)."""
        fs = -fq - fr
        q, r, s = round(fq), round(fr), round(fs)
        dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
        if dq > dr and dq > ds:
            q = -r - s
        elif dr > ds:
            r = -q - s
        return Hex(int(q), int(r))

    def to_json(self) -> list[int]:
        return [self.q, self.r]

    @staticmethod
    def from_json(obj: Any) -> Hex:
        """Accepts `[q, r]` or `{"q": q, "r": r}`; raises ValueError quoting anything else."""
        if isinstance(obj, dict) and set(obj) == {"q", "r"}:
            q, r = obj["q"], obj["r"]
        elif isinstance(obj, list | tuple) and len(obj) == 2:
            q, r = obj
        else:
            raise ValueError(f"a hex is [q, r] (two integers), got {obj!r}")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (q, r)):
            raise ValueError(f"a hex is [q, r] (two integers), got {obj!r}")
        return Hex(q, r)

    def __str__(self) -> str:
        return f"({self.q},{self.r})"


# Edge directions in the contract's order: E, NE, NW, W, SW, SE for pointy-top with y down
# (r decreasing is "up" in images).
DIRECTIONS: tuple[Hex, ...] = (Hex(1, 0), Hex(1, -1), Hex(0, -1), Hex(-1, 0), Hex(-1, 1), Hex(0, 1))

ORIGIN = Hex(0, 0)

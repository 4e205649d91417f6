"""Fit the hex lattice to tile centres on the table plane and give every tile its axial hex.

Tiles lie roughly on a pointy-top hex lattice (engine.hexgrid): neighbours one pitch (a tile's width across
flats) apart, in six directions 60 degrees apart. Players nudge tiles, so a tile may sit up to a third of a
tile off its lattice point and turned a little. We estimate the lattice's direction (from neighbour pairs and
the stickers' edge normals, modulo 60 degrees), its pitch (median nearest-neighbour distance), and its origin
(the offset that puts the most tiles near a lattice point), then refine all three by least squares on the
assigned tiles and assign again. A tile is assigned to the nearest lattice point; two tiles on one point is a
conflict: the nearer keeps it and the other takes a free neighbouring point only if it is plausibly there.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.hexgrid import Hex
from vision.tags import TILE_ACROSS_FLATS_MM

FloatArray = npt.NDArray[np.float64]
SQRT3 = math.sqrt(3.0)
_B = np.array([[1.0, 0.5], [0.0, SQRT3 / 2]])  # axial (q, r) -> lattice plane, unit pitch
_B_INV = np.linalg.inv(_B)


@dataclass(frozen=True, slots=True)
class TileEstimate:
    """Where one tile's centre lies on the table (mm), from its stickers."""

    id: str
    x: float
    y: float
    angle: float | None  # direction of an edge normal (radians, mod 60 degrees), from a sticker
    n_tags: int = 1
    spread_mm: float = 0.0  # disagreement between the tile's stickers


@dataclass(frozen=True, slots=True)
class Lattice:
    angle: float  # radians: direction of the lattice's q axis on the table (fitted in [-30, 30) degrees)
    pitch: float  # mm between neighbouring centres
    origin: tuple[float, float]  # table mm of Hex(0, 0)

    @property
    def hex_size(self) -> float:
        """Centre-to-corner size, as engine.hexgrid uses it."""
        return self.pitch / SQRT3

    def to_axial(self, pts: FloatArray) -> FloatArray:
        """Table mm (Nx2) -> fractional axial (q, r)."""
        c, s = math.cos(-self.angle), math.sin(-self.angle)
        rot = np.array([[c, -s], [s, c]])
        p = (np.asarray(pts, np.float64).reshape(-1, 2) - np.array(self.origin)) @ rot.T / self.pitch
        return np.asarray(p @ _B_INV.T, np.float64)

    def centre(self, h: Hex) -> tuple[float, float]:
        p = _B @ np.array([h.q, h.r], np.float64) * self.pitch
        c, s = math.cos(self.angle), math.sin(self.angle)
        x = self.origin[0] + c * p[0] - s * p[1]
        y = self.origin[1] + s * p[0] + c * p[1]
        return (float(x), float(y))

    def corners(self, centre: tuple[float, float], turn: float = 0.0) -> FloatArray:
        """A tile's six corners (table mm) around `centre`, turned `turn` radians off the lattice."""
        size = self.hex_size
        a0 = self.angle + turn
        return np.array(
            [
                [
                    centre[0] + size * math.cos(math.radians(60 * i - 30) + a0),
                    centre[1] + size * math.sin(math.radians(60 * i - 30) + a0),
                ]
                for i in range(6)
            ]
        )


@dataclass(frozen=True, slots=True)
class LatticeFit:
    lattice: Lattice
    hexes: dict[str, Hex]  # tile id -> hex
    residuals: dict[str, float]  # tile id -> distance from its lattice point, in pitches
    unassigned: tuple[str, ...]
    problems: tuple[str, ...]


def _mod60(a: FloatArray | float) -> FloatArray:
    """Angles folded into [-30, 30) degrees (radians)."""
    w = math.pi / 3
    return np.asarray((np.asarray(a, np.float64) + w / 2) % w - w / 2, np.float64)


def _circular_mean60(angles: FloatArray, weights: FloatArray | None = None) -> float:
    if len(angles) == 0:
        return 0.0
    wts = np.ones(len(angles)) if weights is None else weights
    z = np.sum(wts * np.exp(6j * np.asarray(angles)))
    return float(_mod60(float(np.angle(z)) / 6.0))


def fit_lattice(
    tiles: Sequence[TileEstimate], nominal_pitch: float = TILE_ACROSS_FLATS_MM, *, max_residual: float = 0.62
) -> LatticeFit | None:
    """Fit the lattice and assign hexes; None without tiles."""
    if not tiles:
        return None
    pts = np.array([[t.x, t.y] for t in tiles], np.float64)
    n = len(tiles)
    problems: list[str] = []
    # pitch: median nearest-neighbour distance among plausible ones
    pitch = nominal_pitch
    if n >= 2:
        d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
        np.fill_diagonal(d, np.inf)
        nn = d.min(axis=1)
        ok = nn[(nn > 0.6 * nominal_pitch) & (nn < 1.6 * nominal_pitch)]
        if len(ok) >= 2:
            pitch = float(np.median(ok))
            # the nearest neighbour is the closest of up to six, so shifted tiles bias it low: take the median
            # of all neighbour-like pairs instead, twice, each time around the last estimate
            pairs = d[np.triu_indices(n, 1)]
            for _ in range(2):
                near = pairs[(pairs > 0.7 * pitch) & (pairs < 1.35 * pitch)]
                if len(near) >= 3:
                    pitch = float(np.median(near))
    # direction: neighbour pairs plus sticker edge normals, modulo 60 degrees
    angles: list[float] = []
    weights: list[float] = []
    if n >= 2:
        d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
        ii, jj = np.nonzero((d > 0.7 * pitch) & (d < 1.3 * pitch))
        for i, j in zip(ii, jj, strict=True):
            if i < j:
                v = pts[j] - pts[i]
                angles.append(math.atan2(float(v[1]), float(v[0])))
                weights.append(2.0)
    for t in tiles:
        if t.angle is not None:
            angles.append(t.angle)
            weights.append(1.0)
    angle = _circular_mean60(np.array(angles), np.array(weights)) if angles else 0.0
    # origin: the tile position that explains most others (all candidates at once)
    c, s_ = math.cos(-angle), math.sin(-angle)
    rot = np.array([[c, -s_], [s_, c]])
    rel = (pts[None, :, :] - pts[:, None, :]) @ rot.T / pitch  # [candidate, tile, xy]
    frac = rel @ _B_INV.T
    res = _residual_norms(frac.reshape(-1, 2)).reshape(n, n)
    score = np.sum(np.minimum(res, 0.5) ** 2, axis=1)
    k = int(np.argmin(score))
    lattice = Lattice(angle, pitch, (float(pts[k, 0]), float(pts[k, 1])))
    hexes: dict[str, Hex] = {}
    residuals: dict[str, float] = {}
    unassigned: list[str] = []
    for _round in range(4):
        hexes, residuals, unassigned = _assign(tiles, lattice, max_residual)
        if len(hexes) < 2:
            break
        refined = _refine(tiles, hexes, lattice)
        if refined is None:
            break
        lattice = refined
    hexes, residuals, unassigned = _assign(tiles, lattice, max_residual)
    # put Hex(0, 0) at the lattice point nearest the middle of the map
    if hexes:
        cq = np.mean([h.q for h in hexes.values()])
        cr = np.mean([h.r for h in hexes.values()])
        centre = Hex.round(float(cq), float(cr))
        hexes = {k: h - centre for k, h in hexes.items()}
        lattice = Lattice(lattice.angle, lattice.pitch, lattice.centre(centre))
    for tid in unassigned:
        problems.append(f"tile {tid} is not on the hex grid (no free cell near it)")
    return LatticeFit(lattice, hexes, residuals, tuple(unassigned), tuple(problems))


def _round_axial(frac: FloatArray) -> FloatArray:
    """Cube rounding of Nx2 fractional axial coordinates (vectorised Hex.round)."""
    fq, fr = frac[:, 0], frac[:, 1]
    fs = -fq - fr
    q, r, s = np.round(fq), np.round(fr), np.round(fs)
    dq, dr, ds = np.abs(q - fq), np.abs(r - fr), np.abs(s - fs)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    q = np.where(fix_q, -r - s, q)
    r = np.where(fix_r, -q - s, r)
    return np.asarray(np.stack([q, r], axis=1), np.float64)


def _residual_norms(frac: FloatArray) -> FloatArray:
    """Distance (in pitches) of fractional axial points from their nearest lattice points."""
    diff = (frac - _round_axial(frac)) @ _B.T
    return np.asarray(np.linalg.norm(diff, axis=1), np.float64)


_STEPS = np.array([[0, 0], [1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]], np.float64)


def _assign(
    tiles: Sequence[TileEstimate], lattice: Lattice, max_residual: float
) -> tuple[dict[str, Hex], dict[str, float], list[str]]:
    pts = np.array([[t.x, t.y] for t in tiles], np.float64)
    frac = lattice.to_axial(pts)
    base = _round_axial(frac)
    cand = base[:, None, :] + _STEPS[None, :, :]  # [tile, option, qr]
    dist = np.linalg.norm((frac[:, None, :] - cand) @ _B.T, axis=2)
    order = np.argsort(dist, axis=None)
    taken: set[tuple[int, int]] = set()
    hexes: dict[str, Hex] = {}
    residuals: dict[str, float] = {}
    done: set[int] = set()
    n_opt = _STEPS.shape[0]
    for flat in order:
        i, j = divmod(int(flat), n_opt)
        d = float(dist[i, j])
        if d > max_residual:
            break
        key = (int(cand[i, j, 0]), int(cand[i, j, 1]))
        if i in done or key in taken:
            continue
        hexes[tiles[i].id] = Hex(*key)
        residuals[tiles[i].id] = d
        taken.add(key)
        done.add(i)
    unassigned = [t.id for i, t in enumerate(tiles) if i not in done]
    return hexes, residuals, unassigned


def _refine(tiles: Sequence[TileEstimate], hexes: dict[str, Hex], lattice: Lattice) -> Lattice | None:
    """Least-squares similarity (rotation, scale, shift) from lattice points to measured centres."""
    src, dst = [], []
    for t in tiles:
        h = hexes.get(t.id)
        if h is None:
            continue
        src.append(_B @ np.array([h.q, h.r], np.float64))
        dst.append([t.x, t.y])
    if len(src) < 2:
        return None
    a = np.array(src)
    b = np.array(dst)
    ma, mb = a.mean(axis=0), b.mean(axis=0)
    ac, bc = a - ma, b - mb
    var = float(np.sum(ac**2))
    if var < 1e-9:
        return None
    cov = bc.T @ ac / len(a)
    u, sv, vt = np.linalg.svd(cov)
    sign = np.eye(2)
    if np.linalg.det(u @ vt) < 0:
        sign[1, 1] = -1.0
    rot = u @ sign @ vt
    scale = float(np.trace(np.diag(sv) @ sign)) / (var / len(a))
    angle = math.atan2(float(rot[1, 0]), float(rot[0, 0]))
    # keep the lattice's q axis choice stable: fold the angle, the hexes follow from re-assignment
    folded = float(_mod60(angle))
    if abs(folded - angle) > 1e-6:
        return Lattice(folded, scale, lattice.origin)
    origin = mb - scale * (rot @ ma)
    if not (0.5 * lattice.pitch < scale < 1.5 * lattice.pitch):
        return None
    return Lattice(angle, scale, (float(origin[0]), float(origin[1])))


# --- numbering ------------------------------------------------------------------------------------------


def rotate60(h: Hex, k: int) -> Hex:
    """`h` turned by `k` sixth-turns about Hex(0, 0)."""
    q, r = h.q, h.r
    s = -q - r
    for _ in range(k % 6):
        q, r, s = -r, -s, -q
    return Hex(q, r)


def align_numbering(current: Mapping[str, Hex], previous: Mapping[str, Hex]) -> tuple[int, Hex] | None:
    """(k, delta) such that previous numbering = current turned k sixth-turns plus delta, by majority over
    the tiles both know (a lattice direction near the fold at 30 degrees can turn the numbering)."""
    best: tuple[int, int, Hex] | None = None
    for k in range(6):
        votes = Counter(previous[t] - rotate60(h, k) for t, h in current.items() if t in previous)
        if votes:
            delta, n = votes.most_common(1)[0]
            if best is None or n > best[0]:
                best = (n, k, delta)
    return None if best is None else (best[1], best[2])


def renumbered(lattice: Lattice, k: int, delta: Hex) -> Lattice:
    """The lattice under which cell rot(h, k) + delta lies where `lattice` puts h."""
    ref = np.array([lattice.centre(Hex(1, 0)), lattice.centre(Hex(0, 1))]) - np.array(
        lattice.centre(Hex(0, 0))
    )
    for j in range(6):
        trial = Lattice(lattice.angle + j * math.pi / 3, lattice.pitch, (0.0, 0.0))
        got = np.array([trial.centre(rotate60(Hex(1, 0), k)), trial.centre(rotate60(Hex(0, 1), k))])
        if np.allclose(got, ref, atol=1e-6 * lattice.pitch):
            shift = np.array(lattice.centre(Hex(0, 0))) - np.array(trial.centre(delta))
            return Lattice(trial.angle, lattice.pitch, (float(shift[0]), float(shift[1])))
    return lattice  # pragma: no cover - one of the six always matches

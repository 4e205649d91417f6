"""Procedural looks: table tops, the printed art of the tiles and cards, skin and sleeves.

Everything is drawn from a seeded `numpy.random.Generator`. Tile art is drawn straight into the table
texture through an affine map (tile millimetres -> texture pixels), so a tile's turn on the table turns its
art too. Colours are BGR.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]
Rng = np.random.Generator

TILE_FLATS_MM = 90.0
TILE_R_MM = TILE_FLATS_MM / math.sqrt(3.0)  # centre to corner

# printed castle colours (BGR): saturated, as a printer gives them
PLAYER_BGR: dict[Colour, tuple[int, int, int]] = {
    Colour.RED: (40, 40, 190),
    Colour.BLUE: (170, 80, 30),
    Colour.YELLOW: (40, 200, 230),
    Colour.GREEN: (60, 150, 40),
    Colour.WHITE: (235, 235, 230),
    Colour.BLACK: (40, 35, 35),
}


def noise(shape: tuple[int, int], rng: Rng, scale: float, octaves: int = 3) -> F32:
    """Smooth value noise in [-1, 1]-ish: `scale` is the coarsest feature size in pixels."""
    h, w = shape
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        s = max(1.0, scale / 2**o)
        gh, gw = max(2, int(h / s) + 2), max(2, int(w / s) + 2)
        grid = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
    return out / total


# --- table tops (evaluated at table points, mm) ---------------------------------------------------------


def world_noise(u: F32, v: F32, seed: int) -> F32:
    """Smooth value noise of table coordinates (any units: one lattice cell per unit), in about [-1, 1]:
    hashed lattice values, interpolated with a smoothstep."""
    iu, iv = np.floor(u), np.floor(v)
    fu, fv = u - iu, v - iv
    su, sv = fu * fu * (3 - 2 * fu), fv * fv * (3 - 2 * fv)

    def h(a: F32, b: F32) -> F32:
        x = np.sin(a * 127.1 + b * 311.7 + seed * 0.0001) * 43758.5453
        return np.asarray((x - np.floor(x)) * 2 - 1, np.float32)

    top = h(iu, iv) * (1 - su) + h(iu + 1, iv) * su
    bottom = h(iu, iv + 1) * (1 - su) + h(iu + 1, iv + 1) * su
    return np.asarray(top * (1 - sv) + bottom * sv, np.float32)


def table_top(x: F32, y: F32, look: str, rng: Rng) -> F32:
    """BGR float image (0..255) of a table top at the table points (x, y), in mm."""
    n = noise(x.shape, rng, max(4.0, x.shape[1] / 12))
    if look in ("oak", "walnut", "pine"):
        base = {"oak": (70, 120, 165), "walnut": (35, 55, 85), "pine": (120, 175, 215)}[look]
        a = rng.uniform(0, math.pi)
        along = x * math.cos(a) + y * math.sin(a)
        across = -x * math.sin(a) + y * math.cos(a)
        seed = int(rng.integers(0, 2**31))
        # streaks run along the grain: noise stretched 20 to 1; rings wobble slowly across the planks
        streaks = world_noise(along / 60.0, across / 3.0, seed)
        wobble = world_noise(along / 400.0, across / 80.0, seed + 1)
        rings = np.sin(across * rng.uniform(0.5, 0.9) + 4.0 * wobble) * 0.5 + 0.5
        plank_w = rng.uniform(90, 160)
        plank = world_noise(np.floor(across / plank_w) * 7.3, np.zeros_like(across), seed + 2)
        shade = 0.86 + 0.07 * streaks + 0.05 * rings + 0.06 * plank + 0.03 * n
        img = np.stack([base[0] * shade, base[1] * shade, base[2] * shade], axis=-1)
    elif look in ("felt", "cloth-blue", "cloth-red"):
        base = {"felt": (60, 110, 45), "cloth-blue": (120, 70, 40), "cloth-red": (50, 45, 140)}[look]
        shade = 0.9 + 0.08 * n
        img = np.stack([base[0] * shade, base[1] * shade, base[2] * shade], axis=-1)
    elif look == "checked":
        c1, c2 = np.array((235, 235, 235), np.float32), np.array((70, 60, 170), np.float32)
        p = rng.uniform(20, 35)
        a = rng.uniform(0, math.pi / 2)
        u = x * math.cos(a) + y * math.sin(a)
        v = -x * math.sin(a) + y * math.cos(a)
        k = ((np.floor(u / p) + np.floor(v / p)) % 2).astype(np.float32)[..., None]
        mix = 0.5 * (((np.floor(u / p) % 2) + (np.floor(v / p) % 2)) / 2)[..., None].astype(np.float32)
        img = c1 * (1 - k) + c2 * k * 0.9 + (c2 - c1) * 0.2 * mix
        img = img * (0.95 + 0.04 * n[..., None])
    elif look == "laminate":
        base = np.array(rng.choice([(225, 228, 230), (200, 205, 210), (175, 190, 205)]), np.float32)
        img = base * (0.95 + 0.03 * n[..., None] + 0.02 * noise(x.shape, rng, 2.0, 1)[..., None])
    else:  # slate
        base = np.array((62, 60, 58), np.float32)
        img = base * (0.9 + 0.12 * n[..., None] + 0.05 * noise(x.shape, rng, 3.0, 1)[..., None])
    return np.asarray(np.clip(img, 0, 255), np.float32)


TABLE_LOOKS = ("oak", "walnut", "pine", "felt", "cloth-blue", "cloth-red", "checked", "laminate", "slate")


# --- drawing through an affine map ----------------------------------------------------------------------


class Pen:
    """Draws tile- or card-local shapes (mm) into a texture and its coverage mask."""

    def __init__(self, canvas: Image, alpha: Image, m: F64) -> None:
        self.canvas, self.alpha, self.m = canvas, alpha, m  # m: 2 x 3, local mm -> texture px
        self.scale = float(math.hypot(m[0, 0], m[1, 0]))

    def pts(self, p: Sequence[Sequence[float]] | F64) -> npt.NDArray[np.int32]:
        a = np.asarray(p, np.float64)
        q = a @ self.m[:, :2].T + self.m[:, 2]
        return np.round(q * 16).astype(np.int32)

    def poly(
        self, p: Sequence[Sequence[float]] | F64, colour: Sequence[float], *, cover: bool = False
    ) -> None:
        q = self.pts(p)
        cv2.fillPoly(self.canvas, [q], tuple(float(c) for c in colour), cv2.LINE_AA, 4)
        if cover:
            cv2.fillPoly(self.alpha, [q], 255, cv2.LINE_AA, 4)

    def line(
        self,
        p: Sequence[Sequence[float]] | F64,
        colour: Sequence[float],
        width_mm: float,
        closed: bool = False,
    ) -> None:
        q = self.pts(p)
        cv2.polylines(
            self.canvas,
            [q],
            closed,
            tuple(float(c) for c in colour),
            max(1, round(width_mm * self.scale)),
            cv2.LINE_AA,
            4,
        )

    def circle(self, c: Sequence[float], r_mm: float, colour: Sequence[float], width_mm: float = -1) -> None:
        q = self.pts([c])[0]
        w = -1 if width_mm < 0 else max(1, round(width_mm * self.scale))
        cv2.circle(
            self.canvas,
            (int(q[0]), int(q[1])),
            max(1, round(r_mm * self.scale * 16)),
            tuple(float(x) for x in colour),
            w,
            cv2.LINE_AA,
            4,
        )

    def text(
        self, s: str, at: Sequence[float], height_mm: float, colour: Sequence[float], angle_ok: bool = True
    ) -> None:
        """Text centred at `at`, drawn upright in the local frame (warped into place)."""
        hpx = max(6, round(height_mm * 4))
        font = cv2.FONT_HERSHEY_DUPLEX
        fs = hpx / 22.0
        (tw, th), base = cv2.getTextSize(s, font, fs, 1)
        patch = np.zeros((th + base + 4, tw + 4), np.uint8)
        cv2.putText(patch, s, (2, th + 1), font, fs, 255, max(1, round(fs * 1.2)), cv2.LINE_AA)
        px_per_mm = 4.0
        w_mm, h_mm = patch.shape[1] / px_per_mm, patch.shape[0] / px_per_mm
        x0, y0 = at[0] - w_mm / 2, at[1] - h_mm / 2
        src = np.float32([[0, 0], [patch.shape[1], 0], [0, patch.shape[0]]])
        dst = np.array([[x0, y0], [x0 + w_mm, y0], [x0, y0 + h_mm]]) @ self.m[:, :2].T + self.m[:, 2]
        a = cv2.getAffineTransform(src, dst.astype(np.float32))
        h, w = self.canvas.shape[:2]
        x_lo, y_lo = np.floor(dst.min(axis=0)).astype(int) - 2
        x_hi, y_hi = np.ceil(dst.max(axis=0) + np.abs(dst[1] - dst[0]).max() + np.abs(dst[2] - dst[0]).max())
        x_lo, y_lo = max(0, int(x_lo)), max(0, int(y_lo))
        x_hi, y_hi = min(w, int(x_hi) + 2), min(h, int(y_hi) + 2)
        if x_hi <= x_lo or y_hi <= y_lo:
            return
        a[:, 2] -= (x_lo, y_lo)
        m = (
            cv2.warpAffine(patch, a, (x_hi - x_lo, y_hi - y_lo), flags=cv2.INTER_LINEAR).astype(np.float32)
            / 255
        )
        roi = self.canvas[y_lo:y_hi, x_lo:x_hi].astype(np.float32)
        col = np.array(colour, np.float32)
        self.canvas[y_lo:y_hi, x_lo:x_hi] = (roi * (1 - m[..., None]) + col * m[..., None]).astype(np.uint8)


def hex_corners(r: float = TILE_R_MM) -> F64:
    """Pointy-top hexagon corners around the origin (tile-local mm, y down as in the tile's picture)."""
    return np.array(
        [(r * math.cos(math.radians(60 * i - 30)), r * math.sin(math.radians(60 * i - 30))) for i in range(6)]
    )


def textured_fill(
    pen: Pen, poly: F64, base: Sequence[float], rng: Rng, *, contrast: float, feature_mm: float
) -> None:
    """Fill a local polygon with `base` modulated by smooth noise (printed texture)."""
    q = pen.pts(poly) / 16.0
    x0, y0 = np.floor(q.min(axis=0)).astype(int)
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 1
    h, w = pen.canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round((q - (x0, y0)) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    n = noise(mask.shape, rng, max(2.0, feature_mm * pen.scale))
    tex = np.asarray(base, np.float32)[None, None, :] * (1.0 + contrast * n[..., None])
    m = mask.astype(np.float32)[..., None] / 255
    roi = pen.canvas[y0:y1, x0:x1].astype(np.float32)
    pen.canvas[y0:y1, x0:x1] = np.clip(roi * (1 - m) + tex * m, 0, 255).astype(np.uint8)
    pen.alpha[y0:y1, x0:x1] = np.maximum(pen.alpha[y0:y1, x0:x1], mask)


# --- tile art ---------------------------------------------------------------------------------------------

Motif = Callable[[Pen, Rng], None]


def _scatter(rng: Rng, n: int, radius: float) -> list[tuple[float, float]]:
    out = []
    while len(out) < n:
        x, y = rng.uniform(-radius, radius, 2)
        if math.hypot(x, y) < radius:
            out.append((float(x), float(y)))
    return out


def _trees(pen: Pen, rng: Rng) -> None:
    for x, y in _scatter(rng, int(rng.integers(14, 26)), 34):
        r = rng.uniform(4, 8)
        pen.circle((x + 1.2, y + 1.2), r, (20, 40, 20))
        pen.circle(
            (x, y), r, (int(rng.integers(30, 60)), int(rng.integers(90, 130)), int(rng.integers(30, 60)))
        )


def _peaks(pen: Pen, rng: Rng) -> None:
    for x, y in _scatter(rng, int(rng.integers(4, 8)), 28):
        s = rng.uniform(10, 18)
        pen.poly([(x - s, y + s * 0.6), (x, y - s * 0.8), (x + s, y + s * 0.6)], (95, 105, 120))
        pen.poly(
            [(x - s * 0.3, y - s * 0.35), (x, y - s * 0.8), (x + s * 0.3, y - s * 0.35)], (235, 235, 240)
        )


def _houses(pen: Pen, rng: Rng) -> None:
    for x, y in _scatter(rng, int(rng.integers(5, 10)), 28):
        w, h = rng.uniform(6, 11), rng.uniform(5, 8)
        pen.poly([(x - w / 2, y), (x + w / 2, y), (x + w / 2, y + h), (x - w / 2, y + h)], (170, 200, 225))
        pen.poly([(x - w / 2 - 1, y), (x, y - h * 0.7), (x + w / 2 + 1, y)], (40, 60, 150))


def _walls(pen: Pen, rng: Rng) -> None:
    s = rng.uniform(18, 26)
    sq = [(-s, -s), (s, -s), (s, s), (-s, s)]
    pen.poly(sq, (120, 125, 130))
    pen.line(sq, (60, 60, 65), 2.5, closed=True)
    for cx, cy in sq:
        pen.circle((cx, cy), 5, (100, 105, 110))
        pen.circle((cx, cy), 5, (50, 50, 55), 1.0)


def _water(pen: Pen, rng: Rng) -> None:
    for k in range(int(rng.integers(6, 11))):
        y = -30 + k * 7 + rng.uniform(-2, 2)
        xs = np.linspace(-30, 30, 16)
        pts = [(float(x), float(y + 1.5 * math.sin(x / 5 + k))) for x in xs]
        pen.line(pts, (200, 170, 120), 0.8)


def _puddles(pen: Pen, rng: Rng) -> None:
    for x, y in _scatter(rng, int(rng.integers(4, 9)), 30):
        r = rng.uniform(4, 9)
        pen.circle((x, y), r, (110, 120, 70))
        pen.circle((x, y), r * 0.6, (140, 140, 80))


def _columns(pen: Pen, rng: Rng) -> None:
    for x, y in _scatter(rng, int(rng.integers(4, 8)), 28):
        h = rng.uniform(6, 16)
        pen.poly([(x - 2.5, y), (x + 2.5, y), (x + 2.5, y - h), (x - 2.5, y - h)], (200, 215, 225))
        pen.line([(x - 2.5, y - h), (x + 2.5, y - h)], (80, 90, 100), 0.6)


def _fields(pen: Pen, rng: Rng) -> None:
    a = rng.uniform(0, math.pi)
    for k in range(-6, 7):
        off = k * 6.0
        p0 = (off * math.cos(a) - 40 * math.sin(a), off * math.sin(a) + 40 * math.cos(a))
        p1 = (off * math.cos(a) + 40 * math.sin(a), off * math.sin(a) - 40 * math.cos(a))
        pen.line([p0, p1], (60, 160, 170) if k % 2 else (70, 140, 110), 2.2)


def _arena(pen: Pen, rng: Rng) -> None:
    pen.circle((0, 0), 28, (110, 170, 210))
    pen.circle((0, 0), 28, (60, 90, 120), 2.0)
    pen.circle((0, 0), 18, (150, 200, 230))


def _crossed(pen: Pen, rng: Rng) -> None:
    for x, y in _scatter(rng, int(rng.integers(3, 6)), 25):
        s = rng.uniform(6, 10)
        pen.line([(x - s, y - s), (x + s, y + s)], (40, 40, 60), 1.2)
        pen.line([(x - s, y + s), (x + s, y - s)], (40, 40, 60), 1.2)


def _building(pen: Pen, rng: Rng) -> None:
    w = rng.uniform(18, 26)
    pen.poly([(-w / 2, -4), (w / 2, -4), (w / 2, 14), (-w / 2, 14)], (205, 215, 220))
    pen.poly([(-w / 2 - 2, -4), (0, -18), (w / 2 + 2, -4)], (60, 70, 120))
    pen.line([(0, -28), (0, -18)], (40, 40, 40), 1.0)
    pen.line([(-4, -24), (4, -24)], (40, 40, 40), 1.0)


def _cave(pen: Pen, rng: Rng) -> None:
    pen.poly([(-20, 15), (-14, -8), (0, -16), (14, -8), (20, 15)], (70, 85, 100))
    pen.poly([(-9, 15), (-7, 0), (0, -6), (7, 0), (9, 15)], (15, 15, 20))


MOTIFS: dict[str, tuple[tuple[int, int, int], Motif]] = {
    "grasslands": ((80, 175, 130), _fields),
    "homelands": ((95, 170, 150), _fields),
    "forest": ((45, 95, 55), _trees),
    "mountains": ((120, 130, 140), _peaks),
    "marshlands": ((80, 125, 110), _puddles),
    "village": ((120, 170, 190), _houses),
    "city": ((140, 160, 175), _houses),
    "fort": ((125, 150, 160), _walls),
    "fortress": ((110, 120, 130), _walls),
    "ruins": ((130, 180, 200), _columns),
    "cave": ((60, 95, 120), _cave),
    "shrine": ((170, 200, 215), _building),
    "abbey": ((160, 185, 200), _building),
    "arena": ((120, 175, 205), _arena),
    "battlefield": ((70, 100, 140), _crossed),
    "lake": ((170, 120, 60), _water),
}


def draw_tile(
    pen: Pen, kind: str, rng: Rng, *, name: str = "", value: int | None = None, castle: Colour | None = None
) -> None:
    """A tile's printed face: a hexagon of base colour with its motif, a printed border, a name and value."""
    corners = hex_corners()
    if castle is not None:
        base: Sequence[float] = PLAYER_BGR[castle]
    else:
        base = MOTIFS[kind][0]
    jitter = rng.uniform(0.85, 1.12, 3) if castle is None else np.full(3, rng.uniform(0.92, 1.04))
    base = tuple(float(min(255, c * j)) for c, j in zip(base, jitter, strict=True))
    contrast, feature = float(rng.uniform(0.05, 0.16)), float(rng.uniform(6, 20))
    textured_fill(pen, corners, base, rng, contrast=contrast, feature_mm=feature)
    if castle is not None:
        _castle_art(pen, rng, castle)
    else:
        MOTIFS[kind][1](pen, rng)
    edge = tuple(max(0.0, c * 0.45) for c in base)
    pen.line(hex_corners(TILE_R_MM - 2.0), edge, 1.6, closed=True)
    if value:
        for k in range(value):
            pen.circle((-6.0 * (value - 1) / 2 + 6.0 * k, 34.0), 2.2, (40, 200, 235))
            pen.circle((-6.0 * (value - 1) / 2 + 6.0 * k, 34.0), 2.2, (20, 60, 90), 0.4)
    if name:
        pen.text(name[:18], (0.0, -36.0), 3.2, (30, 30, 30))


def _castle_art(pen: Pen, rng: Rng, colour: Colour) -> None:
    stone = (150, 155, 160) if colour is not Colour.WHITE else (120, 125, 130)
    pen.poly([(-18, -6), (18, -6), (18, 18), (-18, 18)], stone)
    for x in (-18, -9, 0, 9):
        pen.poly([(x, -10), (x + 5, -10), (x + 5, -6), (x, -6)], stone)
    pen.poly([(-5, 18), (-5, 8), (0, 3), (5, 8), (5, 18)], (40, 45, 50))
    flag = PLAYER_BGR[colour]
    pen.line([(12, -6), (12, -24)], (40, 40, 40), 0.8)
    pen.poly([(12, -24), (24, -20), (12, -16)], flag if colour is not Colour.WHITE else (250, 250, 250))


# --- cards -------------------------------------------------------------------------------------------------

CARD_W_MM, CARD_H_MM = 63.0, 88.0


def card_corners(w: float = CARD_W_MM, h: float = CARD_H_MM) -> F64:
    return np.array([(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)])


def draw_card(pen: Pen, face: str, rng: Rng, back: tuple[int, int, int] = (60, 40, 120)) -> None:
    """A card: `back` (a pattern), `face` (a text card), `artefact` (gold frame; the sticker goes on top)."""
    c = card_corners()
    if face == "back":
        textured_fill(pen, c, back, rng, contrast=0.08, feature_mm=12.0)
        pen.line(card_corners(CARD_W_MM - 8, CARD_H_MM - 8), (40, 170, 200), 1.2, closed=True)
        for k in range(-5, 6):
            pen.line([(-25, k * 7.0 - 10), (25, k * 7.0 + 10)], tuple(int(v * 0.8) for v in back), 0.8)
        pen.circle((0, 0), 12, (40, 170, 200), 1.2)
        return
    paper = (205, 225, 235) if face == "artefact" else (215, 220, 225)
    textured_fill(pen, c, paper, rng, contrast=0.04, feature_mm=10.0)
    frame = (40, 150, 190) if face == "artefact" else tuple(int(v) for v in rng.integers(40, 160, 3))
    pen.line(card_corners(CARD_W_MM - 5, CARD_H_MM - 5), frame, 2.0, closed=True)
    if face == "face":
        art = (-24.0, -36.0, 24.0, 0.0)
        textured_fill(
            pen,
            np.array([(art[0], art[1]), (art[2], art[1]), (art[2], art[3]), (art[0], art[3])]),
            tuple(float(v) for v in rng.integers(60, 200, 3)),
            rng,
            contrast=0.25,
            feature_mm=8.0,
        )
        for k in range(4):
            pen.line([(-22, 8.0 + 7 * k), (22 - 8 * (k == 3), 8.0 + 7 * k)], (70, 70, 70), 0.7)
        pen.circle((-22, -38), 5, (30, 30, 160))
        pen.text(str(int(rng.integers(1, 6))), (-22, -38), 4, (240, 240, 240))
    else:
        pen.text("ARTEFACT", (0, -36), 4.0, (30, 60, 90))


# --- hands ----------------------------------------------------------------------------------------------

SKIN_BGR = ((150, 180, 235), (120, 160, 215), (95, 135, 190), (70, 105, 160), (50, 75, 120), (35, 55, 90))
SLEEVE_BGR = ((40, 40, 40), (150, 60, 30), (60, 60, 160), (200, 200, 200), (60, 120, 60), (120, 100, 180))


def _capsule(a: F64, b: F64, width: float, tip_width: float | None = None) -> F64:
    """A rounded finger from `a` (base) to `b` (tip), hand-local mm."""
    d = b - a
    length = float(np.hypot(*d)) or 1.0
    u = d / length
    n = np.array([-u[1], u[0]])
    tw = (tip_width if tip_width is not None else width) / 2
    pts = [a + n * width / 2]
    for t in np.linspace(0, math.pi, 9):
        pts.append(b + n * tw * math.cos(t) + u * tw * math.sin(t))
    pts.append(a - n * width / 2)
    return np.array(pts)


def hand_outline(length: float, palm_w: float, spread: float, rng: Rng) -> list[tuple[F64, str]]:
    """A hand reaching along +x with its fingertips near x = 0, and its forearm and sleeve behind it:
    (polygon, "skin" or "sleeve") in hand-local mm (x along the arm towards the fingertips)."""
    knuckle_x = -length
    parts: list[tuple[F64, str]] = []
    finger_w = palm_w / 4.3
    side = 1 if rng.random() < 0.5 else -1  # which side the thumb is on (left or right hand)
    for i, f in enumerate((0.82, 0.97, 1.0, 0.9)):
        y = (i - 1.5) * palm_w / 4 * side
        a = np.array([knuckle_x, y])
        ang = (i - 1.5) * spread * 0.12 * side
        fl = length * f
        b = a + np.array([math.cos(ang), math.sin(ang)]) * fl
        curl = rng.uniform(0.75, 1.0)  # a curled finger looks shorter from above
        b = a + (b - a) * curl
        parts.append((_capsule(a, b, finger_w, finger_w * 0.85), "skin"))
    wrist_x = knuckle_x - palm_w * 1.05
    palm = np.array(
        [
            (knuckle_x + 4, -palm_w / 2),
            (knuckle_x + 4, palm_w / 2),
            (wrist_x + 10, palm_w / 2 + 2),
            (wrist_x, palm_w * 0.36),
            (wrist_x, -palm_w * 0.36),
            (wrist_x + 10, -palm_w / 2 - 2),
        ]
    )
    parts.append((palm, "skin"))
    tb = np.array([wrist_x + palm_w * 0.45, -side * palm_w * 0.45])
    ta = math.radians(rng.uniform(25, 60))
    tt = tb + np.array([math.cos(ta), -side * math.sin(ta)]) * length * 0.7
    parts.append((_capsule(tb, tt, finger_w * 1.25, finger_w), "skin"))
    fw = palm_w * 0.72
    arm = np.array(
        [
            (wrist_x + 2, -fw / 2),
            (wrist_x + 2, fw / 2),
            (wrist_x - 260, fw * 0.62),
            (wrist_x - 260, -fw * 0.62),
        ]
    )
    parts.append((arm, "skin"))
    cuff = wrist_x - rng.uniform(40, 140)
    sleeve = np.array(
        [(cuff, -fw * 0.62), (cuff, fw * 0.62), (wrist_x - 600, fw * 0.9), (wrist_x - 600, -fw * 0.9)]
    )
    parts.append((sleeve, "sleeve"))
    return parts

"""Kivy widgets drawn with graphics instructions: shape marks for player colours, the hex map, the points
chart. They draw what they are given (views from presenters) and hold no game logic."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Mesh, Rectangle
from kivy.metrics import dp
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.widget import Widget

from companion.presenters.base import RGB, SHAPES
from companion.services import Discrepancy, TableSnapshot, TileView
from engine.colours import Colour

SQRT3 = math.sqrt(3.0)

KIND_FILL: dict[str, tuple[float, float, float]] = {
    "territory": (0.78, 0.72, 0.55),
    "lake": (0.35, 0.58, 0.80),
    "castle": (0.55, 0.55, 0.58),
}
VALUE_FILL: dict[int, tuple[float, float, float]] = {
    1: (0.70, 0.80, 0.55),
    2: (0.85, 0.76, 0.50),
    3: (0.86, 0.62, 0.45),
}


def draw_shape(
    shape: str, cx: float, cy: float, r: float, rgb: tuple[float, float, float], *, outline: bool = True
) -> list[Any]:
    """Instructions for one shape mark (circle, triangle, square, diamond, star, cross) centred at cx, cy."""
    out: list[Any] = []
    pts: list[float]
    if shape == "circle":
        out += [Color(*rgb), Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))]
        if outline:
            out += [Color(0, 0, 0), Line(circle=(cx, cy, r), width=1.2)]
        return out
    if shape == "triangle":
        pts = [cx, cy + r, cx - r * 0.95, cy - r * 0.8, cx + r * 0.95, cy - r * 0.8]
    elif shape == "square":
        k = r * 0.85
        pts = [cx - k, cy - k, cx + k, cy - k, cx + k, cy + k, cx - k, cy + k]
    elif shape == "diamond":
        pts = [cx, cy + r, cx + r, cy, cx, cy - r, cx - r, cy]
    elif shape == "star":
        pts = []
        for i in range(10):
            a = math.pi / 2 + i * math.pi / 5
            rr = r if i % 2 == 0 else r * 0.45
            pts += [cx + rr * math.cos(a), cy + rr * math.sin(a)]
    else:  # cross (a plus with thick arms)
        a, b = r, r * 0.36
        pts = [
            cx - b,
            cy + a,
            cx + b,
            cy + a,
            cx + b,
            cy + b,
            cx + a,
            cy + b,
            cx + a,
            cy - b,
            cx + b,
            cy - b,
            cx + b,
            cy - a,
            cx - b,
            cy - a,
            cx - b,
            cy - b,
            cx - a,
            cy - b,
            cx - a,
            cy + b,
            cx - b,
            cy + b,
        ]
    out += [Color(*rgb), _fan(pts, cx, cy)]
    if outline:
        out += [Color(0, 0, 0), Line(points=pts, close=True, width=1.2)]
    return out


def _fan(pts: Sequence[float], cx: float, cy: float) -> Mesh:
    verts: list[float] = [cx, cy, 0, 0]
    n = len(pts) // 2
    for i in range(n + 1):
        j = i % n
        verts += [pts[2 * j], pts[2 * j + 1], 0, 0]
    return Mesh(vertices=verts, indices=list(range(n + 2)), mode="triangle_fan")


def text_rect(
    text: str,
    cx: float,
    cy: float,
    font_size: float,
    rgb: tuple[float, float, float] = (0, 0, 0),
    *,
    bold: bool = False,
    max_width: float | None = None,
    wrap: bool = False,
) -> list[Any]:
    """A text centred on (cx, cy); with `wrap`, broken into lines no wider than `max_width`; anything too
    wide is scaled down to fit."""
    tex = _texture(text, round(font_size, 1), bold, round(max_width or 0) if wrap else 0)
    w, h = tex.size
    if max_width is not None and w > max_width > 0:
        scale = max_width / w
        w, h = w * scale, h * scale
    return [Color(*rgb), Rectangle(texture=tex, pos=(cx - w / 2, cy - h / 2), size=(w, h))]


_TEXTURES: dict[tuple[str, float, bool, int], Any] = {}


def _texture(text: str, font_size: float, bold: bool, wrap_width: int) -> Any:
    """Rendered text, cached: the map redraws after every move with mostly the same names and numbers."""
    key = (text, font_size, bold, wrap_width)
    tex = _TEXTURES.get(key)
    if tex is None:
        if wrap_width:
            label = CoreLabel(
                text=text, font_size=font_size, bold=bold, text_size=(wrap_width, None), halign="center"
            )
        else:
            label = CoreLabel(text=text, font_size=font_size, bold=bold)
        label.refresh()
        tex = label.texture
        if len(_TEXTURES) > 4000:  # window resizes change every size; start again rather than grow forever
            _TEXTURES.clear()
        _TEXTURES[key] = tex
    return tex


class Drawn(Widget):  # type: ignore[misc]
    """Redraws once per frame, after layout has settled (drawing on every pos/size event can leave a stale
    picture when the layout sets size and position in several passes)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._trigger = Clock.create_trigger(lambda _dt: self.redraw(), -1)
        self.bind(pos=self._trigger, size=self._trigger)

    def redraw(self, *_a: Any) -> None:
        raise NotImplementedError


class ShapeMark(Drawn):
    """A player's colour with its shape, so colours are never told apart by colour alone."""

    colour = StringProperty("red")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(colour=self._trigger)

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        c = Colour(self.colour)
        r = min(self.width, self.height) / 2 * 0.8
        for ins in draw_shape(SHAPES[c], self.center_x, self.center_y, r, RGB[c]):
            self.canvas.add(ins)


class HexMap(Drawn):
    """The map: tiles with name and value, knights per player (a die in the player's colour with its shape and
    count), control, supply lines between supplied tiles, unsupplied tiles hatched, castles, and rings for the
    tile in battle, a proposed move and a discrepancy (what the camera sees and what the game expects)."""

    snapshot = ObjectProperty(None, allownone=True)
    marks = ObjectProperty({})
    discrepancies = ListProperty([])
    hex_size = NumericProperty(0)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(snapshot=self._trigger, marks=self._trigger, discrepancies=self._trigger)

    def layout(self, snap: TableSnapshot) -> tuple[float, float, float]:
        """(size, offset x, offset y) fitting every tile into the widget (pointy-top, y up on screen)."""
        xs = [SQRT3 * (t.q + t.r / 2) for t in snap.tiles]
        ys = [-1.5 * t.r for t in snap.tiles]
        span_x = (max(xs) - min(xs)) + SQRT3
        span_y = (max(ys) - min(ys)) + 2.0
        size = min(self.width / span_x, self.height / span_y) * 0.98 if span_x and span_y else 10.0
        ox = self.x + self.width / 2 - size * (max(xs) + min(xs)) / 2
        oy = self.y + self.height / 2 - size * (max(ys) + min(ys)) / 2
        return size, ox, oy

    def centre(self, t: TileView, size: float, ox: float, oy: float) -> tuple[float, float]:
        return ox + size * SQRT3 * (t.q + t.r / 2), oy - size * 1.5 * t.r

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        snap: TableSnapshot | None = self.snapshot
        if snap is None or not snap.tiles or self.width < 10:
            return
        size, ox, oy = self.layout(snap)
        self.hex_size = size
        centres = {t.id: self.centre(t, size, ox, oy) for t in snap.tiles}
        by_hex = {(t.q, t.r): t for t in snap.tiles}
        canvas = self.canvas
        marks: Mapping[str, str] = self.marks or {}
        for t in snap.tiles:
            cx, cy = centres[t.id]
            for ins in self._tile(t, cx, cy, size):
                canvas.add(ins)
        supply: list[Any] = []
        # supply lines: between neighbouring tiles of one player that are both supplied (castle included)
        for t in snap.tiles:
            owner = _holder(t)
            if owner is None or not t.supplied:
                continue
            for dq, dr in ((1, 0), (1, -1), (0, -1)):
                n = by_hex.get((t.q + dq, t.r + dr))
                if n is not None and _holder(n) is owner and n.supplied:
                    (x0, y0), (x1, y1) = centres[t.id], centres[n.id]
                    supply += [
                        Color(*RGB[owner], 0.75),
                        Line(
                            points=[x0, y0 - size * 0.1, x1, y1 - size * 0.1],
                            width=max(1.5, size * 0.035),
                            cap="round",
                        ),
                    ]
        for ins in supply:
            canvas.add(ins)
        for t in snap.tiles:
            cx, cy = centres[t.id]
            for ins in self._labels(t, cx, cy, size):
                canvas.add(ins)
        for t in snap.tiles:
            cx, cy = centres[t.id]
            for ins in self._knights(t, cx, cy, size):
                canvas.add(ins)
            mark = marks.get(t.id)
            if mark:
                rgb = {
                    "battle": (0.9, 0.1, 0.1),
                    "proposal": (0.1, 0.75, 0.2),
                    "discrepancy": (1.0, 0.35, 0.0),
                }.get(mark, (0, 0, 0))
                canvas.add(Color(*rgb))
                canvas.add(
                    Line(points=_hex_points(cx, cy, size * 0.97), close=True, width=max(2.0, size * 0.07))
                )
        for d in self.discrepancies:
            if d.location in centres:
                cx, cy = centres[d.location]
                for ins in self._callout(d, cx, cy, size):
                    canvas.add(ins)

    def _tile(self, t: TileView, cx: float, cy: float, size: float) -> list[Any]:
        fill = VALUE_FILL.get(t.value, KIND_FILL["territory"]) if t.kind == "territory" else KIND_FILL[t.kind]
        pts = _hex_points(cx, cy, size * 0.96)
        out: list[Any] = [Color(*fill), _fan(pts, cx, cy)]
        holder = _holder(t)
        if holder is not None:
            out += [Color(*RGB[holder], 0.35), _fan(_hex_points(cx, cy, size * 0.96), cx, cy)]
        out += [Color(0.2, 0.18, 0.15), Line(points=pts, close=True, width=max(1.0, size * 0.025))]
        if t.kind == "territory" and holder is not None and not t.supplied:
            # unsupplied: hatched, and a dashed inner ring
            for k in range(-3, 4):
                x = cx + k * size * 0.25
                out += [
                    Color(0.3, 0.1, 0.1, 0.6),
                    Line(
                        points=[x - size * 0.35, cy - size * 0.6, x + size * 0.35, cy + size * 0.6], width=1.0
                    ),
                ]
            out += [
                Color(0.7, 0.1, 0.1),
                Line(
                    points=_hex_points(cx, cy, size * 0.8),
                    close=True,
                    width=1.5,
                    dash_length=6,
                    dash_offset=4,
                ),
            ]
        return out

    def _labels(self, t: TileView, cx: float, cy: float, size: float) -> list[Any]:
        """Name on top (wrapped to the tile), value in a white disc, capacity when it is not 6."""
        out: list[Any] = []
        fs = max(9.0, size * 0.17)
        width = size * 1.25
        if t.kind == "castle" and t.owner is not None:
            out += _castle(cx, cy + size * 0.12, size * 0.28, RGB[t.owner])
            out += text_rect(t.name, cx, cy + size * 0.58, fs, max_width=width, wrap=True)
        elif t.kind == "lake":
            out += text_rect(t.name, cx, cy, fs, (1, 1, 1), max_width=width, wrap=True)
        else:
            out += text_rect(t.name, cx, cy + size * 0.52, fs, max_width=width, wrap=True)
            r = fs * 0.8
            vy = cy + size * 0.12
            out += [
                Color(1, 1, 1),
                Ellipse(pos=(cx - r, vy - r), size=(2 * r, 2 * r)),
                Color(0, 0, 0),
                Line(circle=(cx, vy, r), width=1.0),
            ]
            out += text_rect(str(t.value), cx, vy, fs * 1.1, bold=True)
            if t.capacity and t.capacity != 6:
                out += text_rect(f"max {t.capacity}", cx, cy - size * 0.75, fs * 0.8)
        return out

    def _knights(self, t: TileView, cx: float, cy: float, size: float) -> list[Any]:
        out: list[Any] = []
        items = [(c, n) for c, n in t.knights.items() if n > 0]
        if not items:
            return out
        d = size * 0.4
        base_y = cy - size * 0.38
        start = cx - (len(items) - 1) * d * 0.6
        for i, (c, n) in enumerate(items):
            x = start + i * d * 1.2
            out += [
                Color(*RGB[c]),
                Rectangle(pos=(x - d / 2, base_y - d / 2), size=(d, d)),
                Color(0, 0, 0),
                Line(rectangle=(x - d / 2, base_y - d / 2, d, d), width=1.2),
            ]
            out += draw_shape(SHAPES[c], x - d / 2, base_y + d / 2, d * 0.22, RGB[c])
            txt = (0, 0, 0) if c in (Colour.YELLOW, Colour.WHITE) else (1, 1, 1)
            out += text_rect(str(n), x, base_y, d * 0.7, txt, bold=True)
        return out

    def _callout(self, d: Discrepancy, cx: float, cy: float, size: float) -> list[Any]:
        seen = ", ".join(f"{n} {c.value}" for c, n in d.seen.items()) or "none"
        expected = ", ".join(f"{n} {c.value}" for c, n in d.expected.items()) or "none"
        text = f"camera: {seen} | game: {expected}"
        label = CoreLabel(text=text, font_size=max(12.0, size * 0.2), bold=True)
        label.refresh()
        w, h = label.texture.size
        x = min(max(self.x, cx - w / 2), self.right - w - 8)
        y = min(cy + size * 1.0, self.top - h - 8)
        return [
            Color(1.0, 0.35, 0.0, 0.95),
            Rectangle(pos=(x - 6, y - 4), size=(w + 12, h + 8)),
            Color(1, 1, 1),
            Rectangle(texture=label.texture, pos=(x, y), size=(w, h)),
        ]


def _holder(t: TileView) -> Colour | None:
    if t.kind == "castle":
        return t.owner
    if t.kind == "territory":
        if t.owner is not None:
            return t.owner
        present = [c for c, n in t.knights.items() if n > 0]
        return present[0] if len(present) == 1 else None
    return None


def _hex_points(cx: float, cy: float, r: float) -> list[float]:
    pts: list[float] = []
    for i in range(6):
        a = math.radians(60 * i + 30)  # pointy-top
        pts += [cx + r * math.cos(a), cy + r * math.sin(a)]
    return pts


def _castle(cx: float, cy: float, w: float, rgb: tuple[float, float, float]) -> list[Any]:
    """A small crenellated keep in the owner's colour."""
    h = w * 0.8
    x0, y0 = cx - w, cy - h / 2
    out: list[Any] = [Color(*rgb), Rectangle(pos=(x0, y0), size=(2 * w, h))]
    merlon = 2 * w / 5
    for i in range(0, 5, 2):
        out.append(Rectangle(pos=(x0 + i * merlon, y0 + h), size=(merlon, h * 0.35)))
    out += [
        Color(0, 0, 0),
        Line(rectangle=(x0, y0, 2 * w, h), width=1.2),
        Color(0.15, 0.1, 0.05),
        Rectangle(pos=(cx - w * 0.22, y0), size=(w * 0.44, h * 0.55)),
    ]
    return out


class ScoreChart(Drawn):
    """Victory points per player over the turns, with the target as a dashed line. Each player's line carries
    their shape mark at its end."""

    curves = ObjectProperty({})
    target = NumericProperty(13)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(curves=self._trigger, target=self._trigger)

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        curves: Mapping[Colour, Sequence[int]] = self.curves or {}
        pad = dp(36)
        x0, y0 = self.x + pad, self.y + pad
        w, h = self.width - 2 * pad, self.height - 2 * pad
        if w <= 0 or h <= 0:
            return
        turns = max([len(v) for v in curves.values()] + [2])
        top = max([int(self.target)] + [max(v, default=0) for v in curves.values()]) + 1

        def xy(i: int, v: float) -> tuple[float, float]:
            return x0 + w * i / max(1, turns - 1), y0 + h * v / top

        with self.canvas:
            Color(0.97, 0.96, 0.92)
            Rectangle(pos=self.pos, size=self.size)
            Color(0.3, 0.3, 0.3)
            Line(points=[x0, y0, x0 + w, y0], width=1.2)
            Line(points=[x0, y0, x0, y0 + h], width=1.2)
            Color(0.6, 0.1, 0.1)
            ty = xy(0, self.target)[1]
            Line(points=[x0, ty, x0 + w, ty], width=1.2, dash_length=8, dash_offset=6)
        for ins in text_rect(str(int(self.target)), x0 - pad / 2, ty, dp(14), (0.6, 0.1, 0.1)):
            self.canvas.add(ins)
        for i in range(turns):
            for ins in text_rect(str(i + 1), xy(i, 0)[0], y0 - pad / 2, dp(12), (0.3, 0.3, 0.3)):
                self.canvas.add(ins)
        for c, values in curves.items():
            if not values:
                continue
            pts: list[float] = []
            for i, v in enumerate(values):
                pts += list(xy(i, v))
            self.canvas.add(Color(*RGB[c]))
            if len(pts) >= 4:
                self.canvas.add(Line(points=pts, width=dp(2.5)))
            for ins in draw_shape(SHAPES[c], pts[-2], pts[-1], dp(9), RGB[c]):
                self.canvas.add(ins)

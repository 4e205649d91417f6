"""Kivy widgets drawn with graphics instructions: shape marks for player colours, the hex map (tappable), dice
faces, artefact icons, the turn's step track, the points chart and the dice-fairness bars. They draw what they
are given (views from presenters, words already translated) and hold no game logic."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Mesh, Rectangle, RoundedRectangle
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.widget import Widget

from companion.presenters.base import SHAPES
from companion.services import TableSnapshot, TileView
from companion.theme import PALETTE, PLAYER_RGB, THEME
from engine.colours import Colour

RGB = PLAYER_RGB

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
            out += [Color(*_edge_for(rgb)), Line(circle=(cx, cy, r), width=1.2)]
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
        out += [Color(*_edge_for(rgb)), Line(points=pts, close=True, width=1.2)]
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
    """A text centred on (cx, cy); with `wrap`, broken into lines no wider than `max_width` (between words:
    a word longer than that keeps its letters together); anything too wide is scaled down to fit."""
    size = round(font_size, 1)
    wrap_width = 0
    if wrap and max_width:
        longest = max((_word_width(word, size, bold) for word in text.split()), default=0.0)
        wrap_width = round(max(max_width, longest + 2))
    tex = _texture(text, size, bold, wrap_width)
    w, h = tex.size
    if max_width is not None and w > max_width > 0:
        scale = max_width / w
        w, h = w * scale, h * scale
    return [Color(*rgb), Rectangle(texture=tex, pos=(cx - w / 2, cy - h / 2), size=(w, h))]


_TEXTURES: dict[tuple[str, float, bool, int], Any] = {}
_WORDS: dict[tuple[str, float, bool], float] = {}


def _word_width(word: str, font_size: float, bold: bool) -> float:
    key = (word, font_size, bold)
    width = _WORDS.get(key)
    if width is None:
        width = float(CoreLabel(font_size=font_size, bold=bold).get_extents(word)[0])
        if len(_WORDS) > 4000:
            _WORDS.clear()
        _WORDS[key] = width
    return width


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
        if len(DRAWN_TEXTS) < 20000:
            DRAWN_TEXTS.add(text)
    return tex


DRAWN_TEXTS: set[str] = set()  # every text drawn on a canvas (the screen tests check the font covers them)


def texture_texts() -> dict[int, str]:
    """id of each kept text texture -> its text: what a canvas says, for the screen tests to read."""
    return {id(tex): key[0] for key, tex in _TEXTURES.items()}


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
    tile in battle, a proposed move, a discrepancy and the tile tapped. A tap on a tile calls `on_tile(id)`.
    """

    snapshot = ObjectProperty(None, allownone=True)
    marks = ObjectProperty({})
    callouts = ListProperty(
        []
    )  # (tile id, words) drawn over the map: what the camera and the game disagree on
    selected = StringProperty("")
    words = DictProperty({"capacity": "max {n}"})  # translated templates
    hex_size = NumericProperty(0)
    on_tile: Any = None  # callable(tile id), set by the screen

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(snapshot=self._trigger, marks=self._trigger, callouts=self._trigger)
        self.bind(selected=self._trigger, words=self._trigger)

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

    def tile_at(self, x: float, y: float) -> str | None:
        """The tile under a point (window coordinates), or None."""
        snap: TableSnapshot | None = self.snapshot
        if snap is None or not snap.tiles:
            return None
        size, ox, oy = self.layout(snap)
        best: tuple[float, str] | None = None
        for t in snap.tiles:
            cx, cy = self.centre(t, size, ox, oy)
            d = math.hypot(x - cx, y - cy)
            if d <= size * 0.9 and (best is None or d < best[0]):
                best = (d, t.id)
        return best[1] if best else None

    def on_touch_up(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos) or touch.grab_current is not None:
            return bool(super().on_touch_up(touch))
        tile = self.tile_at(*touch.pos)
        if tile is not None and self.on_tile is not None:
            self.on_tile(tile)
            return True
        return bool(super().on_touch_up(touch))

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        snap: TableSnapshot | None = self.snapshot
        if snap is None or not snap.tiles or self.width < 10:
            return
        size, ox, oy = self.layout(snap)
        self.hex_size = size
        centres = {t.id: self.centre(t, size, ox, oy) for t in snap.tiles}
        canvas = self.canvas
        for t in snap.tiles:
            for ins in self._tile(t, *centres[t.id], size):
                canvas.add(ins)
        for ins in self._supply(snap, centres, size):
            canvas.add(ins)
        for t in snap.tiles:
            for ins in self._labels(t, *centres[t.id], size):
                canvas.add(ins)
        marks: dict[str, str] = dict(self.marks or {})
        if self.selected:
            marks.setdefault(self.selected, "selected")
        for t in snap.tiles:
            cx, cy = centres[t.id]
            for ins in self._knights(t, cx, cy, size):
                canvas.add(ins)
            mark = marks.get(t.id)
            if mark:
                canvas.add(Color(*MARK_RGB.get(mark, (0, 0, 0))))
                canvas.add(
                    Line(points=_hex_points(cx, cy, size * 0.97), close=True, width=max(2.0, size * 0.07))
                )
        for loc, words in self.callouts:
            if loc in centres:
                for ins in self._callout(words, *centres[loc], size):
                    canvas.add(ins)

    def _supply(
        self, snap: TableSnapshot, centres: Mapping[str, tuple[float, float]], size: float
    ) -> list[Any]:
        """Supply lines: between neighbouring tiles of one player that are both supplied (castle included)."""
        by_hex = {(t.q, t.r): t for t in snap.tiles}
        out: list[Any] = []
        for t in snap.tiles:
            owner = _holder(t)
            if owner is None or not t.supplied:
                continue
            for dq, dr in ((1, 0), (1, -1), (0, -1)):
                n = by_hex.get((t.q + dq, t.r + dr))
                if n is not None and _holder(n) is owner and n.supplied:
                    (x0, y0), (x1, y1) = centres[t.id], centres[n.id]
                    out += [
                        Color(*RGB[owner], 0.75),
                        Line(
                            points=[x0, y0 - size * 0.1, x1, y1 - size * 0.1],
                            width=max(1.5, size * 0.035),
                            cap="round",
                        ),
                    ]
        return out

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
        fs = max(THEME.px(10), size * 0.17)
        width = size * 1.2  # the hexagon narrows towards its top point
        if t.kind == "castle" and t.owner is not None:
            out += _castle(cx, cy + size * 0.12, size * 0.28, RGB[t.owner])
            out += text_rect(t.name, cx, cy + size * 0.58, fs, max_width=width, wrap=True)
        elif t.kind == "lake":
            out += text_rect(t.name, cx, cy, fs, (1, 1, 1), max_width=width, wrap=True)
        else:
            out += text_rect(t.name, cx, cy + size * 0.47, fs, max_width=width, wrap=True)
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
                words = str(self.words.get("capacity", "max {n}")).format(n=t.capacity)
                out += text_rect(words, cx, cy - size * 0.1, fs * 0.85, bold=True, max_width=width * 0.8)
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
                Color(*_edge_for(RGB[c])),
                Line(rectangle=(x - d / 2, base_y - d / 2, d, d), width=1.2),
            ]
            out += draw_shape(SHAPES[c], x - d / 2, base_y + d / 2, d * 0.22, RGB[c])
            txt = (0, 0, 0) if c in (Colour.YELLOW, Colour.WHITE) else (1, 1, 1)
            out += text_rect(str(n), x, base_y, d * 0.7, txt, bold=True)
        return out

    def _callout(self, words: str, cx: float, cy: float, size: float) -> list[Any]:
        max_w = max(THEME.px(160), min(self.width * 0.6, THEME.px(420)))
        fs = round(max(THEME.font("caption"), size * 0.18), 1)
        natural = _word_width(words, fs, True)  # one line when it fits, wrapped when it does not
        tex = _texture(words, fs, True, 0 if natural <= max_w else round(max_w))
        w, h = tex.size
        x = min(max(self.x + 8, cx - w / 2), self.right - w - 8)
        y = min(cy + size * 0.9, self.top - h - 8)
        return [
            Color(*PALETTE.warn[:3], 0.96),
            RoundedRectangle(pos=(x - 8, y - 6), size=(w + 16, h + 12), radius=[THEME.radius]),
            Color(*PALETTE.on_accent[:3]),
            Rectangle(texture=tex, pos=(x, y), size=(w, h)),
        ]


MARK_RGB: dict[str, tuple[float, float, float]] = {
    "battle": (0.9, 0.1, 0.1),
    "proposal": (0.1, 0.75, 0.2),
    "discrepancy": PALETTE.warn[:3],
    "selected": (1.0, 1.0, 1.0),
}


def _edge_for(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """An outline that shows on this fill (a black die needs a light one)."""
    lum = 0.3 * rgb[0] + 0.59 * rgb[1] + 0.11 * rgb[2]
    return (0.85, 0.82, 0.78) if lum < 0.25 else (0.0, 0.0, 0.0)


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
        Color(*_edge_for(rgb)),
        Line(rectangle=(x0, y0, 2 * w, h), width=1.2),
        Color(0.15, 0.1, 0.05),
        Rectangle(pos=(cx - w * 0.22, y0), size=(w * 0.44, h * 0.55)),
    ]
    return out


# ----------------------------------------------------------------------------------------- small drawings

PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.75), (0.75, 0.25)),
    3: ((0.25, 0.75), (0.5, 0.5), (0.75, 0.25)),
    4: ((0.25, 0.25), (0.25, 0.75), (0.75, 0.25), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.25, 0.75), (0.5, 0.5), (0.75, 0.25), (0.75, 0.75)),
    6: ((0.25, 0.2), (0.25, 0.5), (0.25, 0.8), (0.75, 0.2), (0.75, 0.5), (0.75, 0.8)),
}


class DieFace(Drawn):
    """One die showing `value` with pips, in a player's colour (`colour`, "" for ivory)."""

    value = NumericProperty(1)
    colour = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(value=self._trigger, colour=self._trigger)

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        side = min(self.width, self.height)
        if side <= 2:
            return
        x0, y0 = self.center_x - side / 2, self.center_y - side / 2
        body = RGB[Colour(self.colour)] if self.colour else (0.96, 0.93, 0.86)
        pip = (0.05, 0.05, 0.05) if sum(body) > 1.5 else (0.97, 0.97, 0.97)
        self.canvas.add(Color(*body))
        self.canvas.add(RoundedRectangle(pos=(x0, y0), size=(side, side), radius=[side * 0.16]))
        self.canvas.add(Color(*_edge_for(body)))
        self.canvas.add(Line(rounded_rectangle=(x0, y0, side, side, side * 0.16), width=1.2))
        self.canvas.add(Color(*pip))
        r = side * 0.09
        for fx, fy in PIPS.get(int(self.value), ()):
            self.canvas.add(Ellipse(pos=(x0 + fx * side - r, y0 + fy * side - r), size=(2 * r, 2 * r)))


class ArtefactIcon(Drawn):
    """A crown, sceptre or orb: gold when face-up; grey and struck through when destroyed."""

    kind = StringProperty("crown")
    up = BooleanProperty(True)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(kind=self._trigger, up=self._trigger)

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        s = min(self.width, self.height) * 0.9
        if s <= 2:
            return
        cx, cy = self.center_x, self.center_y
        gold = (0.93, 0.74, 0.25) if self.up else (0.45, 0.43, 0.40)
        self.canvas.add(Color(*gold))
        for ins in _artefact_shape(self.kind, cx, cy, s):
            self.canvas.add(ins)
        if not self.up:
            self.canvas.add(Color(*PALETTE.bad[:3]))
            self.canvas.add(Line(points=[cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2], width=2.2))


def _artefact_shape(kind: str, cx: float, cy: float, s: float) -> list[Any]:
    if kind == "crown":
        x0, x1, yb, yt = cx - s * 0.45, cx + s * 0.45, cy - s * 0.3, cy + s * 0.32
        pts = [x0, yb, x1, yb, x1, yt, cx + s * 0.22, cy + s * 0.02, cx, yt + s * 0.04]
        pts += [cx - s * 0.22, cy + s * 0.02, x0, yt]
        return [_fan(pts, cx, cy - s * 0.1)]
    if kind == "sceptre":
        w = s * 0.12
        return [
            Rectangle(pos=(cx - w / 2, cy - s * 0.45), size=(w, s * 0.7)),
            Ellipse(pos=(cx - s * 0.18, cy + s * 0.15), size=(s * 0.36, s * 0.36)),
        ]
    r = s * 0.36  # orb: a ball with a small cross on top
    return [
        Ellipse(pos=(cx - r, cy - r - s * 0.08), size=(2 * r, 2 * r)),
        Rectangle(pos=(cx - s * 0.04, cy + r - s * 0.1), size=(s * 0.08, s * 0.24)),
        Rectangle(pos=(cx - s * 0.12, cy + r + s * 0.02), size=(s * 0.24, s * 0.07)),
    ]


class StepTrack(Drawn):
    """Where the turn (or battle) is: a line of `count` small stations, done ones filled, the current one a
    large gold disc with its number. Drawn, not buttons: it shows, it does nothing when tapped."""

    count = NumericProperty(9)
    current = NumericProperty(1)  # 1-based; 0: not started

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(count=self._trigger, current=self._trigger)

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        n = int(self.count)
        if n < 2 or self.width < 10:
            return
        r = min(self.height * 0.42, self.width / (n * 2.6))
        big = min(self.height * 0.5, r * 1.7)
        x0, x1 = self.x + big, self.right - big
        cy = self.center_y
        step = (x1 - x0) / (n - 1)
        self.canvas.add(Color(*PALETTE.line))
        self.canvas.add(Line(points=[x0, cy, x1, cy], width=max(1.5, r * 0.25)))
        for i in range(1, n + 1):
            x = x0 + (i - 1) * step
            if i == self.current:
                continue
            done = i < self.current
            self.canvas.add(Color(*(PALETTE.done if done else PALETTE.surface_hi)))
            self.canvas.add(Ellipse(pos=(x - r, cy - r), size=(2 * r, 2 * r)))
            self.canvas.add(Color(*(PALETTE.good if done else PALETTE.line)))
            self.canvas.add(Line(circle=(x, cy, r), width=1.2))
            for ins in text_rect(str(i), x, cy, r * 1.1, PALETTE.text_dim[:3] if not done else (1, 1, 1)):
                self.canvas.add(ins)
        if 1 <= self.current <= n:
            x = x0 + (self.current - 1) * step
            self.canvas.add(Color(*PALETTE.accent))
            self.canvas.add(Ellipse(pos=(x - big, cy - big), size=(2 * big, 2 * big)))
            for ins in text_rect(str(int(self.current)), x, cy, big * 1.1, PALETTE.on_accent[:3], bold=True):
                self.canvas.add(ins)


class ScoreChart(Drawn):
    """Victory points per player over the turns. The target is a dashed line in the ink colour (no player's),
    labelled; turn labels are thinned to stay apart; each player's line ends in their shape mark, and marks
    that would cover each other are spread apart, each with its final score."""

    curves = ObjectProperty({})
    target = NumericProperty(13)
    words = DictProperty({"turn": "Turn", "target": "Target {n}"})

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(curves=self._trigger, target=self._trigger, words=self._trigger)

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        curves: Mapping[Colour, Sequence[int]] = self.curves or {}
        left, bottom, right, top_pad = THEME.px(44), THEME.px(52), THEME.px(88), THEME.px(16)
        x0, y0 = self.x + left, self.y + bottom
        w, h = self.width - left - right, self.height - bottom - top_pad
        if w <= 20 or h <= 20:
            return
        turns = max([len(v) for v in curves.values()] + [2])
        top = max([int(self.target)] + [max(v, default=0) for v in curves.values()]) + 1

        def xy(i: float, v: float) -> tuple[float, float]:
            return x0 + w * i / max(1, turns - 1), y0 + h * v / top

        ink = PALETTE.ink[:3]
        small = THEME.font("caption")
        with self.canvas:
            Color(*PALETTE.paper)
            RoundedRectangle(pos=self.pos, size=self.size, radius=[THEME.radius])
            Color(*ink)
            Line(points=[x0, y0, x0 + w, y0], width=1.2)
            Line(points=[x0, y0, x0, y0 + h], width=1.2)
        ty = xy(0, self.target)[1]
        self.canvas.add(Color(*ink, 0.8))
        self.canvas.add(Line(points=[x0, ty, x0 + w, ty], width=1, dash_length=10, dash_offset=6))
        target_words = str(self.words.get("target", "Target {n}")).format(n=int(self.target))
        for ins in text_rect(target_words, x0 + w / 2, ty + small * 0.8, small, ink, bold=True):
            self.canvas.add(ins)
        for v in range(0, top + 1, 5 if top > 15 else 2):
            for ins in text_rect(str(v), x0 - left / 2, xy(0, v)[1], small, ink):
                self.canvas.add(ins)
        every = _label_every(turns, w, small * 2.6)
        for i in range(0, turns, every):
            for ins in text_rect(str(i), xy(i, 0)[0], y0 - small, small, ink):
                self.canvas.add(ins)
        turn_words = str(self.words.get("turn", "Turn"))
        for ins in text_rect(turn_words, x0 + w / 2, y0 - small * 2.3, small, ink, bold=True):
            self.canvas.add(ins)
        ends: list[tuple[float, Colour, int]] = []
        for c, values in curves.items():
            if not values:
                continue
            pts: list[float] = []
            for i, v in enumerate(values):
                pts += list(xy(i, v))
            self.canvas.add(Color(*RGB[c]))
            if len(pts) >= 4:
                self.canvas.add(Line(points=pts, width=THEME.px(2.5)))
            ends.append((pts[-1], c, values[-1]))
        mark = THEME.px(10)
        for y, c, score in _spread(ends, mark * 2.3, y0, y0 + h):
            ex = x0 + w + mark * 1.4
            for ins in draw_shape(SHAPES[c], ex, y, mark, RGB[c]):
                self.canvas.add(ins)
            for ins in text_rect(str(score), ex + mark * 2.4, y, small * 1.15, ink, bold=True):
                self.canvas.add(ins)


def _label_every(count: int, width: float, min_gap: float) -> int:
    """Label every n-th of `count` evenly spread positions so labels stay `min_gap` apart (1, 2, 5...)."""
    for every in (1, 2, 5, 10, 20, 50, 100):
        if count <= 1 or width * every / max(1, count - 1) >= min_gap:
            return every
    return 200


def _spread(
    ends: list[tuple[float, Colour, int]], gap: float, low: float, high: float
) -> list[tuple[float, Colour, int]]:
    """End marks moved apart vertically (keeping their order) so no two are closer than `gap`."""
    items = sorted(ends, key=lambda e: e[0])
    ys = [e[0] for e in items]
    for i in range(1, len(ys)):
        ys[i] = max(ys[i], ys[i - 1] + gap)
    overflow = ys[-1] - high if ys else 0.0
    if overflow > 0:
        ys = [y - overflow for y in ys]
        for i in range(len(ys) - 2, -1, -1):
            ys[i] = min(ys[i], ys[i + 1] - gap)
    ys = [max(low - gap, y) for y in ys]
    return [(y, c, s) for y, (_old, c, s) in zip(ys, items, strict=True)]


class FaceBars(Drawn):
    """How often each face came up (`counts`, faces 1..6) against what a fair die gives (`expected`)."""

    counts = ListProperty([0, 0, 0, 0, 0, 0])
    expected = NumericProperty(0.0)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(counts=self._trigger, expected=self._trigger)

    def redraw(self, *_a: Any) -> None:
        self.canvas.clear()
        counts = list(self.counts)
        if len(counts) != 6 or self.width < 20 or self.height < 20:
            return
        face = min(self.width / 9, THEME.px(40))
        top = max([*counts, self.expected, 1]) * 1.15
        base = self.y + face * 1.3
        h = self.height - face * 1.3 - THEME.font("caption") * 1.4
        slot = self.width / 6
        for i, n in enumerate(counts):
            cx = self.x + slot * (i + 0.5)
            bw = slot * 0.55
            bh = h * n / top
            self.canvas.add(Color(*PALETTE.info))
            self.canvas.add(Rectangle(pos=(cx - bw / 2, base), size=(bw, bh)))
            for ins in text_rect(
                str(n),
                cx,
                base + bh + THEME.font("caption") * 0.7,
                THEME.font("caption"),
                PALETTE.text[:3],
                bold=True,
            ):
                self.canvas.add(ins)
            side = face
            x0, y0 = cx - side / 2, self.y + face * 0.15
            self.canvas.add(Color(0.96, 0.93, 0.86))
            self.canvas.add(RoundedRectangle(pos=(x0, y0), size=(side, side), radius=[side * 0.16]))
            self.canvas.add(Color(0.05, 0.05, 0.05))
            r = side * 0.09
            for fx, fy in PIPS[i + 1]:
                self.canvas.add(Ellipse(pos=(x0 + fx * side - r, y0 + fy * side - r), size=(2 * r, 2 * r)))
        if self.expected > 0:
            ey = base + h * self.expected / top
            self.canvas.add(Color(*PALETTE.accent))
            self.canvas.add(Line(points=[self.x, ey, self.right, ey], width=1, dash_length=8, dash_offset=5))

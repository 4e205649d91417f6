"""The app's controls in its visual language (`companion.theme`): buttons with a role, text in a size of the
type scale that wraps and grows to its text, panels, a styled text field. Screens build with these only, so
every screen looks and behaves alike (and no text can spill out of its widget unnoticed: see the screen
tests)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.graphics import Color, InstructionGroup, Line, RoundedRectangle
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.textinput import TextInput

from companion.theme import PALETTE, RGBA, THEME, on_player, player_rgba
from engine.colours import Colour

ROLES = ("normal", "primary", "quiet", "warn", "player", "chosen")


class BigButton(ButtonBehavior, Label):  # type: ignore[misc]
    """A rounded button at least 48 dp high. `role`: "primary" (the one thing to do now, gold), "normal",
    "quiet" (secondary), "warn", "chosen" (a selected choice), "player" (tinted with `tint`). Greyed buttons
    stay tappable: the engine's "no" is explained when they are tapped. Drawn with a fill and, only where
    they show, an edge and a check box (a frame draws every instruction: none is kept invisible)."""

    greyed = BooleanProperty(False)
    role = StringProperty("normal")
    tint = ListProperty([0.5, 0.5, 0.5, 1.0])
    text_tint = ListProperty([1.0, 1.0, 1.0, 1.0])
    check = StringProperty("")  # "on" / "off": a toggle, drawn with a check box at its left
    fit = BooleanProperty(False)  # as wide as its words (never narrower than it was made)
    grow = BooleanProperty(False)  # as tall as its lines (never lower than it was made)
    width: float  # Kivy's properties, declared for the type checker
    height: float
    text_size: tuple[float | None, float | None]

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("font_size", THEME.label)
        kw.setdefault("halign", "center")
        kw.setdefault("valign", "middle")
        super().__init__(**kw)
        with self.canvas.before:
            self._fill = Color(*PALETTE.button)
            self._shape = RoundedRectangle(pos=self.pos, size=self.size, radius=[THEME.radius])
        self._extras = InstructionGroup()
        self.canvas.before.add(self._extras)
        self._edge_rgba: RGBA = (0.0, 0.0, 0.0, 0.0)
        self.bind(pos=self._button_place, size=self._button_place, check=self._button_place)
        self.bind(state=self._button_paint, greyed=self._button_paint, role=self._button_paint)
        self.bind(tint=self._button_paint, text_tint=self._button_paint, check=self._button_paint)
        self.bind(size=self._button_wrap, fit=self._button_wrap)
        self._floor = (float(self.width), float(self.height))
        self.bind(texture_size=self._button_fit)
        self._button_paint()

    def _button_wrap(self, *_a: Any) -> None:
        if self.fit:
            self.text_size = (None, None)
            return
        box = THEME.px(40) if self.check else 0.0
        self.text_size = (max(1.0, self.width - THEME.px(12) - 2 * box), None)

    def _button_fit(self, *_a: Any) -> None:
        w, h = self.texture_size
        if self.fit:
            self.width = max(self._floor[0], w + THEME.px(28))
        if self.grow:
            self.height = max(self._floor[1], h + THEME.px(16))

    def _button_place(self, *_a: Any) -> None:
        self._shape.pos, self._shape.size, self._shape.radius = self.pos, self.size, [THEME.radius]
        self._button_extras()
        self._button_wrap()

    def _button_extras(self) -> None:
        """The edge and the check box, as instructions only when they show."""
        g = self._extras
        g.clear()
        if self._edge_rgba[3] > 0:
            g.add(Color(*self._edge_rgba))
            g.add(
                Line(
                    rounded_rectangle=(self.x + 1, self.y + 1, self.width - 2, self.height - 2, THEME.radius)
                )
            )
        if self.check:
            side = THEME.px(22)
            x, y = self.x + THEME.px(14), self.center_y - side / 2
            g.add(Color(*self.color))
            g.add(Line(rectangle=(x, y, side, side), width=1.6))
            if self.check == "on":
                tick = [x + side * 0.2, y + side * 0.5, x + side * 0.42, y + side * 0.22, x + side * 0.82]
                g.add(Line(points=[*tick, y + side * 0.8], width=2.4))

    def _button_paint(self, *_a: Any) -> None:
        fill, text, edge = self.colours()
        if self.state == "down" and not self.greyed:
            r, g, b, a = fill
            fill = (min(1.0, r * 1.25 + 0.05), min(1.0, g * 1.25 + 0.05), min(1.0, b * 1.25 + 0.05), a)
        self._fill.rgba = fill
        self.color = text
        if edge != self._edge_rgba or self.check:
            self._edge_rgba = edge
            self._button_extras()

    def colours(self) -> tuple[RGBA, RGBA, RGBA]:
        """(fill, text, edge) for the role and state."""
        p = PALETTE
        none = (0.0, 0.0, 0.0, 0.0)
        if self.greyed:
            return p.greyed, p.greyed_text, p.line
        if self.role == "primary":
            return p.accent, p.on_accent, none
        if self.role == "chosen":
            return p.accent_dim, p.text, p.accent
        if self.role == "quiet":
            return p.button_quiet, p.text, p.line
        if self.role == "warn":
            return p.warn, p.on_accent, none
        if self.role == "player":
            t, x = self.tint, self.text_tint
            return (t[0], t[1], t[2], t[3]), (x[0], x[1], x[2], x[3]), none
        return p.button, p.text, none


def button(
    text: str,
    on_tap: Callable[[], Any],
    *,
    role: str = "normal",
    greyed: bool = False,
    height: float | None = None,
    colour: Colour | None = None,
    font: str = "label",
    **kw: Any,
) -> BigButton:
    """A button that calls `on_tap()`; `colour` tints it with a player's colour (an option of that player)."""
    if "size_hint" not in kw:
        kw["size_hint_y"] = None
    b = BigButton(
        text=text,
        greyed=greyed,
        role="player" if colour is not None and not greyed else role,
        height=height if height is not None else THEME.tap,
        font_size=THEME.font(font),
        **kw,
    )
    if colour is not None:
        b.tint = player_rgba(colour, shade=0.85)
        b.text_tint = on_player(colour)
    b.bind(on_release=lambda *_: on_tap())
    return b


class Text(Label):  # type: ignore[misc]
    """Text in a role of the type scale that wraps to its width and (with `grow`) takes the height its lines
    need, so nothing is cut off when a translation is longer."""

    role = StringProperty("body")
    grow = BooleanProperty(True)
    min_height = NumericProperty(0)

    def __init__(self, **kw: Any) -> None:
        role = kw.get("role", "body")
        kw.setdefault("font_size", THEME.font(role))
        kw.setdefault("halign", "left")
        kw.setdefault("valign", "middle")
        kw.setdefault("color", PALETTE.text)
        if "size_hint" not in kw:
            kw.setdefault("size_hint_y", None)
        super().__init__(**kw)
        self.bind(
            width=self._text_wrap,
            texture_size=self._text_grow,
            grow=self._text_grow,
            min_height=self._text_grow,
        )
        self._text_wrap()

    def _text_wrap(self, *_a: Any) -> None:
        self.text_size = (max(1.0, self.width), None)

    def _text_grow(self, *_a: Any) -> None:
        if self.grow:
            self.height = max(self.min_height, self.texture_size[1] + THEME.px(6))


def text(
    words: str,
    role: str = "body",
    *,
    color: RGBA | None = None,
    bold: bool = False,
    halign: str = "left",
    markup: bool = False,
    **kw: Any,
) -> Text:
    return Text(
        text=words,
        role=role,
        font_size=THEME.font(role),
        color=color or PALETTE.text,
        bold=bold,
        halign=halign,
        markup=markup,
        **kw,
    )


class Panel(BoxLayout):  # type: ignore[misc]
    """A rounded surface that groups related things; `edge` outlines it (e.g. gold for "now", orange for
    "look here"); an invisible edge is not drawn at all."""

    fill = ListProperty(list(PALETTE.surface))
    edge = ListProperty([0.0, 0.0, 0.0, 0.0])

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("orientation", "vertical")
        kw.setdefault("padding", THEME.pad)
        kw.setdefault("spacing", THEME.gap)
        super().__init__(**kw)
        with self.canvas.before:
            self._fill_colour = Color(*self.fill)
            self._rect = RoundedRectangle(pos=self.pos, size=self.size, radius=[THEME.radius])
        self._edge_group = InstructionGroup()
        self.canvas.before.add(self._edge_group)
        self.bind(
            pos=self._panel_place, size=self._panel_place, fill=self._panel_paint, edge=self._panel_place
        )

    def _panel_place(self, *_a: Any) -> None:
        self._rect.pos, self._rect.size = self.pos, self.size
        g = self._edge_group
        g.clear()
        if self.edge[3] > 0:
            g.add(Color(*self.edge))
            rect = (self.x + 1, self.y + 1, self.width - 2, self.height - 2, THEME.radius)
            g.add(Line(rounded_rectangle=rect, width=1.6))

    def _panel_paint(self, *_a: Any) -> None:
        self._fill_colour.rgba = self.fill


def panel(**kw: Any) -> Panel:
    """A panel that is as tall as its content (inside scrolling lists and side columns)."""
    kw.setdefault("size_hint_y", None)
    p = Panel(**kw)
    p.bind(minimum_height=p.setter("height"))
    return p


def row(height: float | None = None, **kw: Any) -> BoxLayout:
    kw.setdefault("spacing", THEME.gap)
    return BoxLayout(size_hint_y=None, height=height if height is not None else THEME.tap, **kw)


class Field(TextInput):  # type: ignore[misc]
    """A text field in the app's colours (no stock white box), with a visible edge and a gold edge when
    focused."""

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("multiline", False)
        kw.setdefault("write_tab", False)
        kw.setdefault("font_size", THEME.label)
        kw.setdefault("background_normal", "")
        kw.setdefault("background_active", "")
        kw.setdefault("background_color", PALETTE.field)
        kw.setdefault("foreground_color", PALETTE.text)
        kw.setdefault("hint_text_color", PALETTE.text_faint)
        kw.setdefault("cursor_color", PALETTE.accent)
        kw.setdefault("selection_color", (*PALETTE.accent[:3], 0.35))
        super().__init__(**kw)
        with self.canvas.after:
            self._edge_colour = Color(*PALETTE.field_edge)
            self._edge = Line(rectangle=(self.x, self.y, self.width, self.height), width=1.4)
        self.bind(
            pos=self._field_place,
            size=self._field_place,
            focus=self._field_focus,
            font_size=self._field_place,
        )
        self._field_place()

    def _field_place(self, *_a: Any) -> None:
        self._edge.rectangle = (self.x + 1, self.y + 1, self.width - 2, self.height - 2)
        pad_y = max(0.0, (self.height - self.line_height) / 2)
        self.padding = (THEME.px(10), pad_y, THEME.px(10), pad_y)

    def _field_focus(self, *_a: Any) -> None:
        self._edge_colour.rgba = PALETTE.accent if self.focus else PALETTE.field_edge


def fit_font(label: Label, size: float, smallest: float, lines: int = 1) -> None:
    """Give `label` the largest font from `size` down to `smallest` at which its text fits its box, wrapped
    when `lines` > 1 (a name in a narrow cell, a translation longer than the English)."""
    if label.width <= 1 or label.height <= 1:
        return
    fs = size
    while True:
        label.font_size = fs
        label.text_size = (label.width, None if lines > 1 else label.height)
        label.texture_update()
        w, h = label.texture_size
        if (w <= label.width + 0.5 and h <= label.height + 0.5) or fs <= smallest:
            break
        fs = max(smallest, fs * 0.9)
    label.text_size = (label.width, label.height)


def words_fit(label: Label) -> bool:
    """Every word of the label's text fits its width on one line (else Kivy breaks a word in two)."""
    core = label._label  # the label's own renderer: its font, size and weight
    return all(core.get_extents(word)[0] <= label.width + 0.5 for word in str(label.text).split())

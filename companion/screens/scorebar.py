"""The score bar above every game screen: each player's shape mark, name and score against the target in type
big enough to read across the table, a bar towards the target, whose turn it is, and their artefacts as named
icons (face-up, or struck through while destroyed). A tap on a player shows everything about them."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, Rectangle, RoundedRectangle
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView

from companion.controls import Panel, button, fit_font, text, words_fit
from companion.i18n import Translator
from companion.services import ArtefactView, PlayerView, TableSnapshot
from companion.theme import PALETTE, THEME, player_rgba
from companion.widgets import ArtefactIcon, ShapeMark


class PlayerCell(ButtonBehavior, Panel):  # type: ignore[misc]
    """One player in the bar; built once per set of players, then only updated."""

    def __init__(self, player: PlayerView, **kw: Any) -> None:
        super().__init__(
            orientation="vertical", padding=(THEME.px(10), THEME.px(6)), spacing=THEME.px(2), **kw
        )
        self.colour = player.colour
        with self.canvas.before:
            self._stripe_colour = Color(*player_rgba(player.colour))
            self._stripe = RoundedRectangle(radius=[THEME.radius, 0, 0, THEME.radius])
            self._track_colour = Color(*PALETTE.line)
            self._track = Rectangle()
            self._fill_colour = Color(*player_rgba(player.colour))
            self._fill = Rectangle()
        self.fraction = 0.0
        top = BoxLayout(spacing=THEME.px(8))
        self.mark = ShapeMark(colour=player.colour.value, size_hint_x=None, width=THEME.px(34))
        self.name = Label(
            font_size=THEME.label,
            bold=True,
            halign="left",
            valign="middle",
            color=PALETTE.text,
            shorten=False,
        )
        self.score = Label(
            markup=True, font_size=THEME.score, bold=True, size_hint_x=None, halign="right", valign="middle"
        )
        self.score.bind(texture_size=lambda w, ts: setattr(w, "width", ts[0] + THEME.px(4)))
        top.add_widget(self.mark)
        top.add_widget(self.name)
        top.add_widget(self.score)
        self.add_widget(top)
        self.arts = BoxLayout(size_hint_y=None, height=THEME.px(30), spacing=THEME.px(6))
        self.add_widget(self.arts)
        self.art_widgets: list[tuple[BoxLayout, ArtefactIcon, Label]] = []
        for _a in player.artefacts:
            pair = BoxLayout(spacing=THEME.px(3))
            icon = ArtefactIcon(size_hint_x=None, width=THEME.px(22))
            words = Label(font_size=THEME.caption, halign="left", valign="middle", color=PALETTE.text_dim)
            pair.add_widget(icon)
            pair.add_widget(words)
            self.arts.add_widget(pair)
            self.art_widgets.append((pair, icon, words))
        self._names: list[str] = [a.name for a in player.artefacts]
        self._fitted: tuple[Any, ...] = ()
        self._fit = Clock.create_trigger(lambda _dt: self._fit_texts(), -1)
        self.bind(pos=self._place_bars, size=self._place_bars)
        self.name.bind(width=self._fit)  # the score's width moves the name's room

    def _place_bars(self, *_a: Any) -> None:
        self._stripe.pos = (self.x, self.y)
        self._stripe.size = (THEME.px(6), self.height)
        bar_h = THEME.px(4)
        self._track.pos = (self.x + THEME.px(10), self.y + THEME.px(3))
        self._track.size = (self.width - THEME.px(20), bar_h)
        self._fill.pos = self._track.pos
        self._fill.size = ((self.width - THEME.px(20)) * self.fraction, bar_h)
        self._fit()

    def _fit_texts(self) -> None:
        """Names as large as their room allows; an artefact name whose longest word cannot fit even small is
        left out (its icon stays; a tap on the player shows every name). Only when sizes or words changed."""
        widths = (self.name.width, *(pair.width for pair, _i, _w in self.art_widgets))
        key = (tuple(round(w) for w in widths), self.name.text, tuple(self._names))
        if key == self._fitted or self.width <= 1:
            return
        self._fitted = key
        fit_font(self.name, THEME.label, THEME.px(13))
        for (pair, _icon, _words), name in zip(self.art_widgets, self._names, strict=True):
            longest = max((len(w) for w in name.split()), default=1)
            pair.size_hint_x = max(6, longest)  # room in proportion to the longest word
        self.arts.do_layout()
        for (pair, _icon, words), name in zip(self.art_widgets, self._names, strict=True):
            pair.do_layout()
            words.text = name
            fit_font(words, THEME.caption, THEME.px(10.5), lines=2)
            w, h = words.texture_size
            if w > words.width + 1 or h > words.height + 1 or not words_fit(words):
                words.text = ""

    def update(self, p: PlayerView, target: int, current: bool, tr: Translator, compact: bool) -> None:
        """`compact`: a narrow cell (five or six players) shows the score alone (the bar under it shows how
        far to the target) and leaves the name room."""
        self.name.text = p.name
        dim = "".join(f"{int(c * 255):02x}" for c in PALETTE.text_dim[:3])
        small = int(THEME.body)
        of = "" if compact else f"[size={small}][color={dim}] / {target}[/color][/size]"
        self.score.text = f"{p.score}{of}"
        self.fraction = min(1.0, p.score / target) if target else 0.0
        self.fill = list(PALETTE.surface_hi if current else PALETTE.surface)
        self.edge = list(PALETTE.accent if current else (0, 0, 0, 0))
        self._names = [a.name for a in p.artefacts]
        for (_pair, icon, words), a in zip(self.art_widgets, p.artefacts, strict=True):
            icon.kind, icon.up = a.type, a.face_up
            words.color = PALETTE.text_dim if a.face_up else PALETTE.text_faint
        self._place_bars()


class ScoreBar(BoxLayout):  # type: ignore[misc]
    """Every player's score against the target. Widgets are built once per set of players (and size), then
    only updated: this bar redraws after every move."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._key: tuple[Any, ...] = ()
        self._cells: list[PlayerCell] = []
        self._snap: TableSnapshot | None = None
        self._tr: Translator | None = None

    def update(self, snap: TableSnapshot | None, tr: Translator) -> None:
        self._snap, self._tr = snap, tr
        if snap is None:
            self.clear_widgets()
            self._key = ()
            return
        key = (THEME.scale, tuple((p.colour, len(p.artefacts)) for p in snap.players))
        if key != self._key:
            self._build(snap)
            self._key = key
        compact = len(snap.players) >= 5
        for p, cell in zip(snap.players, self._cells, strict=True):
            cell.update(p, snap.target, p.colour is snap.current, tr, compact)

    def _build(self, snap: TableSnapshot) -> None:
        self.clear_widgets()
        self.spacing = THEME.px(6)
        self.padding = (THEME.px(6), THEME.px(4))
        self._cells = []
        for p in snap.players:
            cell = PlayerCell(p)
            cell.bind(on_release=lambda c: self.show_player(c.colour))
            self._cells.append(cell)
            self.add_widget(cell)

    def show_player(self, colour: Any) -> ModalView | None:
        """Everything about one player: score, knights, cards in hand, artefacts by name and state."""
        snap, tr = self._snap, self._tr
        if snap is None or tr is None:
            return None
        p = snap.player(colour)
        view = ModalView(
            size_hint=(0.5, None), background_color=(0, 0, 0, 0.6), overlay_color=(0, 0, 0, 0.55)
        )
        box = Panel(size_hint_y=None, padding=THEME.pad_big, spacing=THEME.gap, edge=list(PALETTE.line))
        box.bind(minimum_height=box.setter("height"))
        head = BoxLayout(size_hint_y=None, height=THEME.tap, spacing=THEME.gap)
        head.add_widget(ShapeMark(colour=p.colour.value, size_hint_x=None, width=THEME.tap))
        head.add_widget(text(p.name, "title", bold=True, size_hint_y=1))
        box.add_widget(head)
        facts = [
            tr("{score} of {target} victory points").format(score=p.score, target=snap.target),
            tr("{n} knights in the castle").format(n=p.castle_knights),
            tr("{n} dice in reserve").format(n=p.reserve_dice),
        ]
        if snap.hands_in_app and p.hand_size is not None:
            facts.append(tr("{n} cards in hand").format(n=p.hand_size))
        for f in facts:
            box.add_widget(text(f, "body"))
        for a in p.artefacts:
            box.add_widget(_artefact_row(a, tr))
        box.add_widget(button(tr("Close"), view.dismiss, role="quiet"))
        view.add_widget(box)
        view.height = box.height
        box.bind(height=lambda _w, h: setattr(view, "height", h))
        view.open(animation=False)
        return view


def _artefact_row(a: ArtefactView, tr: Translator) -> BoxLayout:
    line = BoxLayout(size_hint_y=None, height=THEME.row, spacing=THEME.gap)
    line.add_widget(ArtefactIcon(kind=a.type, up=a.face_up, size_hint_x=None, width=THEME.px(36)))
    state = tr("face up") if a.face_up else tr("destroyed")
    line.add_widget(text(f"{a.name} · {state}", "body", size_hint_y=1))
    return line

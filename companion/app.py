"""The Kivy app: a root layout (score bar always on top, screens, a navigation bar) and one thin Screen class
per `.kv` file. Screens only draw presenters and forward taps; services arrive in `AppServices`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.base import ExceptionHandler, ExceptionManager
from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.logger import Logger
from kivy.metrics import dp, sp
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
from kivy.uix.textinput import TextInput

from companion.fonts import register_default_font
from companion.i18n import Translator
from companion.kivytune import freeze_heap, fresh_label_textures
from companion.presenters.base import NAV, NAV_TITLES, RGB
from companion.presenters.battle import BattlePresenter
from companion.presenters.boxsetup import BoxSetupPresenter
from companion.presenters.camera import CameraPresenter
from companion.presenters.dice import DicePresenter
from companion.presenters.endgame import EndGamePresenter
from companion.presenters.history import HistoryPresenter
from companion.presenters.newgame import GameFactory, NewGamePresenter
from companion.presenters.referee import RefereePresenter
from companion.presenters.settings import SettingsPresenter
from companion.presenters.table import PendingState, TablePresenter
from companion.presenters.turn import GROUP_TITLES, TurnPresenter
from companion.services import GameSession, Option, OptionKind, ReadingFeed, Roller, Storage, UiClock
from companion.widgets import Drawn, ShapeMark
from engine.colours import Colour

KV_DIR = Path(__file__).resolve().parent / "kv"
SCREENS = (
    "start",
    "boxsetup",
    "newgame",
    "table",
    "battle",
    "referee",
    "history",
    "camera",
    "dice",
    "endgame",
    "settings",
)


@dataclass
class AppServices:
    storage: Storage
    factory: GameFactory
    roller: Roller
    feed: ReadingFeed | None = None
    clock: UiClock | None = None
    tr: Translator = field(default_factory=Translator)
    auto_confirm: float | None = None  # the demo confirms camera moves by itself after this pause
    box: Any = None  # the box-setup service (catalogue, sticker sheet, calibration)
    keep_playing: bool = True  # a failing tap is logged and shown instead of closing the app (tests: False)


def run_in_thread(job: Callable[[], None]) -> None:
    threading.Thread(target=job, name="seneschal-worker", daemon=True).start()


class KeepPlaying(ExceptionHandler):  # type: ignore[misc]
    """A bug in one tap must not end the evening: log it, say so on screen, keep the game (it is stored)."""

    def __init__(self, app: SeneschalApp) -> None:
        super().__init__()
        self.app = app

    def handle_exception(self, exception: BaseException) -> Any:
        if not isinstance(exception, Exception):  # KeyboardInterrupt, SystemExit: really stop
            return ExceptionManager.RAISE
        Logger.exception("Seneschal: a tap failed; the game goes on")
        self.app.show_problem(f"{type(exception).__name__}: {exception}")
        return ExceptionManager.PASS


class KivyClock:
    """The UiClock the app uses: Kivy's Clock (safe to call from worker threads)."""

    def schedule_once(self, callback: Callable[[float], Any], timeout: float = 0) -> Any:
        return Clock.schedule_once(callback, timeout)


# ------------------------------------------------------------------------------------------- small widgets


class BigButton(Button):  # type: ignore[misc]
    """At least 48 dp high; greyed (but still tappable) when the engine says no, so it can explain why."""

    greyed = ObjectProperty(False)


def big_button(
    text: str,
    on_tap: Callable[[], Any],
    greyed: bool = False,
    height: float = 56,
    colour: Colour | None = None,
) -> BigButton:
    b = BigButton(
        text=text,
        size_hint_y=None,
        height=dp(height),
        greyed=greyed,
        font_size=sp(18),
        halign="center",
        valign="middle",
    )
    b.bind(size=lambda w, s: setattr(w, "text_size", (s[0] - dp(8), None)))
    if colour is not None and not greyed:
        r, g, bl = RGB[colour]
        b.background_normal = ""
        b.background_color = (r * 0.8, g * 0.8, bl * 0.8, 1)
        b.color = (0, 0, 0, 1) if colour in (Colour.YELLOW, Colour.WHITE) else (1, 1, 1, 1)
    b.bind(on_release=lambda *_: on_tap())
    return b


def text_label(
    text: str,
    size: float = 18,
    bold: bool = False,
    height: float | None = None,
    color: tuple[float, float, float, float] = (1, 1, 1, 1),
) -> Label:
    lab = Label(
        text=text,
        font_size=sp(size),
        bold=bold,
        color=color,
        halign="left",
        valign="middle",
        size_hint_y=None,
        height=dp(height) if height else dp(size * 2),
    )
    lab.bind(size=lambda w, s: setattr(w, "text_size", (s[0], None)))
    if height is None:
        lab.bind(texture_size=lambda w, ts: setattr(w, "height", max(dp(size * 2), ts[1] + dp(8))))
    return lab


class ArtefactChip(Drawn):
    """A crown / sceptre / orb: solid when face-up, struck through and dim when destroyed."""

    kind = StringProperty("crown")
    letter = StringProperty("C")  # the type's initial in the active language
    state_text = StringProperty("up")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(kind=self._trigger, letter=self._trigger, state_text=self._trigger)

    def redraw(self, *_a: Any) -> None:
        from companion.widgets import text_rect

        self.canvas.clear()
        up = self.state_text == "up"
        x, y, w, h = self.x, self.y, self.width, self.height
        self.canvas.add(Color(0.95, 0.82, 0.35) if up else Color(0.35, 0.35, 0.35))
        self.canvas.add(Rectangle(pos=(x, y), size=(w, h)))
        for ins in text_rect(self.letter, x + w / 2, y + h / 2, h * 0.6, (0, 0, 0), bold=True):
            self.canvas.add(ins)
        if not up:
            self.canvas.add(Color(0.8, 0.1, 0.1))
            self.canvas.add(Line(points=[x, y, x + w, y + h], width=2))


class ScoreBar(BoxLayout):  # type: ignore[misc]
    """Every player's score against the target, their shape mark, whose turn it is, and their artefacts.
    Widgets are built once per set of players and then only updated (this bar redraws after every move)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._key: tuple[Any, ...] = ()
        self._cells: list[tuple[Any, Any, Any, list[Any]]] = []  # (box colour, label, mark, chips)

    def update(self, snap: Any, tr: Translator) -> None:
        if snap is None:
            self.clear_widgets()
            self._key = ()
            return
        key = tuple((p.colour, len(p.artefacts)) for p in snap.players)
        if key != self._key:
            self._build(snap)
            self._key = key
        for p, (bg, label, _mark, chips) in zip(snap.players, self._cells, strict=True):
            current = p.colour is snap.current
            bg.rgb = (0.45, 0.36, 0.15) if current else (0.25, 0.22, 0.18)
            label.text = f"[b]{p.name}[/b]\n{p.score} / {snap.target}"
            for chip, a in zip(chips, p.artefacts, strict=True):
                chip.kind = a.type
                chip.letter = tr.artefact_initial(a.type)
                chip.state_text = "up" if a.face_up else "down"

    def _build(self, snap: Any) -> None:
        self.clear_widgets()
        self._cells = []
        for p in snap.players:
            box = BoxLayout(orientation="horizontal", spacing=dp(4), padding=(dp(6), dp(4)))
            with box.canvas.before:
                bg = Color(0.25, 0.22, 0.18)
                rect = Rectangle(pos=box.pos, size=box.size)
            box.bind(
                pos=lambda w, v, r=rect: setattr(r, "pos", v), size=lambda w, v, r=rect: setattr(r, "size", v)
            )
            mark = ShapeMark(colour=p.colour.value, size_hint_x=None, width=dp(36))
            box.add_widget(mark)
            label = Label(text="", markup=True, font_size=sp(17), halign="left", size_hint_x=1)
            box.add_widget(label)
            chips = []
            for a in p.artefacts:
                chip = ArtefactChip(
                    kind=a.type,
                    state_text="up" if a.face_up else "down",
                    size_hint=(None, None),
                    size=(dp(22), dp(28)),
                    pos_hint={"center_y": 0.5},
                )
                chips.append(chip)
                box.add_widget(chip)
            self._cells.append((bg, label, mark, chips))
            self.add_widget(box)


# ------------------------------------------------------------------------------------------------ screens


class BaseScreen(Screen):  # type: ignore[misc]
    app_ref = ObjectProperty(None, allownone=True)

    def changed_key(self, name: str, key: Any) -> bool:
        """True (and remembered) when what a container shows changed. Rebuilding buttons renders every text
        again, which is what makes a frame slow; most refreshes change nothing in most containers."""
        keys: dict[str, Any] = self.__dict__.setdefault("_shown_keys", {})
        if keys.get(name) == key:
            return False
        keys[name] = key
        return True

    def refresh(self) -> None:
        """Redraw from the presenters (called after every change they announce)."""


class StartScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        box = self.ids.resume_list
        box.clear_widgets()
        games = app.services.storage.unfinished()
        tr = app.tr
        self.ids.resume_title.text = tr("Resume where you left off") if games else tr("No unfinished game")
        for g in games[:4]:
            box.add_widget(
                big_button(
                    tr("Resume: {players} · {n} moves · {started}").format(
                        players=", ".join(g.players), n=g.moves, started=g.started[:16].replace("T", " ")
                    ),
                    partial(app.resume, g.id),
                    height=64,
                )
            )


class BoxSetupScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        p: BoxSetupPresenter | None = app.box_presenter
        grid = self.ids.rows
        grid.clear_widgets()
        if p is None:
            return
        tr = app.tr
        self.ids.status.text = p.status
        if p.calibrating:
            self._calibration(p, grid)
            return
        for row in p.rows():
            line = BoxLayout(size_hint_y=None, height=dp(52), spacing=dp(6))
            guess = "  (?)" if row.guessed else ""
            line.add_widget(
                Label(text=f"{row.id}  {row.name}{guess}", font_size=sp(16), halign="left", size_hint_x=0.5)
            )
            for field_name, value in (("value", row.value), ("capacity", row.capacity)):
                line.add_widget(big_button("-", partial(p.adjust, row.id, field_name, -1), height=48))
                line.add_widget(Label(text=f"{tr(field_name)} {value}", font_size=sp(16)))
                line.add_widget(big_button("+", partial(p.adjust, row.id, field_name, +1), height=48))
            grid.add_widget(line)


    def _calibration(self, p: BoxSetupPresenter, grid: Any) -> None:
        """Dice colours: one row per colour (measured now / saved / default), Measure, Save, back."""
        tr = self.app_ref.tr
        states = {"measured": tr("measured"), "saved": tr("saved"), "default": tr("default colour")}
        grid.add_widget(
            text_label(
                tr("Each player: put one of your dice on your own castle, then tap Measure."), 18, True
            )
        )
        for colour, state in p.calibration_rows():
            line = BoxLayout(size_hint_y=None, height=dp(52), spacing=dp(8))
            line.add_widget(ShapeMark(colour=colour, size_hint_x=None, width=dp(44)))
            line.add_widget(Label(text=tr(colour.capitalize()), font_size=sp(18), halign="left"))
            line.add_widget(Label(text=states[state], font_size=sp(18)))
            grid.add_widget(line)
        row = BoxLayout(size_hint_y=None, height=dp(64), spacing=dp(8))
        row.add_widget(big_button(tr("Measuring...") if p.measuring else tr("Measure"), p.measure, height=64))
        row.add_widget(big_button(tr("Save colours"), p.save_calibration, height=64))
        row.add_widget(big_button(tr("Tiles"), p.stop_calibration, height=64))
        grid.add_widget(row)


class NewGameScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        p: NewGamePresenter = app.newgame
        tr = app.tr
        rows = self.ids.players
        # Rows are rebuilt only when players or castles change, never while a name is being typed.
        key = (app.lang, tuple(pl.colour for pl in p.players), p.first)
        if self.changed_key("players", key):
            rows.clear_widgets()
            for pl in p.players:
                line = BoxLayout(size_hint_y=None, height=dp(60), spacing=dp(8))
                line.add_widget(ShapeMark(colour=pl.colour.value, size_hint_x=None, width=dp(48)))
                line.add_widget(
                    big_button(
                        tr(pl.colour.value.capitalize()), partial(p.cycle_colour, pl.colour), colour=pl.colour
                    )
                )
                name = TextInput(
                    text=pl.name, multiline=False, font_size=sp(20), write_tab=False, size_hint_x=1.2
                )
                name.bind(text=partial(_renamed, p, pl.colour))
                line.add_widget(name)
                line.add_widget(
                    Label(text=tr("first") if p.first is pl.colour else "", font_size=sp(16), size_hint_x=0.4)
                )
                line.add_widget(
                    big_button(tr("Remove"), partial(p.remove_player, pl.colour), greyed=len(p.players) <= 2)
                )
                rows.add_widget(line)
        opts = self.ids.variants
        opts.clear_widgets()
        from companion.presenters.newgame import VARIANTS, MapSource

        for v in VARIANTS:
            on = v in p.variants
            opts.add_widget(
                big_button(
                    ("[x] " if on else "[  ] ") + tr(v.replace("_", " ").capitalize()),
                    partial(p.toggle_variant, v),
                )
            )
        maps = self.ids.maps
        maps.clear_widgets()
        for src, title in (
            (MapSource.DEFAULT, "Default map"),
            (MapSource.CAMERA, "Read from camera"),
            (MapSource.SAVED, "Saved map"),
        ):
            maps.add_widget(
                big_button(("> " if p.map_source is src else "") + tr(title), partial(p.set_map_source, src))
            )
        self.ids.problems.text = "\n".join([tr(x) for x in p.problems] + p.refused)


def _renamed(p: NewGamePresenter, colour: Any, _widget: Any, text: str) -> None:
    p.rename(colour, text)


class TableScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        t: TablePresenter | None = app.table
        if t is None:
            return
        self.ids.hexmap.snapshot = t.snapshot
        self.ids.hexmap.marks = t.highlighted_tiles()
        self.ids.hexmap.discrepancies = list(t.discrepancies())
        self.ids.turn_label.text = t.turn_text()
        self._stepper()
        box = self.ids.proposal
        if self.changed_key("proposal", (t.pending, t.proposal_text(), app.lang, tuple(t.setup_lines()))):
            self._proposal(t, box)
        self._options()

    def _proposal(self, t: TablePresenter, box: Any) -> None:
        app = self.app_ref
        tr = app.tr
        box.clear_widgets()
        if t.pending is PendingState.PROPOSAL:
            box.add_widget(text_label(tr("Camera saw: {move}").format(move=t.proposal_text()), 18, True))
            row = BoxLayout(size_hint_y=None, height=dp(64), spacing=dp(8))
            row.add_widget(big_button(tr("Confirm"), t.confirm, height=64))
            row.add_widget(big_button(tr("Not yet"), t.dismiss_proposal, height=64))
            box.add_widget(row)
        elif t.pending in (PendingState.DISCREPANCY, PendingState.WAITING_FOR_TABLE):
            box.add_widget(text_label(t.proposal_text(), 18, True, color=(1, 0.6, 0.3, 1)))
            row = BoxLayout(size_hint_y=None, height=dp(64), spacing=dp(8))
            row.add_widget(big_button(tr("Fix the table"), t.fix_table, height=64))
            row.add_widget(big_button(tr("The camera is wrong"), t.camera_wrong, height=64))
            row.add_widget(big_button(tr("Rewind"), lambda: app.go("history"), height=64))
            box.add_widget(row)
        elif t.setup_lines():
            box.add_widget(text_label(tr("Set up the table as the game has it:"), 18, True))
            for line in t.setup_lines():
                box.add_widget(text_label(line, 15))
            box.add_widget(big_button(tr("The table is set up"), t.dismiss_setup, height=56))

    def _stepper(self) -> None:
        """Nine buttons built once; each refresh only recolours them."""
        app = self.app_ref
        stepper = self.ids.stepper
        if app.turn is None:
            stepper.clear_widgets()
            return
        steps = app.turn.steps()
        if len(stepper.children) != len(steps):
            stepper.clear_widgets()
            for s in steps:
                stepper.add_widget(
                    Button(text=str(s.number), font_size=sp(20), background_normal="", size_hint_x=1)
                )
        colours = {"done": (0.3, 0.5, 0.3, 1), "current": (0.9, 0.7, 0.2, 1), "todo": (0.3, 0.3, 0.3, 1)}
        for b, s in zip(reversed(stepper.children), steps, strict=True):
            b.background_color = colours[s.state]
            b.color = (0, 0, 0, 1) if s.state == "current" else (1, 1, 1, 1)
            b.bold = s.state == "current"

    def _editor(self, p: TurnPresenter, opts: Any) -> None:
        _editor_rows(self, p, opts)

    def _options(self) -> None:
        app = self.app_ref
        p: TurnPresenter | None = app.turn
        groups = self.ids.groups
        opts = self.ids.options
        if p is None:
            groups.clear_widgets()
            opts.clear_widgets()
            return
        tr = app.tr
        self.ids.explanation.text = _verdict_text(p.explanation)
        all_groups = p.groups()
        key = (
            app.lang,
            p.selected_group,
            p.selected_target,
            tuple(p.editing.items()) if p.editing is not None else None,
            tuple((g.kind, g.enabled, tuple((o.key, o.enabled) for o in g.options)) for g in all_groups),
            tuple(o.key for o in p.quick()),
        )
        if not self.changed_key("options", key):
            return
        groups.clear_widgets()
        opts.clear_widgets()
        for o in p.quick():  # one tap, no group to open first
            groups.add_widget(_option_button(o, p.tap, tr))
        for g in all_groups:
            sel = "> " if p.selected_group is g.kind else ""
            groups.add_widget(
                big_button(
                    sel + g.title,
                    partial(_toggle_group, p, g.kind),
                    greyed=not g.enabled,
                )
            )
        if p.selected_group is None:
            return
        if p.editing is not None:
            self._editor(p, opts)
            return
        choices = p.target_choices()
        if choices:
            for target, name, enabled, rep in choices[:30]:
                opts.add_widget(big_button(name, partial(p.tap_target, target, rep), greyed=not enabled))
            return
        shown = p.visible_options()
        for o in shown[:24]:
            opts.add_widget(_option_button(o, p.tap, tr))


def _editor_rows(screen: TableScreen, p: TurnPresenter, opts: Any) -> None:
    """Redistribution: one row per place with - and +, what is left to place, the engine's verdict, Done."""
    tr = screen.app_ref.tr
    for loc, name, n, before, supplied in p.editor_rows():
        mark = "" if supplied else "  (" + tr("no supply") + ")"
        change = f"  ({n - before:+d})" if n != before else ""
        opts.add_widget(text_label(f"{name}{mark}", 16, height=56))
        row = BoxLayout(size_hint_y=None, height=dp(56), spacing=dp(6))
        row.add_widget(big_button("-", partial(p.adjust, loc, -1), height=56))
        row.add_widget(Label(text=f"{n}{change}", font_size=sp(22), bold=True))
        row.add_widget(big_button("+", partial(p.adjust, loc, +1), height=56))
        opts.add_widget(row)
    left = p.moved()
    verdict = p.redistribution_verdict()
    if left > 0:
        status = tr("{n} knights to place").format(n=left)
    elif left < 0:
        status = tr("{n} knights too many").format(n=-left)
    else:
        status = verdict.sentence if not verdict.ok else tr("Allowed.")
    opts.add_widget(text_label(status, 16, color=(1, 0.75, 0.4, 1) if not verdict.ok else (0.6, 1, 0.6, 1)))
    opts.add_widget(big_button(tr("Done"), p.apply_redistribution, greyed=not verdict.ok))


def _verdict_text(expl: Any) -> str:
    if expl is None:
        return ""
    return f"{expl.sentence}  [{expl.citation}]" if expl.citation else str(expl.sentence)


def _toggle_group(p: TurnPresenter, kind: Any) -> None:
    p.select_group(None if p.selected_group is kind else kind)


def _option_button(o: Option, tap: Callable[[Option], Any], tr: Translator) -> BigButton:
    return big_button(
        o.label,
        partial(tap, o),
        greyed=not o.enabled,
        colour=o.actor if o.enabled and o.actor is not None else None,
    )


class BattleScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        b: BattlePresenter | None = app.battle
        tr = app.tr
        opts = self.ids.options
        stages = self.ids.stages
        if b is None or b.battle is None:
            opts.clear_widgets()
            self.changed_key("options", None)
            self.ids.title.text = tr("No battle")
            self.ids.attacker.text = self.ids.defender.text = ""
            self.ids.attacker_score.text = self.ids.defender_score.text = ""
            self.ids.prompt.text = ""
            self.ids.explanation.text = ""
            return
        v = b.battle
        snap = app.session.snapshot()
        an, dn = snap.player(v.attacker).name, snap.player(v.defender).name
        self.ids.title.text = tr("Battle for {territory}").format(territory=v.territory_name)
        self.ids.attacker_mark.colour = v.attacker.value
        self.ids.defender_mark.colour = v.defender.value
        self.ids.attacker.text, self.ids.attacker_score.text = an, str(v.attacker_score)
        self.ids.defender.text, self.ids.defender_score.text = dn, str(v.defender_score)
        cards = " | ".join(f"{snap.player(c).name}: {s}" for c, s in b.conflict_status())
        notes = list(v.notes) + ([tr("No support cards here (mountains)")] if v.support_blocked else [])
        self.ids.notes.text = "  ·  ".join([*notes, cards] if v.stage >= 4 else notes)
        items = b.stages()
        if self.changed_key("stages", (app.lang, len(items))):
            stages.clear_widgets()
            for item in items:
                lab = Button(
                    text=f"{item.number}. {item.title}",
                    font_size=sp(15),
                    background_normal="",
                    halign="left",
                    size_hint_y=None,
                    height=dp(48),
                )
                lab.bind(size=lambda w, sz: setattr(w, "text_size", (sz[0] - dp(10), None)))
                stages.add_widget(lab)
        colours = {"done": (0.3, 0.5, 0.3, 1), "current": (0.9, 0.7, 0.2, 1), "todo": (0.28, 0.28, 0.28, 1)}
        for lab, item in zip(reversed(stages.children), items, strict=True):
            lab.background_color = colours[item.state]
            lab.color = (0, 0, 0, 1) if item.state == "current" else (1, 1, 1, 1)
        who = b.prompted()
        self.ids.prompt.text = (
            tr("{name}: your choice (others look away)").format(name=snap.player(who).name)
            if who is not None and any(o.kind is OptionKind.CONFLICT for o in b.options_for_prompted())
            else tr("{name}, your move").format(name=snap.player(who).name)
            if who is not None
            else ""
        )
        self.ids.explanation.text = _verdict_text(b.explanation)
        if b.rolling:
            self.ids.prompt.text = tr("Rolling...")
        shown = b.options_for_prompted()[:16]
        key = (app.lang, b.rolling, b.roll_problem, tuple((o.key, o.enabled) for o in shown))
        if not self.changed_key("options", key):
            return
        opts.clear_widgets()
        for o in shown:
            label = o.label
            opts.add_widget(
                big_button(
                    label,
                    partial(b.tap, o),
                    greyed=not o.enabled,
                    height=64,
                    colour=o.actor if o.enabled else None,
                )
            )
            if o.kind is OptionKind.ROLL and o.enabled and b.roll_problem:
                # The roller failed or may show dice that do not count: roll again above, or here.
                opts.add_widget(big_button(tr("Roll on the tablet"), partial(b.screen_roll, o), height=64))
            if o.kind is OptionKind.ROLL and o.enabled and (o.value or 1) == 1:
                # Rolled with a real die at the table: tap the number it shows.
                for pips in range(1, 7):
                    opts.add_widget(
                        big_button(
                            tr("Die shows {n}").format(n=pips), partial(b.enter_roll, o, (pips,)), height=56
                        )
                    )


class RefereeScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        r: RefereePresenter | None = app.referee
        topics = self.ids.topics
        topics.clear_widgets()
        secs = self.ids.sections
        secs.clear_widgets()
        if r is None:
            return
        tr = app.tr
        for o in r.topics[:40]:
            title = GROUP_TITLES.get(o.kind)
            label = f"{tr(title)}: {o.label}" if title and o.kind is not OptionKind.END_STEP else o.label
            topics.add_widget(big_button(label, partial(r.ask, o), greyed=not o.enabled))
        v = r.verdict
        if v is None:
            self.ids.verdict.text = tr("Tap an action or a question to get the ruling.")
        else:
            facts = "\n".join(f"- {f}" for f in v.facts)
            head = tr("Allowed.") if v.ok else tr("Not allowed.")
            self.ids.verdict.text = f"[b]{head}[/b] {v.sentence}\n[i]{v.citation}[/i]\n{facts}"
        shown = r.section
        if shown is None:
            shown = r.cited_section()
        for s in r.sections():
            secs.add_widget(big_button(f"{tr(s.title)} · p. {s.page}", partial(r.open_section, s), height=52))
        self.ids.section_text.text = (
            f"[b]{tr(shown.title)}[/b] (p. {shown.page})\n{tr(shown.summary)}" if shown is not None else ""
        )


class HistoryScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        h: HistoryPresenter | None = app.history
        box = self.ids.lines
        box.clear_widgets()
        if h is None:
            return
        tr = app.tr
        for line in reversed(h.lines[-60:]):
            row = BoxLayout(size_hint_y=None, height=dp(52), spacing=dp(6))
            if line.actor is not None:
                row.add_widget(ShapeMark(colour=line.actor.value, size_hint_x=None, width=dp(36)))
            lab = Label(text=f"{line.index + 1}. {line.text}", font_size=sp(16), halign="left")
            lab.bind(size=lambda w, sz: setattr(w, "text_size", (sz[0], None)))
            row.add_widget(lab)
            row.add_widget(big_button(tr("Back to here"), partial(self._ask, line), height=48))
            row.children[0].size_hint_x = None
            row.children[0].width = dp(150)
            box.add_widget(row)
        asking = h.confirming is not None
        self.ids.confirm_box.opacity = 1 if asking else 0
        self.ids.confirm_box.disabled = not asking
        self.ids.confirm_box.height = dp(64) if asking else 0

    def _ask(self, line: Any) -> None:
        self.ids.question.text = self.app_ref.history.ask_rewind(line)


class CameraScreen(BaseScreen):
    """The live preview refreshes twice a second while the screen is shown (frames come from the feed)."""

    _ticker: Any = None

    def on_enter(self, *_a: Any) -> None:
        self._ticker = Clock.schedule_interval(lambda _dt: self.refresh(), 0.5)

    def on_leave(self, *_a: Any) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def refresh(self) -> None:
        app = self.app_ref
        c: CameraPresenter | None = app.camera
        if c is None:
            return
        self.ids.status.text = f"{app.tr('Camera')}: {c.status.value} · {c.status_text} · {c.readings}"
        frame = c.preview()
        if frame is not None:
            show_frame(self.ids.preview, frame)


def show_frame(image_widget: Any, frame: Any) -> None:
    """Blit a BGR uint8 frame into an Image widget (flipped: Kivy textures start at the bottom row)."""
    h, w = frame.shape[:2]
    tex = image_widget.texture
    if tex is None or tuple(tex.size) != (w, h):
        tex = Texture.create(size=(w, h), colorfmt="bgr")
        tex.flip_vertical()
    tex.blit_buffer(frame.tobytes(), colorfmt="bgr", bufferfmt="ubyte")
    image_widget.texture = tex
    image_widget.canvas.ask_update()


class DiceScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        d: DicePresenter | None = app.dice
        if d is None:
            return
        tr = app.tr
        self.ids.status.text = f"{tr('Dice roller')}: {tr(d.status.value)} · {d.status_text}" + (
            f"\n{d.error}" if d.error else ""
        )
        box = self.ids.rolls
        box.clear_widgets()
        for r in d.rolls:
            box.add_widget(text_label(f"{'  '.join(str(v) for v in r.values)}    ({r.source})", 22, True))


class EndGameScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        e: EndGamePresenter | None = app.endgame
        if e is None:
            return
        tr = app.tr
        names = ", ".join(e.winners()) or "-"
        self.ids.winner.text = tr("Winner: {names}").format(names=names)
        self.ids.chart.target = app.session.snapshot().target
        self.ids.chart.curves = e.curves()
        box = self.ids.records
        box.clear_widgets()
        for rec in e.save():
            box.add_widget(
                text_label(
                    tr("{name}: {games} games, {wins} wins, {avg:.1f} points on average").format(
                        name=rec.name, games=rec.games, wins=rec.wins, avg=rec.average_points
                    ),
                    17,
                )
            )


class SettingsScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        s: SettingsPresenter = app.settings
        box = self.ids.languages
        box.clear_widgets()
        for code, name in s.languages():
            box.add_widget(
                big_button(
                    ("> " if code == app.tr.lang else "") + name,
                    partial(app.set_language, code),
                    height=64,
                )
            )


SCREEN_CLASSES: dict[str, type[BaseScreen]] = {
    "start": StartScreen,
    "boxsetup": BoxSetupScreen,
    "newgame": NewGameScreen,
    "table": TableScreen,
    "battle": BattleScreen,
    "referee": RefereeScreen,
    "history": HistoryScreen,
    "camera": CameraScreen,
    "dice": DiceScreen,
    "endgame": EndGameScreen,
    "settings": SettingsScreen,
}


class Root(BoxLayout):  # type: ignore[misc]
    pass


# ---------------------------------------------------------------------------------------------------- app


class SeneschalApp(App):  # type: ignore[misc]
    lang = StringProperty("en")
    title = "Seneschal"

    def __init__(self, services: AppServices, **kw: Any) -> None:
        super().__init__(**kw)
        self.services = services
        self.tr = services.tr
        self.clock: UiClock = services.clock or KivyClock()
        self.settings = SettingsPresenter(services.storage, self.tr)
        self.lang = self.tr.lang
        self.newgame = NewGamePresenter(tr=self.tr)
        self.box_presenter: BoxSetupPresenter | None = (
            BoxSetupPresenter(services.box, self.clock, self.tr, runner=run_in_thread)
            if services.box is not None
            else None
        )
        self.dice = DicePresenter(services.roller, self.clock, tr=self.tr)
        self.camera: CameraPresenter | None = None
        self.session: GameSession | None = None
        self.game_id: int | None = None
        self.table: TablePresenter | None = None
        self.turn: TurnPresenter | None = None
        self.battle: BattlePresenter | None = None
        self.history: HistoryPresenter | None = None
        self.referee: RefereePresenter | None = None
        self.endgame: EndGamePresenter | None = None
        self.screens: dict[str, BaseScreen] = {}
        self.last_reading: Any = None  # the camera's last stable reading (the map for a new game)
        self.problem = ""
        self._refresh_due = False
        self.root_widget: Root | None = None

    def t(self, message: str, _lang: str = "") -> str:
        """kv calls `app.t('Undo', app.lang)` so that texts re-evaluate when the language changes."""
        return self.tr(message)

    # --------------------------------------------------------------------------------------- building

    def build(self) -> Root:
        register_default_font()  # before any label is drawn: the default font has every glyph we show
        fresh_label_textures()
        for path in sorted(KV_DIR.glob("*.kv")):
            Builder.unload_file(str(path))
            Builder.load_file(str(path))
        root = Root()
        sm: ScreenManager = root.ids.sm
        sm.transition = NoTransition()
        for name in SCREENS:
            screen = SCREEN_CLASSES[name](name=name)
            screen.app_ref = self
            self.screens[name] = screen
            sm.add_widget(screen)
        nav = root.ids.nav
        for name in NAV:
            nav.add_widget(big_button(self.tr(NAV_TITLES[name]), partial(self.go, name), height=64))
        self.root_widget = root
        if self.services.keep_playing:
            ExceptionManager.add_handler(KeepPlaying(self))
        self.dice.subscribe(self.request_refresh)
        # Button rolls and connection changes come on the driver's thread; the roller posts them through
        # our clock (never calling the roller back from its own thread).
        self.services.roller.listen(
            self.clock, on_button=self.button_roll, on_status=self.dice.roller_changed,
            on_dropped=self.dice.button_rolls_dropped,
        )
        # The camera runs from the start: box setup and a new game read the map before any game.
        self.camera = CameraPresenter(self.services.feed, self.clock, on_reading=self._on_reading)
        self.camera.subscribe(self.request_refresh)
        self.camera.start()
        self.newgame.subscribe(self.request_refresh)
        self.settings.subscribe(self.request_refresh)
        if self.box_presenter is not None:
            self.box_presenter.subscribe(self.request_refresh)
        self.go("start")
        Clock.schedule_once(lambda _dt: freeze_heap(), 0)  # after the first frame: start-up is over
        return root

    def button_roll(self, result: Any) -> None:
        """A roll made with the roller's own button (UI thread): in the dice panel, and the battle's roll
        when a battle waits for exactly that many dice."""
        self.dice.record(result)
        if self.battle is not None:
            self.battle.button_roll(result)

    def show_problem(self, text: str) -> None:
        """Something went wrong in the app itself: shown where the engine's explanations appear."""
        self.problem = text
        screen = self.screens.get("table")
        if screen is not None:
            screen.ids.explanation.text = self.tr("Something went wrong (the game is saved): {error}").format(
                error=text
            )

    def go(self, name: str) -> None:
        if self.root_widget is None:
            return
        if name == "referee" and self.referee is not None:
            self.referee.reload()
        self.root_widget.ids.sm.current = name
        in_game = self.session is not None and name not in ("start", "newgame", "boxsetup")
        ids = self.root_widget.ids
        for bar in (ids.nav, ids.scores):  # no game: the bars give their room to the screen
            bar.opacity = 1 if in_game else 0
            bar.disabled = not in_game
            bar.height = dp(64) if in_game else 0
        self.refresh_now()

    def request_refresh(self) -> None:
        """Coalesce many presenter changes into one redraw on the next frame."""
        if not self._refresh_due:
            self._refresh_due = True
            self.clock.schedule_once(lambda _dt: self.refresh_now(), 0)

    def refresh_now(self) -> None:
        self._refresh_due = False
        if self.root_widget is None:
            return
        snap = self.session.snapshot() if self.session is not None else None
        self.root_widget.ids.scores.update(snap, self.tr)
        name = self.root_widget.ids.sm.current
        self.screens[name].refresh()

    # ----------------------------------------------------------------------------------------- games

    def start_new(self) -> None:
        """New game from the new-game screen; anything the setup refuses is shown there, never a crash."""
        self.newgame.refused = []
        try:
            config = self.newgame.config()
            board = self._board_for(config)
            session = self.services.factory.new_session(config, board=board)
        except ValueError as exc:  # includes the engine's SetupError / MapError with every problem listed
            problems = getattr(exc, "problems", None) or [str(exc)]
            self.newgame.refused = [str(p) for p in problems]
            self.newgame.changed()
            return
        self.attach(session)

    def _board_for(self, config: Any) -> Any:
        """The map the camera read (remembered as the saved custom map), the saved one, or None."""
        import json

        from companion.presenters.newgame import MapSource

        if config.map_source is MapSource.CAMERA:
            reading = self.last_reading
            if reading is None or not reading.tiles:
                raise ValueError(self.tr("The camera has not read the map yet: is the whole board in view?"))
            from engine.maps import Board

            board = Board.from_layout(dict(reading.tiles))
            self.services.storage.set_setting("saved_map", json.dumps(board.to_json()))
            return board
        if config.map_source is MapSource.SAVED:
            saved = self.services.storage.get_setting("saved_map", "")
            if not saved:
                raise ValueError(self.tr("No saved map yet: read one from the camera first."))
            from engine.maps import Board

            return Board.from_json(json.loads(saved))
        return None

    def resume(self, game_id: int) -> None:
        self.attach(self.services.factory.resume(game_id))

    def attach(self, session: GameSession) -> None:
        """Wire presenters to a game session (new or resumed) and show the table; the camera keeps the
        game's map from now on (the owner confirmed it by starting the game)."""
        self.session = session
        if self.camera is not None:
            self.camera.confirm_map({(t.q, t.r): t.id for t in session.snapshot().tiles})
        self.game_id = getattr(session, "game_id", None)
        tr, clock = self.tr, self.clock
        self.table = TablePresenter(
            session, clock, tr, auto_confirm=self.services.auto_confirm, runner=run_in_thread
        )
        self.turn = TurnPresenter(session, tr, on_applied=lambda _e: self.after_move())
        self.battle = BattlePresenter(
            session, self.services.roller, clock, tr, on_applied=lambda _e: self.after_move()
        )
        self.history = HistoryPresenter(session, tr, on_changed_game=self.after_move)
        self.referee = RefereePresenter(session, tr)
        self.table.on_game_over = self.game_over
        self.table.on_applied = lambda _events: self.after_move()
        for p in (self.table, self.turn, self.battle, self.history, self.referee):
            p.subscribe(self.request_refresh)
        self.go("table")

    def _on_reading(self, reading: Any) -> None:
        self.last_reading = reading
        if self.table is not None:
            self.table.on_reading(reading)

    def after_move(self) -> None:
        """Any move applied (tap, camera, battle, undo): every presenter reloads from the session."""
        if self.session is None:
            return
        for p in (self.turn, self.battle, self.history):
            if p is not None:
                p.reload()
        if (
            self.referee is not None
            and self.root_widget is not None
            and self.root_widget.ids.sm.current == "referee"
        ):
            self.referee.reload()  # otherwise when the referee screen is opened (`go`)
        if self.table is not None:
            self.table.refresh()
            self.table.rejudge()  # the table may now lag behind the game: say what to move
        sm = self.root_widget.ids.sm if self.root_widget else None
        snap = self.session.snapshot()
        if sm is not None and snap.battle is not None and sm.current == "table":
            self.go("battle")
        elif sm is not None and snap.battle is None and sm.current == "battle":
            self.go("table")

    def game_over(self) -> None:
        if self.session is None or self.game_id is None or self.endgame is not None:
            return
        self.endgame = EndGamePresenter(self.session, self.services.storage, self.game_id)
        self.go("endgame")

    def set_language(self, lang: str) -> None:
        self.settings.set_language(lang)
        self.lang = lang
        self.newgame.retranslate()
        if self.root_widget is not None:
            nav = self.root_widget.ids.nav
            for child, name in zip(reversed(nav.children), NAV, strict=True):
                child.text = self.tr(NAV_TITLES[name])
        self.refresh_now()

    def on_stop(self) -> None:
        if self.camera is not None:
            self.camera.stop()
        self.services.roller.close()

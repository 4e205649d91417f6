"""The Kivy app: a root layout (score bar always on top, screens, a navigation bar) and the screens of
`companion.screens` (one thin Screen class per `.kv` file). Screens only draw presenters and forward taps;
services arrive in `AppServices`; sizes follow the window through `companion.theme`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.base import ExceptionHandler, ExceptionManager
from kivy.clock import Clock
from kivy.lang import Builder
from kivy.logger import Logger
from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion import controls as _controls  # noqa: F401  (registers the kv classes)
from companion import widgets as _widgets  # noqa: F401
from companion.fonts import register_default_font
from companion.i18n import Translator
from companion.kivytune import freeze_heap, fresh_label_textures, still_scroll_bars
from companion.presenters.battle import BattlePresenter
from companion.presenters.boxsetup import BoxSetupPresenter
from companion.presenters.camera import CameraPresenter
from companion.presenters.dice import DicePresenter
from companion.presenters.endgame import EndGamePresenter
from companion.presenters.history import HistoryPresenter
from companion.presenters.newgame import GameFactory, NewGamePresenter
from companion.presenters.referee import RefereePresenter
from companion.presenters.settings import SettingsPresenter
from companion.presenters.table import TablePresenter
from companion.presenters.turn import TurnPresenter
from companion.screens import OUTSIDE_GAME, SCREENS, BaseScreen
from companion.screens.nav import NavBar as _NavBar  # noqa: F401
from companion.screens.scorebar import ScoreBar as _ScoreBar  # noqa: F401
from companion.services import (
    ConfirmedMap,
    GameSession,
    Option,
    ReadingFeed,
    Roller,
    RollResult,
    Storage,
    UiClock,
)
from companion.theme import THEME

KV_DIR = Path(__file__).resolve().parent / "kv"


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
        self.newgame = NewGamePresenter(
            tr=self.tr,
            unmeasured=services.box.unmeasured if services.box is not None else None,
            watched=services.feed is not None,
        )
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
        still_scroll_bars()
        for path in sorted(KV_DIR.glob("*.kv")):
            Builder.unload_file(str(path))
            Builder.load_file(str(path))
        root = Root()
        sm: ScreenManager = root.ids.sm
        sm.transition = NoTransition()
        for name, cls in SCREENS.items():
            screen = cls(name=name)
            screen.app_ref = self
            self.screens[name] = screen
            sm.add_widget(screen)
        self.root_widget = root
        from kivy.core.window import Window

        Window.bind(size=lambda _w, size: self.resized(size))
        self.resized(Window.size)
        if self.services.keep_playing:
            ExceptionManager.add_handler(KeepPlaying(self))
        self.dice.subscribe(self.request_refresh)
        # Button rolls and connection changes come on the driver's thread; the roller posts them through
        # our clock (never calling the roller back from its own thread).
        self.services.roller.listen(
            self.clock,
            on_button=self.button_roll,
            on_status=self.dice.roller_changed,
            on_dropped=self.dice.button_rolls_dropped,
        )
        # The camera runs from the start: box setup and a new game read the map before any game.
        self.camera = CameraPresenter(self.services.feed, self.clock, on_reading=self._on_reading, tr=self.tr)
        self.camera.subscribe(self.request_refresh)
        self.camera.start()
        self.newgame.subscribe(self.request_refresh)
        self.settings.subscribe(self.request_refresh)
        if self.box_presenter is not None:
            self.box_presenter.subscribe(self.request_refresh)
        self.go("start")
        Clock.schedule_once(lambda _dt: freeze_heap(), 0)  # after the first frame: start-up is over
        return root

    def resized(self, size: Any) -> None:
        """The window changed size: every size of the theme follows, and every screen is built again."""
        if THEME.fit(float(size[0]), float(size[1])):
            for screen in self.screens.values():
                screen.forget()
        if self.root_widget is not None:
            self._bars()
            self.request_refresh()

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
        if name == "newgame":
            self.newgame.recheck_camera()  # box setup may have measured dice since
        self.root_widget.ids.sm.current = name
        self._bars()
        self.refresh_now()

    def _bars(self) -> None:
        """In a game the score and navigation bars show; outside one they give their room to the screen."""
        assert self.root_widget is not None
        ids = self.root_widget.ids
        in_game = self.session is not None and ids.sm.current not in OUTSIDE_GAME
        for bar, height in ((ids.nav, THEME.nav), (ids.scores, THEME.bar)):
            bar.opacity = 1 if in_game else 0
            bar.disabled = not in_game
            bar.height = height if in_game else 0

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
        ids = self.root_widget.ids
        ids.scores.update(snap, self.tr)
        name = ids.sm.current
        ids.nav.update(name, snap is not None and snap.battle is not None, self.tr, self.go)
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
        """Wire presenters to a game session (new or resumed) and show the table (the battle, when one is
        under way); the camera keeps the game's map from now on (the owner confirmed it by starting the
        game)."""
        self.session = session
        if self.camera is not None:
            snap = session.snapshot()
            castles = {t.id: t.owner for t in snap.tiles if t.kind == "castle" and t.owner is not None}
            tiles = {(t.q, t.r): t.id for t in snap.tiles}
            self.camera.confirm_map(ConfirmedMap(tiles, tuple(p.colour for p in snap.players), castles))
        self.game_id = getattr(session, "game_id", None)
        tr, clock = self.tr, self.clock
        self.table = TablePresenter(
            session, clock, tr, auto_confirm=self.services.auto_confirm, runner=run_in_thread
        )
        self.turn = TurnPresenter(session, tr, on_applied=lambda _e: self.after_move())
        self.battle = BattlePresenter(
            session, self.services.roller, clock, tr, on_applied=lambda _e: self.after_move()
        )
        self.battle.on_roll = self._battle_roll
        self.battle.summary = None  # a summary belongs to the battle just fought, not to a resumed game
        self.history = HistoryPresenter(session, tr, on_changed_game=self.after_move)
        self.referee = RefereePresenter(session, tr)
        self.endgame = None
        self.table.on_game_over = self.game_over
        self.table.on_applied = lambda _events: self.after_move()
        for p in (self.table, self.turn, self.battle, self.history, self.referee):
            p.subscribe(self.request_refresh)
        if self.camera is not None:
            self.camera.place_name = self._place_name
        for screen in self.screens.values():
            screen.forget()
        # A game resumed in the middle of a battle opens on the battle.
        self.go("battle" if session.snapshot().battle is not None else "table")

    def _place_name(self, loc: str) -> str:
        if self.session is None:
            return loc
        try:
            return self.session.snapshot().tile(loc).name
        except KeyError:
            return loc

    def _battle_roll(self, result: RollResult, option: Option) -> None:
        """Every battle roll in the dice panel too, with who rolled and what for."""
        self.dice.record(result, who=option.actor, purpose=option.label)

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
        battle = self.battle
        if battle is not None and battle.summary is not None and snap.index > battle.summary.index:
            battle.dismiss_summary()  # the game moved on since the battle ended
        if sm is not None and snap.battle is not None and sm.current == "table":
            self.go("battle")
        elif (
            sm is not None
            and snap.battle is None
            and sm.current == "battle"
            and (battle is None or battle.summary is None)  # a summary stays until "back to the table"
        ):
            self.go("table")

    def game_over(self) -> None:
        if self.session is None or self.game_id is None or self.endgame is not None:
            return
        self.endgame = EndGamePresenter(self.session, self.services.storage, self.game_id, self.tr)
        self.go("endgame")

    def set_language(self, lang: str) -> None:
        self.settings.set_language(lang)
        self.lang = lang
        self.newgame.retranslate()
        for screen in self.screens.values():
            screen.forget()
        self.refresh_now()

    def on_stop(self) -> None:
        if self.camera is not None:
            self.camera.stop()
        self.services.roller.close()

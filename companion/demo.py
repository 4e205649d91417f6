"""`seneschal demo` and `seneschal app`.

demo: the app with the synthetic camera watching a 3-player game played move by move on a pretend table — the
camera renders the table after each move, vision reads it, reconciliation proposes, and the app confirms by
itself after a pause — and the simulated dice roller (the firmware's own code in a `python -m firmware.sim`
subprocess; on-screen rolls with a visible status if it cannot start). The "players" pick their moves with the
engine's seeded policy; their dice come from the roller, so each run is a real game (R92).

app: the real table: the camera (optional), the USB roller (optional) and the user's game database.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from companion.cliargs import Parser, fail, game_database, output_file, parse, seconds, window_size
from companion.lifetime import StopSignals, exit_on_sigterm
from companion.pipeline import demo_config, knights_on_table, scene_spec
from companion.session import CAMERA_MOVES


class _NoCutBufferNoise(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Cutbuffer:")


def _kivy_env(size: tuple[int, int]) -> None:
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    # SDL2 loads our images; skipping the PIL provider saves ~0.5 s of start-up. The clipboard is SDL2's too
    # (Kivy otherwise probes xclip/xsel and prints their absence).
    os.environ.setdefault("KIVY_IMAGE", "tex,dds,sdl2")
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    # Kivy still looks for xclip/xsel for the X "cut buffer" and prints a traceback when they are missing; the
    # app does not need them (copy and paste go through SDL2), so that message is not shown.
    logging.getLogger("kivy").addFilter(_NoCutBufferNoise())
    from kivy.config import Config

    w, h = size
    Config.set("graphics", "width", str(w))
    Config.set("graphics", "height", str(h))
    Config.set("input", "mouse", "mouse,multitouch_on_demand")


class DemoDriver:
    """The pretend players: each move is made on the pretend table (camera moves) or tapped into the app."""

    def __init__(
        self,
        app: Any,
        session: Any,
        table: Any,
        roller: Any,
        *,
        seed: int,
        pause: float,
        camera: bool,
        camera_timeout: float = 10.0,
    ) -> None:
        self.app = app
        self.session = session
        self.table = table
        self.roller = roller
        self.rng = random.Random(seed)
        self.pause = pause
        self.camera = camera
        self.camera_timeout = camera_timeout
        self.waiting: tuple[int, float, Any] | None = (
            None  # (moves before, since, the move) while the camera works
        )
        self.rolling = False
        self.notes: list[str] = []

    def start(self) -> None:
        from kivy.clock import Clock

        Clock.schedule_once(self.tick, self.pause)

    def tick(self, _dt: float = 0.0) -> None:
        from kivy.clock import Clock

        if self.session.state.winner is not None:
            return
        if self.waiting is not None:
            before, since, action = self.waiting
            if len(self.session.actions) > before:
                self.waiting = None
                self._say("")  # the camera saw it: any earlier note is old news
                self._show_table()
            elif Clock.get_boottime() - since > self.camera_timeout:
                # What players do when the camera misses a move: enter it on the turn panel.
                self.notes.append(f"the camera did not see {action.TYPE} in time; entered by hand")
                self._say(self.app.tr("The camera did not see the move in time: entered by hand."))
                self.waiting = None
                if self.app.table is not None:
                    self.app.table.dismiss_proposal()
                self.session.apply(action)
                self.app.after_move()
                self._show_table()
            else:
                Clock.schedule_once(self.tick, 0.25)
                return
        if not self.rolling:
            self.move()
        Clock.schedule_once(self.tick, self.pause)

    def _show_table(self) -> None:
        if self.table is not None:
            self.table.set_table(scene_spec(self.session.state, self.session.board))

    def move(self) -> None:
        from kivy.clock import Clock

        from engine.actions import RollDice
        from engine.playout import choose
        from engine.rules import apply

        state = self.session.state
        action = choose(state, self.rng)
        if isinstance(action, RollDice):
            self.rolling = True
            n = len(action.values)

            def work() -> None:
                try:
                    result = self.roller.roll(n)
                except Exception as exc:  # RollNotTakenError, or a failing roller: the players roll again
                    text = str(exc) or type(exc).__name__
                    Clock.schedule_once(lambda _dt: self._not_rolled(text), 0)
                    return
                Clock.schedule_once(lambda _dt: self._rolled(action, result), 0)

            threading.Thread(target=work, name="demo-roll", daemon=True).start()
            return
        expected, _ = apply(state, action)
        board = self.session.board
        visible = knights_on_table(expected, board) != knights_on_table(state, board)
        if self.camera and self.table is not None and type(action) in CAMERA_MOVES and visible:
            from kivy.clock import Clock as KClock

            self.waiting = (len(self.session.actions), KClock.get_boottime(), action)
            self.table.set_table(scene_spec(expected, board))  # the players move the dice; the camera sees it
            return
        self.session.apply(action)
        self.app.after_move()
        self._show_table()

    def _say(self, text: str) -> None:
        """What the pretend players did about a problem, where the table screen explains things."""
        if self.app.turn is not None:
            from companion.services import VerdictView

            self.app.turn.explanation = VerdictView(False, text, "") if text else None
            self.app.turn.changed()

    def _not_rolled(self, text: str) -> None:
        self.rolling = False  # the next tick rolls again, as players would
        self.notes.append(f"roll not taken: {text}")
        self.app.dice.error = text
        self.app.dice.changed()

    def _rolled(self, action: Any, result: Any) -> None:
        from engine.actions import RollDice
        from engine.state import DiceSource

        self.rolling = False
        from companion.services import OptionKind

        roll = next((o for o in self.session.options() if o.kind is OptionKind.ROLL), None)
        self.app.dice.record(result, action.player, roll.label if roll is not None else "")
        src = DiceSource.DEVICE if result.source.startswith("device") else DiceSource.SCREEN
        self.session.apply(RollDice(action.player, tuple(result.values), src))
        self.app.after_move()
        self._show_table()


def _demo_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="seneschal demo",
        description="the app with a synthetic camera, a scripted 3-player game and a simulated dice roller",
    )
    parser.add_argument("--seed", type=int, default=7, help="the game's seed (default 7)")
    parser.add_argument(
        "--pause",
        type=seconds(60),
        default=1.5,
        help="seconds between moves, and before a camera move confirms itself (0..60, default 1.5)",
    )
    parser.add_argument(
        "--size", type=window_size, default=(1280, 800), help="window size, e.g. 1920x1200 (default 1280x800)"
    )
    parser.add_argument("--no-camera", action="store_true", help="enter every move by hand (no vision)")
    parser.add_argument("--no-roller", action="store_true", help="on-screen rolls instead of the simulator")
    parser.add_argument("--lang", choices=("en", "nl", "sv"), default=None)
    parser.add_argument("--exit-after", type=seconds(86400), default=None, help=argparse.SUPPRESS)
    parser.add_argument("--screenshot", type=output_file, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--show", default=None, help=argparse.SUPPRESS)  # the screen to screenshot
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parse(_demo_parser(), argv)
    if isinstance(args, int):
        return args
    _kivy_env(args.size)
    exit_on_sigterm()

    from companion.app import AppServices, SeneschalApp
    from companion.i18n import Translator
    from companion.rolling import ScreenRollerAdapter, start_simulated_roller
    from companion.session import EngineFactory, EngineSession
    from companion.storage import SqliteStorage

    tmp = tempfile.TemporaryDirectory(prefix="seneschal-demo-")
    storage = SqliteStorage(Path(tmp.name) / "demo.sqlite3")
    tr = Translator(args.lang or "en")
    if args.no_roller:
        roller: Any = ScreenRollerAdapter("demo without the roller: rolling on screen")
    else:
        roller, why = start_simulated_roller(args.seed)
        if why:
            print(f"seneschal demo: {why}", file=sys.stderr)
    session = EngineSession.create(demo_config(args.seed), storage, tr, knowledge="full")
    table = feed = None
    if not args.no_camera:
        from companion.pipeline import vision_available

        why = vision_available()
        if why:  # the demo still runs: every move is entered as taps, and the camera panel says why
            print(f"seneschal demo: camera unavailable ({why}); moves are entered by hand", file=sys.stderr)
        else:
            from companion.feedproc import ProcessFeed

            feed = ProcessFeed(("synthetic", scene_spec(session.state, session.board)), ("vision", 2))
            table = feed
    services = AppServices(
        storage=storage,
        factory=EngineFactory(storage, tr, knowledge="full"),
        roller=roller,
        feed=feed,
        tr=tr,
        auto_confirm=args.pause,
    )
    app = SeneschalApp(services)
    if args.lang:
        app.settings.set_language(args.lang)
    driver = DemoDriver(
        app, session, table, roller, seed=args.seed, pause=args.pause, camera=feed is not None
    )

    def on_start(*_a: Any) -> None:
        app.attach(session)
        driver.start()
        if args.exit_after is not None:
            from kivy.clock import Clock
            from kivy.core.window import Window

            def shoot(_dt: float) -> None:
                if args.show:
                    app.go(args.show)
                Clock.schedule_once(lambda _dt: Window.screenshot(name=str(args.screenshot)), 0.5)

            def finish(_dt: float) -> None:
                print(
                    f"demo: {len(session.actions)} moves, camera readings "
                    f"{getattr(feed, 'readings_posted', 0)}, notes {driver.notes}",
                    flush=True,
                )
                app.stop()

            if args.screenshot:
                Clock.schedule_once(shoot, max(0.0, args.exit_after - 1.0))
            Clock.schedule_once(finish, args.exit_after)

    app.bind(on_start=on_start)
    try:
        run_until_stopped(app)
    finally:
        if feed is not None:
            feed.stop()
        roller.close()
        storage.close()
        tmp.cleanup()
    return 0


STOP_POLL = 0.1  # seconds: how soon a Ctrl-C or SIGTERM stops the window


def run_until_stopped(app: Any) -> None:
    """`app.run()`, stopped in order by Ctrl-C or SIGTERM (`lifetime.StopSignals`: the handler only notes the
    signal, the clock stops the app); then the command ends as the signal would have ended it."""
    from kivy.clock import Clock

    with StopSignals() as signals:

        def poll(_dt: float) -> bool:
            if signals.asked:
                app.stop()
                return False
            return True

        event = Clock.schedule_interval(poll, STOP_POLL)
        try:
            app.run()
        finally:
            event.cancel()
    signals.exit()


def camera_spec(text: str) -> str:
    """`--camera`: a device index, a URL, or a video file, image or folder that exists."""
    if text.isdigit() or "://" in text:
        return text
    if not text.strip() or not Path(text).expanduser().exists():
        raise argparse.ArgumentTypeError(f"no such camera, video, image or folder: {text!r}")
    return str(Path(text).expanduser())


def _app_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="seneschal app", description="the app for a real table")
    parser.add_argument(
        "--camera", type=camera_spec, default=None, help="device index, video file, image folder or URL"
    )
    rolls = parser.add_mutually_exclusive_group()
    rolls.add_argument("--roller", default=None, help="dice roller port (pyserial URL); default: search USB")
    rolls.add_argument("--no-roller", action="store_true", help="roll on screen")
    parser.add_argument(
        "--db", type=game_database, default=None, help="game database (default: the user data directory)"
    )
    parser.add_argument("--size", type=window_size, default=(1280, 800), help="window size, e.g. 1920x1200")
    parser.add_argument("--exit-after", type=seconds(86400), default=None, help=argparse.SUPPRESS)
    return parser


def main_app(argv: list[str] | None = None) -> int:
    args = parse(_app_parser(), argv)
    if isinstance(args, int):
        return args
    from companion.errors import StorageError
    from companion.storage import SqliteStorage, default_db_path

    try:  # before the window: a database that cannot be used is an error on the command line
        storage = SqliteStorage(args.db) if args.db else SqliteStorage()
    except StorageError as exc:
        return fail("seneschal app", str(exc))
    _kivy_env(args.size)
    exit_on_sigterm()

    from companion.app import AppServices, SeneschalApp
    from companion.box import CatalogueBox
    from companion.i18n import Translator
    from companion.rolling import ScreenRollerAdapter, open_device_roller
    from companion.session import EngineFactory

    tr = Translator(storage.get_setting("language", "en"))
    roller = ScreenRollerAdapter() if args.no_roller else open_device_roller(args.roller)
    feed = None
    data_dir = default_db_path().parent if not args.db else Path(args.db).resolve().parent
    box = CatalogueBox(data_dir)
    if args.camera is not None:
        from companion.pipeline import vision_available

        why = vision_available()
        if why:
            print(f"seneschal app: camera unavailable ({why}); enter moves by hand", file=sys.stderr)
        else:
            from companion.feedproc import ProcessFeed

            # Camera and vision in their own process, with the box's measured dice colours (box setup).
            feed = ProcessFeed(("open", args.camera), ("vision", 5), calibration=box.calibration_json())
            box.sampler = feed.sample_dice
            box.on_calibrated = feed.set_calibration
    services = AppServices(
        storage=storage,
        factory=EngineFactory(storage, tr, knowledge="table", catalogue=box.catalogue()),
        roller=roller,
        feed=feed,
        tr=tr,
        box=box,
    )
    app = SeneschalApp(services)
    if args.exit_after is not None:
        from kivy.clock import Clock

        Clock.schedule_once(lambda _dt: app.stop(), args.exit_after)
    try:
        run_until_stopped(app)
    finally:
        if feed is not None:
            feed.stop()
        roller.close()
        storage.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

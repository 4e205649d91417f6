"""Screenshot tests: every screen rendered offscreen at 1280x800 and 1920x1200 into tests/artifacts/, checked
to be non-blank and to contain the widgets it must show."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.presenters.boxsetup import BoxRow, CalibrationStatus
from companion.presenters.newgame import NewGamePresenter
from companion.services import OptionKind, Proposal, RollResult
from companion.session import EngineFactory, EngineSession
from companion.storage import SqliteStorage
from engine.playout import choose
from tests.companion.fakes import FakeFeed, FakeRoller, discrepancy, opt
from tests.conftest import ARTIFACTS

SIZES = [(1280, 800), (1920, 1200)]


class Box:
    def rows(self) -> list[BoxRow]:
        return [
            BoxRow(f"T{i:02d}", f"Territory {i}", "forest", 1 + i % 3, 6, i % 2 == 0) for i in range(1, 9)
        ]

    def save(self, document: Any) -> list[str]:
        return []

    def print_stickers(self) -> str:
        return "stickers.pdf"

    def calibration_status(self) -> CalibrationStatus:
        return CalibrationStatus(saved=("green",))

    def measure_dice(self) -> CalibrationStatus:
        return CalibrationStatus(("red", "blue"), ("no die on the yellow castle (K3)",), (), ("green",))

    def save_calibration(self) -> CalibrationStatus:
        return CalibrationStatus(("red", "blue"), (), (), ("red", "blue"))


class Feed(FakeFeed):
    def latest_preview(self) -> Any:
        y, x = np.mgrid[0:360, 0:640]
        img = np.stack([(x % 256), (y % 256), ((x + y) % 256)], axis=2).astype(np.uint8)
        img[100:200, 200:400] = (40, 200, 40)
        return img


def _play_to(session: EngineSession, rng: random.Random, stop: Any, limit: int = 3000) -> bool:
    for _ in range(limit):
        if stop(session.state):
            return True
        if session.state.winner is not None:
            return False
        session.apply(choose(session.state, rng))
    return False


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from kivy.app import App
    from kivy.base import EventLoop
    from kivy.core.window import Window

    from companion.app import AppServices, SeneschalApp

    tmp = tmp_path_factory.mktemp("screens")
    storage = SqliteStorage(tmp / "games.sqlite3")
    services = AppServices(
        storage=storage,
        factory=EngineFactory(storage, knowledge="full"),
        roller=FakeRoller((5, 2)),
        feed=Feed(),
        box=Box(),
        keep_playing=False,
    )
    a = SeneschalApp(services)
    App._running_app = a  # kv rules refer to `app`
    EventLoop.ensure_window()
    root = a.build()
    Window.add_widget(root)
    a.root = root
    yield a
    Window.remove_widget(root)
    App._running_app = None


def _settle() -> None:
    from kivy.base import EventLoop

    for _ in range(4):
        EventLoop.idle()


def _shot(app: Any, name: str, size: tuple[int, int]) -> np.ndarray:
    from kivy.core.window import Window

    Window.size = size
    _settle()
    app.refresh_now()
    _settle()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"screen-{name}-{size[0]}x{size[1]}.png"
    app.root.export_to_png(str(path))
    from PIL import Image

    img = np.asarray(Image.open(path).convert("RGB"))
    assert img.shape[0] >= size[1] * 0.9 and img.shape[1] >= size[0] * 0.9
    assert img.std() > 12, f"{path.name} looks blank"
    return img


def _walk(widget: Any) -> list[Any]:
    return list(widget.walk())


def _texts(widget: Any) -> str:
    return " | ".join(str(getattr(w, "text", "")) for w in _walk(widget))


def _buttons(widget: Any) -> list[Any]:
    from kivy.uix.button import Button

    return [w for w in _walk(widget) if isinstance(w, Button)]


def _min_button_height(widget: Any) -> float:
    heights = [b.height for b in _buttons(widget) if b.get_root_window() is not None and b.opacity > 0]
    return min(heights) if heights else 999


@pytest.mark.parametrize("size", SIZES)
def test_start_newgame_boxsetup_settings(app: Any, size: tuple[int, int], tmp_path: Path) -> None:
    app.session = None
    app.go("start")
    _shot(app, "start", size)
    assert "New game" in _texts(app.screens["start"])
    app.newgame = NewGamePresenter(random.Random(2))
    app.newgame.subscribe(app.request_refresh)
    app.newgame.add_player()
    app.go("newgame")
    _shot(app, "newgame", size)
    assert len(app.screens["newgame"].ids.players.children) == 4
    assert "Castle siege" in _texts(app.screens["newgame"])
    app.go("boxsetup")
    _shot(app, "boxsetup", size)
    assert len(app.screens["boxsetup"].ids.rows.children) == 8
    app.box_presenter.runner = None  # measure inline
    app.box_presenter.start_calibration()
    app.box_presenter.measure()
    _settle()
    _shot(app, "boxsetup-dice", size)
    texts = _texts(app.screens["boxsetup"])
    assert "Measure" in texts and "Save colours" in texts and "measured" in texts and "yellow castle" in texts
    app.box_presenter.stop_calibration()
    app.go("settings")
    _shot(app, "settings", size)
    assert "Nederlands" in _texts(app.screens["settings"]) and "Svenska" in _texts(app.screens["settings"])
    assert _min_button_height(app.root) >= 48


def _game(app: Any, seed: int = 4) -> EngineSession:
    cfg = NewGamePresenter(random.Random(seed)).config()
    session: EngineSession = app.services.factory.new_session(cfg)
    return session


@pytest.mark.parametrize("size", SIZES)
def test_table_with_proposal_and_discrepancy(app: Any, size: tuple[int, int]) -> None:
    session = _game(app)
    app.attach(session)
    app.go("table")
    _shot(app, "table-setup", size)
    assert "The table is set up" in _texts(app.screens["table"])
    _play_to(session, random.Random(4), lambda s: s.turn >= 4 and s.battle is None and not s.pending)
    app.attach(session)
    app.table.proposal = Proposal(options=(opt("Ann: 3 into the Fort", OptionKind.ADVANCE, target="T05"),))
    from companion.presenters.table import PendingState

    app.table.pending = PendingState.PROPOSAL
    app.go("table")
    _shot(app, "table-proposal", size)
    screen = app.screens["table"]
    hexmap = screen.ids.hexmap
    assert hexmap.snapshot is not None and len(hexmap.snapshot.tiles) >= 15
    assert len(hexmap.canvas.children) > 200  # tiles, labels, dice and shape marks are drawn
    assert len(screen.ids.stepper.children) == 9
    assert "Confirm" in _texts(screen)
    scores = app.root.ids.scores
    assert len(scores.children) == 3 and "/ 13" in _texts(scores)
    app.table.proposal = discrepancy()
    app.table.pending = PendingState.DISCREPANCY
    _shot(app, "table-discrepancy", size)
    assert "Fix the table" in _texts(screen) and "The camera is wrong" in _texts(screen)
    app.turn.select_group(OptionKind.ADVANCE)
    _shot(app, "table-advance", size)
    assert len(screen.ids.options.children) > 3
    app.turn.select_group(OptionKind.REDISTRIBUTE)
    if app.turn.editing is not None:  # the player to act may redistribute now
        first = app.turn.editor_rows()[0][0]
        app.turn.adjust(first, +1)
        _shot(app, "table-redistribute", size)
        assert "Done" in _texts(screen) and "knights too many" in _texts(screen)
    assert _min_button_height(screen) >= 48


@pytest.mark.parametrize("size", SIZES)
def test_battle_referee_history(app: Any, size: tuple[int, int]) -> None:
    session = _game(app, 3)
    assert _play_to(
        session,
        random.Random(3),
        lambda s: s.battle is not None and bool(s.pending) and s.pending[0].need.value == "support",
    )
    app.attach(session)
    app.go("battle")
    _shot(app, "battle", size)
    screen = app.screens["battle"]
    assert len(screen.ids.stages.children) == 9
    assert "Battle for" in screen.ids.title.text
    assert screen.ids.attacker.text and screen.ids.defender.text
    assert len(screen.ids.options.children) >= 1
    app.referee.ask(
        next(o for o in app.referee.topics if not o.enabled)
        if any(not o.enabled for o in app.referee.topics)
        else app.referee.topics[0]
    )
    app.go("referee")
    _shot(app, "referee", size)
    assert "p." in app.screens["referee"].ids.verdict.text
    assert len(app.screens["referee"].ids.sections.children) > 15
    app.go("history")
    _shot(app, "history", size)
    assert len(app.screens["history"].ids.lines.children) >= 10


@pytest.mark.parametrize("size", SIZES)
def test_camera_dice_endgame(app: Any, size: tuple[int, int]) -> None:
    session = _game(app, 6)
    _play_to(session, random.Random(6), lambda s: s.winner is not None, limit=4000)
    app.attach(session)
    app.go("camera")
    _shot(app, "camera", size)
    assert app.screens["camera"].ids.preview.texture is not None
    app.dice.record(RollResult((6, 1), "device 53454e4553494d31 #12"))
    app.dice.record(RollResult((3,), "screen"))
    app.go("dice")
    _shot(app, "dice", size)
    assert "device 53454e4553494d31 #12" in _texts(app.screens["dice"])
    if session.state.winner is not None:
        app.endgame = None
        app.game_over()
        _shot(app, "endgame", size)
        assert "Winner" in app.screens["endgame"].ids.winner.text
        assert app.screens["endgame"].ids.chart.curves
        assert len(app.screens["endgame"].ids.records.children) >= 1


def test_new_game_from_the_camera_map_and_the_saved_map(app: Any) -> None:
    from companion.presenters.newgame import MapSource
    from engine.catalogue import load_default_catalogue
    from engine.maps import default_board
    from engine.reading import TableReading

    app.session = None
    app.newgame = NewGamePresenter(random.Random(9))
    app.newgame.subscribe(app.request_refresh)
    app.newgame.set_map_source(MapSource.SAVED)
    app.services.storage.set_setting("saved_map", "")
    app.last_reading = None
    app.go("newgame")
    app.start_new()
    assert app.session is None and "No saved map" in app.newgame.refused[0]
    app.newgame.set_map_source(MapSource.CAMERA)
    app.start_new()
    assert app.session is None and "camera has not read the map" in app.newgame.refused[0]
    board = default_board(3, load_default_catalogue(), random.Random(5))
    app.last_reading = TableReading(tiles=dict(board.tiles))
    assert app.last_reading.tiles, app.last_reading
    app.start_new()
    assert app.session is not None, app.newgame.refused
    assert dict(app.session.board.tiles) == dict(board.tiles)
    app.session = None
    app.newgame.set_map_source(MapSource.SAVED)
    app.start_new()  # the camera's map was remembered
    assert app.session is not None and dict(app.session.board.tiles) == dict(board.tiles)


@pytest.mark.parametrize("size", SIZES[:1])
def test_language_switch_and_resume_from_the_start_screen(app: Any, size: tuple[int, int]) -> None:
    session = _game(app, 11)
    _play_to(session, random.Random(11), lambda s: len(s.to_json()) > 0 and s.turn >= 2)
    gid = session.game_id
    app.session = None
    app.go("start")
    _shot(app, "start-resume", size)
    assert "Resume" in _texts(app.screens["start"]) and "Red, Blue, Yellow" in _texts(app.screens["start"])
    app.resume(gid)
    assert app.session is not None and app.session.game_id == gid
    assert app.session.state.to_json() == session.state.to_json()
    app.set_language("nl")
    try:
        app.go("table")
        _shot(app, "table-nl", size)
        assert "Tafel" in _texts(app.root.ids.nav) and "Verloop" in _texts(app.root.ids.nav)
        assert "stap" in app.screens["table"].ids.turn_label.text
    finally:
        app.set_language("en")
    assert "Table" in _texts(app.root.ids.nav)


def test_unsupplied_territory_and_discrepancy_callout_are_drawn(app: Any) -> None:
    from companion.presenters.table import PendingState
    from tests.companion.fakes import FakeSession

    fake = FakeSession()
    app.attach(fake)
    app.table.proposal = discrepancy()
    app.table.pending = PendingState.DISCREPANCY
    app.go("table")
    img = _shot(app, "table-fake-unsupplied", (1280, 800))
    hexmap = app.screens["table"].ids.hexmap
    assert not fake.snap.tile("T04").supplied and hexmap.discrepancies
    # the callout is drawn in orange over the map, on the Fort (T02)
    orange = (img[:, :, 0] > 230) & (img[:, :, 1] > 70) & (img[:, :, 1] < 110) & (img[:, :, 2] < 30)
    assert orange.sum() > 500


def test_a_failing_tap_is_shown_and_the_game_goes_on(app: Any) -> None:
    from kivy.base import ExceptionManager

    from companion.app import KeepPlaying

    handler = KeepPlaying(app)
    assert handler.handle_exception(RuntimeError("disk full")) == ExceptionManager.PASS
    assert "disk full" in app.screens["table"].ids.explanation.text and "disk full" in app.problem
    assert handler.handle_exception(KeyboardInterrupt()) == ExceptionManager.RAISE


def test_battle_roll_with_a_real_die(app: Any) -> None:
    for seed in range(20, 40):
        session = _game(app, seed)
        if _play_to(
            session,
            random.Random(seed),
            lambda s: s.battle is not None and bool(s.pending) and s.pending[0].need.value == "dice",
        ):
            break
    else:
        pytest.skip("no battle roll reached")
    app.attach(session)
    app.go("battle")
    _shot(app, "battle-roll", (1280, 800))
    screen = app.screens["battle"]
    assert "Die shows 6" in _texts(screen)
    n = len(session.actions)
    roll = next(o for o in app.battle.options_for_prompted() if o.kind is OptionKind.ROLL)
    app.battle.enter_roll(roll, (6,))
    assert len(session.actions) == n + 1 and "rolled 6" in session.history()[-1].text

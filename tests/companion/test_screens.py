"""Screenshot tests: every screen rendered offscreen at 1280x800 and 1920x1200 in English, Dutch and Swedish
into tests/artifacts/screens/ (look at them), each checked on the spot: not blank, no label's text spilling
out of its widget, no word broken for want of room, a glyph in the font for every character shown, every
button at least 48 dp, no English game word on a Dutch or Swedish screen. Then the screens' own behaviour:
what each must show and do."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytest

from companion.calibrate import ColourReport, ColourState
from companion.presenters.boxsetup import BoxRow, CalibrationStatus
from companion.presenters.newgame import NewGamePresenter
from companion.presenters.table import PendingState
from companion.services import OptionKind, Proposal, RollResult
from companion.session import EngineFactory, EngineSession
from companion.storage import SqliteStorage
from companion.theme import PALETTE
from engine.colours import Colour
from engine.playout import choose
from tests.companion import screencheck
from tests.companion.fakes import FakeFeed, FakeRoller, discrepancy, opt
from tests.conftest import ARTIFACTS

SIZES = [(1280, 800), (1920, 1200)]
LANGS = ["en", "nl", "sv"]
SHOTS = ARTIFACTS / "screens"
MIN_TOUCH = 48.0


class Box:
    def rows(self) -> list[BoxRow]:
        names = [
            "Morvan Homelands",
            "Forest of Orléans",
            "Fortress of Loches",
            "Gâtinais Homelands",
            "Plains of Beauce",
            "Forest of Tronçais",
            "City of Bourges",
            "Marshes of Brenne",
        ]
        kinds = ["homelands", "forest", "fortress", "homelands", "grasslands", "forest", "city", "marshlands"]
        return [
            BoxRow(f"T{i + 1:02d}", n, k, 1 + i % 3, 6 if i != 2 else 8, i % 2 == 0)
            for i, (n, k) in enumerate(zip(names, kinds, strict=True))
        ]

    def save(self, document: Any) -> list[str]:
        return []

    def print_stickers(self) -> str:
        return "stickers.pdf"

    def calibration_status(self) -> CalibrationStatus:
        return CalibrationStatus(saved=("green",))

    def measure_dice(self) -> CalibrationStatus:
        states = (
            (Colour.RED, ColourState.MEASURED), (Colour.BLUE, ColourState.MEASURED),
            (Colour.YELLOW, ColourState.NO_DIE), (Colour.GREEN, ColourState.SAVED),
            (Colour.WHITE, ColourState.NOT_ON_MAP), (Colour.BLACK, ColourState.NOT_MEASURED),
        )  # fmt: skip
        reports = tuple(ColourReport(c, s) for c, s in states)
        notes = ("no die on the yellow castle (K3)",)
        return CalibrationStatus(("red", "blue"), notes, (), ("green",), reports)

    refused: tuple[str, ...] = ()  # what a save leaves out, and why

    def unmeasured(self, colours: Any) -> list[Colour]:
        return [c for c in colours if c.value not in ("red", "blue")]

    def save_calibration(self) -> CalibrationStatus:
        return CalibrationStatus((), (), self.refused, ("red", "blue"))


class Feed(FakeFeed):
    def latest_preview(self) -> Any:
        y, x = np.mgrid[0:360, 0:640]
        img = np.stack([(x % 256), (y % 256), ((x + y) % 256)], axis=2).astype(np.uint8)
        img[100:200, 200:400] = (40, 200, 40)
        return img


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from kivy.app import App
    from kivy.base import EventLoop
    from kivy.core.window import Window

    from companion.app import AppServices, SeneschalApp
    from companion.i18n import Translator

    tmp = tmp_path_factory.mktemp("screens")
    storage = SqliteStorage(tmp / "games.sqlite3")
    tr = Translator("en")
    services = AppServices(
        storage=storage,
        factory=EngineFactory(storage, tr, knowledge="full"),
        roller=FakeRoller((5, 2)),
        feed=Feed(),
        box=Box(),
        tr=tr,
        keep_playing=False,
    )
    a = SeneschalApp(services)
    App._running_app = a  # kv rules refer to `app`
    EventLoop.ensure_window()
    root = a.build()
    Window.add_widget(root)
    a.root = root
    yield a
    a.set_language("en")
    Window.remove_widget(root)
    App._running_app = None


# ------------------------------------------------------------------------------------------- the games


def _play_to(
    session: EngineSession, rng: random.Random, stop: Callable[[Any], bool], limit: int = 3000
) -> bool:
    for _ in range(limit):
        if stop(session.state):
            return True
        if session.state.winner is not None:
            return False
        session.apply(choose(session.state, rng))
    return False


def _need(s: Any) -> str:
    return str(s.pending[0].need.value) if s.battle is not None and s.pending else ""


@dataclass
class Games:
    """Games at the moments the screens are shown, played by the engine's policy in one language."""

    app: Any
    made: dict[str, EngineSession] = field(default_factory=dict)

    def game(
        self, name: str, knowledge: str, stop: Callable[[Any], bool], seeds: range, players: int = 3
    ) -> EngineSession:
        if name not in self.made:
            factory = EngineFactory(self.app.services.storage, self.app.tr, knowledge=knowledge)
            for seed in seeds:
                setup = NewGamePresenter(random.Random(seed), self.app.tr)
                for _ in range(players - 3):
                    setup.add_player()
                s = factory.new_session(setup.config())
                if _play_to(s, random.Random(seed), stop, limit=4000):
                    break
            self.made[name] = s
        return self.made[name]

    def fresh(self) -> EngineSession:
        return self.game("fresh", "table", lambda s: True, range(4, 5))

    def middle(self) -> EngineSession:
        return self.game(
            "middle", "full", lambda s: s.turn >= 4 and s.battle is None and not s.pending, range(4, 9)
        )

    def six(self) -> EngineSession:
        return self.game("six", "table", lambda s: s.turn >= 7 and s.battle is None, range(4, 9), players=6)

    def support(self) -> EngineSession:
        return self.game("support", "full", lambda s: _need(s) == "support", range(3, 9))

    def conflict_table(self) -> EngineSession:
        return self.game("conflict_table", "table", lambda s: _need(s) == "conflict", range(3, 9))

    def conflict_full(self) -> EngineSession:
        return self.game("conflict_full", "full", lambda s: _need(s) == "conflict", range(3, 9))

    def ended(self) -> EngineSession:
        return self.game("ended", "full", _ended_stop(), range(3, 9))

    def roll(self) -> EngineSession:
        return self.game("roll", "full", lambda s: _need(s) == "dice", range(20, 40))

    def over(self) -> EngineSession:
        return self.game("over", "full", lambda s: s.winner is not None, range(6, 9))


def _ended_stop() -> Callable[[Any], bool]:
    """Stops right after the action that ended the first battle."""
    seen = {"in": False}

    def stop(s: Any) -> bool:
        if s.battle is not None:
            seen["in"] = True
            return False
        return seen["in"]

    return stop


# ------------------------------------------------------------------------------------------- shooting


def _settle(app: Any = None) -> None:
    """Frames until the app has no redraw pending and layout has had two more frames to settle."""
    from kivy.base import EventLoop

    for _ in range(10):
        EventLoop.idle()
        if app is None or not app._refresh_due:
            break
    for _ in range(2):
        EventLoop.idle()


def _shot(app: Any, name: str, size: tuple[int, int]) -> tuple[np.ndarray, list[str]]:
    """Render the app at `size`, save tests/artifacts/screens/<name>-<w>x<h>.png, run every check on it (the
English game words in the app's language)."""
    from kivy.core.window import Window

    from companion.widgets import DRAWN_TEXTS

    if tuple(Window.size) != size:
        Window.size = size
    _settle(app)
    app.refresh_now()
    _settle(app)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}-{size[0]}x{size[1]}.png"
    img = _pixels(app.root)
    from PIL import Image

    Image.fromarray(img).save(path, compress_level=1)  # fast: 150 shots per run
    problems = []
    if img.shape[0] < size[1] * 0.9 or img.shape[1] < size[0] * 0.9:
        problems.append(f"{path.name}: rendered {img.shape[1]}x{img.shape[0]}")
    if img[::7, ::7].std() <= 12:
        problems.append(f"{path.name} looks blank")
    from kivy.metrics import dp

    problems += [f"{path.name}: {p}" for p in screencheck.overflows(app.root)]
    problems += [f"{path.name}: {p}" for p in screencheck.broken_words(app.root)]
    problems += [f"{path.name}: {p}" for p in screencheck.small_targets(app.root, dp(MIN_TOUCH))]
    problems += [f"{path.name}: {p}" for p in screencheck.missing_glyphs(app.root, set(DRAWN_TEXTS))]
    problems += [f"{path.name}: {p}" for p in screencheck.english_words(app.root, app.tr.lang)]
    DRAWN_TEXTS.clear()
    return img, problems


def _pixels(widget: Any) -> np.ndarray:
    """The widget as rendered, RGB, top row first (drawn into an offscreen buffer, as export_to_png does,
    and read once)."""
    from kivy.graphics import ClearBuffers, ClearColor, Fbo, Scale, Translate

    parent = widget.parent
    index = parent.canvas.indexof(widget.canvas) if parent is not None else -1
    if index > -1:
        parent.canvas.remove(widget.canvas)
    fbo = Fbo(size=(widget.width, widget.height), with_stencilbuffer=True)
    with fbo:
        ClearColor(0, 0, 0, 0)
        ClearBuffers()
        Scale(1, -1, 1)
        Translate(-widget.x, -widget.y - widget.height, 0)
    fbo.add(widget.canvas)
    fbo.draw()
    rgba = np.frombuffer(fbo.pixels, np.uint8).reshape(int(widget.height), int(widget.width), 4)
    fbo.remove(widget.canvas)
    if index > -1:
        parent.canvas.insert(index, widget.canvas)
    return np.ascontiguousarray(rgba[:, :, :3])


def _texts(widget: Any) -> str:
    return " | ".join(str(getattr(w, "text", "")) for w in widget.walk())


# ------------------------------------------------------------------------------------------ every screen


def _walk(app: Any, games: Games) -> Iterator[str]:
    """Show every screen in turn (and its states worth seeing); yields each shot's name once it is shown."""
    games.middle()  # a game left unfinished, to resume from the start screen
    app.session = None
    app.go("start")
    yield "start"
    app.newgame = NewGamePresenter(
        random.Random(2), app.tr, unmeasured=app.services.box.unmeasured, watched=True
    )
    app.newgame.subscribe(app.request_refresh)
    app.newgame.add_player()
    app.newgame.draw_first_player()
    app.go("newgame")
    assert app.screens["newgame"].ids.camera_tip.text == app.newgame.camera_tip != ""
    yield "newgame"
    bp = app.box_presenter
    bp.calibrating = False
    bp.status = ""
    app.go("boxsetup")
    yield "boxsetup"
    bp.runner = None  # measure inline
    bp.start_calibration()
    bp.measure()
    yield "boxsetup-dice"
    bp.service.refused = ("no die on the yellow castle (K3)",)  # type: ignore[attr-defined]
    bp.save_calibration()
    yield "boxsetup-saved-partly"
    bp.service.refused = ()  # type: ignore[attr-defined]
    bp.stop_calibration()
    app.go("settings")
    yield "settings"
    app.attach(games.fresh())
    app.go("table")
    yield "table-setup"
    app.attach(games.middle())
    app.table.dismiss_setup()
    yield "table"
    app.table.proposal = Proposal(options=(opt("3 → Fort", OptionKind.ADVANCE, target="T05"),))
    app.table.pending = PendingState.PROPOSAL
    yield "table-proposal"
    app.table.proposal = _knight_too_many(games.middle())
    app.table.pending = PendingState.DISCREPANCY
    yield "table-discrepancy"
    app.table.proposal, app.table.pending = None, PendingState.NONE
    app.turn.select_group(OptionKind.ADVANCE)
    yield "table-advance"
    app.turn.select_group(OptionKind.REDISTRIBUTE)
    if app.turn.editing is not None:
        app.turn.adjust(app.turn.editor_rows()[0][0], +1)
        yield "table-redistribute"
    app.turn.select_group(None)
    territory = next(t.id for t in app.table.snapshot.tiles if t.kind == "territory" and t.knights)
    app.table.select_tile(territory)
    yield "table-tile"
    app.attach(games.six())
    app.table.dismiss_setup()
    yield "table-6-players"
    app.attach(games.support())
    app.go("table")
    yield "table-battle"
    app.go("battle")
    app.battle.uncover()
    yield "battle"
    app.attach(games.conflict_table())
    yield "battle-lay"
    app.battle.lay_cards()
    for _colour, cards in app.battle.conflict_choices():
        app.battle.pick(cards[0])
    yield "battle-enter"
    app.attach(games.conflict_full())
    yield "battle-cover"
    app.battle.uncover()
    yield "battle-conflict"
    app.attach(games.ended())
    app.battle.reload()  # the summary of the battle the last move ended
    app.go("battle")
    yield "battle-summary"
    app.attach(games.roll())
    yield "battle-roll"
    app.go("referee")
    refused = [o for o in app.referee.topics if not o.enabled]
    app.referee.ask(refused[0] if refused else app.referee.topics[0])
    yield "referee"
    app.go("history")
    yield "history"
    app.camera.last_reading = _reading(games.middle())
    app.camera.place_name = app._place_name
    app.go("camera")
    yield "camera"
    app.dice.entries.clear()
    app.dice.faces.clear()
    app.dice.show_fairness = False
    snap = app.session.snapshot()
    app.dice.record(
        RollResult((6, 1), "device 53454e4553494d31 #12"),
        snap.players[0].colour,
        app.tr("Roll {n} dice for {what}").format(n=2, what=app.tr("mayhem")),
    )
    app.dice.record(
        RollResult((3,), "screen"),
        snap.players[1].colour,
        app.tr("Roll a die for the {what}").format(what=app.tr("arena")),
    )
    app.dice.record(RollResult((4,), "typed"))
    app.go("dice")
    yield "dice"
    rng = random.Random(1)
    for _ in range(20):
        app.dice.record(RollResult((rng.randint(1, 6), rng.randint(1, 6)), "device 53454e4553494d31 #3"))
    app.dice.toggle_fairness()
    yield "dice-fairness"
    over = games.over()
    app.attach(over)
    app.endgame = None
    app.game_over()
    yield "endgame"


def _reading(session: EngineSession) -> Any:
    from engine.reading import Doubt, TableReading

    snap = session.snapshot()
    knights = {t.id: dict(t.knights) for t in snap.tiles if t.knights}
    unsure = [t.id for t in snap.tiles[:3]]
    doubts = {unsure[0]: Doubt.HAND, unsure[1]: Doubt.UNMEASURED}  # the third: no reason given
    tiles = dict(session.board.tiles)
    return TableReading(tiles=tiles, knights=knights, unsure=frozenset(unsure), doubts=doubts)


def _knight_too_many(session: EngineSession) -> Proposal:
    """What the session says of a reading with one knight more than the game has on a territory (in the
    session's language, as the camera's disagreements are shown)."""
    reading = _reading(session)
    tile = next(t for t in session.snapshot().tiles if t.kind == "territory" and t.knights)
    colour, n = next(iter(tile.knights.items()))
    more = {**reading.knights, tile.id: {**tile.knights, colour: n + 1}}
    proposal = session.propose(replace(reading, knights=more, unsure=frozenset(), doubts={}))
    assert proposal.is_discrepancy, proposal
    return proposal


GAMES: dict[str, Games] = {}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_every_screen_renders_readably(app: Any, lang: str, size: tuple[int, int]) -> None:
    app.set_language(lang)
    games = GAMES.setdefault(lang, Games(app))  # words are stored in the language they were played in
    problems: list[str] = []
    shots = []
    for name in _walk(app, games):
        _img, found = _shot(app, f"{name}-{lang}", size)

        shots.append(name)
        problems += found
    assert len(shots) >= 27, shots
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------ what screens do


def _game(app: Any, seed: int = 4, knowledge: str = "full") -> EngineSession:
    factory = EngineFactory(app.services.storage, app.tr, knowledge=knowledge)
    return factory.new_session(NewGamePresenter(random.Random(seed)).config())


def _tap(widget: Any, x: float, y: float) -> None:
    from kivy.input.motionevent import MotionEvent

    class Touch(MotionEvent):  # type: ignore[misc]
        def depack(self, args: Any) -> None:
            self.is_touch = True
            self.sx, self.sy = args
            super().depack(args)

    from kivy.core.window import Window

    touch = Touch("test", 1, (x / Window.width, y / Window.height))
    touch.pos = (x, y)
    touch.x, touch.y = x, y
    widget.on_touch_down(touch)
    widget.on_touch_up(touch)


def test_the_table_names_its_step_and_a_tap_on_the_map_opens_the_tile(app: Any) -> None:
    app.set_language("en")
    session = _game(app)
    _play_to(session, random.Random(4), lambda s: s.turn >= 3 and s.battle is None and not s.pending)
    app.attach(session)
    _shot(app, "behaviour-table", (1280, 800))
    screen = app.screens["table"]
    assert screen.ids.steps.current == session.snapshot().step  # drawn, not buttons
    assert screen.ids.step_name.text.startswith("Step ")
    last = screen.ids.last_move
    assert "Last move:" in _texts(last) and "Undo" in _texts(last)
    hexmap = screen.ids.hexmap
    tile = next(t for t in session.snapshot().tiles if t.kind == "territory")
    assert tile.name in screencheck.canvas_texts(hexmap)  # what the English-word check reads on a map
    size, ox, oy = hexmap.layout(session.snapshot())
    _tap(hexmap, *hexmap.centre(tile, size, ox, oy))
    assert app.table.selected_tile == tile.id
    _settle()
    app.refresh_now()
    card = screen.ids.tile_card
    assert tile.name in _texts(card) and "victory point" in _texts(card)
    n = len(session.actions)
    undo = next(b for b in screencheck_buttons(last) if b.text == "Undo")
    undo.dispatch("on_release")
    assert len(session.actions) == n - 1


def screencheck_buttons(widget: Any) -> list[Any]:
    from kivy.uix.behaviors import ButtonBehavior

    return [w for w in widget.walk() if isinstance(w, ButtonBehavior)]


def test_a_game_resumed_in_the_middle_of_a_battle_opens_on_the_battle(app: Any) -> None:
    session = _game(app, 3)
    assert _play_to(session, random.Random(3), lambda s: _need(s) == "support")
    app.session = None
    app.go("start")
    app.resume(session.game_id)
    assert app.root.ids.sm.current == "battle"
    app.battle.uncover()
    _shot(app, "behaviour-resumed-battle", (1280, 800))
    assert len(app.screens["battle"].ids.options.children) >= 1
    app.go("table")
    _shot(app, "behaviour-resumed-table", (1280, 800))
    banner = app.screens["table"].ids.banner
    assert "Battle for" in _texts(banner) and "Go to the battle" in _texts(banner)


def test_cards_held_by_the_app_stay_covered_until_the_tablet_is_passed(app: Any) -> None:
    session = _game(app, 3)
    assert _play_to(session, random.Random(3), lambda s: _need(s) == "conflict")
    app.attach(session)
    screen = app.screens["battle"]
    _shot(app, "behaviour-cover", (1280, 800))
    who = app.battle.prompted()
    assert app.battle.cover_for() is who
    assert screen.ids.main.opacity == 0 and screen.ids.main.disabled  # the hand is not even drawn
    assert "Pass the tablet to" in _texts(screen.ids.overlay)
    app.battle.uncover()
    _shot(app, "behaviour-uncovered", (1280, 800))
    assert screen.ids.main.opacity == 1 and not screen.ids.overlay.children


def test_new_game_from_the_camera_map_and_the_saved_map(app: Any) -> None:
    from companion.presenters.newgame import MapSource
    from engine.catalogue import load_default_catalogue
    from engine.maps import default_board
    from engine.reading import TableReading

    app.set_language("en")  # the app is shared: a test before may have left it in another language
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
    app.start_new()
    assert app.session is not None, app.newgame.refused
    assert dict(app.session.board.tiles) == dict(board.tiles)
    app.session = None
    app.newgame.set_map_source(MapSource.SAVED)
    app.start_new()  # the camera's map was remembered
    assert app.session is not None and dict(app.session.board.tiles) == dict(board.tiles)


def test_language_switch_and_resume_from_the_start_screen(app: Any) -> None:
    session = _game(app, 11)
    _play_to(session, random.Random(11), lambda s: s.turn >= 2)
    gid = session.game_id
    app.session = None
    app.go("start")
    _shot(app, "behaviour-start-resume", (1280, 800))
    assert "Resume" in _texts(app.screens["start"]) and "Red, Blue, Yellow" in _texts(app.screens["start"])
    app.resume(gid)
    assert app.session is not None and app.session.game_id == gid
    assert app.session.state.to_json() == session.state.to_json()
    app.set_language("nl")
    try:
        app.go("table")
        _shot(app, "behaviour-table-nl", (1280, 800))
        assert "Tafel" in _texts(app.root.ids.nav) and "Verloop" in _texts(app.root.ids.nav)
        assert "Stap" in app.screens["table"].ids.step_name.text
    finally:
        app.set_language("en")
    assert "Table" in _texts(app.root.ids.nav)


def test_unsupplied_territory_and_discrepancy_callout_are_drawn(app: Any) -> None:
    from tests.companion.fakes import FakeSession

    fake = FakeSession()
    app.attach(fake)
    app.table.proposal = discrepancy()
    app.table.pending = PendingState.DISCREPANCY
    app.go("table")
    img, _problems = _shot(app, "behaviour-table-fake-unsupplied", (1280, 800))
    hexmap = app.screens["table"].ids.hexmap
    assert not fake.snap.tile("T04").supplied and hexmap.callouts
    assert "Bob 1" in hexmap.callouts[0][1]
    # the callout is drawn in the warning orange over the map, on the Fort (T02)
    r, g, b = (int(v * 255) for v in PALETTE.warn[:3])
    orange = (
        (abs(img[:, :, 0].astype(int) - r) < 12)
        & (abs(img[:, :, 1].astype(int) - g) < 12)
        & (abs(img[:, :, 2].astype(int) - b) < 12)
    )
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
        if _play_to(session, random.Random(seed), lambda s: _need(s) == "dice"):
            break
    else:
        pytest.skip("no battle roll reached")
    app.attach(session)
    app.go("battle")
    _shot(app, "behaviour-battle-roll", (1280, 800))
    screen = app.screens["battle"]
    assert "Tap what it shows" in _texts(screen)
    six = next(b for b in screencheck_buttons(screen.ids.options) if b.text == "6")
    n = len(session.actions)
    six.dispatch("on_release")
    assert len(session.actions) == n + 1 and "rolled 6" in session.history()[-1].text
    entry = app.dice.entries[0]
    assert entry.values == (6,) and entry.who is not None and "Roll" in entry.purpose  # in the dice panel


def test_the_screen_check_finds_english_game_words_in_labels_and_on_canvases(app: Any) -> None:
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.label import Label
    from kivy.uix.widget import Widget

    from companion.widgets import text_rect

    box = BoxLayout()
    box.add_widget(Label(text="[b]3[/b] Knights", markup=True))
    drawn = Widget()
    drawn.canvas.add(_group(text_rect("Forest of Tronçais", 100, 100, 14)))
    hidden = Widget(opacity=0)
    hidden.canvas.add(_group(text_rect("Marshes of Brenne", 100, 100, 14)))
    box.add_widget(drawn)
    box.add_widget(hidden)
    app.root.add_widget(box)
    try:
        assert screencheck.canvas_texts(box) == {"Forest of Tronçais"}  # the hidden one is not shown
        assert screencheck.english_words(box, "nl") == [
            "English 'knights' in '3 Knights'",
            "English 'forest' in 'Forest of Tronçais'",
        ]
        assert screencheck.english_words(box, "en") == []
    finally:
        app.root.remove_widget(box)


def _group(instructions: list[Any]) -> Any:
    from kivy.graphics import InstructionGroup

    group = InstructionGroup()
    for ins in instructions:
        group.add(ins)
    return group


def test_after_a_move_the_window_stops_redrawing(app: Any) -> None:
    """Nothing animates by itself: a scroll bar lit by new content dims in one frame, not a half-second
    fade (each frame of which draws the whole window again: docs/performance.md)."""
    import time

    from kivy.base import EventLoop
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    app.set_language("en")
    session = _game(app)
    app.attach(session)
    _settle(app)
    drawn: list[float] = []

    def flip(*_a: Any) -> None:
        drawn.append(time.monotonic())

    Window.bind(on_flip=flip)
    try:
        rng = random.Random(5)
        for _ in range(3):
            session.apply(choose(session.state, rng))
            app.after_move()
            moved = time.monotonic()
            drawn.clear()
            while time.monotonic() - moved < 1.3:  # the fade would run from 0.5 s to 1.0 s
                EventLoop.idle()
            late = [t for t in drawn if t - moved > 0.2]
            assert len(drawn) >= 1 and len(late) <= 2, (len(drawn), [round(t - moved, 2) for t in late])
    finally:
        Window.unbind(on_flip=flip)
    view = next(w for w in app.root.walk() if isinstance(w, ScrollView))
    view._bind_inactive_bar_color()
    assert list(view._bar_color) == list(view.bar_inactive_color)

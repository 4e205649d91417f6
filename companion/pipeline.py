"""The demo pipeline, shared by `seneschal demo` (with a window) and `seneschal replay --headless` (without):

    script of engine actions → the "physical table" after each move → synthetic camera frames (vision.synth)
    → table reading (vision.pipeline.TableReader) → reconciliation (engine.reconcile, via the session)
    → the app's engine session → storage

Moves the camera can see (knights moved: advances, redistributions, the turn passing, a call to arms) are
left to the camera and reconciliation; everything else (cards, crowns, fractures, dice, battle choices) is
entered as the players would tap it in the app (R91). After every move the app's game must equal the script's
game exactly, and a table that did not change must read as "nothing to do".

Seams, clearly named: `TableRenderer` (spec → frame), `ReaderFactory` (→ an object with `read(image, index)`
returning a result with `.reading`), and `TruthReader` (ground truth → reading) for running without vision.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from companion.errors import CompanionError, ServiceUnavailableError
from companion.presenters.newgame import NewGameConfig, PlayerSetup
from companion.services import Storage
from companion.session import CAMERA_MOVES, EngineSession
from engine.colours import Colour

SCRIPT_FORMAT = "seneschal-demo-script"
DEMO_PLAYERS = (
    PlayerSetup(Colour.RED, "Ann"),
    PlayerSetup(Colour.BLUE, "Bruno"),
    PlayerSetup(Colour.YELLOW, "Cleo"),
)


class ScriptError(CompanionError, ValueError):
    """A demo script file cannot be used; the message quotes what is wrong."""


@dataclass(frozen=True)
class Script:
    """A game as a list of engine actions from a known setup (FULL knowledge: the engine deals the cards)."""

    config: NewGameConfig
    actions: tuple[Any, ...]
    name: str = "scripted game"

    def to_json(self) -> dict[str, Any]:
        return {
            "format": SCRIPT_FORMAT,
            "version": 1,
            "name": self.name,
            "game": self.config.to_json(),
            "actions": [a.to_json() for a in self.actions],
        }

    @staticmethod
    def from_json(obj: Any, source: str = "script") -> Script:
        from engine.actions import Action
        from engine.errors import ActionFormatError

        if not isinstance(obj, dict) or obj.get("format") != SCRIPT_FORMAT:
            raise ScriptError(f"{source}: not a Seneschal demo script (format must be {SCRIPT_FORMAT!r})")
        if obj.get("version") != 1:
            raise ScriptError(f"{source}: unsupported script version {obj.get('version')!r} (this reads 1)")
        try:
            config = NewGameConfig.from_json(obj["game"])
            actions = tuple(Action.from_json(a) for a in obj["actions"])
        except KeyError as exc:
            raise ScriptError(f"{source}: the script lacks the field {exc.args[0]!r}") from None
        except (TypeError, AttributeError) as exc:
            raise ScriptError(f"{source}: the game or an action has the wrong shape ({exc})") from None
        except (ValueError, ActionFormatError) as exc:
            raise ScriptError(f"{source}: {exc}") from None
        return Script(config, actions, str(obj.get("name", source)))


def demo_config(seed: int = 7) -> NewGameConfig:
    return NewGameConfig(players=DEMO_PLAYERS, first=Colour.RED, seed=seed)


def make_script(seed: int = 7, moves: int = 80, config: NewGameConfig | None = None) -> Script:
    """A seeded 3-player game: the engine's random-but-purposeful policy picks each legal move (dice from the
    same seeded source)."""
    from engine.playout import choose
    from engine.rules import apply

    cfg = config or demo_config(seed)
    state = _new_state(cfg)
    rng = random.Random(seed)
    actions: list[Any] = []
    while state.winner is None and len(actions) < moves:
        a = choose(state, rng)
        state, _ = apply(state, a)
        actions.append(a)
    return Script(cfg, tuple(actions), f"seeded game {seed}")


def load_script(path: str | Path) -> Script:
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScriptError(f"cannot read script {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ScriptError(f"script {str(path)!r} is not a text file (a demo script is JSON)") from None
    except json.JSONDecodeError as exc:
        raise ScriptError(f"script {str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    return Script.from_json(obj, str(path))


def _new_state(cfg: NewGameConfig) -> Any:
    from engine.catalogue import load_default_catalogue
    from engine.maps import default_board
    from engine.setup import GameConfig, PlayerConfig, Variant, new_game
    from engine.state import Knowledge

    cat = load_default_catalogue()
    board = default_board(len(cfg.players), cat, random.Random(f"{cfg.seed}/map"))
    return new_game(
        GameConfig(
            players=tuple(PlayerConfig(p.colour, p.name) for p in cfg.players),
            variant=Variant(),
            knowledge=Knowledge.FULL,
            seed=cfg.seed,
            board=board,
            catalogue=cat,
            first_player=cfg.first,
        )
    )


# --------------------------------------------------------------------------------------------- the table


def knights_on_table(state: Any, board: Any) -> dict[str, dict[Colour, int]]:
    """What a camera should see: knights per territory and castle, from the engine state."""
    out: dict[str, dict[Colour, int]] = {}
    for tid in board.tiles.values():
        if tid in state.data.territories or tid in state.data.castle_owner:
            k = {c: n for c, n in state.knights_at(tid).items() if n > 0}
            if k:
                out[tid] = k
    return out


def artefacts_on_table(state: Any) -> dict[str, bool]:
    return {a.id: a.face_up for c in state.order for a in state.players[c].artefacts}


TableRenderer = Callable[[Any, int], tuple[Any, Any]]


def scene_spec(
    state: Any, board: Any, resolution: tuple[int, int] = (1920, 1080), difficulty: str = "easy"
) -> Any:
    from vision.synth import Difficulty, SceneSpec

    return SceneSpec(
        tiles=dict(board.tiles),
        knights=knights_on_table(state, board),
        artefacts=artefacts_on_table(state),
        resolution=resolution,
        difficulty=Difficulty(difficulty),
        layout_seed=1,
        steady_seed=1,  # a camera on a stand: the light stays put between frames, only noise changes
    )


def default_renderer() -> TableRenderer:
    try:
        from vision.synth import render_scene
    except ImportError as exc:
        raise ServiceUnavailableError(f"the synthetic camera needs vision.synth: {exc}") from exc
    return render_scene


class TruthReader:
    """A stand-in for vision: the renderer's ground truth as the reading (no vision errors). Used to check the
    pipeline's wiring on its own (`--reader truth`) and when vision is not installed."""

    def __init__(self) -> None:
        self.truth: Any = None

    def read(self, image: Any, frame_index: int) -> Any:
        from engine.reading import TableReading

        t = self.truth
        reading = TableReading(
            tiles=dict(t.tiles),
            knights={k: dict(v) for k, v in t.knights.items()},
            artefacts=dict(t.artefacts),
            frame_index=frame_index,
        )
        return _Result(reading)


@dataclass
class _Result:
    reading: Any
    status: Any = None
    message: str = ""


def vision_available() -> str:
    """ "" when the vision pipeline can be used, else why not (checked without importing it)."""
    import importlib.util

    for part in ("vision.pipeline", "vision.mapreader", "vision.knights", "vision.dice", "vision.synth"):
        try:
            if importlib.util.find_spec(part) is None:
                return f"{part} is not installed"
        except ImportError as exc:
            return str(exc)
    return ""


def vision_reader(hold_frames: int = 2, calibration: Any = None) -> Any:
    """vision's TableReader; `calibration`: the box's measured dice colours (`companion.calibrate`)."""
    try:
        import importlib

        for part in ("vision.mapreader", "vision.knights", "vision.dice"):  # imported lazily by the reader
            importlib.import_module(part)
        from vision.pipeline import TableReader

        return TableReader(hold_frames=hold_frames, calibration=calibration)
    except ImportError as exc:
        raise ServiceUnavailableError(f"the vision pipeline is not available: {exc}") from exc


# ------------------------------------------------------------------------------------------- the replay


@dataclass
class StepReport:
    index: int
    action: str
    via: str  # "camera" | "tap"
    ok: bool
    lines: list[str] = field(default_factory=list)
    problem: str = ""


class Replayer:
    """Plays a script through the whole pipeline, one move at a time (`steps()`), checking each move."""

    def __init__(
        self,
        script: Script,
        storage: Storage,
        *,
        reader: Any = None,
        renderer: TableRenderer | None = None,
        hold_frames: int = 2,
        max_frames: int = 8,
        resolution: tuple[int, int] = (1920, 1080),
        difficulty: str = "easy",
    ) -> None:
        from engine.rules import apply

        self.script = script
        self._apply = apply
        self.session = EngineSession.create(script.config, storage, knowledge="full")
        self.board = self.session.board
        self.truth = self.session.state
        self.reader = reader if reader is not None else vision_reader(hold_frames)
        self.renderer = renderer or default_renderer()
        self.hold_frames = hold_frames
        self.max_frames = max_frames
        self.resolution = resolution
        self.difficulty = difficulty
        self.frame_index = 0
        self.last_frame: Any = None
        self.last_reading: Any = None

    def _frames(self, state: Any) -> Iterator[Any]:
        spec = scene_spec(state, self.board, self.resolution, self.difficulty)
        for _ in range(self.max_frames):
            image, truth = self.renderer(spec, 1000 + self.frame_index)
            if isinstance(self.reader, TruthReader):
                self.reader.truth = truth
            result = self.reader.read(image, self.frame_index)
            self.frame_index += 1
            self.last_frame = image
            self.last_reading = result.reading
            yield result

    def look(self, state: Any) -> Any:
        """Show the camera the table for `state` until the reading holds what the table shows (knights and
        the artefact cards: a flipped card may take a frame or two longer to settle than the dice)."""
        want = knights_on_table(state, self.board)
        cards = artefacts_on_table(state)
        reading = None
        for n, result in enumerate(self._frames(state)):
            reading = result.reading
            got = {k: dict(v) for k, v in reading.knights.items()}
            seen = {a: up for a, up in reading.artefacts.items() if a in cards}
            if got == want and seen == cards and n + 1 >= self.hold_frames:
                break
        return reading

    def settle(self) -> None:
        """Before the first move: the camera learns the map and the starting knights, and keeps the game's map
        from then on (`vision.pipeline.TableReader.confirm_map`), as the app's camera does once a game is
        started."""
        reading = self.look(self.truth)
        from vision.pipeline import ConfirmsMap

        if isinstance(self.reader, ConfirmsMap) and self.board is not None:
            order = self.session.state.order
            castles = {self.board.castle_of(c): c for c in order}
            self.reader.confirm_map(dict(self.board.tiles), order, castles)
        proposal = self.session.propose(reading)
        if proposal.options or proposal.discrepancies:
            raise CompanionError(
                "the starting table does not match the game: "
                + "; ".join(d.sentence for d in proposal.discrepancies)
            )

    def steps(self) -> Iterator[StepReport]:
        for i, action in enumerate(self.script.actions):
            yield self.step(i, action)

    def step(self, i: int, action: Any) -> StepReport:
        before_table = knights_on_table(self.truth, self.board)
        expected, _events = self._apply(self.truth, action)
        after_table = knights_on_table(expected, self.board)
        n_lines = len(self.session.history())
        via = "tap"
        problem = ""
        if type(action) in CAMERA_MOVES and after_table != before_table:
            via = "camera"
            reading = self.look(expected)
            proposal = self.session.propose(reading)
            if proposal.discrepancies:
                problem = "camera and game disagree: " + "; ".join(d.sentence for d in proposal.discrepancies)
            elif not proposal.options:
                problem = "the camera saw no move"
            else:
                for opt in proposal.options:
                    self.session.apply(opt.action)
        else:
            self.session.apply(action)
            if after_table != before_table:  # e.g. losses after a battle: the table must agree with the game
                proposal = self.session.propose(self.look(expected))
                if proposal.options or proposal.discrepancies:
                    problem = "after a tapped move the table reads differently: " + "; ".join(
                        [d.sentence for d in proposal.discrepancies] + [o.label for o in proposal.options]
                    )
        if not problem and self.session.state.to_json() != expected.to_json():
            problem = "the app's game differs from the script's after this move"
        self.truth = expected
        lines = [x.text for x in self.session.history()[n_lines:]]
        return StepReport(i, action.TYPE, via, not problem, lines, problem)


def replay(
    script: Script, storage: Storage, out: TextIO, reader: Any = None, stop_on_error: bool = True, **kw: Any
) -> int:
    """Run the headless pipeline and print the event log and the final scores. Returns the exit code."""
    rep = Replayer(script, storage, reader=reader, **kw)
    rep.settle()
    failures = 0
    for report in rep.steps():
        for line in report.lines:
            print(f"{report.index + 1:4d} [{report.via:6s}] {line}", file=out)
        if not report.ok:
            failures += 1
            print(f"{report.index + 1:4d} DISAGREES: {report.action}: {report.problem}", file=out)
            if stop_on_error:
                break
    snap = rep.session.snapshot()
    print(
        "final scores: " + ", ".join(f"{p.name} ({p.colour.value}) {p.score}" for p in snap.players), file=out
    )
    if snap.winner:
        print("winner: " + ", ".join(snap.player(c).name for c in snap.winner), file=out)
    print(f"{len(rep.session.actions)} moves, {rep.frame_index} frames, {failures} disagreement(s)", file=out)
    return 1 if failures else 0

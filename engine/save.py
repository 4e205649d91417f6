"""Saved games: a versioned JSON document holding the game's config, its starting state and the actions
played.

Loading replays the actions through the referee, so a loaded game is identical to the saved one and a tampered
log is caught. Errors are `SaveError` with a specific message: not JSON, truncated, from a newer version, a
missing field, an action the rules refuse.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine import codec
from engine.actions import Action
from engine.colours import Colour
from engine.decisions import Decision, from_legacy
from engine.errors import (
    ActionFormatError,
    CatalogueError,
    EngineError,
    IllegalActionError,
    MapError,
    SaveError,
)
from engine.history import SAVE_FORMAT, History
from engine.setup import GameConfig, game_data, validate_state
from engine.state import STATE_VERSION, Battle, GameState, Knowledge, PlayerState
from engine.supply import refresh_control
from engine.work import Work

FORMAT = SAVE_FORMAT
VERSION = STATE_VERSION  # a saved game and the states in it share one version number


# --- a state on its own (scenarios, snapshots) -------------------------------------------------------------


def state_to_json(state: GameState) -> dict[str, Any]:
    """A state as a `seneschal-state` document (the same as `state.to_json()`)."""
    return state.to_json()


def state_from_json(obj: Any) -> GameState:
    """Rebuild a state (supply is recomputed); raises SaveError quoting what is wrong."""
    if not isinstance(obj, dict):
        raise SaveError(f"a game state is a JSON object, got {type(obj).__name__}")
    _check_version(obj, "seneschal-state")
    try:
        config = GameConfig.from_json(obj["config"])
        data = game_data(config)
        players = {Colour(k): codec.decode(PlayerState, v, f"players.{k}") for k, v in obj["players"].items()}
        occupants: dict[str, tuple[Colour, int]] = {}
        for t, v in obj["occupants"].items():
            c, n = codec.decode(tuple[Colour, int], v, f"occupants.{t}")
            occupants[t] = (c, n)
        state = GameState(
            data=data,
            config=config,
            order=codec.decode(tuple[Colour, ...], obj["order"], "order"),
            players=players,
            occupants=occupants,
            turn=codec.decode(int, obj["turn"], "turn"),
            current=Colour(obj["current"]),
            manoeuvres=codec.decode(int, obj["manoeuvres"], "manoeuvres"),
            crown_used=codec.decode(bool, obj["crown_used"], "crown_used"),
            in_advance=codec.decode(bool, obj["in_advance"], "in_advance"),
            battle=codec.decode(Battle | None, obj["battle"], "battle"),
            pending=_pending(obj["pending"], obj["version"]),
            winner=codec.decode(tuple[Colour, ...] | None, obj["winner"], "winner"),
            supply={},
            knowledge=Knowledge(obj["knowledge"]),
        )
    except KeyError as exc:
        raise SaveError(f"the game state is missing {exc.args[0]!r}") from None
    except (ValueError, TypeError, AttributeError, CatalogueError, MapError) as exc:
        raise SaveError(f"the game state is malformed: {exc}") from None
    problems = validate_state(state)
    if problems:
        raise SaveError("the game state is inconsistent: " + "; ".join(problems))
    w = Work(state)
    w.control_dirty = set(state.order)
    winner = state.winner
    refresh_control(w)
    w.events = []
    if winner is not None:
        w.winner = winner  # as saved (a hand-made position already past the target is declared won instead)
    return w.freeze()


# --- whole games -------------------------------------------------------------------------------------------


def same_state(state: GameState, doc: Mapping[str, Any]) -> bool:
    """Whether a saved state document describes `state`: compared as documents when this version wrote it,
    else (an older document) by reading it."""
    if doc.get("version") == STATE_VERSION:
        return state.to_json() == doc
    try:
        return state_from_json(doc) == state
    except SaveError:
        return False


def _pending(raw: Any, version: int) -> tuple[Decision, ...]:
    """The decisions a state waits for: typed records (version 2) or version 1's loose ones."""
    if not isinstance(raw, list):
        raise ValueError(f"'pending' must be a list, got {raw!r}")
    read = from_legacy if version < 2 else Decision.from_json
    return tuple(read(d) for d in raw)


def save_document(history: History) -> dict[str, Any]:
    """The save document of a History: config, initial state, the actions of the current line of play."""
    return history.to_json()


def _check_version(obj: Mapping[str, Any], fmt: str) -> None:
    got = obj.get("format")
    if got != fmt:
        raise SaveError(f"not a {fmt} document: 'format' is {got!r}")
    version = obj.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SaveError(f"'version' must be an integer, got {version!r}")
    if version > VERSION:
        raise SaveError(
            f"this save is version {version}, newer than this program understands ({VERSION}); "
            "update Seneschal to open it"
        )
    if version < 1:
        raise SaveError(f"'version' must be at least 1, got {version}")


def load_document(obj: Any) -> History:
    """Rebuild a History by replaying the saved actions through the referee."""
    if not isinstance(obj, dict):
        raise SaveError(f"a saved game is a JSON object, got {type(obj).__name__}")
    _check_version(obj, FORMAT)
    if "initial" not in obj or "actions" not in obj:
        raise SaveError("the saved game is missing 'initial' or 'actions'")
    initial = state_from_json(obj["initial"])
    history = History(initial)
    if not isinstance(obj["actions"], list):
        raise SaveError(f"'actions' must be a list, got {type(obj['actions']).__name__}")
    for i, raw in enumerate(obj["actions"], 1):
        try:
            action = Action.from_json(raw)
            history.play(action)
        except ActionFormatError as exc:
            raise SaveError(f"action {i} is malformed: {exc}") from None
        except IllegalActionError as exc:
            raise SaveError(
                f"action {i} ({raw!r}) is refused on replay: {exc.verdict.sentence} ({exc.verdict.citation})"
            ) from None
    return history


def dumps(history: History) -> str:
    return json.dumps(save_document(history), indent=1, sort_keys=False)


def loads(text: str | bytes) -> History:
    """Parse a saved game's text; truncated or non-JSON text raises SaveError saying where it broke."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        tail = text.rstrip()[-1:] if isinstance(text, str) else text.rstrip()[-1:].decode(errors="replace")
        looks_cut = exc.pos >= len(text) - 1 or tail not in ("}", "]")
        hint = " (the file looks truncated)" if looks_cut else ""
        raise SaveError(
            f"the saved game is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}{hint}"
        ) from None
    except UnicodeDecodeError as exc:
        raise SaveError(f"the saved game is not UTF-8 text: {exc}") from None
    return load_document(obj)


def save(history: History, path: str | Path) -> None:
    Path(path).write_text(dumps(history), encoding="utf-8")


def load(path: str | Path) -> History:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SaveError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SaveError(f"{str(path)!r} is not UTF-8 text: {exc}") from None
    return loads(text)


__all__ = [
    "FORMAT",
    "VERSION",
    "EngineError",
    "dumps",
    "load",
    "load_document",
    "loads",
    "same_state",
    "save",
    "save_document",
    "state_from_json",
    "state_to_json",
    "validate_state",
]

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
from engine.colours import Colour
from engine.errors import ActionFormatError, CatalogueError, EngineError, MapError, SaveError
from engine.state import ArtefactHolding, Battle, GameState, Knowledge, Pending, PlayerState

FORMAT = "seneschal-game"
VERSION = 1


# --- a state on its own (scenarios, snapshots) -------------------------------------------------------------


def state_to_json(state: GameState) -> dict[str, Any]:
    return {
        "format": "seneschal-state",
        "version": VERSION,
        "config": state.config.to_json(),
        "order": codec.encode(state.order),
        "players": {c.value: _player_json(p) for c, p in state.players.items()},
        "occupants": {t: [c.value, n] for t, (c, n) in sorted(state.occupants.items())},
        "turn": state.turn,
        "current": state.current.value,
        "manoeuvres": state.manoeuvres,
        "crown_used": state.crown_used,
        "in_advance": state.in_advance,
        "battle": codec.encode(state.battle),
        "pending": codec.encode(state.pending),
        "winner": codec.encode(state.winner),
        "knowledge": state.knowledge.value,
    }


def _player_json(p: PlayerState) -> dict[str, Any]:
    out: dict[str, Any] = codec.encode(p)
    if out.get("conflict_bound") is None:
        del out["conflict_bound"]  # R46's field is new: states without a declaration keep their old form
    return out


def state_from_json(obj: Any) -> GameState:
    """Rebuild a state (supply is recomputed); raises SaveError quoting what is wrong."""
    from engine.flow import Work, refresh_control
    from engine.setup import GameConfig, game_data

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
            pending=codec.decode(tuple[Pending, ...], obj["pending"], "pending"),
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


def validate_state(state: GameState) -> list[str]:
    """Problems with a hand-made state: unknown places, bad counts, players not in the game."""
    problems: list[str] = []
    data = state.data
    if set(state.players) != set(state.order):
        problems.append("players and seating order name different colours")
    for t, (c, n) in state.occupants.items():
        if t not in data.territories:
            problems.append(f"knights on {t!r}, which is not a territory on this map")
        elif n <= 0:
            problems.append(f"{t}: knight count must be positive, got {n}")
        elif n > data.capacity[t]:
            problems.append(f"{t}: {n} knights is over its capacity of {data.capacity[t]}")
        if c not in state.players:
            problems.append(f"{t}: {c.value} is not playing")
    for c, p in state.players.items():
        if p.castle < 0 or p.hand_size < 0 or p.deck_size < 0:
            problems.append(f"{c.value}: counts cannot be negative")
        if p.conflict_bound is not None and not 0 <= p.conflict_bound < max(1, p.hand_size):
            problems.append(f"{c.value}: conflict_bound {p.conflict_bound} must be 0..hand size - 1 (R46)")
        if state.dice_in_use(c) > data.dice_per_player:
            problems.append(
                f"{c.value}: knights need {state.dice_in_use(c)} dice, more than {data.dice_per_player}"
            )
        for a in p.artefacts:
            if a.id not in data.artefacts:
                problems.append(f"{c.value}: unknown artefact {a.id!r}")
        for card in (*p.hand, *p.deck, *(x for x, _ in p.discard)):
            if card not in data.cards:
                problems.append(f"{c.value}: unknown card {card!r}")
    if state.current not in state.players:
        problems.append(f"current player {state.current.value} is not playing")
    return problems


_ = ArtefactHolding  # re-exported type used inside PlayerState documents


# --- whole games -------------------------------------------------------------------------------------------


def save_document(history: Any) -> dict[str, Any]:
    """The save document of a History: config, initial state, the actions of the current line of play."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "initial": state_to_json(history.initial),
        "actions": [a.to_json() for a in history.actions()],
    }


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


def load_document(obj: Any) -> Any:
    """Rebuild a History by replaying the saved actions through the referee."""
    from engine.actions import Action
    from engine.errors import IllegalActionError
    from engine.history import History

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


def dumps(history: Any) -> str:
    return json.dumps(save_document(history), indent=1, sort_keys=False)


def loads(text: str | bytes) -> Any:
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


def save(history: Any, path: str | Path) -> None:
    Path(path).write_text(dumps(history), encoding="utf-8")


def load(path: str | Path) -> Any:
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
    "save",
    "save_document",
    "state_from_json",
    "state_to_json",
    "validate_state",
]

"""An append-only log of a game: every applied action with its events and the state it produced.

`undo()` steps back one action and `rewind_to(index)` back to any earlier point (the rulebook allows rewinding
play to an overlooked ability, p.12); both record the rewind in the log instead of deleting it, so the log
stays append-only while the current line of play is `entries[:cursor]`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.errors import EngineError
from engine.events import Event
from engine.rules import apply
from engine.state import STATE_VERSION, GameState

SAVE_FORMAT = "seneschal-game"


@dataclass(frozen=True, slots=True)
class Entry:
    index: int  # 1-based position in the current line of play
    action: Action
    events: tuple[Event, ...]
    state: GameState


@dataclass(frozen=True, slots=True)
class Rewind:
    """A record that play was rewound to `to_index` (entries after it were abandoned)."""

    to_index: int
    abandoned: tuple[Action, ...]


class History:
    """The game so far. `state` is the current state; `entries` the current line of play."""

    def __init__(self, initial: GameState) -> None:
        self.initial = initial
        self._entries: list[Entry] = []
        self.log: list[Entry | Rewind] = []  # append-only: every entry and every rewind, in order

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def state(self) -> GameState:
        return self._entries[-1].state if self._entries else self.initial

    def play(self, action: Action) -> tuple[Event, ...]:
        """Check and apply an action; raises IllegalActionError (nothing recorded) when refused."""
        new_state, events = apply(self.state, action)
        entry = Entry(len(self._entries) + 1, action, events, new_state)
        self._entries.append(entry)
        self.log.append(entry)
        return events

    def undo(self) -> GameState:
        """Take back the last action; raises EngineError when there is nothing to undo."""
        if not self._entries:
            raise EngineError("nothing to undo: no action has been played yet")
        return self.rewind_to(len(self._entries) - 1)

    def rewind_to(self, index: int) -> GameState:
        """Go back to the state after action number `index` (0 = the initial state)."""
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= len(self._entries):
            n = len(self._entries)
            raise EngineError(f"cannot rewind to {index!r}: the game has {n} actions (0..{n})")
        abandoned = tuple(e.action for e in self._entries[index:])
        del self._entries[index:]
        self.log.append(Rewind(index, abandoned))
        return self.state

    def actions(self) -> tuple[Action, ...]:
        return tuple(e.action for e in self._entries)

    def to_json(self) -> dict[str, Any]:
        """The save document: format, version, the initial state and the actions of the current line of play
        (`engine.save.load_document` replays it)."""
        return {
            "format": SAVE_FORMAT,
            "version": STATE_VERSION,
            "initial": self.initial.to_json(),
            "actions": [a.to_json() for a in self.actions()],
        }

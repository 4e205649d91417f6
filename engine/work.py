"""The working copy of a state while one action is applied: mutable, then frozen into the next state.

Only `engine.rules.apply` (and setting up) drives a Work, after `check` has accepted the action, so nothing
that changes a Work re-validates player input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine import events as ev
from engine.colours import Colour
from engine.decisions import Decision
from engine.rulebook import Rule
from engine.speed import Owned, builder
from engine.state import Battle, GameState, Knowledge, PlayerState, combat_scores

_new_state = builder(GameState)  # GameState(...), built faster with the speed tricks on (engine/speed.py)


class Work:
    """A mutable copy of a state's changing parts; `freeze()` builds the next immutable state."""

    __slots__ = (
        "battle",
        "control_dirty",
        "crown_used",
        "current",
        "data",
        "emit",
        "events",
        "in_advance",
        "knowledge",
        "manoeuvres",
        "occ",
        "occ_mine",
        "owned",
        "pending",
        "players",
        "s",
        "staged",
        "supply",
        "turn",
        "winner",
    )

    def __init__(self, s: GameState) -> None:
        self.s = s
        self.data = s.data
        self.players = dict(s.players)
        self.occ: Mapping[str, tuple[Colour, int]] = s.occupants  # the state's until changed (`occupy`)
        self.occ_mine: dict[str, tuple[Colour, int]] | None = None  # this Work's own copy, once changed
        self.turn = s.turn
        self.current = s.current
        self.manoeuvres = s.manoeuvres
        self.crown_used = s.crown_used
        self.in_advance = s.in_advance
        self.battle = s.battle
        self.pending = list(s.pending)
        self.staged: list[Decision] = []
        self.winner = s.winner
        self.supply: dict[Colour, frozenset[str]] = s.supply  # type: ignore[assignment]  # copied on write
        self.knowledge = s.knowledge
        self.events: list[ev.Event] = []
        self.emit: Callable[[ev.Event], None] = self.events.append  # record an event
        self.control_dirty: set[Colour] = set()  # players whose control changed: supply to recompute
        self.owned = Owned()  # the player and battle records this Work made (engine/speed.py)

    def freeze(self) -> GameState:
        """The next state. The records it hands over are that state's: later changes copy them again."""
        self.owned.release()
        s = self.s
        return _new_state(
            s.data, s.config, s.order, self.players, self.occ, self.turn, self.current, self.manoeuvres,
            self.crown_used, self.in_advance, self.battle, tuple(self.pending), self.winner, self.supply,
            s.knowledge,
        )

    @property
    def occupants(self) -> Mapping[str, tuple[Colour, int]]:
        return self.occ

    def occupy(self, territory: str, colour: Colour, knights: int) -> None:
        """`knights` of `colour`'s hold `territory` (whoever held it before)."""
        self._own_occupants()[territory] = (colour, knights)

    def vacate(self, territory: str) -> None:
        """Nobody's knights are left on `territory`."""
        del self._own_occupants()[territory]

    def _own_occupants(self) -> dict[str, tuple[Colour, int]]:
        """The occupants to change: copied the first time (most actions change none)."""
        mine = self.occ_mine
        if mine is None:
            mine = self.occ_mine = dict(self.occ)
            self.occ = mine
        return mine

    @property
    def config(self) -> Any:
        return self.s.config

    def view(self) -> GameState:
        """A read-only snapshot of the work in progress (for scores and checks mid-application). The Work goes
        on with copies of its containers, so later changes never reach the snapshot."""
        snapshot = self.freeze()
        self.players = dict(self.players)
        self.occ_mine = None
        self.supply = dict(self.supply)
        return snapshot

    @property
    def full(self) -> bool:
        return self.knowledge is Knowledge.FULL

    def emit_scores(self, cause: str, rule: Rule) -> None:
        """Both combat scores of the battle, after `cause` changed them by `rule`."""
        assert self.battle is not None
        a, d = combat_scores(self, self.battle)
        self.emit(ev.CombatScore(a, d, cause, rule=rule))

    def stage(self, *items: Decision) -> None:
        """Decisions to wait for, before what was already waiting (`flush` puts them in front)."""
        self.staged.extend(items)

    def flush(self) -> None:
        if self.staged:
            self.pending[0:0] = self.staged
            self.staged = []

    def set_player(self, colour: Colour, **changes: object) -> PlayerState:
        """Change a player's record (never keep a PlayerState across a change to read its old values: the
        Work may change its own copy in place)."""
        p = self.players[colour] = self.owned.change(self.players[colour], changes)
        return p

    def set_battle(self, **changes: object) -> Battle:
        """Change the battle record (as with `set_player`, never keep a Battle across a change)."""
        assert self.battle is not None
        b = self.battle = self.owned.change(self.battle, changes)
        return b

    def clockwise_from(self, colour: Colour) -> tuple[Colour, ...]:
        order = self.s.order
        i = order.index(colour)
        return order[i:] + order[:i]

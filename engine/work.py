"""The working copy of a state while one action is applied: mutable, then frozen into the next state.

Only `engine.rules.apply` (and setting up) drives a Work, after `check` has accepted the action, so nothing
that changes a Work re-validates player input.
"""

from __future__ import annotations

from engine import events as ev
from engine.colours import Colour
from engine.speed import freezer, replace_fields, setters
from engine.state import Battle, GameState, Knowledge, Pending, PlayerState, combat_scores


class Work:
    """A mutable copy of a state's changing parts; `freeze()` builds the next immutable state."""

    __slots__ = (
        "battle",
        "battle_owned",
        "control_dirty",
        "crown_used",
        "current",
        "data",
        "events",
        "in_advance",
        "knowledge",
        "manoeuvres",
        "occ",
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
        self.occ = dict(s.occupants)
        self.turn = s.turn
        self.current = s.current
        self.manoeuvres = s.manoeuvres
        self.crown_used = s.crown_used
        self.in_advance = s.in_advance
        self.battle = s.battle
        self.battle_owned = False  # True once `battle` is this Work's own copy (then changed in place)
        self.pending = list(s.pending)
        self.staged: list[Pending] = []
        self.winner = s.winner
        self.supply: dict[Colour, frozenset[str]] = s.supply  # type: ignore[assignment]  # copied on write
        self.knowledge = s.knowledge
        self.events: list[ev.Event] = []
        self.control_dirty: set[Colour] = set()  # players whose control changed: supply to recompute
        self.owned: set[Colour] = set()  # players whose record is this Work's own copy (changed in place)

    def freeze(self) -> GameState:
        # The records it hands over are the new state's: later changes (after a `view`) copy them again.
        self.owned.clear()
        self.battle_owned = False
        return _FREEZE(self, self.s)

    @property
    def occupants(self) -> dict[str, tuple[Colour, int]]:
        return self.occ

    def view(self) -> GameState:
        """A read-only snapshot of the work in progress (for scores and checks mid-application). The Work goes
        on with copies of its containers, so later changes never reach the snapshot."""
        snapshot = self.freeze()
        self.players = dict(self.players)
        self.occ = dict(self.occ)
        self.supply = dict(self.supply)
        return snapshot

    @property
    def full(self) -> bool:
        return self.knowledge is Knowledge.FULL

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)

    def emit_scores(self, cause: str) -> None:
        """Both combat scores of the battle, after `cause` changed them."""
        assert self.battle is not None
        a, d = combat_scores(self, self.battle)
        self.emit(ev.CombatScore(a, d, cause))

    def stage(self, *items: Pending) -> None:
        self.staged.extend(items)

    def flush(self) -> None:
        if self.staged:
            self.pending[0:0] = self.staged
            self.staged = []

    def set_player(self, colour: Colour, **changes: object) -> PlayerState:
        """Change a player's record. The first change copies the state's record; later ones change that copy
        in place (a draw or a battle changes it several times per action), so, as with `set_battle`, never
        keep a PlayerState across a change to read its old values."""
        if colour in self.owned:
            p = self.players[colour]
            for name, value in changes.items():
                _PLAYER_SETTERS[name](p, value)  # an unknown name raises KeyError
            return p
        p = replace_fields(self.players[colour], changes)
        self.players[colour] = p
        self.owned.add(colour)
        return p

    def set_battle(self, **changes: object) -> Battle:
        """Change the battle record. The first change copies the state's record; later ones change that copy
        in place (a battle changes a dozen times per action), so never keep a Battle across a change to read
        its old values."""
        b = self.battle
        assert b is not None
        if self.battle_owned:
            for name, value in changes.items():
                _BATTLE_SETTERS[name](b, value)  # an unknown name raises KeyError
            return b
        b = replace_fields(b, changes)
        self.battle = b
        self.battle_owned = True
        return b

    def clockwise_from(self, colour: Colour) -> tuple[Colour, ...]:
        order = self.s.order
        i = order.index(colour)
        return order[i:] + order[:i]


# `Work.freeze`: the GameState fields a Work carries (`occupants` is `occ`; `pending` is frozen to a tuple);
# the rest are copied from the state the Work started from.
_CARRIED = {"players": "w.players", "occupants": "w.occ", "turn": "w.turn", "current": "w.current",
            "manoeuvres": "w.manoeuvres", "crown_used": "w.crown_used", "in_advance": "w.in_advance",
            "battle": "w.battle", "pending": "tuple(w.pending)", "winner": "w.winner", "supply": "w.supply"}
_FREEZE = freezer(GameState, {n: _CARRIED.get(n, f"s.{n}") for n in setters(GameState)}, "w, s")
_BATTLE_SETTERS = setters(Battle)
_PLAYER_SETTERS = setters(PlayerState)

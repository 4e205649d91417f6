"""The state of one game of Medieval Mastery: immutable, cheap to copy (dictionaries are shared between states
and never mutated once a state is built), and serialisable.

Knights: a player's castle count lives in `PlayerState.castle`; `GameState.occupants` maps each occupied
territory to its one occupant (a player and a knight count). During a battle the attacker's knights in the
disputed territory are held in `Battle.attacker_knights`, so outside a battle every territory has at most one
player's knights by construction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from engine import codec
from engine.colours import Colour
from engine.decisions import Decision, Need
from engine.gamedata import GameData
from engine.speed import identity_hash

STATE_VERSION = 2  # the `seneschal-state` document's version (1: decisions as one loose record)


@identity_hash
class Knowledge(Enum):
    """FULL: the engine holds every card (simulation, tests). TABLE: real cards, hands and decks unknown."""

    FULL = "full"
    TABLE = "table"


@identity_hash
class TurnStep(Enum):
    """Where the current turn is (Taking a Turn, p.8). Steps 1 and 9 happen automatically at turn change."""

    PREPARE = "prepare"  # steps 2-3 (and 7-8 while a redistribution/advance is still available)
    ADVANCE = "advance"  # step 5: knights were redistributed; advance or decline
    BATTLE = "battle"  # step 6
    FOLLOW_UP = "follow_up"  # steps 7-8: every advance is spent; resources, crowns, end the turn
    GAME_OVER = "game_over"


@identity_hash
class DiceSource(Enum):
    """Where a die result came from, recorded with the roll (chance is an input: the engine never rolls)."""

    DEVICE = "device"
    SCREEN = "screen"
    TYPED = "typed"
    CAMERA = "camera"
    SIMULATION = "simulation"


@identity_hash
class BattleStage(Enum):
    """The next thing a battle does once nothing is pending: the phases of the order of battle (p.12), in
    order (`engine.battle.BATTLE_STEPS` says which step each belongs to and what it does)."""

    TERRITORY = "territory"  # step 1: start-of-battle territory abilities
    ARENA = "arena"  # step 1: resolve the arena dice
    DRAW = "draw"  # step 2
    SCEPTRE_WINDOW = "sceptre_window"  # step 3
    SCEPTRES = "sceptres"
    CONFLICT = "conflict"  # step 4
    REVEAL = "reveal"
    SUPPORT = "support"  # step 5
    RESULT = "result"  # step 6
    MAYHEM = "mayhem"  # optional rule: the winner's dice
    ORB_WINDOW = "orb_window"  # step 7
    ORBS = "orbs"
    LOSSES = "losses"  # step 8
    CONQUEST = "conquest"  # step 9
    END = "end"


@dataclass(frozen=True, slots=True)
class Battle:
    territory: str  # a territory id, or a castle id in a castle siege
    attacker: Colour
    defender: Colour
    attacker_knights: int
    stage: BattleStage
    siege: bool = False
    attacker_bonus: int = 0  # territory and sceptre abilities
    defender_bonus: int = 0
    attacker_equal: bool = False  # Sceptre of Fear used
    defender_equal: bool = False  # Sceptre of Vigour used
    attacker_conflict: str | None = None
    defender_conflict: str | None = None
    attacker_played: bool = False
    defender_played: bool = False
    attacker_conflict_value: int = 0
    defender_conflict_value: int = 0
    revealed: bool = False
    support: tuple[tuple[Colour, str, Colour], ...] = ()  # (played by, card id, for whom)
    attacker_support: int = 0
    defender_support: int = 0
    winner: Colour | None = None
    margin: int = 0
    ended_early: bool = False  # the arena or mayhem dice left someone with no knights
    attacker_arena_roll: int = 0
    defender_arena_roll: int = 0

    def rival(self, colour: Colour) -> Colour:
        return self.defender if colour is self.attacker else self.attacker

    @property
    def loser(self) -> Colour | None:
        if self.winner is None:
            return None
        return self.rival(self.winner)


@dataclass(frozen=True, slots=True)
class ArtefactHolding:
    id: str
    destroyed_on: int | None = None  # the turn number it was destroyed on; None = face up

    @property
    def face_up(self) -> bool:
        return self.destroyed_on is None


@dataclass(frozen=True, slots=True)
class PlayerState:
    colour: Colour
    castle: int  # knights in the castle
    hand: tuple[str, ...]  # FULL only; () in TABLE mode
    hand_size: int
    deck: tuple[str, ...]  # FULL only, top card first; () in TABLE mode
    deck_size: int
    discard: tuple[tuple[str, int], ...]  # (card id, turn discarded), bottom first; public in both modes
    artefacts: tuple[ArtefactHolding, ...]  # crown, sceptre, orb
    shuffles: int = 0  # how many times this deck was shuffled (seeds the next shuffle in FULL mode)
    # TABLE (R46): after the player declared "no conflict card", at most this many cards of their hand can be
    # conflict cards (those drawn since the declaration); None: no declaration in force.
    conflict_bound: int | None = None

    def artefact(self, artefact_id: str) -> ArtefactHolding | None:
        for a in self.artefacts:
            if a.id == artefact_id:
                return a
        return None

    def discard_ids(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.discard)


@dataclass(frozen=True, slots=True)
class GameState:
    """One moment of a game. Build new states with `engine.rules.apply`; never mutate one."""

    data: GameData = field(compare=False, repr=False)
    config: Any = field(compare=False, repr=False)  # engine.setup.GameConfig
    order: tuple[Colour, ...]  # seating, clockwise
    players: Mapping[Colour, PlayerState]
    occupants: Mapping[str, tuple[Colour, int]]
    turn: int
    current: Colour
    manoeuvres: int  # redistribution + advance pairs still available this turn
    crown_used: bool
    in_advance: bool  # knights were redistributed; the advance of this manoeuvre comes next
    battle: Battle | None
    pending: tuple[Decision, ...]  # what the game waits for, the first one first
    winner: tuple[Colour, ...] | None
    supply: Mapping[Colour, frozenset[str]]
    knowledge: Knowledge

    # --- queries -----------------------------------------------------------------------------------------
    @property
    def step(self) -> TurnStep:
        if self.winner is not None:
            return TurnStep.GAME_OVER
        if self.battle is not None:
            return TurnStep.BATTLE
        if self.in_advance:
            return TurnStep.ADVANCE
        return TurnStep.PREPARE if self.manoeuvres > 0 else TurnStep.FOLLOW_UP

    @property
    def game_over(self) -> bool:
        return self.winner is not None

    def player(self, colour: Colour) -> PlayerState:
        return self.players[colour]

    def controller(self, territory: str) -> Colour | None:
        occ = self.occupants.get(territory)
        return occ[0] if occ is not None else None

    def knights_at(self, location: str) -> Mapping[Colour, int]:
        """Knights per player at a territory or castle (both sides of a battle in the disputed place)."""
        out: dict[Colour, int] = {}
        owner = self.data.castle_owner.get(location)
        if owner is not None:
            if self.players[owner].castle:
                out[owner] = self.players[owner].castle
            occ = self.occupants.get(location)
            if occ is not None:
                out[occ[0]] = occ[1]
        else:
            occ = self.occupants.get(location)
            if occ is not None and occ[1] > 0:
                out[occ[0]] = occ[1]
        b = self.battle
        if b is not None and b.territory == location and b.attacker_knights > 0:
            out[b.attacker] = b.attacker_knights
        return out

    def has_supply(self, colour: Colour, territory: str) -> bool:
        return territory in self.supply.get(colour, frozenset())

    def territories_of(self, colour: Colour) -> tuple[str, ...]:
        return tuple(t for t, (c, _) in self.occupants.items() if c is colour and t in self.data.territories)

    def score(self, colour: Colour) -> int:
        skirmish = bool(self.config.variant.skirmish)
        values = self.data.value
        total = 0
        for t, (c, _) in self.occupants.items():
            if c is colour and t in values:
                if skirmish and self.data.is_homeland(t):
                    continue
                total += values[t]
        return total

    def scores(self) -> dict[Colour, int]:
        return {c: self.score(c) for c in self.order}

    def dice_in_use(self, colour: Colour) -> int:
        """Dice on the map: each location holds its knights on ceil(knights / 6) dice (R22)."""
        return dice_in_use(self, colour)

    def knights_on_map(self, colour: Colour) -> int:
        n = self.players[colour].castle
        for c, k in self.occupants.values():
            if c is colour:
                n += k
        b = self.battle
        if b is not None and b.attacker is colour:
            n += b.attacker_knights
        return n

    def actors(self) -> tuple[Colour, ...]:
        """Who may act now: the players a pending decision waits for, else the player whose turn it is."""
        if self.winner is not None:
            return ()
        if self.pending:
            return self.pending[0].actors()
        return (self.current,)

    def combat_scores(self) -> tuple[int, int] | None:
        """(attacker, defender) combat scores of the battle in progress."""
        b = self.battle
        if b is None:
            return None
        return combat_scores(self, b)

    def to_json(self) -> dict[str, Any]:
        """The state as a `seneschal-state` document (`engine.save.state_from_json` reads it back)."""
        players = {}
        for c, p in self.players.items():
            doc = codec.encode(p)
            if doc.get("conflict_bound") is None:
                del doc["conflict_bound"]  # R46's field is newer: players without one keep the old form
            players[c.value] = doc
        return {
            "format": "seneschal-state",
            "version": STATE_VERSION,
            "config": self.config.to_json(),
            "order": codec.encode(self.order),
            "players": players,
            "occupants": {t: [c.value, n] for t, (c, n) in sorted(self.occupants.items())},
            "turn": self.turn,
            "current": self.current.value,
            "manoeuvres": self.manoeuvres,
            "crown_used": self.crown_used,
            "in_advance": self.in_advance,
            "battle": codec.encode(self.battle),
            "pending": [d.to_json() for d in self.pending],
            "winner": codec.encode(self.winner),
            "knowledge": self.knowledge.value,
        }


class KnightsView(Protocol):
    """Anything holding knights like a state does (a GameState, or the working copy inside `apply`)."""

    @property
    def players(self) -> Mapping[Colour, PlayerState]: ...

    @property
    def occupants(self) -> Mapping[str, tuple[Colour, int]]: ...

    @property
    def battle(self) -> Battle | None: ...


def dice_for(knights: int) -> int:
    """Knights on one place stand on as few dice as possible (p.9: one die where possible)."""
    return -(-knights // 6)


def dice_in_use(state: KnightsView, colour: Colour) -> int:
    """A player's dice on the map: each place holds its knights on `dice_for` dice (R22)."""
    n = dice_for(state.players[colour].castle)
    for c, k in state.occupants.values():
        if c is colour:
            n += (k + 5) // 6  # dice_for(k), inlined: this loop runs for every advance considered
    b = state.battle
    if b is not None and b.attacker is colour:
        n += dice_for(b.attacker_knights)
    return n


def defender_knights(state: KnightsView, b: Battle) -> int:
    if b.siege:
        return state.players[b.defender].castle
    occ = state.occupants.get(b.territory)
    return occ[1] if occ is not None else 0


def combat_scores(state: KnightsView, b: Battle) -> tuple[int, int]:
    actual_d = defender_knights(state, b)
    d_knights = 8 if b.siege else actual_d  # castle siege: the defender battles as though 8 knights (p.14)
    a_knights = b.attacker_knights
    a_base = d_knights if b.attacker_equal else a_knights
    d_base = a_knights if b.defender_equal else d_knights
    a = a_base + b.attacker_bonus + b.attacker_support
    d = d_base + b.defender_bonus + b.defender_support
    if b.revealed:
        a += b.attacker_conflict_value
        d += b.defender_conflict_value
    return a, d




__all__ = [
    "STATE_VERSION",
    "ArtefactHolding",
    "Battle",
    "BattleStage",
    "DiceSource",
    "GameState",
    "KnightsView",
    "Knowledge",
    "Need",
    "PlayerState",
    "TurnStep",
    "combat_scores",
    "defender_knights",
    "dice_for",
    "dice_in_use",
]

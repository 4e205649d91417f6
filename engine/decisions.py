"""What the engine can wait for: one typed record per kind of decision window.

`GameState.pending` holds them, the one the game waits for first. Each says who may answer (`actors()`), what
it waits for in words (`ASKS`), and the rule that opens it (`rule`); the moves that answer it name its class
(`engine.moves.Move.answers`). The records are plain data: what happens when one is answered lives with the
moves, in the topic modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from engine import codec
from engine.colours import Colour
from engine.errors import SaveError
from engine.rulebook import Rule
from engine.speed import identity_hash


@identity_hash
class Need(Enum):
    """The kind of a decision, as a stable code (the `type` of a decision in a saved state)."""

    FRACTURE = "fracture"
    DICE = "dice"
    EQUALISE = "equalise"
    RANDOM_DISCARD = "random_discard"
    CONFLICT = "conflict"
    SUPPORT = "support"
    OPTIONAL_DISCARD = "optional_discard"
    AUTHORITY = "authority"
    REDISTRIBUTE = "redistribute"
    ARRANGE = "arrange"
    RETURN_CARD = "return_card"
    DESTROY = "destroy"
    PROSPERITY = "prosperity"
    APPLY_CROWN = "apply_crown"


DECISION_TYPES: dict[str, type[Decision]] = {}


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision the game waits for. Subclasses set `NEED`, `ASKS` and `RULE`."""

    NEED: ClassVar[Need]
    ASKS: ClassVar[str]  # what the game waits for, after "waiting": "for support cards"
    RULE: ClassVar[Rule]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # (no super(): slotted dataclasses are re-created classes, and zero-argument super() breaks there)
        need = cls.__dict__.get("NEED")
        if need is not None:
            DECISION_TYPES[need.value] = cls

    @property
    def need(self) -> Need:
        return self.NEED

    @property
    def rule(self) -> Rule:
        """The rule that opened this window (its citation heads a refusal while it waits)."""
        return self.RULE

    def actors(self) -> tuple[Colour, ...]:
        """The players who may answer now."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return codec.typed_to_json(self, self.NEED.value)

    @staticmethod
    def from_json(obj: Any) -> Decision:
        return codec.typed_from_json(DECISION_TYPES, obj, "decision", SaveError)


@dataclass(frozen=True, slots=True)
class OneActor(Decision):
    """A decision one player makes."""

    actor: Colour

    def actors(self) -> tuple[Colour, ...]:
        return (self.actor,)


# --- artefacts ---------------------------------------------------------------------------------------------


@identity_hash
class FractureMoment(Enum):
    """When a fracture window opens (p.8): a crown announced, or before a battle's sceptres or orbs apply."""

    CROWN = "crown"
    SCEPTRES = "sceptre"
    ORBS = "orb"


@dataclass(frozen=True, slots=True)
class FractureWindow(Decision):
    """Each of `players` in turn may play a fracture card on one of `targets` (p.8, R25, R47)."""

    players: tuple[Colour, ...]
    targets: tuple[str, ...]
    moment: FractureMoment
    NEED: ClassVar[Need] = Need.FRACTURE
    ASKS: ClassVar[str] = "to decide on a fracture card"
    RULE: ClassVar[Rule] = Rule.FRACTURE

    def actors(self) -> tuple[Colour, ...]:
        return self.players[:1]

    @property
    def rule(self) -> Rule:
        return {FractureMoment.CROWN: Rule.FRACTURE, FractureMoment.SCEPTRES: Rule.BATTLE_3,
                FractureMoment.ORBS: Rule.BATTLE_7}[self.moment]


@dataclass(frozen=True, slots=True)
class CrownEffect(OneActor):
    """Automatic: once its fracture window has closed, `crown` applies for `actor` unless it was destroyed."""

    crown: str
    affected: Colour
    NEED: ClassVar[Need] = Need.APPLY_CROWN
    ASKS: ClassVar[str] = "to apply a crown"
    RULE: ClassVar[Rule] = Rule.CROWNS


@dataclass(frozen=True, slots=True)
class VitalityRedistribution(OneActor):
    """Crown of Vitality: `actor` redistributes once more (not a manoeuvre, R42)."""

    NEED: ClassVar[Need] = Need.REDISTRIBUTE
    ASKS: ClassVar[str] = "for the Crown of Vitality redistribution"
    RULE: ClassVar[Rule] = Rule.ICONS


@dataclass(frozen=True, slots=True)
class InsightArrangement(OneActor):
    """Crown of Insight: `actor` puts the top `count` cards of `subject`'s deck back in any order; `cards`
    lists them in FULL games (empty in TABLE games, where they stay secret)."""

    subject: Colour
    cards: tuple[str, ...]
    count: int
    NEED: ClassVar[Need] = Need.ARRANGE
    ASKS: ClassVar[str] = "to put the cards back"
    RULE: ClassVar[Rule] = Rule.ICONS


@dataclass(frozen=True, slots=True)
class OrderReturn(OneActor):
    """Crown of Order: `actor` shuffles one of `eligible` (discarded by `subject` on a previous turn, R29)
    back into `subject`'s deck."""

    subject: Colour
    eligible: tuple[str, ...]
    NEED: ClassVar[Need] = Need.RETURN_CARD
    ASKS: ClassVar[str] = "to choose a card for the Crown of Order"
    RULE: ClassVar[Rule] = Rule.ICONS


@dataclass(frozen=True, slots=True)
class CorruptionTarget(OneActor):
    """Crown of Corruption: `actor` destroys one of `subject`'s face-up `artefacts`."""

    subject: Colour
    artefacts: tuple[str, ...]
    NEED: ClassVar[Need] = Need.DESTROY
    ASKS: ClassVar[str] = "to choose the artefact to destroy"
    RULE: ClassVar[Rule] = Rule.ICONS


@dataclass(frozen=True, slots=True)
class ProsperityChoiceWindow(OneActor):
    """Crown of Prosperity: `actor` leaves `subject`'s top card or discards it; `top` is that card in FULL
    games (empty in TABLE games)."""

    subject: Colour
    top: tuple[str, ...]
    NEED: ClassVar[Need] = Need.PROSPERITY
    ASKS: ClassVar[str] = "to leave or discard the top card"
    RULE: ClassVar[Rule] = Rule.ICONS


@dataclass(frozen=True, slots=True)
class SceptreChoice(OneActor):
    """Sceptre of Fear or Vigour (`artefact`): `actor` may battle as though with the rival's knights."""

    artefact: str
    NEED: ClassVar[Need] = Need.EQUALISE
    ASKS: ClassVar[str] = "to decide on their sceptre"
    RULE: ClassVar[Rule] = Rule.BATTLE_3


@dataclass(frozen=True, slots=True)
class RandomDiscard(OneActor):
    """Sceptre of Influence or Defiance: a card is taken at random from `actor`'s hand; `cause` names the
    sceptre (the discard's cause)."""

    cause: str
    NEED: ClassVar[Need] = Need.RANDOM_DISCARD
    ASKS: ClassVar[str] = "for the random discard"
    RULE: ClassVar[Rule] = Rule.ICONS


@dataclass(frozen=True, slots=True)
class OptionalDiscard(OneActor):
    """`actor` may discard any one card (Crown of Fury, Orbs of Cleansing and Preparation; ruins, abbey and
    fortress when conquered: `conquest`); `cause` names what asks for it (the discard's cause)."""

    cause: str
    conquest: bool = False
    NEED: ClassVar[Need] = Need.OPTIONAL_DISCARD
    ASKS: ClassVar[str] = "to decide on a discard"
    RULE: ClassVar[Rule] = Rule.ICONS

    @property
    def rule(self) -> Rule:
        return Rule.DISCARD_ON_CONQUEST if self.conquest else Rule.ICONS


# --- cards -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuthorityDraw(OneActor):
    """TABLE games: did `actor` draw their authority card among the last `drawn` cards (drawn for `cause`)?
    It is played at once if so (p.8, R27)."""

    drawn: int
    cause: str
    NEED: ClassVar[Need] = Need.AUTHORITY
    ASKS: ClassVar[str] = "to say whether authority was drawn"
    RULE: ClassVar[Rule] = Rule.AUTHORITY


# --- battle ------------------------------------------------------------------------------------------------


@identity_hash
class DicePurpose(Enum):
    """What a roll is for: the arena (p.7), an ambush card (p.2), or mayhem (p.14)."""

    ARENA = "arena"
    AMBUSH = "ambush"
    MAYHEM = "mayhem"


@dataclass(frozen=True, slots=True)
class DiceRoll(OneActor):
    """`actor` rolls `n` dice for `purpose`. Chance: the result is an input (R44)."""

    n: int
    purpose: DicePurpose
    NEED: ClassVar[Need] = Need.DICE
    ASKS: ClassVar[str] = "for a dice roll"
    RULE: ClassVar[Rule] = Rule.BATTLE

    @property
    def rule(self) -> Rule:
        return {DicePurpose.ARENA: Rule.ARENA, DicePurpose.AMBUSH: Rule.COMPONENTS,
                DicePurpose.MAYHEM: Rule.MAYHEM}[self.purpose]


@dataclass(frozen=True, slots=True)
class ConflictCards(Decision):
    """`players` still to play their face-down conflict card (order of battle step 4); any order."""

    players: tuple[Colour, ...]
    NEED: ClassVar[Need] = Need.CONFLICT
    ASKS: ClassVar[str] = "for conflict cards"
    RULE: ClassVar[Rule] = Rule.BATTLE_4

    def actors(self) -> tuple[Colour, ...]:
        return self.players


@dataclass(frozen=True, slots=True)
class SupportTurns(Decision):
    """Support cards (step 5): `players` take turns in this order, the first to play now; `passes` counts the
    passes in a row so far (play ends when everyone has passed in succession, R33)."""

    players: tuple[Colour, ...]
    passes: int = 0
    NEED: ClassVar[Need] = Need.SUPPORT
    ASKS: ClassVar[str] = "for support cards"
    RULE: ClassVar[Rule] = Rule.BATTLE_5

    def actors(self) -> tuple[Colour, ...]:
        return self.players[:1]


def from_legacy(obj: Any) -> Decision:
    """A decision as states of version 1 saved it (one loose record: `need`, `actor`, `players`, `targets`,
    `subject`, `n`, `tag`). Raises ValueError quoting what does not fit."""
    if not isinstance(obj, dict):
        raise ValueError(f"a pending decision is an object, got {obj!r}")
    need = Need(obj.get("need"))

    def colour(key: str) -> Colour:
        value = obj.get(key)
        if value is None:
            raise ValueError(f"{need.value} decision without {key!r}: {obj!r}")
        return Colour(value)

    players = tuple(Colour(c) for c in obj.get("players", ()))
    targets = tuple(str(t) for t in obj.get("targets", ()))
    n = int(obj.get("n", 0))
    tag = str(obj.get("tag", ""))
    if need is Need.FRACTURE:
        return FractureWindow(players, targets, FractureMoment(tag))
    if need is Need.DICE:
        return DiceRoll(colour("actor"), n, DicePurpose(tag))
    if need is Need.EQUALISE:
        return SceptreChoice(colour("actor"), tag)
    if need is Need.RANDOM_DISCARD:
        return RandomDiscard(colour("actor"), tag or "random discard")
    if need is Need.CONFLICT:
        return ConflictCards(players)
    if need is Need.SUPPORT:
        return SupportTurns(players, n)
    if need is Need.OPTIONAL_DISCARD:
        return OptionalDiscard(colour("actor"), tag or "discard", tag in ("ruins", "abbey", "fortress"))
    if need is Need.AUTHORITY:
        return AuthorityDraw(colour("actor"), n, tag)
    if need is Need.REDISTRIBUTE:
        return VitalityRedistribution(colour("actor"))
    if need is Need.ARRANGE:
        return InsightArrangement(colour("actor"), colour("subject"), targets, n)
    if need is Need.RETURN_CARD:
        return OrderReturn(colour("actor"), colour("subject"), targets)
    if need is Need.DESTROY:
        return CorruptionTarget(colour("actor"), colour("subject"), targets)
    if need is Need.PROSPERITY:
        return ProsperityChoiceWindow(colour("actor"), colour("subject"), targets)
    return CrownEffect(colour("actor"), targets[0], colour("subject"))

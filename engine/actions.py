"""What a player (or the table) can do: one frozen dataclass per kind of action.

Every action names the player it is for. `Action.from_json` dispatches on the `"type"` field and validates the
fields, raising `ActionFormatError` (a ValueError) that quotes the bad input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine import codec
from engine.colours import Colour
from engine.errors import ActionFormatError
from engine.state import DiceSource

ACTION_TYPES: dict[str, type[Action]] = {}


@dataclass(frozen=True, slots=True)
class Action:
    player: Colour
    TYPE: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # (no super(): slotted dataclasses are re-created classes, and zero-argument super() breaks there)
        if cls.TYPE:
            ACTION_TYPES[cls.TYPE] = cls

    def to_json(self) -> dict[str, Any]:
        return codec.typed_to_json(self, self.TYPE)

    @staticmethod
    def from_json(obj: Any) -> Action:
        return codec.typed_from_json(ACTION_TYPES, obj, "action", ActionFormatError)


# --- your turn: resources, crowns, redistribution, advance -------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayCallToArms(Action):
    """Play the call to arms card: two more knights in your castle (p.8)."""

    TYPE: ClassVar[str] = "play_call_to_arms"


@dataclass(frozen=True, slots=True)
class PlayTacticalAdvance(Action):
    """Play the tactical advance card: one more redistribution and advance this turn (p.8)."""

    TYPE: ClassVar[str] = "play_tactical_advance"


@dataclass(frozen=True, slots=True)
class PlayFracture(Action):
    """Play the fracture card on another player's artefact, destroying it and negating its effect (p.8)."""

    target: str
    TYPE: ClassVar[str] = "play_fracture"


@dataclass(frozen=True, slots=True)
class PassFracture(Action):
    """Decline to play a fracture card in a fracture window."""

    TYPE: ClassVar[str] = "pass_fracture"


@dataclass(frozen=True, slots=True)
class PassFractureRound(Action):
    """Nobody else plays a fracture card in this window (R47): `player` (the one the window waits for) and
    every later player pass, in the rulebook's clockwise order. With `upto`, only the players before `upto`
    pass, and the window then waits for `upto` (who means to play one)."""

    upto: Colour | None = None
    TYPE: ClassVar[str] = "pass_fracture_round"


@dataclass(frozen=True, slots=True)
class DeclareAuthority(Action):
    """TABLE mode: after a draw, say whether the authority card was among the cards drawn (p.8)."""

    drawn: bool
    TYPE: ClassVar[str] = "declare_authority"


@dataclass(frozen=True, slots=True)
class UseCrown(Action):
    """Announce the use of your crown; `affected` names the player for Corruption and Prosperity."""

    affected: Colour | None = None
    TYPE: ClassVar[str] = "use_crown"


@dataclass(frozen=True, slots=True)
class Redistribute(Action):
    """Redistribute knights: `layout` gives the new count for each location that changes (p.9)."""

    layout: tuple[tuple[str, int], ...] = ()
    TYPE: ClassVar[str] = "redistribute"

    def as_dict(self) -> dict[str, int]:
        return dict(self.layout)


@dataclass(frozen=True, slots=True)
class Advance(Action):
    """Move `knights` from your castle into `target` (p.11)."""

    target: str
    knights: int
    TYPE: ClassVar[str] = "advance"


@dataclass(frozen=True, slots=True)
class SkipAdvance(Action):
    """Decline the advance after a redistribution (R24)."""

    TYPE: ClassVar[str] = "skip_advance"


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """Restore artefacts and pass the turn clockwise (p.13)."""

    TYPE: ClassVar[str] = "end_turn"


# --- answers to what the engine is waiting for -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollDice(Action):
    """Dice results for the arena, an ambush card or mayhem, with where they came from. Equal results are
    the same move wherever they came from: `source` is kept (and saved) but not compared."""

    values: tuple[int, ...]
    source: DiceSource = field(default=DiceSource.TYPED, compare=False)  # where from: not part of the move
    TYPE: ClassVar[str] = "roll_dice"


@dataclass(frozen=True, slots=True)
class Equalise(Action):
    """Sceptre of Fear / Vigour: battle as though with the rival's number of knights (`use`), or not."""

    use: bool
    TYPE: ClassVar[str] = "equalise"


@dataclass(frozen=True, slots=True)
class DiscardRandom(Action):
    """The card taken at random from `player`'s hand (Influence, Defiance)."""

    card: str
    TYPE: ClassVar[str] = "discard_random"


@dataclass(frozen=True, slots=True)
class PlayConflict(Action):
    """The face-down conflict card (None: no conflict card, worth 0)."""

    card: str | None
    TYPE: ClassVar[str] = "play_conflict"


@dataclass(frozen=True, slots=True)
class PlaySupport(Action):
    """Support cards played in one go; an empty tuple passes."""

    cards: tuple[str, ...] = ()
    TYPE: ClassVar[str] = "play_support"


@dataclass(frozen=True, slots=True)
class DiscardCard(Action):
    """Discard any one card (Fury, Cleansing, Preparation, ruins/abbey/fortress); None declines."""

    card: str | None
    TYPE: ClassVar[str] = "discard_card"


@dataclass(frozen=True, slots=True)
class ArrangeTop(Action):
    """Crown of Insight: the looked-at cards in their new order, top first (TABLE mode: empty)."""

    order: tuple[str, ...] = ()
    TYPE: ClassVar[str] = "arrange_top"


@dataclass(frozen=True, slots=True)
class ReturnCard(Action):
    """Crown of Order: the card (discarded on a previous turn) shuffled back into the deck."""

    card: str
    TYPE: ClassVar[str] = "return_card"


@dataclass(frozen=True, slots=True)
class DestroyArtefact(Action):
    """Crown of Corruption: the affected player's artefact to destroy."""

    artefact: str
    TYPE: ClassVar[str] = "destroy_artefact"


@dataclass(frozen=True, slots=True)
class ProsperityChoice(Action):
    """Crown of Prosperity: leave the top card, or discard it (TABLE mode names the card discarded)."""

    discard: bool
    card: str | None = None
    TYPE: ClassVar[str] = "prosperity_choice"


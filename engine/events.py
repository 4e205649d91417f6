"""What happened: every applied action produces a tuple of events, in order. One frozen dataclass per kind;
`Event.from_json` dispatches on `"type"`. Card identities appear only where they are public (or in FULL
mode).

Every event names the `rule` that made it happen (keyword-only, and not part of equality: two events are the
same fact whichever rule is named for it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine import codec
from engine.colours import Colour
from engine.errors import ActionFormatError
from engine.rulebook import Rule
from engine.state import DiceSource

EVENT_TYPES: dict[str, type[Event]] = {}


@dataclass(frozen=True, slots=True)
class Event:
    rule: Rule | None = field(default=None, compare=False, kw_only=True)
    TYPE: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # (no super(): slotted dataclasses are re-created classes, and zero-argument super() breaks there)
        if cls.TYPE:
            EVENT_TYPES[cls.TYPE] = cls

    def to_json(self) -> dict[str, Any]:
        return codec.typed_to_json(self, self.TYPE)

    @staticmethod
    def from_json(obj: Any) -> Event:
        return codec.typed_from_json(EVENT_TYPES, obj, "event", ActionFormatError)


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    player: Colour
    turn: int
    TYPE: ClassVar[str] = "turn_started"


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    player: Colour
    turn: int
    TYPE: ClassVar[str] = "turn_ended"


@dataclass(frozen=True, slots=True)
class KnightsGained(Event):
    """Knights placed in a castle; `lost` could not be placed because the reserve had no die (R22)."""

    player: Colour
    location: str
    count: int
    lost: int
    cause: str
    TYPE: ClassVar[str] = "knights_gained"


@dataclass(frozen=True, slots=True)
class KnightsLost(Event):
    player: Colour
    location: str
    count: int
    cause: str
    TYPE: ClassVar[str] = "knights_lost"


@dataclass(frozen=True, slots=True)
class Redistributed(Event):
    player: Colour
    layout: tuple[tuple[str, int], ...]
    TYPE: ClassVar[str] = "redistributed"


@dataclass(frozen=True, slots=True)
class Advanced(Event):
    """`via`: the lake the advance crossed (lakes link the territories around them, p.2), or None."""

    player: Colour
    target: str
    knights: int
    via: str | None = None
    TYPE: ClassVar[str] = "advanced"


@dataclass(frozen=True, slots=True)
class Conquered(Event):
    player: Colour
    territory: str
    TYPE: ClassVar[str] = "conquered"


@dataclass(frozen=True, slots=True)
class ControlLost(Event):
    player: Colour
    territory: str
    TYPE: ClassVar[str] = "control_lost"


@dataclass(frozen=True, slots=True)
class SupplyChanged(Event):
    player: Colour
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    TYPE: ClassVar[str] = "supply_changed"


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """`cards` is empty in TABLE mode (hands are secret); `count` is always right."""

    player: Colour
    count: int
    cards: tuple[str, ...]
    TYPE: ClassVar[str] = "cards_drawn"


@dataclass(frozen=True, slots=True)
class DeckShuffled(Event):
    player: Colour
    size: int
    cause: str
    TYPE: ClassVar[str] = "deck_shuffled"


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    player: Colour
    card: str
    kind: str
    TYPE: ClassVar[str] = "card_played"


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    player: Colour
    card: str
    cause: str
    TYPE: ClassVar[str] = "card_discarded"


@dataclass(frozen=True, slots=True)
class CardReturned(Event):
    player: Colour
    card: str
    TYPE: ClassVar[str] = "card_returned"


@dataclass(frozen=True, slots=True)
class TopCardsLooked(Event):
    """Crown of Insight / Prosperity. `cards` are listed in FULL mode only."""

    player: Colour
    owner: Colour
    count: int
    cards: tuple[str, ...]
    TYPE: ClassVar[str] = "top_cards_looked"


@dataclass(frozen=True, slots=True)
class CrownAnnounced(Event):
    player: Colour
    artefact: str
    affected: Colour | None
    TYPE: ClassVar[str] = "crown_announced"


@dataclass(frozen=True, slots=True)
class ArtefactApplied(Event):
    player: Colour
    artefact: str
    affected: Colour | None
    TYPE: ClassVar[str] = "artefact_applied"


@dataclass(frozen=True, slots=True)
class ArtefactDestroyed(Event):
    owner: Colour
    artefact: str
    by: Colour
    cause: str
    TYPE: ClassVar[str] = "artefact_destroyed"


@dataclass(frozen=True, slots=True)
class ArtefactRestored(Event):
    owner: Colour
    artefact: str
    TYPE: ClassVar[str] = "artefact_restored"


@dataclass(frozen=True, slots=True)
class FracturePassed(Event):
    player: Colour
    TYPE: ClassVar[str] = "fracture_passed"


@dataclass(frozen=True, slots=True)
class ManoeuvreGained(Event):
    player: Colour
    remaining: int
    TYPE: ClassVar[str] = "manoeuvre_gained"


@dataclass(frozen=True, slots=True)
class AdvanceDeclined(Event):
    player: Colour
    TYPE: ClassVar[str] = "advance_declined"


@dataclass(frozen=True, slots=True)
class DiceRolled(Event):
    player: Colour
    values: tuple[int, ...]
    source: DiceSource
    purpose: str
    TYPE: ClassVar[str] = "dice_rolled"


@dataclass(frozen=True, slots=True)
class BattleStarted(Event):
    territory: str
    attacker: Colour
    defender: Colour
    attacker_knights: int
    defender_knights: int
    TYPE: ClassVar[str] = "battle_started"


@dataclass(frozen=True, slots=True)
class CombatScore(Event):
    """Both combat scores after something changed them; `cause` says what."""

    attacker: int
    defender: int
    cause: str
    TYPE: ClassVar[str] = "combat_score"


@dataclass(frozen=True, slots=True)
class KnightsMatched(Event):
    player: Colour
    knights: int
    TYPE: ClassVar[str] = "knights_matched"


@dataclass(frozen=True, slots=True)
class ConflictPlayed(Event):
    """A conflict card placed face down (the card is not revealed yet)."""

    player: Colour
    TYPE: ClassVar[str] = "conflict_played"


@dataclass(frozen=True, slots=True)
class ConflictRevealed(Event):
    attacker_card: str | None
    defender_card: str | None
    TYPE: ClassVar[str] = "conflict_revealed"


@dataclass(frozen=True, slots=True)
class SupportPlayed(Event):
    player: Colour
    for_player: Colour
    cards: tuple[str, ...]
    total: int
    TYPE: ClassVar[str] = "support_played"


@dataclass(frozen=True, slots=True)
class BattleResult(Event):
    winner: Colour
    loser: Colour
    attacker_score: int
    defender_score: int
    margin: int
    cause: str
    TYPE: ClassVar[str] = "battle_result"


@dataclass(frozen=True, slots=True)
class LossesCapped(Event):
    """The loser lost `margin` knights' worth but only had `lost` in the disputed place (order of battle
    step 8: knights are lost from that place only)."""

    player: Colour
    territory: str
    margin: int
    lost: int
    TYPE: ClassVar[str] = "losses_capped"


@dataclass(frozen=True, slots=True)
class Retreated(Event):
    player: Colour
    count: int
    TYPE: ClassVar[str] = "retreated"


@dataclass(frozen=True, slots=True)
class BattleEnded(Event):
    territory: str
    winner: Colour | None
    cause: str
    TYPE: ClassVar[str] = "battle_ended"


@dataclass(frozen=True, slots=True)
class GameWon(Event):
    winners: tuple[Colour, ...]
    cause: str
    TYPE: ClassVar[str] = "game_won"


"""The components of one Medieval Mastery box as data: territories, lakes, castles, player deck, artefacts.

The default catalogue (`engine/data/default-catalogue.json`) is our documented best guess where no source
gives the numbers printed on the pieces (territory values and kinds, cave/battlefield capacities, the deck's
split, castle names and colours): every such field is listed in the entry's `guessed` list and explained by
rulings R1-R19 in docs/rulings.md. An owner's *box catalogue* overrides it field by field (see
`load_box_catalogue`); overriding or confirming a field removes it from `guessed`.

Facts taken from the rulebook and kept exactly (README of the rules, pages 2, 6-8): 30 territories of
value 1-3, 3 lakes, 6 castles, an 18-card deck with one each of the four resource cards, conflict cards of
2..5 plus ambush, support cards of +1/+2, the 18 artefacts with their types, timings and affected players,
10 dice each.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeGuard

from engine.colours import Colour
from engine.errors import CatalogueError

FORMAT = "seneschal-catalogue"
VERSION = 1
BOX_FORMAT = "seneschal-box"

DEFAULT_CAPACITY = 6  # "All territories have a capacity of six knights, unless otherwise specified" (page 9)
DICE_PER_PLAYER = 10  # page 2
HOMELANDS_PER_CASTLE_MAX = 2  # page 3, setting up step 6

TERRITORY_COUNT = 30
LAKE_COUNT = 3
CASTLE_COUNT = 6
DECK_SIZE = 18
ARTEFACT_COUNT = 18

TERRITORY_ID = re.compile(r"^T(0[1-9]|[12][0-9]|30)$")
LAKE_ID = re.compile(r"^L[1-3]$")
CASTLE_ID = re.compile(r"^K[1-6]$")
CARD_ID = re.compile(r"^C(0[1-9]|1[0-8])$")
ARTEFACT_ID = re.compile(r"^A(0[1-9]|1[0-8])$")


class TileKind(Enum):
    """What sort of tile an id names."""

    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    TERRITORY = "territory"
    LAKE = "lake"
    CASTLE = "castle"


class Ability(Enum):
    """Territory abilities (iconography, pages 6-7)."""

    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    ATTACKER_PLUS_ONE = "attacker_plus_one"  # grasslands: at the start of a battle
    DEFENDER_PLUS_ONE = "defender_plus_one"  # fort, city, fortress: at the start of a battle
    OTHER_CAPACITY = "other_capacity"  # cave, battlefield: capacity printed on the tile, not 6
    NO_SUPPORT = "no_support"  # mountains: no support cards in a battle over it
    PLACE_KNIGHT_IN_CASTLE = "place_knight_in_castle"  # village, city, shrine: on conquest
    LOSE_KNIGHT = "lose_knight"  # marshlands: on conquest, the conqueror loses 1 knight there
    DISCARD_ANY_CARD = "discard_any_card"  # ruins, abbey, fortress: on conquest, may discard 1 card
    STARTING_KNIGHTS = "starting_knights"  # homelands: starting knights are split with the castle
    ARENA_ROLL = "arena_roll"  # arena: each player rolls a die at the start of a battle

    @property
    def timing(self) -> AbilityTiming:
        return _ABILITY_TIMING[self]


class AbilityTiming(Enum):
    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    START_OF_BATTLE = "start_of_battle"  # order of battle step 1
    ON_CONQUEST = "on_conquest"  # order of battle step 9, or an advance into an empty territory
    DURING_BATTLE = "during_battle"  # mountains: the whole battle
    PERMANENT = "permanent"  # capacity
    SETUP = "setup"  # homelands


_ABILITY_TIMING: dict[Ability, AbilityTiming] = {
    Ability.ATTACKER_PLUS_ONE: AbilityTiming.START_OF_BATTLE,
    Ability.DEFENDER_PLUS_ONE: AbilityTiming.START_OF_BATTLE,
    Ability.ARENA_ROLL: AbilityTiming.START_OF_BATTLE,
    Ability.OTHER_CAPACITY: AbilityTiming.PERMANENT,
    Ability.NO_SUPPORT: AbilityTiming.DURING_BATTLE,
    Ability.PLACE_KNIGHT_IN_CASTLE: AbilityTiming.ON_CONQUEST,
    Ability.LOSE_KNIGHT: AbilityTiming.ON_CONQUEST,
    Ability.DISCARD_ANY_CARD: AbilityTiming.ON_CONQUEST,
    Ability.STARTING_KNIGHTS: AbilityTiming.SETUP,
}


class TerritoryKind(Enum):
    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    GRASSLANDS = "grasslands"
    FORT = "fort"
    CITY = "city"
    FORTRESS = "fortress"
    CAVE = "cave"
    BATTLEFIELD = "battlefield"
    MOUNTAINS = "mountains"
    VILLAGE = "village"
    SHRINE = "shrine"
    MARSHLANDS = "marshlands"
    RUINS = "ruins"
    ABBEY = "abbey"
    HOMELANDS = "homelands"
    ARENA = "arena"
    FOREST = "forest"  # "deep, dark forests" (page 2): no ability icon anywhere, so no ability (R2)

    @property
    def abilities(self) -> frozenset[Ability]:
        """The abilities every tile of this kind has (pages 6-7)."""
        return KIND_ABILITIES[self]


KIND_ABILITIES: dict[TerritoryKind, frozenset[Ability]] = {
    TerritoryKind.GRASSLANDS: frozenset({Ability.ATTACKER_PLUS_ONE}),
    TerritoryKind.FORT: frozenset({Ability.DEFENDER_PLUS_ONE}),
    TerritoryKind.CITY: frozenset({Ability.DEFENDER_PLUS_ONE, Ability.PLACE_KNIGHT_IN_CASTLE}),
    TerritoryKind.FORTRESS: frozenset({Ability.DEFENDER_PLUS_ONE, Ability.DISCARD_ANY_CARD}),
    TerritoryKind.CAVE: frozenset({Ability.OTHER_CAPACITY}),
    TerritoryKind.BATTLEFIELD: frozenset({Ability.OTHER_CAPACITY}),
    TerritoryKind.MOUNTAINS: frozenset({Ability.NO_SUPPORT}),
    TerritoryKind.VILLAGE: frozenset({Ability.PLACE_KNIGHT_IN_CASTLE}),
    TerritoryKind.SHRINE: frozenset({Ability.PLACE_KNIGHT_IN_CASTLE}),
    TerritoryKind.MARSHLANDS: frozenset({Ability.LOSE_KNIGHT}),
    TerritoryKind.RUINS: frozenset({Ability.DISCARD_ANY_CARD}),
    TerritoryKind.ABBEY: frozenset({Ability.DISCARD_ANY_CARD}),
    TerritoryKind.HOMELANDS: frozenset({Ability.STARTING_KNIGHTS}),
    TerritoryKind.ARENA: frozenset({Ability.ARENA_ROLL}),
    TerritoryKind.FOREST: frozenset(),
}


class CardKind(Enum):
    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    CONFLICT = "conflict"
    AMBUSH = "ambush"  # a conflict card worth a die roll
    SUPPORT = "support"
    AUTHORITY = "authority"
    CALL_TO_ARMS = "call_to_arms"
    TACTICAL_ADVANCE = "tactical_advance"
    FRACTURE = "fracture"

    @property
    def is_conflict(self) -> bool:
        """Conflict cards include ambush (page 2)."""
        return self in (CardKind.CONFLICT, CardKind.AMBUSH)

    @property
    def is_resource(self) -> bool:
        return self in RESOURCE_KINDS


RESOURCE_KINDS = frozenset({CardKind.AUTHORITY, CardKind.CALL_TO_ARMS, CardKind.TACTICAL_ADVANCE,
                            CardKind.FRACTURE})


class ArtefactType(Enum):
    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    CROWN = "crown"
    SCEPTRE = "sceptre"
    ORB = "orb"


class ArtefactTiming(Enum):
    """When an artefact's ability is used or applied (iconography, pages 6-7)."""

    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    ONCE_PER_OWN_TURN = "once_per_own_turn"  # every crown
    BEFORE_CONFLICT_ATTACKING = "before_conflict_attacking"  # sceptres: Fear, Rage, Influence
    BEFORE_CONFLICT_DEFENDING = "before_conflict_defending"  # sceptres: Loyalty, Vigour, Defiance
    AFTER_RESULT_WIN = "after_result_win"  # orbs: Greed, Preparation, Brutality
    AFTER_RESULT_LOSE = "after_result_lose"  # orbs: Cleansing, Devotion, Resurgence


TIMINGS_BY_TYPE: dict[ArtefactType, frozenset[ArtefactTiming]] = {
    ArtefactType.CROWN: frozenset({ArtefactTiming.ONCE_PER_OWN_TURN}),
    ArtefactType.SCEPTRE: frozenset({ArtefactTiming.BEFORE_CONFLICT_ATTACKING,
                                     ArtefactTiming.BEFORE_CONFLICT_DEFENDING}),
    ArtefactType.ORB: frozenset({ArtefactTiming.AFTER_RESULT_WIN, ArtefactTiming.AFTER_RESULT_LOSE}),
}


class Affected(Enum):
    """Who the affected player of an artefact's ability is (iconography, page 6)."""

    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    YOU = "you"
    RIVAL = "rival"
    ANY = "any"  # the owner chooses any player


class Effect(Enum):
    """What an artefact's ability does to the affected player (iconography, pages 6-7)."""

    __hash__ = object.__hash__  # identity hash, as fast as C: see engine/colours.py

    REDISTRIBUTE_AGAIN = "redistribute_again"  # Vitality (not an advance)
    LOOK_TOP_FOUR = "look_top_four"  # Insight: look at the top 4 and put back in any order
    SHUFFLE_DISCARD_INTO_DECK = "shuffle_discard_into_deck"  # Order: 1 card discarded on a previous turn
    DISCARD_ANY_CARD = "discard_any_card"  # Fury, Cleansing, Preparation: may discard any 1 card
    DESTROY_ARTEFACT = "destroy_artefact"  # Corruption: destroy any 1 artefact of the affected player
    LOOK_TOP_CARD = "look_top_card"  # Prosperity: leave it on top or discard it
    MATCH_RIVAL_KNIGHTS = "match_rival_knights"  # Fear, Vigour: battle as though as many knights as the rival
    PLUS_ONE = "plus_one"  # Rage, Loyalty: +1 combat score
    DISCARD_RANDOM_CARD = "discard_random_card"  # Influence, Defiance
    DRAW_TO_SIX = "draw_to_six"  # Greed, Resurgence: draw until six cards in hand
    LOSE_KNIGHT = "lose_knight"  # Brutality: lose 1 knight from the territory in dispute
    PLACE_KNIGHT_IN_CASTLE = "place_knight_in_castle"  # Devotion


def _guessed(obj: Mapping[str, Any]) -> frozenset[str]:
    raw = obj.get("guessed", [])
    return frozenset(str(x) for x in raw) if isinstance(raw, list) else frozenset()


@dataclass(frozen=True, slots=True)
class TerritorySpec:
    """One territory tile. `guessed` names the fields that are our guess, not read from a real box (R1)."""

    id: str
    name: str
    kind: TerritoryKind
    value: int
    capacity: int = DEFAULT_CAPACITY
    abilities: frozenset[Ability] = frozenset()
    guessed: frozenset[str] = frozenset()

    def has(self, ability: Ability) -> bool:
        return ability in self.abilities

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "kind": self.kind.value, "value": self.value,
                               "capacity": self.capacity}
        if self.abilities != self.kind.abilities:
            out["abilities"] = sorted(a.value for a in self.abilities)
        if self.guessed:
            out["guessed"] = sorted(self.guessed)
        return out


@dataclass(frozen=True, slots=True)
class LakeSpec:
    id: str
    name: str
    guessed: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name}
        if self.guessed:
            out["guessed"] = sorted(self.guessed)
        return out


@dataclass(frozen=True, slots=True)
class CastleSpec:
    id: str
    name: str
    colour: Colour
    guessed: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "colour": self.colour.value}
        if self.guessed:
            out["guessed"] = sorted(self.guessed)
        return out


@dataclass(frozen=True, slots=True)
class CardSpec:
    """One card of the (identical) player deck, by its position in the deck list (C01..C18).

    `value` is the fixed number a conflict or support card adds; None for ambush (a die roll) and resources.
    """

    id: str
    name: str
    kind: CardKind
    value: int | None = None
    guessed: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "kind": self.kind.value, "value": self.value}
        if self.guessed:
            out["guessed"] = sorted(self.guessed)
        return out


@dataclass(frozen=True, slots=True)
class ArtefactSpec:
    id: str
    name: str
    type: ArtefactType
    timing: ArtefactTiming
    affected: Affected
    effect: Effect
    guessed: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "type": self.type.value,
                               "timing": self.timing.value, "affected": self.affected.value,
                               "effect": self.effect.value}
        if self.guessed:
            out["guessed"] = sorted(self.guessed)
        return out


@dataclass(frozen=True, slots=True)
class Catalogue:
    """Every component of one box. Immutable; lookups by id are dictionary lookups."""

    territories: tuple[TerritorySpec, ...]
    lakes: tuple[LakeSpec, ...]
    castles: tuple[CastleSpec, ...]
    cards: tuple[CardSpec, ...]
    artefacts: tuple[ArtefactSpec, ...]
    dice_per_player: int = DICE_PER_PLAYER
    source: str = field(default="default", compare=False)
    _index: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)
    _by_colour: dict[Colour, CastleSpec] = field(default_factory=dict, init=False, repr=False, compare=False,
                                                 hash=False)

    def __post_init__(self) -> None:
        for group in (self.territories, self.lakes, self.castles, self.cards, self.artefacts):
            for item in group:
                self._index.setdefault(item.id, item)
        for castle in self.castles:
            self._by_colour.setdefault(castle.colour, castle)

    # --- lookups ----------------------------------------------------------------------------------
    def __contains__(self, item_id: object) -> bool:
        return item_id in self._index

    def get(self, item_id: str) -> TerritorySpec | LakeSpec | CastleSpec | CardSpec | ArtefactSpec:
        try:
            item: TerritorySpec | LakeSpec | CastleSpec | CardSpec | ArtefactSpec = self._index[item_id]
        except KeyError:
            raise KeyError(f"no component with id {item_id!r} in the {self.source} catalogue") from None
        return item

    def territory(self, territory_id: str) -> TerritorySpec:
        item = self._index.get(territory_id)
        if not isinstance(item, TerritorySpec):
            raise KeyError(f"no territory with id {territory_id!r} in the {self.source} catalogue")
        return item

    def lake(self, lake_id: str) -> LakeSpec:
        item = self._index.get(lake_id)
        if not isinstance(item, LakeSpec):
            raise KeyError(f"no lake with id {lake_id!r} in the {self.source} catalogue")
        return item

    def castle(self, castle_id: str) -> CastleSpec:
        item = self._index.get(castle_id)
        if not isinstance(item, CastleSpec):
            raise KeyError(f"no castle with id {castle_id!r} in the {self.source} catalogue")
        return item

    def castle_of(self, colour: Colour) -> CastleSpec:
        try:
            return self._by_colour[colour]
        except KeyError:
            raise KeyError(f"no castle of colour {colour.value!r} in the {self.source} catalogue") from None

    def card(self, card_id: str) -> CardSpec:
        item = self._index.get(card_id)
        if not isinstance(item, CardSpec):
            raise KeyError(f"no deck card with id {card_id!r} in the {self.source} catalogue")
        return item

    def artefact(self, artefact_id: str) -> ArtefactSpec:
        item = self._index.get(artefact_id)
        if not isinstance(item, ArtefactSpec):
            raise KeyError(f"no artefact with id {artefact_id!r} in the {self.source} catalogue")
        return item

    def tile_kind(self, tile_id: str) -> TileKind | None:
        """TERRITORY / LAKE / CASTLE for a tile id of this catalogue, None for anything else."""
        item = self._index.get(tile_id)
        if isinstance(item, TerritorySpec):
            return TileKind.TERRITORY
        if isinstance(item, LakeSpec):
            return TileKind.LAKE
        if isinstance(item, CastleSpec):
            return TileKind.CASTLE
        return None

    def territories_of_value(self, value: int) -> tuple[TerritorySpec, ...]:
        return tuple(t for t in self.territories if t.value == value)

    def artefacts_of_type(self, artefact_type: ArtefactType) -> tuple[ArtefactSpec, ...]:
        return tuple(a for a in self.artefacts if a.type is artefact_type)

    @property
    def tile_ids(self) -> frozenset[str]:
        return frozenset([*(t.id for t in self.territories), *(x.id for x in self.lakes),
                          *(c.id for c in self.castles)])

    def guesses(self) -> list[str]:
        """Every guessed field as 'ID.field' (for the app's box-setup step)."""
        out: list[str] = []
        for group in (self.territories, self.lakes, self.castles, self.cards, self.artefacts):
            for item in group:
                out.extend(f"{item.id}.{name}" for name in sorted(item.guessed))
        return out

    # --- serialisation ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "dice_per_player": self.dice_per_player,
            "territories": [t.to_json() for t in self.territories],
            "lakes": [x.to_json() for x in self.lakes],
            "castles": [x.to_json() for x in self.castles],
            "cards": [x.to_json() for x in self.cards],
            "artefacts": [x.to_json() for x in self.artefacts],
        }

    @staticmethod
    def from_json(obj: Any, source: str = "catalogue") -> Catalogue:
        """Parse and validate a complete catalogue document; raises CatalogueError listing every problem."""
        return _parse_catalogue(obj, source)


# --- parsing and validation -----------------------------------------------------------------------

_SECTIONS = ("territories", "lakes", "castles", "cards", "artefacts")
_FIELDS: dict[str, frozenset[str]] = {
    "territories": frozenset({"id", "name", "kind", "value", "capacity", "abilities", "guessed", "note"}),
    "lakes": frozenset({"id", "name", "guessed", "note"}),
    "castles": frozenset({"id", "name", "colour", "guessed", "note"}),
    "cards": frozenset({"id", "name", "kind", "value", "guessed", "note"}),
    "artefacts": frozenset({"id", "name", "type", "timing", "affected", "effect", "guessed", "note"}),
}
_ID_PATTERNS = {"territories": TERRITORY_ID, "lakes": LAKE_ID, "castles": CASTLE_ID, "cards": CARD_ID,
                "artefacts": ARTEFACT_ID}
_COUNTS = {"territories": TERRITORY_COUNT, "lakes": LAKE_COUNT, "castles": CASTLE_COUNT, "cards": DECK_SIZE,
           "artefacts": ARTEFACT_COUNT}


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, text: str) -> None:
        self.items.append(text)


def _enum(cls: type[Any], raw: object, where: str, what: str, problems: _Problems) -> Any:
    try:
        return cls(raw)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)
        problems.add(f"{where}: unknown {what} {raw!r} (one of: {allowed})")
        return None


def _name(entry: Mapping[str, Any], where: str, problems: _Problems) -> str:
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.add(f"{where}: 'name' must be a non-empty string, got {name!r}")
        return ""
    return name


def _parse_territory(entry: Mapping[str, Any], where: str, p: _Problems) -> TerritorySpec | None:
    n_before = len(p.items)
    name = _name(entry, where, p)
    kind = _enum(TerritoryKind, entry.get("kind"), where, "territory kind", p)
    value = entry.get("value")
    if not _is_int(value) or value not in (1, 2, 3):
        p.add(f"{where}: 'value' must be 1, 2 or 3 (page 2), got {value!r}")
    capacity = entry.get("capacity", DEFAULT_CAPACITY)
    if not _is_int(capacity) or not 1 <= capacity <= 60:
        p.add(f"{where}: 'capacity' must be a whole number of knights from 1 to 60, got {capacity!r}")
    abilities: frozenset[Ability] | None = None
    if "abilities" in entry:
        raw = entry["abilities"]
        if not isinstance(raw, list):
            p.add(f"{where}: 'abilities' must be a list of ability names, got {raw!r}")
        else:
            parsed = [_enum(Ability, a, where, "ability", p) for a in raw]
            abilities = frozenset(a for a in parsed if a is not None)
    elif kind is not None:
        abilities = kind.abilities
    if len(p.items) > n_before or kind is None or abilities is None:
        return None
    assert isinstance(value, int) and isinstance(capacity, int)
    if Ability.OTHER_CAPACITY in abilities and capacity == DEFAULT_CAPACITY:
        p.add(f"{where}: a {kind.value} has a capacity other than {DEFAULT_CAPACITY} (page 7), "
              f"got {capacity}")
    if Ability.OTHER_CAPACITY not in abilities and capacity != DEFAULT_CAPACITY:
        p.add(f"{where}: only a territory with the capacity icon (cave, battlefield) has a capacity "
              f"other than {DEFAULT_CAPACITY} (page 9), got {capacity} for a {kind.value}")
    return TerritorySpec(entry["id"], name, kind, value, capacity, abilities, _guessed(entry))


def _parse_castle(entry: Mapping[str, Any], where: str, p: _Problems) -> CastleSpec | None:
    name = _name(entry, where, p)
    colour = _enum(Colour, entry.get("colour"), where, "colour", p)
    if not name or colour is None:
        return None
    return CastleSpec(entry["id"], name, colour, _guessed(entry))


def _parse_card(entry: Mapping[str, Any], where: str, p: _Problems) -> CardSpec | None:
    name = _name(entry, where, p)
    kind = _enum(CardKind, entry.get("kind"), where, "card kind", p)
    value = entry.get("value")
    if kind is None or not name:
        return None
    if kind is CardKind.CONFLICT:
        if not _is_int(value) or not 2 <= value <= 5:
            p.add(f"{where}: a conflict card adds 2 to 5 (page 2), got value {value!r}")
            return None
    elif kind is CardKind.SUPPORT:
        if not _is_int(value) or value not in (1, 2):
            p.add(f"{where}: a support card adds +1 or +2 (page 2), got value {value!r}")
            return None
    elif value is not None:
        p.add(f"{where}: a {kind.value} card has no fixed value (use null), got {value!r}")
        return None
    return CardSpec(entry["id"], name, kind, value, _guessed(entry))


# Facts about the artefacts (README of the rules: icon legend pages 6-7). A catalogue may rename cards, but
# the type, timing, affected player and effect of each named artefact are rules, checked against this table.
_C, _S, _O = ArtefactType.CROWN, ArtefactType.SCEPTRE, ArtefactType.ORB
_T = ArtefactTiming
ARTEFACT_FACTS: dict[str, tuple[ArtefactType, ArtefactTiming, Affected, Effect]] = {
    "Crown of Vitality": (_C, _T.ONCE_PER_OWN_TURN, Affected.YOU, Effect.REDISTRIBUTE_AGAIN),
    "Crown of Insight": (_C, _T.ONCE_PER_OWN_TURN, Affected.YOU, Effect.LOOK_TOP_FOUR),
    "Crown of Order": (_C, _T.ONCE_PER_OWN_TURN, Affected.YOU, Effect.SHUFFLE_DISCARD_INTO_DECK),
    "Crown of Fury": (_C, _T.ONCE_PER_OWN_TURN, Affected.YOU, Effect.DISCARD_ANY_CARD),
    "Crown of Corruption": (_C, _T.ONCE_PER_OWN_TURN, Affected.ANY, Effect.DESTROY_ARTEFACT),
    "Crown of Prosperity": (_C, _T.ONCE_PER_OWN_TURN, Affected.ANY, Effect.LOOK_TOP_CARD),
    "Sceptre of Fear": (_S, _T.BEFORE_CONFLICT_ATTACKING, Affected.YOU, Effect.MATCH_RIVAL_KNIGHTS),
    "Sceptre of Rage": (_S, _T.BEFORE_CONFLICT_ATTACKING, Affected.YOU, Effect.PLUS_ONE),
    "Sceptre of Influence": (_S, _T.BEFORE_CONFLICT_ATTACKING, Affected.RIVAL, Effect.DISCARD_RANDOM_CARD),
    "Sceptre of Loyalty": (_S, _T.BEFORE_CONFLICT_DEFENDING, Affected.YOU, Effect.PLUS_ONE),
    "Sceptre of Vigour": (_S, _T.BEFORE_CONFLICT_DEFENDING, Affected.YOU, Effect.MATCH_RIVAL_KNIGHTS),
    "Sceptre of Defiance": (_S, _T.BEFORE_CONFLICT_DEFENDING, Affected.RIVAL, Effect.DISCARD_RANDOM_CARD),
    "Orb of Greed": (_O, _T.AFTER_RESULT_WIN, Affected.YOU, Effect.DRAW_TO_SIX),
    "Orb of Preparation": (_O, _T.AFTER_RESULT_WIN, Affected.YOU, Effect.DISCARD_ANY_CARD),
    "Orb of Brutality": (_O, _T.AFTER_RESULT_WIN, Affected.RIVAL, Effect.LOSE_KNIGHT),
    "Orb of Cleansing": (_O, _T.AFTER_RESULT_LOSE, Affected.YOU, Effect.DISCARD_ANY_CARD),
    "Orb of Devotion": (_O, _T.AFTER_RESULT_LOSE, Affected.YOU, Effect.PLACE_KNIGHT_IN_CASTLE),
    "Orb of Resurgence": (_O, _T.AFTER_RESULT_LOSE, Affected.YOU, Effect.DRAW_TO_SIX),
}


def _parse_artefact(entry: Mapping[str, Any], where: str, p: _Problems) -> ArtefactSpec | None:
    n_before = len(p.items)
    name = _name(entry, where, p)
    a_type = _enum(ArtefactType, entry.get("type"), where, "artefact type", p)
    timing = _enum(ArtefactTiming, entry.get("timing"), where, "artefact timing", p)
    affected = _enum(Affected, entry.get("affected"), where, "affected player", p)
    effect = _enum(Effect, entry.get("effect"), where, "artefact effect", p)
    if len(p.items) > n_before or a_type is None or timing is None or affected is None or effect is None:
        return None
    if timing not in TIMINGS_BY_TYPE[a_type]:
        p.add(f"{where}: a {a_type.value} cannot have timing {timing.value!r} (pages 6-7)")
        return None
    facts = ARTEFACT_FACTS.get(name)
    if facts is not None and facts != (a_type, timing, affected, effect):
        want = ", ".join(str(f.value) for f in facts)
        p.add(f"{where}: {name} is ({want}) by the rulebook (pages 6-7), got "
              f"({a_type.value}, {timing.value}, {affected.value}, {effect.value})")
        return None
    return ArtefactSpec(entry["id"], name, a_type, timing, affected, effect, _guessed(entry))


def _parse_catalogue(obj: Any, source: str) -> Catalogue:
    p = _Problems()
    if not isinstance(obj, dict):
        raise CatalogueError([f"a catalogue is a JSON object, got {type(obj).__name__}"], source)
    if obj.get("format") != FORMAT:
        p.add(f"'format' must be {FORMAT!r}, got {obj.get('format')!r}")
    version = obj.get("version")
    if not _is_int(version) or version < 1:
        p.add(f"'version' must be a positive integer, got {version!r}")
    elif version > VERSION:
        p.add(f"catalogue version {version} is newer than this program understands ({VERSION})")
    dice = obj.get("dice_per_player", DICE_PER_PLAYER)
    if not _is_int(dice) or not 1 <= dice <= 60:
        p.add(f"'dice_per_player' must be a whole number from 1 to 60, got {dice!r}")
        dice = DICE_PER_PLAYER
    known = {"format", "version", "dice_per_player", "note", *_SECTIONS}
    for key in sorted(set(obj) - known):
        p.add(f"unknown top-level key {key!r}")

    parsed: dict[str, list[Any]] = {s: [] for s in _SECTIONS}
    parsers = {"territories": _parse_territory, "castles": _parse_castle, "cards": _parse_card,
               "artefacts": _parse_artefact}
    for section in _SECTIONS:
        entries = obj.get(section)
        if not isinstance(entries, list):
            p.add(f"'{section}' must be a list, got {entries!r}")
            continue
        seen: Counter[str] = Counter()
        for i, entry in enumerate(entries):
            where = f"{section}[{i}]"
            if not isinstance(entry, dict):
                p.add(f"{where}: must be an object, got {entry!r}")
                continue
            item_id = entry.get("id")
            if not isinstance(item_id, str) or not _ID_PATTERNS[section].match(item_id):
                p.add(f"{where}: bad id {item_id!r} for {section}")
                continue
            where = f"{section} {item_id}"
            seen[item_id] += 1
            for key in sorted(set(entry) - _FIELDS[section]):
                p.add(f"{where}: unknown field {key!r}")
            guessed = entry.get("guessed", [])
            if not isinstance(guessed, list) or not all(isinstance(g, str) for g in guessed):
                p.add(f"{where}: 'guessed' must be a list of field names, got {guessed!r}")
            else:
                for g in guessed:
                    if g not in _FIELDS[section] - {"id", "guessed", "note"}:
                        p.add(f"{where}: 'guessed' names unknown field {g!r}")
            if section == "lakes":
                name = _name(entry, where, p)
                item: Any = LakeSpec(item_id, name, _guessed(entry)) if name else None
            else:
                item = parsers[section](entry, where, p)
            if item is not None:
                parsed[section].append(item)
        for item_id, n in sorted(seen.items()):
            if n > 1:
                p.add(f"{section}: id {item_id!r} appears {n} times")
        if len(entries) != _COUNTS[section]:
            p.add(f"{section}: the box has {_COUNTS[section]}, got {len(entries)}")

    _check_groups(parsed, p)
    if p.items:
        raise CatalogueError(p.items, source)
    return Catalogue(tuple(parsed["territories"]), tuple(parsed["lakes"]), tuple(parsed["castles"]),
                     tuple(parsed["cards"]), tuple(parsed["artefacts"]), dice, source)


def _check_groups(parsed: Mapping[str, list[Any]], p: _Problems) -> None:
    castles: list[CastleSpec] = parsed["castles"]
    for colour, n in Counter(c.colour for c in castles).items():
        if n > 1:
            p.add(f"castles: colour {colour.value!r} is used by {n} castles; each castle has its own colour")
    for group in _SECTIONS:
        names = Counter(x.name.casefold() for x in parsed[group])
        for name, n in sorted(names.items()):
            if n > 1 and group in ("territories", "lakes", "castles", "artefacts"):
                p.add(f"{group}: name {name!r} is used {n} times")
    cards: list[CardSpec] = parsed["cards"]
    kinds = Counter(c.kind for c in cards)
    for kind in sorted(RESOURCE_KINDS, key=lambda k: k.value):
        if kinds[kind] != 1:
            p.add(f"cards: each deck has exactly one {kind.value} card (page 8), got {kinds[kind]}")
    artefacts: list[ArtefactSpec] = parsed["artefacts"]
    types = Counter(a.type for a in artefacts)
    for a_type in ArtefactType:
        if types[a_type] != 6:
            p.add(f"artefacts: there are 6 {a_type.value}s (page 2), got {types[a_type]}")


# --- loading --------------------------------------------------------------------------------------

def _read_json(path: Path, source: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError([f"cannot read {str(path)!r}: {exc.strerror or exc}"], source) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError([f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"],
                             source) from exc


def default_catalogue_json() -> dict[str, Any]:
    """A fresh copy of the default catalogue document (engine/data/default-catalogue.json)."""
    text = resources.files("engine").joinpath("data/default-catalogue.json").read_text(encoding="utf-8")
    obj: dict[str, Any] = json.loads(text)
    return obj


@cache
def load_default_catalogue() -> Catalogue:
    """The shipped default catalogue (cached: it is immutable)."""
    return _parse_catalogue(default_catalogue_json(), "default catalogue")


def load_box_catalogue(source: str | Path | Mapping[str, Any]) -> Catalogue:
    """An owner's box catalogue: a file path or an already-parsed document, laid over the default.

    A box document is `{"format": "seneschal-box", "version": 1, "territories": [...], ...}` where each
    section lists entries by `id` with only the fields that differ from the default (or all of them); an
    entry may also say `"confirmed": ["value", ...]` for guessed fields the owner checked and found right.
    Overridden and confirmed fields stop being guesses. A complete catalogue document (format
    "seneschal-catalogue") is accepted too and replaces the default entirely. Raises CatalogueError
    listing every problem at once.
    """
    label = "box catalogue"
    if isinstance(source, str | Path):
        label = f"box catalogue {str(source)!r}"
        obj: Any = _read_json(Path(source), label)
    else:
        obj = source
    if not isinstance(obj, Mapping):
        raise CatalogueError([f"a box catalogue is a JSON object, got {type(obj).__name__}"], label)
    if obj.get("format") == FORMAT:
        return _parse_catalogue(dict(obj), label)
    merged, problems = merge_box(default_catalogue_json(), obj)
    if problems:
        # Also report what the merged result would get wrong, so the owner sees everything at once.
        try:
            _parse_catalogue(merged, label)
        except CatalogueError as exc:
            problems.extend(exc.problems)
        raise CatalogueError(problems, label)
    return _parse_catalogue(merged, label)


def merge_box(base: Mapping[str, Any], box: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Lay a box document over a complete catalogue document; returns the merged document and the problems."""
    problems: list[str] = []
    if box.get("format") != BOX_FORMAT:
        problems.append(f"'format' must be {BOX_FORMAT!r} (or {FORMAT!r} for a complete catalogue), "
                        f"got {box.get('format')!r}")
    version = box.get("version")
    if not _is_int(version) or version < 1:
        problems.append(f"'version' must be a positive integer, got {version!r}")
    elif version > VERSION:
        problems.append(f"box catalogue version {version} is newer than this program understands ({VERSION})")
    for key in sorted(set(box) - {"format", "version", "note", "dice_per_player", *_SECTIONS}):
        problems.append(f"unknown top-level key {key!r}")
    merged: dict[str, Any] = json.loads(json.dumps(dict(base)))
    if "dice_per_player" in box:
        merged["dice_per_player"] = box["dice_per_player"]
    for section in _SECTIONS:
        if section not in box:
            continue
        entries = box[section]
        if not isinstance(entries, list):
            problems.append(f"'{section}' must be a list, got {entries!r}")
            continue
        by_id = {e["id"]: e for e in merged[section]}
        seen: set[str] = set()
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                problems.append(f"{section}[{i}]: must be an object, got {entry!r}")
                continue
            item_id = entry.get("id")
            if not isinstance(item_id, str) or item_id not in by_id:
                what = "territory" if section == "territories" else section[:-1]
                problems.append(f"{section}[{i}]: no {what} with id {item_id!r} in the box "
                                "(ids are fixed by the stickers)")
                continue
            assert isinstance(item_id, str)
            if item_id in seen:
                problems.append(f"{section} {item_id}: listed twice in the box catalogue")
                continue
            seen.add(item_id)
            target = by_id[item_id]
            guessed = set(target.get("guessed", []))
            confirmed = entry.get("confirmed", [])
            if not isinstance(confirmed, list) or not all(isinstance(c, str) for c in confirmed):
                problems.append(f"{section} {item_id}: 'confirmed' must be a list of field names, "
                                f"got {confirmed!r}")
                confirmed = []
            for key, value in entry.items():
                if key in ("id", "confirmed"):
                    continue
                if key == "guessed":
                    continue
                if key not in _FIELDS[section]:
                    problems.append(f"{section} {item_id}: unknown field {key!r}")
                    continue
                target[key] = value
                guessed.discard(key)
            for key in confirmed:
                if key not in _FIELDS[section]:
                    problems.append(f"{section} {item_id}: 'confirmed' names unknown field {key!r}")
                guessed.discard(key)
            if "guessed" in entry:
                target["guessed"] = entry["guessed"]
            elif guessed:
                target["guessed"] = sorted(guessed)
            else:
                target.pop("guessed", None)
    return merged, problems


def box_json(catalogue: Catalogue) -> dict[str, Any]:
    """The owner's box document for a catalogue: only what differs from the default, plus the guesses the
    owner confirmed unchanged; `load_box_catalogue(box_json(c)) == c`. The app's box-setup step saves it."""
    base = default_catalogue_json()
    mine = catalogue.to_json()
    out: dict[str, Any] = {"format": BOX_FORMAT, "version": VERSION}
    if mine["dice_per_player"] != base.get("dice_per_player", DICE_PER_PLAYER):
        out["dice_per_player"] = mine["dice_per_player"]
    for section in _SECTIONS:
        defaults = {e["id"]: e for e in base[section]}
        entries: list[dict[str, Any]] = []
        for entry in mine[section]:
            default = defaults.get(entry["id"], {})
            default_guessed = set(default.get("guessed", []))
            changed = {k: v for k, v in entry.items()
                       if k not in ("id", "guessed") and default.get(k, _MISSING) != v}
            if "abilities" in default and "abilities" not in entry:
                changed["abilities"] = sorted(a.value for a in catalogue.territory(entry["id"]).abilities)
            still = set(entry.get("guessed", []))
            confirmed = sorted(default_guessed - still - set(changed))
            item: dict[str, Any] = {"id": entry["id"], **changed}
            if confirmed:
                item["confirmed"] = confirmed
            if still - default_guessed:
                item["guessed"] = sorted(still)
            if len(item) > 1:
                entries.append(item)
        if entries:
            out[section] = entries
    return out


_MISSING = object()


def describe_territory(spec: TerritorySpec) -> str:
    """A short label for messages: 'Fort of Bourges (fort, 2)'."""
    return f"{spec.name} ({spec.kind.value}, {spec.value})"


def ids(items: Iterable[TerritorySpec | LakeSpec | CastleSpec | CardSpec | ArtefactSpec]) -> list[str]:
    return [x.id for x in items]

"""Every rule the referee names: a section of the rulebook (English edition, its page) or one of our rulings
(docs/rulings.md). Verdicts and the events of rule-driven consequences carry one; `citation` is how it is
printed."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.speed import identity_hash

# The edition of docs/rulings.md a new game follows. A game keeps the edition it was set up with for its whole
# life (`GameConfig.rulings`), so a game saved before a ruling changed replays exactly as it was played.
# Edition 1: before R21 and R25 were changed (castles advanced across lakes; a battle's fracture windows held
# only the artefacts about to apply). Edition 2: R21 and R25 as docs/rulings.md words them now.
RULINGS = 2


@identity_hash
class Rule(Enum):
    """Each rule has a stable code (its value: `advance`, `battle_6`, `r21`) and a `citation` (section and
    page, or the ruling's number)."""

    citation: str

    def __new__(cls, code: str, citation: str) -> Rule:
        rule = object.__new__(cls)
        rule._value_ = code
        rule.citation = citation
        return rule

    # Components, setting up, the map (pp.2-7)
    COMPONENTS = "components", "Components, p.2"
    LAKES = "lakes", "Lakes, p.2"
    SETTING_UP = "setting_up", "Setting Up, p.3"
    STARTING_KNIGHTS = "starting_knights", "Setting Up §6, p.3"
    OPENING_HAND = "opening_hand", "Setting Up §7, p.3"
    ICONS = "icons", "Iconography, pp.6-7"
    GRASSLANDS = "grasslands", "Grasslands, p.7"
    FORTIFIED = "fortified", "Fort, City, Fortress, p.7"
    MOUNTAINS = "mountains", "Mountains, p.7"
    ARENA = "arena", "Arena, p.7"
    PLACE_KNIGHT_ON_CONQUEST = "place_knight_on_conquest", "Village, City, Shrine, p.7"
    MARSHLANDS = "marshlands", "Marshlands, p.7"
    DISCARD_ON_CONQUEST = "discard_on_conquest", "Ruins, Abbey, Fortress, p.7"
    CONQUEST = "conquest", "Iconography: abilities apply when conquered, p.7"
    # Taking a turn (pp.8-13)
    TURN = "turn", "Taking a Turn, p.8"
    PLACE_KNIGHTS = "place_knights", "Place Knights, p.8"
    RESOURCES = "resources", "Play Resources, p.8"
    AUTHORITY = "authority", "Authority, p.8"
    CALL_TO_ARMS = "call_to_arms", "Call to Arms, p.8"
    TACTICAL_ADVANCE = "tactical_advance", "Tactical Advance, p.8"
    FRACTURE = "fracture", "Fracture, p.8"
    CROWNS = "crowns", "Use Crowns, p.8"
    REDISTRIBUTE = "redistribute", "Redistribute Knights, p.9"
    SUPPLY = "supply", "Line of Supply, p.10"
    ADVANCE = "advance", "Make an Advance, p.11"
    BATTLE = "battle", "Battle, p.11"
    BATTLE_1 = "battle_1", "Order of Battle §1, p.12"
    BATTLE_2 = "battle_2", "Order of Battle §2, p.12"
    BATTLE_3 = "battle_3", "Order of Battle §3, p.12"
    BATTLE_4 = "battle_4", "Order of Battle §4, p.12"
    BATTLE_5 = "battle_5", "Order of Battle §5, p.12"
    BATTLE_6 = "battle_6", "Order of Battle §6, p.12"
    BATTLE_7 = "battle_7", "Order of Battle §7, p.12"
    BATTLE_8 = "battle_8", "Order of Battle §8, p.12"
    BATTLE_9 = "battle_9", "Order of Battle §9, p.12"
    RESTORE = "restore", "Restore Artefacts, p.13"
    AIM = "aim", "Aim of the Game, p.13"
    # Optional rules (p.14)
    ALLEGIANCE = "allegiance", "Allegiance, p.14"
    CASTLE_SIEGE = "castle_siege", "Castle Siege, p.14"
    CUT_THROAT = "cut_throat", "Cut-Throat, p.14"
    SKIRMISH = "skirmish", "Skirmish, p.14"
    MAYHEM = "mayhem", "Mayhem, p.14"
    # Our rulings (docs/rulings.md)
    R20 = "r20", "R20"
    R21 = "r21", "R21"
    R22 = "r22", "R22"
    R23 = "r23", "R23"
    R24 = "r24", "R24"
    R25 = "r25", "R25"
    R26 = "r26", "R26"
    R27 = "r27", "R27"
    R28 = "r28", "R28"
    R29 = "r29", "R29"
    R30 = "r30", "R30"
    R31 = "r31", "R31"
    R32 = "r32", "R32"
    R33 = "r33", "R33"
    R34 = "r34", "R34"
    R35 = "r35", "R35"
    R36 = "r36", "R36"
    R37 = "r37", "R37"
    R38 = "r38", "R38"
    R39 = "r39", "R39"
    R40 = "r40", "R40"
    R41 = "r41", "R41"
    R42 = "r42", "R42"
    R43 = "r43", "R43"
    R44 = "r44", "R44"
    R45 = "r45", "R45"
    R46 = "r46", "R46"
    R47 = "r47", "R47"
    R48 = "r48", "R48"
    R83 = "r83", "R83"

    @classmethod
    def from_code(cls, code: str) -> Rule:
        """`Rule.from_code("r21")` is `Rule.R21` (what `Rule("r21")` does, in words mypy follows)."""
        for rule in cls:
            if rule.value == code:
                return rule
        raise ValueError(f"unknown rule {code!r}")

    def __repr__(self) -> str:
        return f"Rule.{self.name}"


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the rulebook's turn overview (p.8) or order of battle (p.12): its number, its title as
    the rulebook words it, and the rule that governs it."""

    number: int
    title: str
    rule: Rule

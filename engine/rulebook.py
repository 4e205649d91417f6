"""Every rule the referee names: a section of the rulebook (English edition, its page) or one of our rulings
(docs/rulings.md). Verdicts and the events of rule-driven consequences carry one; `citation` is how it is
printed."""

from __future__ import annotations

from enum import Enum

from engine.speed import identity_hash


@identity_hash
class Rule(Enum):
    """`Rule.X.value` is the citation: section and page, or the ruling's number."""

    # Components, setting up, the map (pp.2-7)
    COMPONENTS = "Components, p.2"
    LAKES = "Lakes, p.2"
    SETTING_UP = "Setting Up, p.3"
    STARTING_KNIGHTS = "Setting Up §6, p.3"
    OPENING_HAND = "Setting Up §7, p.3"
    ICONS = "Iconography, pp.6-7"
    GRASSLANDS = "Grasslands, p.7"
    FORTIFIED = "Fort, City, Fortress, p.7"
    MOUNTAINS = "Mountains, p.7"
    ARENA = "Arena, p.7"
    PLACE_KNIGHT_ON_CONQUEST = "Village, City, Shrine, p.7"
    MARSHLANDS = "Marshlands, p.7"
    DISCARD_ON_CONQUEST = "Ruins, Abbey, Fortress, p.7"
    CONQUEST = "Iconography: abilities apply when conquered, p.7"
    # Taking a turn (pp.8-13)
    TURN = "Taking a Turn, p.8"
    PLACE_KNIGHTS = "Place Knights, p.8"
    RESOURCES = "Play Resources, p.8"
    AUTHORITY = "Authority, p.8"
    CALL_TO_ARMS = "Call to Arms, p.8"
    TACTICAL_ADVANCE = "Tactical Advance, p.8"
    FRACTURE = "Fracture, p.8"
    CROWNS = "Use Crowns, p.8"
    REDISTRIBUTE = "Redistribute Knights, p.9"
    SUPPLY = "Line of Supply, p.10"
    ADVANCE = "Make an Advance, p.11"
    BATTLE = "Battle, p.11"
    BATTLE_1 = "Order of Battle §1, p.12"
    BATTLE_2 = "Order of Battle §2, p.12"
    BATTLE_3 = "Order of Battle §3, p.12"
    BATTLE_4 = "Order of Battle §4, p.12"
    BATTLE_5 = "Order of Battle §5, p.12"
    BATTLE_6 = "Order of Battle §6, p.12"
    BATTLE_7 = "Order of Battle §7, p.12"
    BATTLE_8 = "Order of Battle §8, p.12"
    BATTLE_9 = "Order of Battle §9, p.12"
    RESTORE = "Restore Artefacts, p.13"
    AIM = "Aim of the Game, p.13"
    # Optional rules (p.14)
    ALLEGIANCE = "Allegiance, p.14"
    CASTLE_SIEGE = "Castle Siege, p.14"
    CUT_THROAT = "Cut-Throat, p.14"
    SKIRMISH = "Skirmish, p.14"
    MAYHEM = "Mayhem, p.14"
    # Our rulings (docs/rulings.md)
    R20 = "R20"
    R21 = "R21"
    R22 = "R22"
    R23 = "R23"
    R24 = "R24"
    R25 = "R25"
    R26 = "R26"
    R27 = "R27"
    R28 = "R28"
    R29 = "R29"
    R30 = "R30"
    R31 = "R31"
    R32 = "R32"
    R33 = "R33"
    R34 = "R34"
    R35 = "R35"
    R36 = "R36"
    R37 = "R37"
    R38 = "R38"
    R39 = "R39"
    R40 = "R40"
    R41 = "R41"
    R42 = "R42"
    R43 = "R43"
    R44 = "R44"
    R45 = "R45"
    R46 = "R46"
    R47 = "R47"
    R83 = "R83"

    @property
    def citation(self) -> str:
        return self.value

    @property
    def code(self) -> str:
        """A stable name for JSON: `advance`, `battle_6`, `r21`."""
        return self.name.lower()

    @staticmethod
    def from_code(code: str) -> Rule:
        try:
            return Rule[code.upper()]
        except KeyError:
            raise ValueError(f"unknown rule {code!r}") from None

    def __repr__(self) -> str:
        return f"Rule.{self.name}"

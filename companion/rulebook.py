"""The rulebook as the app shows it: OUR OWN short summaries of each section with the English edition's page
number (never the rulebook's sentences). Browsable and searchable on the referee screen."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Section:
    key: str
    title: str
    page: int
    summary: str


SECTIONS: tuple[Section, ...] = (
    Section(
        "components",
        "Components",
        2,
        "Six castles, three lakes and thirty territories worth 1, 2 or 3 points. Every player has a castle, "
        "an identical 18-card deck, ten dice of their colour and three artefacts: crown, sceptre and orb.",
    ),
    Section(
        "setup",
        "Setting up",
        3,
        "Choose castles, build the map for the player count, deal one artefact of each type, shuffle decks, "
        "place six starting knights split evenly over the castle and up to two adjacent homelands, draw five "
        "(authority drawn now is played for two more) and draw lots for the first player.",
    ),
    Section(
        "maps",
        "Maps",
        4,
        "Each player count has its own layout. Territories of each value are shuffled into their slots: "
        "value 1 near the castles, value 2 further in, value 3 in the middle, lakes inside.",
    ),
    Section(
        "place",
        "Place three knights",
        8,
        "At the start of your turn add three knights to your castle. A new die comes from your reserve when "
        "needed; with an empty reserve the missing knights are lost.",
    ),
    Section(
        "resources",
        "Resource cards",
        8,
        "Authority: play it when you finish drawing to draw two more. Call to arms: two knights into your "
        "castle, on your turn. Tactical advance: one more redistribution and advance. Neither of those two "
        "may be played during redistribution, an advance or a battle.",
    ),
    Section(
        "fracture",
        "Fracture",
        8,
        "Destroys another player's artefact and cancels its effect. Usable on your own turn outside "
        "redistribution and advancing, when a crown is announced (asked from its owner clockwise), and in a "
        "battle just before sceptres or orbs apply, on any sceptre or orb of either side (asked from the "
        "attacker clockwise, everyone included).",
    ),
    Section(
        "crowns",
        "Use crowns",
        8,
        "Each crown once per own turn, never during redistribution, an advance or a battle. A destroyed "
        "artefact is face-down and does nothing until restored.",
    ),
    Section(
        "redistribute",
        "Redistribute knights",
        9,
        "Once per turn, before the advance: move knights between your castle and your supplied territories. "
        "The total stays the same; every territory you hold keeps at least one knight and no more than its "
        "capacity (six unless the tile says otherwise).",
    ),
    Section(
        "supply",
        "Line of supply",
        10,
        "A territory is supplied when an unbroken path of your own territories and lakes leads to your "
        "castle. Unsupplied territories cannot give or receive knights when redistributing, and do not "
        "open advances on their own. They still score.",
    ),
    Section(
        "advance",
        "Make an advance",
        11,
        "Once per turn (twice with tactical advance): move knights from your castle into a territory you do "
        "not hold that touches your castle or a supplied territory of yours; a supplied territory of yours "
        "on a lake also reaches every territory around that lake, your castle does not. Up to the capacity. "
        "Empty territory: you conquer it. Held by a rival: battle.",
    ),
    Section(
        "battle",
        "Battle",
        11,
        "Attacker and defender start with a combat score equal to their knights in the territory and add "
        "territory and artefact abilities, one conflict card and any support cards.",
    ),
    Section(
        "order",
        "Order of battle",
        12,
        "1 territory abilities, 2 both draw to five, 3 fracture window then sceptres, 4 conflict cards face "
        "down and revealed together (none = 0, ambush = a die), 5 support cards in turns starting with the "
        "lower score, 6 result (a tie goes to the defender by one), 7 fracture window then orbs, 8 the loser "
        "loses the margin from the territory and retreats, 9 a winning attacker conquers and applies the "
        "territory's abilities.",
    ),
    Section(
        "example",
        "Battle example",
        13,
        "Six attackers into a city held by five: the city gives the defender +1, the attacker fractures the "
        "defender's sceptre and uses its own for +1, conflict 5 against 3, supports +1 +2 against +2, the "
        "attacker wins 14 to 12; the orb takes one more defender, who loses two and retreats two.",
    ),
    Section(
        "restore",
        "Restore artefacts",
        13,
        "At the end of your turn flip your destroyed artefacts face-up, except those destroyed during this "
        "turn: they wait until the end of your next turn.",
    ),
    Section(
        "aim",
        "Aim of the game",
        13,
        "You control a territory while only your knights are in it. The game ends the moment one player "
        "controls 13 or more points of territories, supplied or not.",
    ),
    Section(
        "abilities",
        "Territory abilities",
        7,
        "Grasslands: attacker +1. Fort, city, fortress: defender +1. Mountains: no support cards. Cave, "
        "battlefield: another capacity. Village, city, shrine: the conqueror adds a knight to the castle. "
        "Marshlands: the conqueror loses a knight there. Ruins, abbey, fortress: the conqueror may discard a "
        "card. Arena: both roll a die at the start; the lower loses a knight there, both on a tie.",
    ),
    Section(
        "artefacts",
        "Artefacts",
        6,
        "Crowns act once per own turn; sceptres before conflict cards (attacking or defending); orbs after "
        "the result (winning or losing). Each card says who is affected: you, your rival, or any player.",
    ),
    Section(
        "allegiance",
        "Allegiance",
        14,
        "Four or six players in equal teams; pairs win at 20 points, teams of three at 30. No advances "
        "into a teammate's land; teammates may add support cards. Not with castle siege.",
    ),
    Section(
        "siege",
        "Castle siege",
        14,
        "Castles can be attacked with at most six knights; the defender counts as eight; taking a castle "
        "wins the game.",
    ),
    Section(
        "cutthroat",
        "Cut-throat",
        14,
        "A territory that loses its line of supply loses all its knights at once; they do not go home.",
    ),
    Section("skirmish", "Skirmish", 14, "Win at 11 points; homelands are worth nothing."),
    Section(
        "mayhem",
        "Mayhem",
        14,
        "Six extra starting knights in the castle. A battle's winner rolls a die per knight in the territory "
        "before orbs and loses one per 1 rolled; left with none, they lose the battle instead.",
    ),
)


def search(query: str, tr: object = None) -> list[Section]:
    """Sections whose title or summary contains every word of the query (case-insensitive), in the active
    language when a translator is given."""
    words = [w for w in query.lower().split() if w]
    out = []
    for s in SECTIONS:
        title = tr(s.title) if callable(tr) else s.title
        summary = tr(s.summary) if callable(tr) else s.summary
        text = f"{title} {summary} {s.title} {s.summary}".lower()
        if all(w in text for w in words):
            out.append(s)
    return out

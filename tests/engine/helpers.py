"""Small scenario builders for the rules tests: a hand-made map, explicit hands, and a driver."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import actions as A
from engine.colours import Colour
from engine.events import Event
from engine.rules import apply, check
from engine.setup import GameConfig, PlayerConfig, Variant, position
from engine.state import GameState, Knowledge, Need

R, B, Y, G, W, K = Colour.RED, Colour.BLUE, Colour.YELLOW, Colour.GREEN, Colour.WHITE, Colour.BLACK

ART = {
    "vitality": "A01",
    "insight": "A02",
    "order": "A03",
    "fury": "A04",
    "corruption": "A05",
    "prosperity": "A06",
    "fear": "A07",
    "rage": "A08",
    "influence": "A09",
    "loyalty": "A10",
    "vigour": "A11",
    "defiance": "A12",
    "greed": "A13",
    "preparation": "A14",
    "brutality": "A15",
    "cleansing": "A16",
    "devotion": "A17",
    "resurgence": "A18",
}
# The default deck (R5): C01=2, C02=3, C03=3, C04=4, C05=4, C06=5, C07/C08 ambush, C09-C11 +1, C12-C14 +2,
# C15 authority, C16 call to arms, C17 tactical advance, C18 fracture.
TWO, THREE, THREE_B, FOUR, FOUR_B, FIVE, AMBUSH, AMBUSH_B = (
    "C01",
    "C02",
    "C03",
    "C04",
    "C05",
    "C06",
    "C07",
    "C08",
)
PLUS1, PLUS1_B, PLUS1_C, PLUS2, PLUS2_B, PLUS2_C = "C09", "C10", "C11", "C12", "C13", "C14"
AUTHORITY, CALL_TO_ARMS, TACTICAL, FRACTURE = "C15", "C16", "C17", "C18"

# A hand-made map. K1 red, K2 blue, K3 yellow, K4 green.
#   K1 borders T01 (homelands), T07 (grasslands), T25 (city)
#   K2 borders T02 (homelands), T25, T22 (mountains)
#   lake L1 borders T07, T22, T12 (village), T28 (arena)
MAP: dict[str, tuple[str, ...]] = {
    "K1": ("T01", "T07", "T25"),
    "K2": ("T02", "T25", "T22"),
    "T07": ("T25", "T11", "L1"),
    "T25": ("T22", "T28"),
    "T22": ("L1", "T28"),
    "L1": ("T12", "T28"),
    "T28": ("T26", "T24"),
    "T26": ("T20", "T27"),
    "T24": ("T29", "T23"),
    "T12": ("T13",),
    "K3": ("T03", "T26"),
    "K4": ("T04", "T24"),
    "K5": ("T05", "T29"),
    "K6": ("T06", "T23"),
}
# Default deals keep plain battles plain: red's sceptre (Loyalty) only helps when red defends, blue's (Rage)
# only when blue attacks, and both orbs apply without asking anything.
DEALS = {
    R: (ART["vitality"], ART["loyalty"], ART["greed"]),
    B: (ART["insight"], ART["rage"], ART["devotion"]),
    Y: (ART["order"], ART["fear"], ART["resurgence"]),
    G: (ART["fury"], ART["influence"], ART["brutality"]),
    W: (ART["corruption"], ART["vigour"], ART["cleansing"]),
    K: (ART["prosperity"], ART["defiance"], ART["preparation"]),
}


def config(
    players: Sequence[Colour] = (R, B),
    *,
    variant: Variant | None = None,
    knowledge: Knowledge = Knowledge.FULL,
    artefacts: Mapping[Colour, tuple[str, ...]] | None = None,
    adjacency: Mapping[str, tuple[str, ...]] | None = None,
    seed: int = 7,
) -> GameConfig:
    deals = dict(artefacts or {})
    taken = {a for deal in deals.values() for a in deal}
    for c in players:
        if c in deals:
            continue
        mine = []
        for default in DEALS[c]:
            a = default
            if a in taken:  # swap a default clashing with an explicit deal for a free one of the same type
                kind = (int(a[1:]) - 1) // 6
                a = next(
                    f"A{i:02d}"
                    for i in range(kind * 6 + 1, kind * 6 + 7)
                    if f"A{i:02d}" not in taken and f"A{i:02d}" not in DEALS[c]
                )
            taken.add(a)
            mine.append(a)
        deals[c] = tuple(mine)
    return GameConfig(
        players=tuple(PlayerConfig(c, c.value) for c in players),
        variant=variant or Variant(),
        knowledge=knowledge,
        seed=seed,
        adjacency=adjacency or MAP,
        first_player=players[0],
        artefacts=deals,
    )


def game(
    players: Sequence[Colour] = (R, B),
    *,
    variant: Variant | None = None,
    knowledge: Knowledge = Knowledge.FULL,
    artefacts: Mapping[Colour, tuple[str, ...]] | None = None,
    adjacency: Mapping[str, tuple[str, ...]] | None = None,
    occupants: Mapping[str, tuple[Colour, int]] | None = None,
    castles: Mapping[Colour, int] | None = None,
    hands: Mapping[Colour, tuple[str, ...]] | None = None,
    **kw: Any,
) -> GameState:
    """A position at the start of the first player's turn. Hands default to empty with decks in list order."""
    cfg = config(players, variant=variant, knowledge=knowledge, artefacts=artefacts, adjacency=adjacency)
    all_hands = {c: () for c in players} if knowledge is Knowledge.FULL else None
    if hands:
        all_hands = {**(all_hands or {}), **hands}
    return position(
        cfg,
        occupants=occupants if occupants is not None else {},
        castles=castles if castles is not None else {c: 6 for c in players},
        hands=all_hands,
        current=kw.pop("current", players[0]),
        **kw,
    )


def play(state: GameState, *actions: A.Action) -> tuple[GameState, list[Event]]:
    """Apply actions in order (each must be accepted); returns the final state and every event."""
    events: list[Event] = []
    for action in actions:
        verdict = check(state, action)
        assert verdict.ok, f"{action} refused: {verdict}"
        state, evs = apply(state, action)
        events.extend(evs)
    return state, events


def refused(state: GameState, action: A.Action) -> Any:
    """The verdict for an action that must be refused; also checks apply leaves the state untouched."""
    verdict = check(state, action)
    assert not verdict.ok, f"{action} was accepted"
    assert verdict.sentence and verdict.citation
    return verdict


def pass_fracture_windows(state: GameState) -> tuple[GameState, list[Event]]:
    """Everyone passes in the fracture windows open now (R25: a battle's window holds both sides' sceptres
    or orbs, so whoever might hold a fracture card is asked)."""
    events: list[Event] = []
    while state.pending and state.pending[0].need is Need.FRACTURE:
        state, evs = apply(state, A.PassFractureRound(state.pending[0].actors()[0]))
        events.extend(evs)
    return state, events


def of(events: Sequence[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def finish(state: GameState) -> tuple[GameState, list[Event]]:
    """Answer every pending decision with the first legal answer (pass, no card, lowest die)."""
    from engine.rules import legal_actions

    events: list[Event] = []
    while state.pending:
        state, evs = apply(state, legal_actions(state)[0])
        events.extend(evs)
    return state, events

"""Optional rules (p.14): allegiance, castle siege, cut-throat, skirmish, mayhem."""

from __future__ import annotations

import pytest

from engine import actions as A
from engine import events as ev
from engine.errors import SetupError
from engine.setup import GameConfig, PlayerConfig, Variant, new_game
from engine.state import Need
from engine.verdict import Reason
from tests.engine.helpers import FIVE, PLUS2, THREE, TWO, B, G, R, Y, finish, game, of, play, refused

TEAMS = Variant(allegiance=((R, Y), (B, G)))


def test_allegiance_no_advance_into_a_teammates_territory():
    s = game((R, B, Y, G), variant=TEAMS, occupants={"T07": (Y, 2), "T25": (B, 1)})
    assert refused(s, A.Advance(R, "T07", 2)).reason is Reason.TEAMMATE_TERRITORY
    assert check_ok(s, A.Advance(R, "T25", 2))


def check_ok(s, a):
    from engine.rules import check

    return check(s, a).ok


def test_allegiance_teammates_add_support_cards_clockwise():
    s = game(
        (R, B, Y, G),
        variant=TEAMS,
        occupants={"T25": (B, 2)},
        hands={R: (TWO,), B: (THREE,), Y: (PLUS2,), G: ()},
    )
    s, _ = play(s, A.Advance(R, "T25", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, THREE))
    head = s.pending[0]
    assert head.need is Need.SUPPORT and set(head.players) == {R, B, Y, G}
    assert s.combat_scores() == (4, 6)  # red lowest starts; then clockwise
    while s.pending and s.pending[0].players[0] is not Y:
        s, _ = play(s, A.PlaySupport(s.pending[0].players[0], ()))
    s, events = play(s, A.PlaySupport(Y, (PLUS2,)))
    assert ev.SupportPlayed(Y, R, (PLUS2,), 2) in events
    assert of(events, ev.BattleResult)[0].attacker_score == 6


def test_allegiance_team_of_two_wins_with_20_and_a_lone_13_does_not():
    occ = {
        "T25": (R, 1),
        "T26": (R, 1),
        "T27": (R, 1),
        "T28": (R, 1),
        "T07": (R, 1),
        "T20": (Y, 1),
        "T24": (Y, 1),
        "T23": (Y, 1),
    }
    s = game((R, B, Y, G), variant=TEAMS, occupants=occ)
    assert s.score(R) == 13 and s.winner is None
    s, events = play(s, A.Advance(R, "T12", 1))
    assert s.winner == (R, Y) and of(events, ev.GameWon)


def test_allegiance_setup_rules():
    with pytest.raises(SetupError, match="castle siege"):
        new_game(
            GameConfig(
                players=tuple(PlayerConfig(c) for c in (R, B, Y, G)),
                variant=Variant(allegiance=TEAMS.allegiance, castle_siege=True),
            )
        )
    with pytest.raises(SetupError, match="4 or 6"):
        new_game(
            GameConfig(
                players=tuple(PlayerConfig(c) for c in (R, B, Y)),
                variant=Variant(allegiance=((R,), (B,), (Y,))),
            )
        )


def test_castle_siege_defender_counts_as_eight_and_taking_the_castle_wins():
    siege = Variant(castle_siege=True)
    s = game(
        variant=siege, occupants={"T25": (R, 1)}, castles={R: 12, B: 2}, hands={R: (FIVE, PLUS2), B: (TWO,)}
    )
    assert refused(s, A.Advance(R, "K2", 7)).reason is Reason.SIEGE_LIMIT
    assert refused(s, A.Advance(R, "K1", 1)).reason is Reason.ALREADY_CONTROLLED
    s, events = play(s, A.Advance(R, "K2", 6))
    assert of(events, ev.BattleStarted)[0].defender_knights == 2
    s, _ = play(s, A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert s.combat_scores() == (11, 10)  # 6 + 5 against 8 + 2
    s, events = finish(s)
    assert s.winner == (R,)


def test_castle_siege_castles_cannot_be_attacked_without_the_rule():
    s = game(occupants={"T25": (R, 1)})
    assert refused(s, A.Advance(R, "K2", 1)).reason is Reason.CASTLE_NOT_ALLOWED


def test_cut_throat_territories_without_supply_lose_their_knights():
    adjacency = {"K1": ("T07",), "K2": ("T07", "T02"), "T07": ("T11",)}
    s = game(
        variant=Variant(cut_throat=True),
        adjacency=adjacency,
        current=B,
        occupants={"T07": (R, 1), "T11": (R, 4)},
        castles={R: 0, B: 6},
        hands={B: (FIVE,)},
    )
    s, events = play(s, A.Advance(B, "T07", 6))
    s, more = finish(s)
    events += more
    assert ev.KnightsLost(R, "T11", 4, "cut-throat") in events
    assert s.knights_at("T11") == {} and s.players[R].castle < 4  # not returned to the castle (R31)


def test_skirmish_11_points_and_homelands_worth_zero():
    occ = {"T01": (R, 1), "T25": (R, 1), "T28": (R, 1), "T22": (R, 1), "T07": (R, 1)}
    s = game(variant=Variant(skirmish=True), occupants=occ)
    assert s.score(R) == 0 + 3 + 3 + 2 + 1
    s, _ = play(s, A.Advance(R, "T12", 1))
    assert s.winner is None and s.score(R) == 10
    s2 = game(variant=Variant(skirmish=True), occupants={**occ, "T13": (R, 1)})
    assert s2.score(R) == 11 and s2.winner == (R,)


def test_mayhem_six_extra_starting_knights():
    cfg = GameConfig(
        players=(PlayerConfig(R), PlayerConfig(B)), variant=Variant(mayhem=True), seed=1, first_player=B
    )
    s = new_game(cfg)
    assert s.knights_on_map(R) == 12


def test_mayhem_winner_rolls_a_die_per_knight_and_can_lose_instead():
    s = game(variant=Variant(mayhem=True), occupants={"T07": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T07", 2), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    while s.pending[0].need is Need.SUPPORT:
        s, _ = play(s, A.PlaySupport(s.pending[0].players[0], ()))
    head = s.pending[0]
    assert head.need is Need.DICE and head.purpose.value == "mayhem" and head.actor is R and head.n == 2
    s, events = play(s, A.RollDice(R, (1, 1)))
    results = of(events, ev.BattleResult)
    assert results[-1].winner is B and results[-1].cause == "mayhem"
    s, _ = finish(s)
    assert s.knights_at("T07") == {B: 1}  # no retreat, no losses for the new winner (R38)


def test_mayhem_a_single_one_costs_one_knight():
    s = game(variant=Variant(mayhem=True), occupants={"T07": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T07", 3), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    while s.pending[0].need is Need.SUPPORT:
        s, _ = play(s, A.PlaySupport(s.pending[0].players[0], ()))
    s, _ = play(s, A.RollDice(R, (1, 4, 6)))
    s, _ = finish(s)
    assert s.knights_at("T07") == {R: 2}


def test_allegiance_teams_of_three_need_30():
    six = (
        R,
        B,
        Y,
        G,
        __import__("engine.colours", fromlist=["Colour"]).Colour.WHITE,
        __import__("engine.colours", fromlist=["Colour"]).Colour.BLACK,
    )
    teams = Variant(allegiance=((six[0], six[2], six[4]), (six[1], six[3], six[5])))
    occ = {
        "T25": (R, 1),
        "T26": (R, 1),
        "T27": (R, 1),
        "T28": (R, 1),
        "T29": (Y, 1),
        "T20": (Y, 1),
        "T24": (six[4], 1),
        "T23": (six[4], 1),
        "T22": (six[4], 1),
        "T07": (R, 1),
    }
    s = game(six, variant=teams, occupants=occ)
    assert sum(s.score(c) for c in (R, Y, six[4])) == 12 + 5 + 6 + 1 and s.winner is None
    s, _ = play(s, A.Advance(R, "T12", 1))
    assert s.winner is None  # 25 < 30
    s2 = game(
        six, variant=teams, occupants={**occ, "T13": (Y, 1), "T11": (R, 1), "T01": (six[4], 1), "T03": (Y, 1)}
    )
    assert sum(s2.score(c) for c in (R, Y, six[4])) == 29 and s2.winner is None
    s2, _ = play(s2, A.Advance(R, "T12", 1))
    assert s2.winner == (R, Y, six[4])


def test_castle_siege_sceptre_of_fear_matches_the_eight():
    from tests.engine.helpers import ART

    siege = Variant(castle_siege=True)
    s = game(
        variant=siege,
        occupants={"T25": (R, 1)},
        castles={R: 12, B: 2},
        artefacts={R: (ART["vitality"], ART["fear"], ART["greed"])},
        hands={R: (TWO,), B: (TWO,)},
    )
    s, _ = play(s, A.Advance(R, "K2", 3), A.Equalise(R, True))
    assert s.combat_scores() == (8, 8)

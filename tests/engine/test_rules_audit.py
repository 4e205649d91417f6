"""Adversarial scenarios from the rules audit: each would fail on a plausible bug in the referee. Named after
the rulebook section (English edition pages) they cover, like the other test_rules_* files."""

from __future__ import annotations

import itertools

import pytest

from engine import actions as A
from engine import events as ev
from engine.colours import Colour
from engine.errors import SetupError
from engine.rules import check, legal_actions, redistributions
from engine.setup import GameConfig, PlayerConfig, Variant, new_game
from engine.state import Knowledge, Need, TurnStep
from engine.verdict import Reason
from tests.engine.helpers import (
    AMBUSH,
    AMBUSH_B,
    ART,
    AUTHORITY,
    CALL_TO_ARMS,
    FIVE,
    FOUR,
    FRACTURE,
    MAP,
    PLUS1,
    PLUS1_B,
    PLUS2,
    TACTICAL,
    THREE,
    TWO,
    B,
    G,
    R,
    Y,
    config,
    finish,
    game,
    of,
    pass_fracture_windows,
    play,
    refused,
)

W, K = Colour.WHITE, Colour.BLACK
# Five-card hands without conflict cards, so no battle draws and nobody must play one.
NO_CONFLICT = (PLUS1, PLUS1_B, PLUS2, CALL_TO_ARMS, TACTICAL)


def passes(s):
    """Everyone passes support cards until the support step is over."""
    while s.pending and s.pending[0].need is Need.SUPPORT:
        s, _ = play(s, A.PlaySupport(s.pending[0].players[0], ()))
    return s


# --- setting up (p.3) --------------------------------------------------------------------------------------


def test_setting_up_6_two_homelands_split_two_two_two_and_mayhem_adds_six_to_the_castle():
    adjacency = {**MAP, "K1": ("T01", "T05", "T07")}
    s = new_game(config((B, R), adjacency=adjacency))  # blue moves first: red's castle is untouched
    assert s.knights_at("T01") == {R: 2} and s.knights_at("T05") == {R: 2} and s.players[R].castle == 2
    s = new_game(config((B, R), adjacency=adjacency, variant=Variant(mayhem=True)))
    assert s.knights_at("T01") == {R: 2} and s.players[R].castle == 2 + 6


def test_setting_up_allegiance_seating_teammates_opposite_and_teams_of_three_alternate():
    four = tuple(PlayerConfig(c) for c in (R, B, Y, G))
    new_game(GameConfig(players=four, variant=Variant(allegiance=((R, Y), (B, G)))))  # opposite: fine
    with pytest.raises(SetupError, match="opposite"):
        new_game(GameConfig(players=four, variant=Variant(allegiance=((R, B), (Y, G)))))
    six = tuple(PlayerConfig(c) for c in (R, B, Y, G, W, K))
    new_game(GameConfig(players=six, variant=Variant(allegiance=((R, G), (B, W), (Y, K)))))
    with pytest.raises(SetupError, match="opposite"):
        new_game(GameConfig(players=six, variant=Variant(allegiance=((R, B), (Y, G), (W, K)))))
    new_game(GameConfig(players=six, variant=Variant(allegiance=((R, Y, W), (B, G, K)))))
    with pytest.raises(SetupError, match="every other seat"):
        new_game(GameConfig(players=six, variant=Variant(allegiance=((R, B, Y), (G, W, K)))))


# --- 1. place knights (p.8) --------------------------------------------------------------------------------


def test_turn_1_every_knight_is_lost_when_all_ten_dice_are_on_territories():
    ten = ("T01", "T02", "T03", "T04", "T05", "T06", "T07", "T11", "T12", "T13")  # 11 points
    s = game(occupants={t: (B, 1) for t in ten}, castles={R: 6, B: 0})
    assert s.dice_in_use(B) == 10
    s, events = play(s, A.EndTurn(R))
    assert ev.KnightsGained(B, "K2", 0, 3, "place knights") in events and s.players[B].castle == 0


def test_turn_1_knights_fill_the_castle_die_before_needing_a_new_one():
    # Castle 4 (one die) and nine dice elsewhere: two knights fit on the castle's die, the third is lost.
    nine = ("T01", "T02", "T03", "T04", "T05", "T06", "T07", "T11", "T12")
    s = game(occupants={t: (B, 1) for t in nine}, castles={R: 6, B: 4})
    s, events = play(s, A.EndTurn(R))
    assert ev.KnightsGained(B, "K2", 2, 1, "place knights") in events and s.players[B].castle == 6


# --- 2. & 7. resources (p.8) -------------------------------------------------------------------------------


def test_turn_2_call_to_arms_and_tactical_advance_not_during_a_battle():
    s = game(occupants={"T25": (B, 2)}, hands={R: (TWO, CALL_TO_ARMS, TACTICAL, PLUS1, PLUS2), B: (THREE,)})
    s, _ = play(s, A.Advance(R, "T25", 3))
    assert s.step is TurnStep.BATTLE
    for action in (A.PlayCallToArms(R), A.PlayTacticalAdvance(R), A.UseCrown(R), A.EndTurn(R)):
        assert refused(s, action).reason in (Reason.WRONG_STEP, Reason.NOT_YOUR_DECISION)


def test_turn_2_call_to_arms_knights_need_dice_too():
    nine = ("T01", "T02", "T03", "T04", "T05", "T06", "T07", "T11", "T12")
    s = game(occupants={t: (R, 1) for t in nine}, castles={R: 5, B: 6}, hands={R: (CALL_TO_ARMS,)})
    s, events = play(s, A.PlayCallToArms(R))
    assert ev.KnightsGained(R, "K1", 1, 1, "call to arms") in events and s.players[R].castle == 6


def test_fracture_not_between_redistribution_and_advance():
    s = game(occupants={"T01": (R, 3)}, hands={R: (FRACTURE,)})
    s, _ = play(s, A.Redistribute(R, (("K1", 7), ("T01", 2))))
    assert refused(s, A.PlayFracture(R, ART["insight"])).reason is Reason.WRONG_STEP
    s, _ = play(s, A.Advance(R, "T07", 2))
    assert check(s, A.PlayFracture(R, ART["insight"])).ok  # after the advance: fine again


# --- fracture windows (p.8, p.12) --------------------------------------------------------------------------


def test_fracture_crown_window_runs_clockwise_from_the_crown_owner():
    # Yellow (third seat) announces a crown: green, red and blue are asked in that order; yellow is skipped.
    s = game(
        (R, B, Y, G),
        current=Y,
        hands={R: (FRACTURE,), B: (FRACTURE,), G: (FRACTURE,), Y: (FRACTURE,)},
        discards={Y: (FIVE,)},
    )
    s, events = play(s, A.UseCrown(Y))
    assert events == [ev.CrownAnnounced(Y, ART["order"], Y)]
    head = s.pending[0]
    assert head.need is Need.FRACTURE and head.players == (G, R, B) and head.targets == (ART["order"],)
    assert refused(s, A.PassFracture(R)).reason is Reason.NOT_YOUR_DECISION  # green first
    s, _ = play(s, A.PassFracture(G), A.PassFracture(R))
    s, events = play(s, A.PlayFracture(B, ART["order"]))
    assert not of(events, ev.ArtefactApplied) and not s.pending  # negated: the crown does nothing
    assert s.players[B].discard_ids()[-1] == FRACTURE


def siege_of_fortress():
    """Yellow (K3) attacks blue's fortress (T26) in a four-player game; everyone holds a fracture card."""
    return game(
        (R, B, Y, G),
        current=Y,
        artefacts={
            Y: (ART["order"], ART["rage"], ART["resurgence"]),
            B: (ART["insight"], ART["loyalty"], ART["devotion"]),
        },
        occupants={"T26": (B, 2)},
        hands={c: (FRACTURE, TWO, PLUS1, PLUS1_B, PLUS2) for c in (R, B, Y, G)},
    )


def test_fracture_battle_window_starts_with_the_attacker_and_includes_bystanders():
    s, _ = play(siege_of_fortress(), A.Advance(Y, "T26", 3))
    head = s.pending[0]
    assert head.need is Need.FRACTURE and head.players == (Y, G, R, B)
    assert set(head.targets) == {ART["rage"], ART["loyalty"]}
    assert refused(s, A.PlayFracture(Y, ART["rage"])).reason is Reason.OWN_ARTEFACT
    s, _ = play(s, A.PassFracture(Y), A.PlayFracture(G, ART["rage"]))
    assert s.pending[0].players == (R, B) and s.pending[0].targets == (ART["loyalty"],)
    s, events = play(s, A.PassFracture(R))
    # Blue cannot fracture its own Loyalty, the only target left: the window closes and Loyalty applies.
    assert [e.artefact for e in of(events, ev.ArtefactApplied)] == [ART["loyalty"]]


def test_fracture_pass_round_closes_the_window_in_the_rulebook_order():
    s, _ = play(siege_of_fortress(), A.Advance(Y, "T26", 3))
    assert refused(s, A.PassFractureRound(G)).reason is Reason.NOT_YOUR_DECISION
    assert refused(s, A.PassFractureRound(Y, Y)).reason is Reason.NOT_ELIGIBLE
    assert A.PassFractureRound(Y) in legal_actions(s)
    _, events = play(s, A.PassFractureRound(Y))
    assert of(events, ev.FracturePassed) == [ev.FracturePassed(c) for c in (Y, G, R, B)]
    assert [e.artefact for e in of(events, ev.ArtefactApplied)] == [ART["rage"], ART["loyalty"]]
    # Up to a later player: those before them pass, then the window waits for that player.
    s, events = play(s, A.PassFractureRound(Y, R))
    assert of(events, ev.FracturePassed) == [ev.FracturePassed(Y), ev.FracturePassed(G)]
    assert s.pending[0].players[0] is R
    s, events = play(s, A.PlayFracture(R, ART["rage"]))
    assert [e.artefact for e in of(events, ev.ArtefactApplied)] == [ART["loyalty"]]
    assert A.Action.from_json(A.PassFractureRound(Y, R).to_json()) == A.PassFractureRound(Y, R)


def test_fracture_a_destroyed_sceptre_is_neither_a_target_nor_applied():
    s = game(
        artefacts={R: (ART["vitality"], ART["rage"], ART["greed"])},
        occupants={"T25": (B, 2)},
        hands={R: (FIVE,), B: (TWO, FRACTURE)},
        destroyed={ART["rage"]: 0},
    )
    s, events = play(s, A.Advance(R, "T25", 2))
    assert not s.pending or s.pending[0].need is not Need.FRACTURE
    assert not [e for e in events if isinstance(e, ev.ArtefactApplied) and e.artefact == ART["rage"]]


# --- 3. & 8. crowns (p.8) ----------------------------------------------------------------------------------


def test_turn_3_a_destroyed_crown_cannot_be_used_and_a_restored_one_waits_for_the_next_turn():
    s = game(hands={B: (FRACTURE,)}, current=B)
    s, _ = play(s, A.PlayFracture(B, ART["vitality"]), A.EndTurn(B))
    assert refused(s, A.UseCrown(R)).reason is Reason.ARTEFACT_DESTROYED
    s, events = play(s, A.EndTurn(R))  # destroyed on blue's turn, a previous turn: restored at red's end
    assert ev.ArtefactRestored(R, ART["vitality"]) in events
    assert s.current is B and refused(s, A.UseCrown(R)).reason is Reason.NOT_YOUR_TURN


def test_iconography_crown_of_corruption_may_hit_a_bystander_and_is_restored_on_their_turn():
    s = game((R, B, Y), artefacts={R: (ART["corruption"], ART["rage"], ART["greed"])})
    sceptre = s.players[Y].artefacts[1].id
    s, _ = play(s, A.UseCrown(R, Y), A.DestroyArtefact(R, sceptre))
    assert not s.players[Y].artefact(sceptre).face_up
    s, _ = play(s, A.EndTurn(R), A.EndTurn(B))
    s, events = play(s, A.EndTurn(Y))
    assert ev.ArtefactRestored(Y, sceptre) in events


# --- 4. redistribute (p.9) ---------------------------------------------------------------------------------


def _brute_force_layouts(s, colour):
    """Every layout `check` accepts, found by trying every split of the knights over the movable places."""
    castle = s.data.castle_of[colour]
    places = [castle, *sorted(s.supply[colour])]
    old = {castle: s.players[colour].castle, **{t: s.occupants[t][1] for t in places[1:]}}
    total = sum(old.values())
    accepted = set()
    for counts in itertools.product(range(total + 1), repeat=len(places)):
        if sum(counts) != total:
            continue
        layout = tuple((p, n) for p, n in zip(places, counts, strict=True) if n != old[p])
        if check(s, A.Redistribute(colour, layout)).ok:
            accepted.add(layout)
    return accepted


@pytest.mark.parametrize(
    ("occupants", "castles"),
    [
        ({"T01": (R, 3), "T07": (R, 2), "T11": (R, 1), "T25": (B, 1)}, {R: 3, B: 6}),
        # T11 has no supply (T07 is blue's): it is left out of every layout.
        ({"T01": (R, 4), "T11": (R, 2), "T07": (B, 1)}, {R: 2, B: 6}),
        # Dice-limited: 46 knights in the castle (8 dice), one die per territory.
        ({"T01": (R, 1), "T07": (R, 1)}, {R: 46, B: 6}),
    ],
)
def test_turn_4_every_legal_redistribution_is_generated(occupants, castles):
    s = game(occupants=occupants, castles=castles)
    generated = [a.layout for a in redistributions(s)]
    assert len(generated) == len(set(generated)) and generated[0] == ()
    assert set(generated) == _brute_force_layouts(s, R)
    # The single moves legal_actions lists are among them (as layouts, whatever the order of places).
    singles = {frozenset(a.layout) for a in legal_actions(s) if isinstance(a, A.Redistribute)}
    assert singles <= {frozenset(x) for x in generated}


def test_turn_4_redistributions_also_for_the_crown_of_vitality_and_none_after_the_advance():
    s = game(occupants={"T01": (R, 3)})
    s, _ = play(s, A.Advance(R, "T07", 2))
    assert list(redistributions(s)) == []  # the manoeuvre is spent
    s, _ = play(s, A.UseCrown(R))
    layouts = {a.layout for a in redistributions(s)}
    assert (("T01", 1), ("T07", 4)) in layouts and all(check(s, A.Redistribute(R, x)).ok for x in layouts)


def test_turn_4_redistribution_can_empty_the_castle_but_only_once_before_the_advance():
    s = game(occupants={"T01": (R, 2)}, castles={R: 4, B: 6})
    s, _ = play(s, A.Redistribute(R, (("K1", 0), ("T01", 6))))
    assert s.players[R].castle == 0 and s.step is TurnStep.ADVANCE
    assert refused(s, A.Redistribute(R, (("K1", 1), ("T01", 5)))).reason is Reason.WRONG_STEP
    assert refused(s, A.Advance(R, "T07", 1)).reason is Reason.NOT_ENOUGH_KNIGHTS
    s, _ = play(s, A.SkipAdvance(R))
    assert refused(s, A.Redistribute(R, ())).reason is Reason.NO_ADVANCE_LEFT


# --- line of supply (p.10) ---------------------------------------------------------------------------------


def test_line_of_supply_regained_when_the_cutting_territory_is_conquered():
    s = game(occupants={"T11": (R, 2), "T07": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    assert not s.has_supply(R, "T11")
    s, events = play(s, A.Advance(R, "T07", 4))
    s, more = finish(s)
    events += more
    assert s.has_supply(R, "T07") and s.has_supply(R, "T11")
    assert ev.SupplyChanged(R, ("T07", "T11"), ()) in events


def test_line_of_supply_an_unsupplied_territory_gives_no_advance_unless_another_supplied_one_borders():
    # T11 (red, cut off by blue's T07) borders nothing else; T12 is reachable only across the lake from T07.
    s = game(occupants={"T11": (R, 2), "T07": (B, 1), "T22": (B, 1)})
    assert refused(s, A.Advance(R, "T12", 1)).reason is Reason.NOT_ADJACENT
    # Red holding T25 (supplied, next to the castle) reaches T22 and T28, but still not T12.
    s = game(occupants={"T11": (R, 2), "T07": (B, 1), "T25": (R, 1)})
    assert check(s, A.Advance(R, "T28", 1)).ok and not check(s, A.Advance(R, "T12", 1)).ok


def test_line_of_supply_from_a_castle_on_a_lake_shore():
    # R21: a castle bordering a lake reaches (and supplies) every tile around it.
    adjacency = {"K1": ("L1", "T01"), "K2": ("T02",), "L1": ("T12", "T28")}
    s = game(adjacency=adjacency, occupants={"T28": (R, 1)})
    assert s.has_supply(R, "T28") and check(s, A.Advance(R, "T12", 1)).ok


# --- 5. make an advance (p.11) -----------------------------------------------------------------------------


def test_turn_5_battlefield_holds_eight_and_cave_four():
    adjacency = {"K1": ("T29", "T23"), "K2": ("T02",)}
    s = game(adjacency=adjacency, castles={R: 12, B: 6})
    assert refused(s, A.Advance(R, "T29", 9)).reason is Reason.OVER_CAPACITY
    assert refused(s, A.Advance(R, "T23", 5)).reason is Reason.OVER_CAPACITY
    s, _ = play(s, A.Advance(R, "T29", 8))
    assert s.knights_at("T29") == {R: 8} and s.dice_in_use(R) == 2 + 1


def test_turn_5_one_knight_into_empty_marshlands_conquers_nothing():
    s = game(castles={R: 1, B: 6}, adjacency={**MAP, "K1": ("T11",)})
    s, events = play(s, A.Advance(R, "T11", 1))
    assert ev.KnightsLost(R, "T11", 1, "marshlands") in events
    assert s.knights_at("T11") == {} and s.score(R) == 0 and s.controller("T11") is None


# --- battle (p.11) and the order of battle (p.12) ----------------------------------------------------------


def test_battle_only_the_two_rivals_play_cards():
    s = game((R, B, Y), occupants={"T25": (B, 2)}, hands={R: (TWO, PLUS1), B: (THREE,), Y: (FIVE, PLUS2)})
    s, _ = play(s, A.Advance(R, "T25", 2))
    assert s.pending[0].need is Need.CONFLICT and set(s.pending[0].players) == {R, B}
    assert refused(s, A.PlayConflict(Y, FIVE)).reason is Reason.NOT_YOUR_DECISION
    s, _ = play(s, A.PlayConflict(B, THREE))  # either rival may put theirs down first
    s, _ = play(s, A.PlayConflict(R, TWO))
    assert s.pending[0].need is Need.SUPPORT and Y not in s.pending[0].players


def test_order_of_battle_1_arena_emptied_attacker_ends_the_battle_with_no_cards():
    s = game(occupants={"T28": (B, 3), "T25": (R, 1)}, hands={R: (TWO,), B: (THREE,)})
    s, _ = play(s, A.Advance(R, "T28", 1))
    s, events = play(s, A.RollDice(R, (1,)), A.RollDice(B, (6,)))
    assert s.battle is None and s.knights_at("T28") == {B: 3}
    assert not of(events, ev.CardsDrawn) and not of(events, ev.BattleResult)
    assert not of(events, ev.ArtefactApplied)
    assert s.players[R].hand == (TWO,) and s.step is TurnStep.FOLLOW_UP


def test_order_of_battle_1_fort_gives_the_defender_one():
    adjacency = {**MAP, "K1": ("T16",), "T16": ("T07",)}
    s = game(adjacency=adjacency, occupants={"T16": (B, 3)}, hands={R: (TWO,), B: (TWO,)})
    s, events = play(s, A.Advance(R, "T16", 3))
    assert of(events, ev.CombatScore)[0] == ev.CombatScore(3, 4, "fort")


def test_order_of_battle_2_a_hand_over_five_draws_nothing_and_both_rivals_draw():
    s = game(
        occupants={"T07": (B, 1)},
        hands={R: (TWO, THREE, FOUR, PLUS1, PLUS2, CALL_TO_ARMS), B: (FIVE,)},
    )
    s, events = play(s, A.Advance(R, "T07", 3))
    drawn = of(events, ev.CardsDrawn)
    assert [(d.player, d.count) for d in drawn] == [(B, 4)]
    assert s.players[R].hand_size == 6


def test_order_of_battle_4_two_ambushes_roll_attacker_first():
    s = game(occupants={"T25": (B, 2)}, hands={R: (AMBUSH,), B: (AMBUSH_B,)})
    s, _ = play(s, A.Advance(R, "T25", 2), A.PlayConflict(R, AMBUSH), A.PlayConflict(B, AMBUSH_B))
    assert s.pending[0].need is Need.DICE and s.pending[0].actor is R
    assert refused(s, A.RollDice(B, (3,))).reason is Reason.NOT_YOUR_DECISION
    s, _ = play(s, A.RollDice(R, (2,)))
    s, events = play(s, A.RollDice(B, (1,)))
    # 2 + 2 against 2 + city 1 + 1: a 4-4 tie before support (none held): the defender wins by one.
    result = of(events, ev.BattleResult)[0]
    assert (result.attacker_score, result.defender_score, result.winner, result.margin) == (4, 4, B, 1)


def test_order_of_battle_5_lowest_after_the_ambush_die_starts_support():
    s = game(occupants={"T25": (B, 2)}, hands={R: (AMBUSH, PLUS1), B: (FIVE, PLUS2)})
    s, _ = play(s, A.Advance(R, "T25", 4), A.PlayConflict(R, AMBUSH), A.PlayConflict(B, FIVE))
    s, _ = play(s, A.RollDice(R, (6,)))
    assert s.combat_scores() == (10, 8) and s.pending[0].players[0] is B  # before the die red was lower


def test_order_of_battle_5_a_player_out_of_support_cards_is_skipped_and_the_other_plays_on():
    s = game(occupants={"T11": (B, 3), "T07": (R, 1)}, hands={R: (TWO, PLUS1, PLUS1_B), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T11", 3), A.PlayConflict(R, TWO), A.PlayConflict(B, TWO))
    assert s.pending[0].players[0] is R  # 5-5: the attacker starts (R32)
    s, _ = play(s, A.PlaySupport(R, (PLUS1,)))
    assert s.pending[0].players[0] is R  # blue holds no support card: skipped
    s, events = play(s, A.PlaySupport(R, ()))
    assert of(events, ev.BattleResult)[0].attacker_score == 6


def test_order_of_battle_5_mountains_stop_teammates_too():
    teams = Variant(allegiance=((R, Y), (B, G)))
    s = game(
        (R, B, Y, G),
        variant=teams,
        adjacency={**MAP, "K1": ("T22",)},
        occupants={"T22": (B, 2)},
        hands={R: (TWO,), B: (TWO,), Y: (PLUS2,), G: (PLUS2,)},
    )
    s, events = play(s, A.Advance(R, "T22", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, TWO))
    assert not of(events, ev.SupportPlayed) and of(events, ev.BattleResult)[0].winner is B


def test_order_of_battle_5_allegiance_support_from_both_teams_clockwise_from_the_lowest():
    teams = Variant(allegiance=((R, Y), (B, G)))
    s = game(
        (R, B, Y, G),
        variant=teams,
        occupants={"T25": (B, 2)},
        hands={R: (FIVE,), B: (TWO, PLUS1_B), Y: (PLUS1,), G: (PLUS2,)},
    )
    s, _ = play(s, A.Advance(R, "T25", 2), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert s.combat_scores() == (7, 5) and s.pending[0].players == (B, Y, G, R)  # clockwise from blue
    s, events = play(s, A.PlaySupport(B, ()), A.PlaySupport(Y, ()), A.PlaySupport(G, (PLUS2,)))
    assert ev.SupportPlayed(G, B, (PLUS2,), 2) in events and s.combat_scores() == (7, 7)
    # Red holds no support card (skipped); blue passes again; yellow answers for red.
    assert s.pending[0].players[0] is B
    s, events = play(s, A.PlaySupport(B, ()), A.PlaySupport(Y, (PLUS1,)))
    assert ev.SupportPlayed(Y, R, (PLUS1,), 1) in events and s.combat_scores() == (8, 7)


def test_order_of_battle_8_the_loser_never_loses_more_than_it_has_there():
    s = game(occupants={"T25": (B, 5)}, hands={R: (TWO,), B: (FIVE,)}, castles={R: 6, B: 2})
    s, _ = play(s, A.Advance(R, "T25", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    s = passes(s)
    assert s.battle is None and s.knights_at("T25") == {B: 5}
    assert s.players[R].castle == 4 and s.players[B].castle == 2  # red lost both; nothing from the castle


def test_order_of_battle_9_defender_holding_a_village_places_no_knight():
    adjacency = {**MAP, "K1": ("T12",)}
    s = game(
        adjacency=adjacency, occupants={"T12": (B, 4)}, hands={R: (TWO,), B: (FIVE,)}, castles={R: 6, B: 1}
    )
    s, events = play(s, A.Advance(R, "T12", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    assert not of(events, ev.Conquered) and s.players[B].castle == 1
    assert not [e for e in events if isinstance(e, ev.KnightsGained) and e.cause == "village"]


def test_order_of_battle_7_brutality_takes_the_defenders_last_knight_and_the_battle_completes():
    s = game(
        artefacts={R: (ART["vitality"], ART["loyalty"], ART["brutality"])},
        occupants={"T07": (B, 1)},
        hands={R: (FIVE,), B: (TWO,)},
    )
    s, events = play(s, A.Advance(R, "T07", 2), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    s, more = finish(s)
    events += more
    assert ev.KnightsLost(B, "T07", 1, "Orb of Brutality") in events
    assert not of(events, ev.Retreated) and s.knights_at("T07") == {R: 2} and s.battle is None  # R41


def test_order_of_battle_7_defenders_brutality_hits_the_attackers_knights():
    s = game(
        artefacts={B: (ART["insight"], ART["rage"], ART["brutality"])},
        occupants={"T25": (B, 4)},
        hands={R: (TWO,), B: (FIVE,)},
        castles={R: 6, B: 0},
    )
    s, events = play(s, A.Advance(R, "T25", 4), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    s = passes(s)
    lost = [(e.player, e.count, e.cause) for e in of(events, ev.KnightsLost)]
    assert (R, 1, "Orb of Brutality") in lost
    # 6 against 10: red loses 1 to Brutality, then 3 of the 4 left... only 3 remained, so all 3.
    assert s.players[R].castle == 2 and s.knights_at("T25") == {B: 4}


# --- aim of the game (p.13) --------------------------------------------------------------------------------

TWELVE = {"T25": (R, 1), "T28": (R, 1), "T26": (R, 1), "T22": (R, 1), "T07": (R, 1)}  # 3+3+3+2+1


def test_aim_of_the_game_marshlands_taken_with_one_knight_left_is_not_a_win():
    s = game(occupants={**TWELVE, "T11": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    assert s.score(R) == 12
    s, events = play(s, A.Advance(R, "T11", 1), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    s, more = finish(s)
    events += more
    assert s.winner is None and s.knights_at("T11") == {} and not of(events, ev.GameWon)  # R45
    s = game(occupants={**TWELVE, "T11": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    s, events = play(s, A.Advance(R, "T11", 2), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert s.winner == (R,) and s.knights_at("T11") == {R: 1}


def test_aim_of_the_game_a_battle_won_to_13_ends_the_game_before_any_further_choice():
    adjacency = {**MAP, "K1": ("T01", "T07", "T25", "T20")}
    s = game(adjacency=adjacency, occupants={**TWELVE, "T20": (B, 1)}, hands={R: (FIVE, PLUS1), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T20", 3), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    s = passes(s)
    assert s.winner == (R,) and s.pending == ()  # the ruins' discard is never asked
    assert refused(s, A.DiscardCard(R, PLUS1)).reason is Reason.GAME_OVER


# --- optional rules (p.14) ---------------------------------------------------------------------------------

SIEGE = Variant(castle_siege=True)


def test_castle_siege_castle_must_be_next_to_your_castle_or_a_supplied_territory():
    s = game(variant=SIEGE, castles={R: 12, B: 2})
    assert refused(s, A.Advance(R, "K2", 3)).reason is Reason.NOT_ADJACENT
    s = game(variant=SIEGE, castles={R: 12, B: 2}, occupants={"T11": (R, 1), "T07": (B, 1), "T25": (B, 1)})
    assert refused(s, A.Advance(R, "K2", 3)).reason is Reason.NOT_ADJACENT  # T11 has no supply to K2 anyway
    s = game(variant=SIEGE, castles={R: 12, B: 2}, occupants={"T25": (R, 1)})
    assert check(s, A.Advance(R, "K2", 6)).ok


def test_castle_siege_defender_counts_as_eight_whatever_the_castle_holds_and_loses_nothing_defending():
    hands = {R: (TWO, PLUS1, PLUS1_B, CALL_TO_ARMS, TACTICAL), B: (FIVE, THREE, FOUR, CALL_TO_ARMS, TACTICAL)}
    s = game(variant=SIEGE, occupants={"T25": (R, 1)}, castles={R: 12, B: 30}, hands=hands)
    s, events = play(s, A.Advance(R, "K2", 5), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    assert of(events, ev.BattleStarted)[0].defender_knights == 30 and s.combat_scores() == (7, 13)
    s, events = play(s, A.PlaySupport(R, (PLUS1, PLUS1_B)))  # then nobody holds a support card: over
    result = of(events, ev.BattleResult)[0]
    assert (result.attacker_score, result.defender_score, result.winner, result.margin) == (9, 13, B, 4)
    assert s.players[B].castle == 30 and s.winner is None  # the defender loses nothing by winning
    assert s.players[R].castle == 12 - 5 + 1  # 4 of the 5 lost, one retreats


def test_castle_siege_conquering_a_castle_wins_at_once_with_no_points_and_brutality_hits_the_castle():
    s = game(
        variant=SIEGE,
        artefacts={R: (ART["vitality"], ART["loyalty"], ART["brutality"])},
        occupants={"T25": (R, 1)},
        castles={R: 12, B: 1},
        hands={R: (FIVE, FOUR, PLUS2, CALL_TO_ARMS, TACTICAL), B: (TWO, PLUS1, PLUS1_B, PLUS2, TACTICAL)},
    )
    assert s.score(R) == 3
    s, _ = play(s, A.Advance(R, "K2", 6), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert s.combat_scores() == (11, 10)
    s, events = play(s, A.PlaySupport(B, ()), A.PlaySupport(R, ()))
    assert ev.KnightsLost(B, "K2", 1, "Orb of Brutality") in events
    assert s.winner == (R,) and of(events, ev.GameWon)[0].winners == (R,)
    assert s.players[B].castle == 0


def test_castle_siege_cannot_advance_seven_or_into_a_castle_out_of_reach():
    s = game((R, B, Y), variant=SIEGE, occupants={"T25": (R, 1)}, castles={R: 14, B: 2, Y: 3})
    assert refused(s, A.Advance(R, "K2", 7)).reason is Reason.SIEGE_LIMIT
    assert refused(s, A.Advance(R, "K3", 1)).reason is Reason.NOT_ADJACENT


def test_castle_siege_mayhem_defender_winning_rolls_for_every_knight_in_the_castle():
    s = game(
        variant=Variant(castle_siege=True, mayhem=True),
        occupants={"T25": (R, 1)},
        castles={R: 12, B: 3},
        hands={
            R: (TWO, PLUS1, PLUS1_B, CALL_TO_ARMS, TACTICAL),
            B: (FIVE, THREE, FOUR, CALL_TO_ARMS, TACTICAL),
        },
    )
    s, _ = play(s, A.Advance(R, "K2", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    s = passes(s)
    head = s.pending[0]
    assert head.need is Need.DICE and head.purpose.value == "mayhem" and head.actor is B and head.n == 3
    s, _ = play(s, A.RollDice(B, (1, 1, 1)))  # every castle knight lost: red wins the castle instead
    s, _ = finish(s)
    assert s.winner == (R,)


def test_cut_throat_brutality_emptying_the_link_removes_the_territories_behind_it_at_once():
    adjacency = {"K1": ("T07",), "K2": ("T25", "T02"), "T25": ("T07",), "T07": ("T11",)}
    s = game(
        variant=Variant(cut_throat=True),
        adjacency=adjacency,
        current=B,
        artefacts={B: (ART["insight"], ART["rage"], ART["brutality"])},
        occupants={"T07": (R, 1), "T11": (R, 4), "T25": (B, 1)},
        castles={R: 0, B: 6},
        hands={B: (FIVE,), R: (TWO,)},
    )
    s, events = play(s, A.Advance(B, "T07", 3), A.PlayConflict(B, FIVE), A.PlayConflict(R, TWO))
    s, more = finish(s)
    events += more
    kinds = [type(e).__name__ for e in events]
    brutal = events.index(ev.KnightsLost(R, "T07", 1, "Orb of Brutality"))
    removed = events.index(ev.KnightsLost(R, "T11", 4, "cut-throat"))
    assert brutal < removed < kinds.index("BattleEnded")  # removed as soon as the link is gone (R31)
    assert s.knights_at("T07") == {B: 3} and s.knights_at("T11") == {} and s.players[R].castle == 0


def test_cut_throat_a_successful_defence_removes_nothing():
    adjacency = {"K1": ("T07",), "K2": ("T25", "T02"), "T25": ("T07",), "T07": ("T11",)}
    s = game(
        variant=Variant(cut_throat=True),
        adjacency=adjacency,
        current=B,
        occupants={"T07": (R, 2), "T11": (R, 4), "T25": (B, 1)},
        castles={R: 0, B: 6},
        hands={B: (TWO,), R: (FIVE,)},
    )
    s, events = play(s, A.Advance(B, "T07", 1), A.PlayConflict(B, TWO), A.PlayConflict(R, FIVE))
    s, more = finish(s)
    assert not [e for e in events + more if isinstance(e, ev.KnightsLost) and e.cause == "cut-throat"]
    assert s.knights_at("T11") == {R: 4}


def test_skirmish_reaching_11_in_a_battle_wins_and_homelands_add_nothing():
    occ = {"T25": (R, 1), "T28": (R, 1), "T22": (R, 1), "T07": (R, 1), "T12": (R, 1), "T01": (R, 2)}
    s = game(variant=Variant(skirmish=True), occupants={**occ, "T11": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    assert s.score(R) == 10 and s.winner is None
    s, _ = play(s, A.Advance(R, "T11", 3), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert s.winner == (R,) and s.score(R) == 11


def test_mayhem_three_or_more_dice_accept_every_result():
    s = game(variant=Variant(mayhem=True), occupants={"T07": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T07", 3), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    s = passes(s)
    assert s.pending[0].n == 3
    assert all(check(s, A.RollDice(R, v)).ok for v in itertools.product(range(1, 7), repeat=3))
    assert refused(s, A.RollDice(R, (1, 2))).reason is Reason.BAD_DICE
    assert refused(s, A.RollDice(R, (1, 2, 0))).reason is Reason.BAD_DICE
    listed = [a for a in legal_actions(s) if isinstance(a, A.RollDice)]
    assert len(listed) == 6**3 and len(set(listed)) == 6**3  # every result, mixed ones too (R44)


def test_mayhem_defender_losing_every_knight_hands_the_attacker_the_city_without_losses():
    s = game(
        variant=Variant(mayhem=True),
        occupants={"T25": (B, 1)},
        hands={R: (TWO,), B: (FIVE,)},
        castles={R: 6, B: 0},
    )
    s, _ = play(s, A.Advance(R, "T25", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    s = passes(s)
    assert s.pending[0].actor is B and s.pending[0].n == 1
    s, events = play(s, A.RollDice(B, (1,)))
    s, more = finish(s)
    events += more
    assert [(r.winner, r.cause) for r in of(events, ev.BattleResult)] == [(R, "mayhem")]
    assert s.knights_at("T25") == {R: 2}  # no losses for the new winner (R38)
    assert ev.Conquered(R, "T25") in events and s.players[R].castle == 6 - 2 + 1  # the city's knight
    assert s.players[B].castle == 1  # blue's Orb of Devotion, for the new result


# --- TABLE games: the "no conflict card" declaration (R46) -------------------------------------------------

PUBLIC = (AUTHORITY, FRACTURE)  # discarded, so nobody is asked about them


def table(**kw):
    kw.setdefault("hand_sizes", {R: 5, B: 5})
    return game(knowledge=Knowledge.TABLE, **kw)


def test_table_no_conflict_card_is_refused_when_the_hand_must_hold_one():
    # Seven of red's ten other cards are face up: at most 3 of red's 5 cards can be other than conflict cards.
    discards = {R: ("C09", "C10", "C11", "C12", "C13", "C14", AUTHORITY), B: PUBLIC}
    s = table(occupants={"T25": (B, 2)}, discards=discards)
    s, _ = play(s, A.Advance(R, "T25", 3))
    s, _ = pass_fracture_windows(s)  # R25: both sceptres are at stake
    v = refused(s, A.PlayConflict(R, None))
    assert v.reason is Reason.MUST_PLAY_CONFLICT and v.citation == "R46"
    assert A.PlayConflict(R, None) not in legal_actions(s) and A.PlayConflict(B, None) in legal_actions(s)


def test_table_no_conflict_card_is_forced_when_every_conflict_card_is_face_up():
    s = table(occupants={"T25": (B, 2)}, discards={R: (*(f"C0{i}" for i in range(1, 9)), *PUBLIC), B: PUBLIC})
    s, events = play(s, A.Advance(R, "T25", 3))
    assert s.pending[0].players == (B,) and ev.ConflictPlayed(R) in events


def test_table_no_conflict_card_declared_is_remembered_until_new_cards_are_drawn():
    s = table(
        artefacts={R: (ART["fury"], ART["loyalty"], ART["greed"])},
        occupants={"T25": (B, 2), "T07": (B, 1)},
        discards={R: PUBLIC, B: PUBLIC},
    )
    s, _ = play(s, A.Advance(R, "T25", 3), A.PlayConflict(R, None), A.PlayConflict(B, TWO))
    assert s.players[R].conflict_bound == 0
    s = passes(s)
    assert s.battle is None
    s, _ = play(s, A.UseCrown(R))
    v = refused(s, A.DiscardCard(R, FIVE))
    assert v.reason is Reason.CARD_CANNOT_BE_HELD and v.citation == "R46"
    assert A.DiscardCard(R, FIVE) not in legal_actions(s)
    s, _ = play(s, A.DiscardCard(R, PLUS1), A.PlayTacticalAdvance(R))
    assert s.players[R].hand_size == 3 and s.players[R].conflict_bound == 0
    s, _ = play(s, A.Advance(R, "T07", 1))  # the battle's draw brings two new cards
    assert s.players[R].hand_size == 5 and s.players[R].conflict_bound == 2
    s, _ = play(s, A.PlayConflict(R, FIVE))
    assert s.players[R].conflict_bound == 1


def test_castle_siege_a_castle_nobody_plays_from_is_no_target():
    # The hand-made map has six castles; in a two-player game K3 belongs to nobody (a crash before the audit).
    s = game(variant=SIEGE, occupants={"T25": (R, 1), "T28": (R, 1), "T26": (R, 1)})
    assert all(a.target != "K3" for a in legal_actions(s) if isinstance(a, A.Advance))
    assert refused(s, A.Advance(R, "K3", 1)).reason is Reason.CASTLE_NOT_ALLOWED


def test_aim_of_the_game_an_arena_emptied_at_step_1_can_win_the_game_mid_battle():
    ten = {"T25": (R, 1), "T26": (R, 1), "T22": (R, 1), "T07": (R, 1), "T01": (R, 1)}  # 3+3+2+1+1
    s = game(occupants={**ten, "T28": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    assert s.score(R) == 10
    s, events = play(s, A.Advance(R, "T28", 2), A.RollDice(R, (5,)), A.RollDice(B, (2,)))
    assert s.winner == (R,) and s.knights_at("T28") == {R: 2} and not of(events, ev.CardsDrawn)


def test_order_of_battle_3_fear_against_vigour_each_side_takes_the_others_knights():
    s = game(
        artefacts={
            R: (ART["vitality"], ART["fear"], ART["greed"]),
            B: (ART["insight"], ART["vigour"], ART["devotion"]),
        },
        occupants={"T25": (B, 5)},
        hands={R: (TWO,), B: (TWO,)},
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    assert s.pending[0].need is Need.EQUALISE and s.pending[0].actor is R  # the attacker's first (R35)
    s, _ = play(s, A.Equalise(R, True), A.Equalise(B, True))
    assert s.combat_scores() == (5, 2 + 1)  # R36: 5 for red, 2 (+ city) for blue; the dice stay
    assert s.knights_at("T25") == {R: 2, B: 5}


def test_fracture_pass_round_cannot_wait_for_a_player_who_cannot_fracture():
    s = game(
        (R, B, Y, G),
        current=Y,
        artefacts={
            Y: (ART["order"], ART["rage"], ART["resurgence"]),
            B: (ART["insight"], ART["loyalty"], ART["devotion"]),
        },
        occupants={"T26": (B, 2)},
        hands={Y: (FRACTURE, TWO), G: (TWO,), R: (FRACTURE, TWO), B: (FRACTURE, TWO)},
    )
    s, _ = play(s, A.Advance(Y, "T26", 3))
    assert s.pending[0].players[0] is Y
    assert refused(s, A.PassFractureRound(Y, G)).reason is Reason.NOT_ELIGIBLE  # green holds no fracture
    assert A.PassFractureRound(Y, G) not in legal_actions(s) and A.PassFractureRound(Y, R) in legal_actions(s)

"""Setting up (p.3) and taking a turn (pp.8-13): place knights, resources, crowns, redistribution, line of
supply, the advance, restoring artefacts, the aim of the game; plus the referee's handling of bad input."""

from __future__ import annotations

import pytest

from engine import actions as A
from engine import events as ev
from engine.catalogue import CardKind
from engine.errors import IllegalActionError, SetupError
from engine.rules import apply, check, legal_actions
from engine.setup import GameConfig, PlayerConfig, Variant, new_game
from engine.state import Knowledge, Need, TurnStep
from engine.verdict import Reason
from tests.engine.helpers import (
    ART,
    AUTHORITY,
    CALL_TO_ARMS,
    FIVE,
    FRACTURE,
    PLUS1,
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
    play,
    refused,
)

# --- setting up --------------------------------------------------------------------------------------------


def test_setting_up_3_one_artefact_of_each_type_per_player():
    s = new_game(GameConfig(players=(PlayerConfig(R), PlayerConfig(B), PlayerConfig(Y)), seed=3))
    dealt = [a.id for p in s.players.values() for a in p.artefacts]
    assert len(set(dealt)) == 9
    for p in s.players.values():
        types = sorted(s.data.artefacts[a.id].type.value for a in p.artefacts)
        assert types == ["crown", "orb", "sceptre"] and all(a.face_up for a in p.artefacts)


def test_setting_up_6_starting_knights_split_between_castle_and_homelands():
    # K1 borders one homelands (T01): 3 + 3; K3 one (T03); a castle with two homelands: 2 + 2 + 2.
    cfg = config((R, B))
    s = new_game(cfg)
    assert s.knights_at("T01") == {R: 3} and s.knights_at("T02") == {B: 3}
    two = {**cfg.adjacency, "K1": ("T01", "T05", "T07", "T25")}  # type: ignore[dict-item]
    s2 = new_game(config((R, B), adjacency=two))
    assert s2.knights_at("T01") == {R: 2} and s2.knights_at("T05") == {R: 2}
    assert s2.players[R].castle == 2 + 3 or s2.current is not R


def test_setting_up_6_no_homelands_means_six_in_the_castle():
    s = new_game(config((R, B), adjacency={"K1": ("T07",), "K2": ("T07",)}))
    first_extra = 3 if s.current is R else 0
    assert s.players[R].castle == 6 + first_extra


def test_setting_up_7_five_cards_and_authority_draws_two_more():
    for seed in range(40):
        s = new_game(GameConfig(players=(PlayerConfig(R), PlayerConfig(B)), seed=seed))
        for p in s.players.values():
            if AUTHORITY in p.discard_ids():
                assert p.hand_size == 6 and AUTHORITY not in p.hand
            else:
                assert p.hand_size == 5
            assert p.hand_size + p.deck_size + len(p.discard) == 18


def test_setting_up_8_first_player_is_explicit_or_from_the_seed():
    cfg = GameConfig(players=(PlayerConfig(R), PlayerConfig(B), PlayerConfig(Y)), seed=11, first_player=Y)
    assert new_game(cfg).current is Y
    firsts = {
        new_game(GameConfig(players=(PlayerConfig(R), PlayerConfig(B)), seed=n)).current for n in range(20)
    }
    assert firsts == {R, B}


def test_setting_up_rejects_bad_configs_with_every_problem():
    with pytest.raises(SetupError) as err:
        new_game(GameConfig(players=(PlayerConfig(R),), first_player=B))
    assert len(err.value.problems) == 2
    with pytest.raises(SetupError):
        new_game(GameConfig(players=(PlayerConfig(R), PlayerConfig(R))))
    with pytest.raises(SetupError, match="one crown"):
        new_game(config((R, B), artefacts={R: ("A01", "A02", "A13")}))


# --- 1. place knights --------------------------------------------------------------------------------------


def test_turn_1_place_three_knights_at_the_start_of_each_turn():
    s = game(castles={R: 2, B: 4})
    s, events = play(s, A.EndTurn(R))
    assert ev.KnightsGained(B, "K2", 3, 0, "place knights") in events and s.players[B].castle == 7


def test_turn_1_knights_needing_a_die_from_an_empty_reserve_are_lost():
    # Blue has 9 dice in use (nine territories with one knight each... here: castle 54 knights = 9 dice +
    # T02).
    s = game(castles={R: 1, B: 52}, occupants={"T02": (B, 1)})
    assert s.dice_in_use(B) == 10
    s, events = play(s, A.EndTurn(R))
    gained = of(events, ev.KnightsGained)[0]
    assert (gained.count, gained.lost) == (2, 1)  # 52 -> 54 fills the ninth die; the 55th would need a 11th
    assert s.dice_in_use(B) == 10


# --- 2. & 7. resources -------------------------------------------------------------------------------------


def test_turn_2_call_to_arms_places_two_knights():
    s = game(hands={R: (CALL_TO_ARMS,)})
    s, events = play(s, A.PlayCallToArms(R))
    assert s.players[R].castle == 8 and ev.CardPlayed(R, CALL_TO_ARMS, "call_to_arms") in events
    assert refused(s, A.PlayCallToArms(R)).reason is Reason.CARD_NOT_IN_HAND


def test_turn_2_call_to_arms_only_during_your_turn():
    s = game(hands={B: (CALL_TO_ARMS,)})
    assert refused(s, A.PlayCallToArms(B)).reason is Reason.NOT_YOUR_TURN


def test_turn_2_tactical_advance_gives_a_second_redistribution_and_advance():
    s = game(hands={R: (TACTICAL,)})
    s, _ = play(s, A.Advance(R, "T07", 2))
    assert s.step is TurnStep.FOLLOW_UP
    assert refused(s, A.Advance(R, "T01", 1)).reason is Reason.NO_ADVANCE_LEFT
    s, _ = play(
        s, A.PlayTacticalAdvance(R), A.Redistribute(R, (("K1", 3), ("T07", 3))), A.Advance(R, "T01", 2)
    )
    assert s.knights_at("T01") == {R: 2} and s.step is TurnStep.FOLLOW_UP


def test_turn_2_cards_and_crowns_not_between_redistribution_and_advance():
    s = game(hands={R: (CALL_TO_ARMS,)}, occupants={"T01": (R, 3)})
    s, _ = play(s, A.Redistribute(R, (("K1", 8), ("T01", 1))))
    assert s.step is TurnStep.ADVANCE
    assert refused(s, A.PlayCallToArms(R)).reason is Reason.WRONG_STEP
    assert refused(s, A.UseCrown(R)).reason is Reason.WRONG_STEP
    s, _ = play(s, A.SkipAdvance(R))
    assert s.step is TurnStep.FOLLOW_UP and check(s, A.PlayCallToArms(R)).ok


def test_fracture_on_your_turn_destroys_another_players_artefact():
    s = game(hands={R: (FRACTURE,)})
    assert refused(s, A.PlayFracture(R, ART["vitality"])).reason is Reason.OWN_ARTEFACT
    assert refused(s, A.PlayFracture(R, "A99")).reason is Reason.UNKNOWN_ARTEFACT
    s, events = play(s, A.PlayFracture(R, ART["insight"]))
    assert ev.ArtefactDestroyed(B, ART["insight"], R, "fracture") in events
    assert not s.players[B].artefact(ART["insight"]).face_up


def test_fracture_on_a_crown_from_its_owner_clockwise_negates_it():
    s = game((R, B, Y), hands={B: (FRACTURE,), Y: (FRACTURE,)}, occupants={"T01": (R, 3)})
    s, _ = play(s, A.UseCrown(R))
    head = s.pending[0]
    assert head.need is Need.FRACTURE and head.players == (B, Y) and head.targets == (ART["vitality"],)
    s, _ = play(s, A.PassFracture(B))
    assert refused(s, A.PassFracture(B)).reason is Reason.NOT_YOUR_DECISION
    s, events = play(s, A.PlayFracture(Y, ART["vitality"]))
    assert not s.pending and not of(events, ev.ArtefactApplied)  # negated: no extra redistribution
    assert refused(s, A.UseCrown(R)).reason is Reason.CROWN_ALREADY_USED


# --- 3. & 8. crowns ----------------------------------------------------------------------------------------


def test_turn_3_crown_once_per_turn_and_not_during_a_battle():
    s = game(occupants={"T01": (R, 3), "T25": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    s, _ = play(s, A.UseCrown(R), A.Redistribute(R, ()))
    assert refused(s, A.UseCrown(R)).reason is Reason.CROWN_ALREADY_USED
    s2 = game(occupants={"T25": (B, 1)}, hands={R: (FIVE,), B: (TWO, PLUS1)})
    s2, _ = play(s2, A.Advance(R, "T25", 5))
    assert s2.step is TurnStep.BATTLE and refused(s2, A.UseCrown(R)).reason in (
        Reason.WRONG_STEP,
        Reason.NOT_YOUR_DECISION,
    )


def test_iconography_crown_of_vitality_redistributes_once_more_without_an_advance():
    s = game(occupants={"T01": (R, 3)})
    s, _ = play(s, A.Advance(R, "T07", 2), A.UseCrown(R))
    assert s.pending[0].need is Need.REDISTRIBUTE
    assert refused(s, A.Redistribute(R, (("T01", 7),))).reason is Reason.OVER_CAPACITY
    s, _ = play(s, A.Redistribute(R, (("T01", 1), ("T07", 4))))
    assert s.knights_at("T07") == {R: 4} and s.step is TurnStep.FOLLOW_UP
    assert refused(s, A.Advance(R, "T25", 1)).reason is Reason.NO_ADVANCE_LEFT


def test_iconography_crown_of_insight_puts_the_top_four_back_in_any_order():
    s = game((B, R))
    top = s.players[B].deck[:4]
    s, events = play(s, A.UseCrown(B))
    assert of(events, ev.TopCardsLooked)[0].cards == top
    assert refused(s, A.ArrangeTop(B, top[:3])).reason is Reason.BAD_ORDER
    s, _ = play(s, A.ArrangeTop(B, tuple(reversed(top))))
    assert s.players[B].deck[:4] == tuple(reversed(top))


def test_iconography_crown_of_order_shuffles_back_a_card_from_a_previous_turn():
    s = game((Y, B), discards={Y: (FIVE,)}, hands={Y: (TWO, CALL_TO_ARMS)})
    s, _ = play(s, A.PlayCallToArms(Y), A.UseCrown(Y))
    assert s.pending[0].eligible == (FIVE,)  # call to arms was discarded this turn (R29)
    assert refused(s, A.ReturnCard(Y, CALL_TO_ARMS)).reason is Reason.NOT_ELIGIBLE
    s, _ = play(s, A.ReturnCard(Y, FIVE))
    assert FIVE in s.players[Y].deck and FIVE not in s.players[Y].discard_ids()


def test_iconography_crown_of_fury_may_discard_a_card():
    s = game((G, B), hands={G: (TWO, FIVE)})
    s, events = play(s, A.UseCrown(G), A.DiscardCard(G, TWO))
    assert ev.CardDiscarded(G, TWO, "fury") in events and s.players[G].hand == (FIVE,)


def test_iconography_crown_of_corruption_destroys_an_artefact_of_any_player():
    s = game(artefacts={R: (ART["corruption"], ART["rage"], ART["greed"])})
    assert refused(s, A.UseCrown(R)).reason is Reason.NOT_APPLICABLE  # name the affected player
    s, _ = play(s, A.UseCrown(R, B))
    assert set(s.pending[0].artefacts) == {a.id for a in s.players[B].artefacts}
    s, _ = play(s, A.DestroyArtefact(R, s.players[B].artefacts[1].id))
    assert not s.players[B].artefacts[1].face_up


def test_iconography_crown_of_prosperity_leaves_or_discards_the_top_card():
    s = game(artefacts={R: (ART["prosperity"], ART["rage"], ART["greed"])})
    top = s.players[B].deck[0]
    s, events = play(s, A.UseCrown(R, B), A.ProsperityChoice(R, True))
    assert ev.CardDiscarded(B, top, "crown of prosperity") in events and s.players[B].deck[0] != top


# --- 4. redistribute ---------------------------------------------------------------------------------------


def test_turn_4_redistribute_keeps_the_total_and_one_to_capacity():
    s = game(occupants={"T01": (R, 3), "T07": (R, 2)}, castles={R: 6, B: 6})
    assert refused(s, A.Redistribute(R, (("K1", 7),))).reason is Reason.TOTAL_CHANGED
    assert refused(s, A.Redistribute(R, (("K1", 9), ("T01", 0)))).reason is Reason.TERRITORY_EMPTIED
    assert refused(s, A.Redistribute(R, (("K1", 5), ("T01", 7), ("T07", 0)))).reason in (
        Reason.OVER_CAPACITY,
        Reason.TERRITORY_EMPTIED,
    )
    assert refused(s, A.Redistribute(R, (("K1", -1), ("T01", 10)))).reason is Reason.BAD_COUNT
    assert refused(s, A.Redistribute(R, (("T25", 1), ("K1", 5)))).reason is Reason.NOT_CONTROLLED
    assert refused(s, A.Redistribute(R, (("T99", 1),))).reason is Reason.UNKNOWN_LOCATION
    s, _events = play(s, A.Redistribute(R, (("K1", 8), ("T01", 1))))
    assert s.players[R].castle == 8 and s.knights_at("T01") == {R: 1}
    assert refused(s, A.Redistribute(R, ())).reason is Reason.WRONG_STEP  # once per manoeuvre


def test_line_of_supply_territories_without_it_cannot_be_redistributed():
    # T11 (marsh) is red's but only reachable through T07, which blue holds.
    s = game(occupants={"T11": (R, 3), "T07": (B, 2)})
    assert not s.has_supply(R, "T11")
    assert refused(s, A.Redistribute(R, (("K1", 7), ("T11", 2)))).reason is Reason.NO_SUPPLY


def test_line_of_supply_runs_through_lakes():
    s = game(occupants={"T07": (R, 1), "T28": (R, 1), "T25": (B, 1)})
    assert s.has_supply(R, "T28")  # K1 - T07 - L1 - T28


def test_line_of_supply_recomputed_when_a_link_is_lost():
    s = game(
        occupants={"T07": (R, 1), "T11": (R, 1)},
        castles={R: 0, B: 6},
        adjacency={"K1": ("T07",), "K2": ("T07", "T02"), "T07": ("T11",)},
        current=B,
        hands={B: (FIVE,)},
    )
    assert s.has_supply(R, "T11")
    s, events = play(s, A.Advance(B, "T07", 6))
    s, more = finish(s)
    events += more
    assert s.knights_at("T07") == {B: 6}
    assert not s.has_supply(R, "T11") and ev.SupplyChanged(R, (), ("T07", "T11")) in events


# --- 5. make an advance ------------------------------------------------------------------------------------


def test_turn_5_advance_from_the_castle_into_adjacent_territory_up_to_capacity():
    s = game(castles={R: 12, B: 6})
    assert refused(s, A.Advance(R, "T07", 7)).reason is Reason.OVER_CAPACITY
    assert refused(s, A.Advance(R, "T26", 1)).reason is Reason.NOT_ADJACENT
    assert refused(s, A.Advance(R, "T07", 0)).reason is Reason.BAD_COUNT
    assert refused(s, A.Advance(R, "T07", -2)).reason is Reason.BAD_COUNT
    assert refused(s, A.Advance(R, "T77", 1)).reason is Reason.UNKNOWN_LOCATION
    assert refused(s, A.Advance(R, "K2", 1)).reason is Reason.CASTLE_NOT_ALLOWED
    s, events = play(s, A.Advance(R, "T07", 6))
    assert of(events, ev.Conquered) == [ev.Conquered(R, "T07")] and s.players[R].castle == 6


def test_turn_5_advance_across_a_lake_from_a_supplied_territory():
    s = game(occupants={"T07": (R, 1)})
    assert check(s, A.Advance(R, "T12", 2)).ok  # T07 borders L1, which borders T12
    s2 = game(occupants={"T11": (R, 1), "T07": (B, 1)})
    assert refused(s2, A.Advance(R, "T12", 2)).reason is Reason.NOT_ADJACENT  # T11 has no supply


def test_turn_5_cannot_advance_into_your_own_territory_or_beyond_your_castle():
    s = game(occupants={"T07": (R, 1)}, castles={R: 2, B: 6})
    assert refused(s, A.Advance(R, "T07", 1)).reason is Reason.ALREADY_CONTROLLED
    assert refused(s, A.Advance(R, "T25", 3)).reason is Reason.NOT_ENOUGH_KNIGHTS


def test_turn_5_village_conquest_places_a_knight_in_the_castle():
    s = game(occupants={"T07": (R, 1)})
    s, events = play(s, A.Advance(R, "T12", 2))
    assert ev.KnightsGained(R, "K1", 1, 0, "village") in events and s.players[R].castle == 5


def test_turn_5_advance_needing_an_eleventh_die_is_refused():
    occ = {t: (R, 1) for t in ("T01", "T07", "T11", "T12", "T28", "T22", "T13")}
    s = game(occupants=occ, castles={R: 18, B: 6})
    assert s.dice_in_use(R) == 10 and s.score(R) == 11
    assert refused(s, A.Advance(R, "T24", 1)).reason is Reason.DICE_EXHAUSTED  # via T28


# --- 9. restore artefacts / ending the turn ----------------------------------------------------------------


def test_turn_9_restore_artefacts_destroyed_on_a_previous_turn_only():
    s = game(hands={R: (FRACTURE,)}, destroyed={ART["vitality"]: 0}, turn=1)
    s, _ = play(s, A.PlayFracture(R, ART["insight"]), A.EndTurn(R))
    assert s.players[R].artefact(ART["vitality"]).face_up  # destroyed before this turn: restored
    s, events = play(s, A.EndTurn(B))
    assert ev.ArtefactRestored(B, ART["insight"]) in events  # blue's next turn end


def test_turn_9_destroyed_during_the_owners_turn_waits_a_full_turn():
    s = game(current=B, hands={B: (FRACTURE,)}, artefacts={R: (ART["corruption"], ART["rage"], ART["greed"])})
    s, _ = play(
        s, A.EndTurn(B), A.UseCrown(R, R), A.PassFracture(B), A.DestroyArtefact(R, ART["rage"]), A.EndTurn(R)
    )
    assert not s.players[R].artefact(ART["rage"]).face_up  # destroyed during red's own turn
    s, _ = play(s, A.EndTurn(B), A.EndTurn(R))
    assert s.players[R].artefact(ART["rage"]).face_up


def test_turn_order_passes_clockwise():
    s = game((R, B, Y))
    s, _ = play(s, A.EndTurn(R))
    assert s.current is B
    s, _ = play(s, A.EndTurn(B))
    assert s.current is Y
    s, _ = play(s, A.EndTurn(Y))
    assert s.current is R and s.turn == 4


# --- aim of the game ---------------------------------------------------------------------------------------


def test_aim_of_the_game_13_points_wins_at_once_even_without_supply():
    occ = {"T25": (R, 1), "T28": (R, 1), "T26": (R, 1), "T24": (R, 2), "T11": (R, 1), "T07": (B, 1)}
    s = game(occupants=occ, castles={R: 6, B: 6})
    assert s.score(R) == 3 + 3 + 3 + 2 + 1 and not s.has_supply(R, "T11")
    s, events = play(s, A.Advance(R, "T01", 1))
    assert s.winner == (R,) and of(events, ev.GameWon)
    assert refused(s, A.EndTurn(R)).reason is Reason.GAME_OVER
    assert legal_actions(s) == []


# --- the referee -------------------------------------------------------------------------------------------


def test_referee_check_order_game_over_then_turn_then_step():
    s = game()
    assert refused(s, A.Advance(B, "T25", 1)).reason is Reason.NOT_YOUR_TURN
    assert refused(s, A.PlaySupport(R, ())).reason is Reason.WRONG_STEP
    assert refused(s, A.SkipAdvance(R)).reason is Reason.WRONG_STEP
    assert refused(s, A.EndTurn(G)).reason is Reason.UNKNOWN_PLAYER


def test_referee_refused_action_changes_nothing():
    s = game(occupants={"T01": (R, 3)})
    before = s.to_json()
    with pytest.raises(IllegalActionError) as err:
        apply(s, A.Redistribute(R, (("K1", 100),)))
    assert err.value.verdict.reason is Reason.TOTAL_CHANGED
    assert s.to_json() == before


def test_referee_every_listed_legal_action_is_accepted():
    s = game(hands={R: (CALL_TO_ARMS, TACTICAL, FRACTURE, TWO, PLUS1)}, occupants={"T01": (R, 3)})
    acts = legal_actions(s)
    assert acts and all(check(s, a).ok for a in acts)
    kinds = {type(a) for a in acts}
    assert {
        A.PlayCallToArms,
        A.PlayTacticalAdvance,
        A.PlayFracture,
        A.UseCrown,
        A.Redistribute,
        A.Advance,
        A.EndTurn,
    } <= kinds


def test_referee_actions_round_trip_through_json_and_reject_malformed_input():
    from engine.errors import ActionFormatError

    a = A.Redistribute(R, (("K1", 3), ("T01", 2)))
    assert A.Action.from_json(a.to_json()) == a
    for bad in (
        {"type": "advance", "player": "red", "target": "T01"},
        {"type": "advance", "player": "purple", "target": "T01", "knights": 1},
        {"type": "advance", "player": "red", "target": "T01", "knights": "2"},
        {"type": "fly", "player": "red"},
        ["advance"],
    ):
        with pytest.raises(ActionFormatError):
            A.Action.from_json(bad)


def test_resources_are_cards_of_the_right_kind():
    s = game()
    kinds = {s.data.cards[c].kind for c in (CALL_TO_ARMS, TACTICAL, FRACTURE, AUTHORITY)}
    assert kinds == {CardKind.CALL_TO_ARMS, CardKind.TACTICAL_ADVANCE, CardKind.FRACTURE, CardKind.AUTHORITY}


def test_table_knowledge_config_is_accepted_by_new_game():
    s = new_game(
        GameConfig(
            players=(PlayerConfig(R), PlayerConfig(B)),
            knowledge=Knowledge.TABLE,
            seed=2,
            opening_authority=(B,),
        )
    )
    assert s.players[B].hand_size == 6 and s.players[B].discard_ids() == (AUTHORITY,)
    assert s.players[R].hand == () and s.players[R].hand_size == 5


def test_variant_defaults():
    assert Variant(skirmish=True).target == 11 and Variant.team_target(3) == 30


def test_turn_3_crown_between_two_manoeuvres_after_a_tactical_advance():
    # R42: after the first advance (and its battle) and before the second manoeuvre, the crown may be used.
    s = game(hands={R: (TACTICAL,)}, occupants={"T01": (R, 3)})
    s, _ = play(s, A.PlayTacticalAdvance(R), A.Advance(R, "T07", 2))
    assert s.step is TurnStep.PREPARE and s.manoeuvres == 1
    s, _ = play(s, A.UseCrown(R), A.Redistribute(R, (("T01", 2), ("T07", 3))))
    assert s.manoeuvres == 1  # the Vitality redistribution is not a manoeuvre
    s, _ = play(s, A.Redistribute(R, (("K1", 5), ("T07", 2))), A.Advance(R, "T25", 3))
    assert s.manoeuvres == 0


def test_turn_4_redistribution_that_needs_an_eleventh_die_is_refused():
    s = game(occupants={"T01": (R, 1), "T07": (R, 3)}, castles={R: 48, B: 6})
    assert s.dice_in_use(R) == 10  # 48 knights on 8 dice in the castle, one die on each territory
    v = refused(s, A.Redistribute(R, (("K1", 49), ("T07", 2))))
    assert v.reason is Reason.DICE_EXHAUSTED and v.citation == "R22"


def test_iconography_crown_of_insight_shuffles_the_discard_under_a_short_deck():
    s = game(
        (B, R),
        hands={B: (TWO,)},
        decks={B: (THREE, FIVE)},
        discards={B: tuple(f"C{i:02d}" for i in range(3, 19) if f"C{i:02d}" not in (FIVE,))},
    )
    s, events = play(s, A.UseCrown(B))
    looked = of(events, ev.TopCardsLooked)[0]
    assert looked.cards[:2] == (THREE, FIVE) and looked.count == 4
    assert s.players[B].deck_size == 17 and not s.players[B].discard


def test_iconography_crown_of_corruption_with_nothing_face_up_does_nothing():
    blue = [
        a.id for a in game(artefacts={R: (ART["corruption"], ART["rage"], ART["greed"])}).players[B].artefacts
    ]
    s = game(
        artefacts={R: (ART["corruption"], ART["rage"], ART["greed"])}, destroyed={a: 0 for a in blue}, turn=1
    )
    s, events = play(s, A.UseCrown(R, B))
    assert not s.pending and of(events, ev.ArtefactApplied)


def test_iconography_crown_of_prosperity_in_a_table_game_names_the_discarded_card():
    s = game(
        knowledge=Knowledge.TABLE,
        hand_sizes={R: 5, B: 5},
        artefacts={R: (ART["prosperity"], ART["rage"], ART["greed"])},
        discards={B: (FIVE,)},
    )
    s, _ = play(s, A.UseCrown(R, B), A.PassFracture(B))
    assert refused(s, A.ProsperityChoice(R, True)).reason is Reason.UNKNOWN_CARD
    assert refused(s, A.ProsperityChoice(R, True, FIVE)).reason is Reason.CARD_CANNOT_BE_HELD
    s, _ = play(s, A.ProsperityChoice(R, True, TWO))
    assert s.players[B].discard_ids() == (FIVE, TWO) and s.players[B].deck_size == 18 - 5 - 2


def test_fracture_is_refused_outside_your_turn_and_windows():
    s = game(hands={B: (FRACTURE,)})
    assert refused(s, A.PlayFracture(B, ART["vitality"])).reason is Reason.NOT_YOUR_TURN

"""The battle: Battle p.11, Order of Battle p.12, the battle example p.13, artefacts pp.6-7."""

from __future__ import annotations

from engine import actions as A
from engine import events as ev
from engine.setup import Variant
from engine.state import BattleStage, DiceSource, Need, TurnStep
from engine.verdict import Reason
from tests.engine.helpers import (
    AMBUSH,
    ART,
    AUTHORITY,
    FIVE,
    FOUR,
    FRACTURE,
    PLUS1,
    PLUS1_B,
    PLUS2,
    PLUS2_B,
    THREE,
    TWO,
    B,
    G,
    R,
    Y,
    game,
    of,
    play,
    refused,
)

FOUR_B, THREE_B = "C05", "C03"


def example_position():
    return game(
        artefacts={
            R: (ART["vitality"], ART["rage"], ART["brutality"]),
            B: (ART["insight"], ART["defiance"], ART["preparation"]),
        },
        occupants={"T25": (B, 5)},
        castles={R: 6, B: 0},
        hands={R: (FIVE, PLUS2_B, FRACTURE, THREE_B, FOUR), B: (THREE, PLUS1, PLUS2, FOUR_B, TWO)},
    )


def test_battle_example_replays_to_exactly_14_12():
    s = example_position()
    s, e1 = play(s, A.Advance(R, "T25", 6))
    assert of(e1, ev.CombatScore)[-1] == ev.CombatScore(6, 6, "city")  # 1) city: defender +1
    assert s.pending[0].need is Need.FRACTURE and s.pending[0].players[0] is R  # 3) from the attacker
    s, e2 = play(s, A.PlayFracture(R, ART["defiance"]))
    assert of(e2, ev.CombatScore)[-1].attacker == 7 and of(e2, ev.CombatScore)[-1].defender == 6  # Rage
    s, e3 = play(s, A.PlayConflict(R, FIVE), A.PlayConflict(B, THREE))
    assert (of(e3, ev.CombatScore)[-1].attacker, of(e3, ev.CombatScore)[-1].defender) == (12, 9)  # 4)
    assert s.pending[0].players[0] is B  # 5) lowest score starts
    s, e4 = play(s, A.PlaySupport(B, (PLUS1, PLUS2)))
    assert (of(e4, ev.CombatScore)[-1].attacker, of(e4, ev.CombatScore)[-1].defender) == (12, 12)
    s, e5 = play(s, A.PlaySupport(R, (PLUS2_B,)))
    result = of(e5, ev.BattleResult)[0]
    assert (result.attacker_score, result.defender_score, result.margin, result.winner) == (
        14,
        12,
        2,
        R,
    )  # 6)
    assert [x.artefact for x in of(e5, ev.ArtefactApplied)] == [
        ART["brutality"]
    ]  # 7) Preparation not applied
    lost = [(x.player, x.count, x.cause) for x in of(e5, ev.KnightsLost)]
    assert lost == [(B, 1, "Orb of Brutality"), (B, 2, "battle")]  # 7), 8)
    assert of(e5, ev.Retreated) == [ev.Retreated(B, 2)]
    assert s.knights_at("T25") == {R: 6}  # 9) conquered
    assert s.players[B].castle == 2 and s.players[R].castle == 1  # the city's knight in the castle
    assert s.battle is None and s.step is TurnStep.FOLLOW_UP
    assert s.score(R) == 3


def test_battle_starts_only_on_an_advance_into_a_rivals_territory():
    s = game(occupants={"T25": (B, 2)})
    s, events = play(s, A.Advance(R, "T07", 2))
    assert s.battle is None and of(events, ev.Conquered) == [ev.Conquered(R, "T07")]


def test_order_of_battle_1_grasslands_give_the_attacker_one():
    s = game(occupants={"T07": (B, 3)}, hands={R: (TWO,), B: (TWO,)})
    s, events = play(s, A.Advance(R, "T07", 3))
    assert of(events, ev.CombatScore)[0] == ev.CombatScore(4, 3, "grasslands")


def test_order_of_battle_1_arena_dice_lowest_loses_a_knight():
    s = game(occupants={"T28": (B, 3), "T25": (R, 2)}, hands={R: (TWO,), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T28", 4))
    assert s.pending[0].need is Need.DICE and s.pending[0].purpose.value == "arena"
    s, events = play(s, A.RollDice(R, (2,), DiceSource.DEVICE), A.RollDice(B, (5,), DiceSource.SCREEN))
    assert of(events, ev.KnightsLost) == [ev.KnightsLost(R, "T28", 1, "arena")]
    assert of(events, ev.DiceRolled)[0].source is DiceSource.DEVICE
    assert s.knights_at("T28") == {R: 3, B: 3}


def test_order_of_battle_1_arena_tie_costs_both_and_an_empty_side_ends_the_battle():
    s = game(occupants={"T28": (B, 1), "T25": (R, 2)}, hands={R: (TWO,), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T28", 3))
    s, events = play(s, A.RollDice(R, (4,)), A.RollDice(B, (4,)))
    assert s.battle is None  # R37: the defender has nobody left; the attacker holds the arena
    assert s.knights_at("T28") == {R: 2}
    assert not of(events, ev.BattleResult)


def test_order_of_battle_2_draw_up_to_five_and_play_authority():
    rest = tuple(f"C{i:02d}" for i in range(2, 19) if f"C{i:02d}" != AUTHORITY)
    s = game(occupants={"T07": (B, 1)}, hands={R: (TWO,), B: (TWO, THREE)}, decks={R: (AUTHORITY, *rest)})
    s, events = play(s, A.Advance(R, "T07", 3))
    drawn = of(events, ev.CardsDrawn)
    assert drawn[0].player is R and drawn[0].count == 4
    assert of(events, ev.CardPlayed)[0] == ev.CardPlayed(R, AUTHORITY, "authority")
    assert s.players[R].hand_size == 6 and s.players[B].hand_size == 5  # 4 drawn, authority out, 2 more


def test_order_of_battle_2_empty_deck_reshuffles_the_discard_pile():
    s = game(
        occupants={"T07": (B, 1)},
        hands={R: (TWO,), B: (TWO,)},
        decks={R: (THREE,)},
        discards={R: tuple(f"C{i:02d}" for i in range(3, 19))},
    )
    s, events = play(s, A.Advance(R, "T07", 3))
    assert of(events, ev.DeckShuffled)[0].player is R
    assert s.players[R].hand_size == 5


def test_order_of_battle_3_sceptre_window_goes_round_every_player_from_the_attacker():
    s = game(
        (R, B, Y),
        occupants={"T25": (B, 2)},
        artefacts={
            R: (ART["vitality"], ART["rage"], ART["brutality"]),
            B: (ART["insight"], ART["loyalty"], ART["preparation"]),
        },
        hands={R: (TWO,), B: (TWO,), Y: (FRACTURE,)},
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    head = s.pending[0]
    assert head.need is Need.FRACTURE and head.players == (Y,)  # R and B hold no fracture (R25)
    assert set(head.targets) == {ART["rage"], ART["loyalty"]}
    s, events = play(s, A.PlayFracture(Y, ART["loyalty"]))
    assert [x.artefact for x in of(events, ev.ArtefactApplied)] == [ART["rage"]]


def test_order_of_battle_3_fracture_in_a_window_cannot_hit_an_artefact_that_does_not_apply():
    s = game(
        (R, B, Y),
        occupants={"T25": (B, 2)},
        hands={R: (TWO,), B: (TWO,), Y: (FRACTURE,)},
        artefacts={R: (ART["vitality"], ART["rage"], ART["brutality"])},
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    v = refused(s, A.PlayFracture(Y, ART["brutality"]))
    assert v.reason is Reason.NOT_A_TARGET


def test_order_of_battle_3_sceptre_of_fear_matches_the_rivals_knights():
    s = game(
        artefacts={R: (ART["vitality"], ART["fear"], ART["brutality"])},
        occupants={"T25": (B, 6)},
        hands={R: (TWO,), B: (TWO,)},
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    assert s.pending[0].need is Need.EQUALISE
    s, events = play(s, A.Equalise(R, True))
    assert of(events, ev.CombatScore)[-1] == ev.CombatScore(6, 7, "matched knights")
    assert s.knights_at("T25") == {R: 2, B: 6}  # dice are not adjusted


def test_order_of_battle_3_sceptre_of_influence_discards_a_random_card_of_the_rival():
    s = game(
        artefacts={R: (ART["vitality"], ART["influence"], ART["brutality"])},
        occupants={"T25": (B, 2)},
        hands={R: (TWO,), B: (TWO, THREE, FOUR, FIVE, PLUS1)},
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    assert s.pending[0].need is Need.RANDOM_DISCARD and s.pending[0].actor is B
    assert refused(s, A.DiscardRandom(B, PLUS2)).reason is Reason.CARD_NOT_IN_HAND
    s, events = play(s, A.DiscardRandom(B, FIVE))
    assert ev.CardDiscarded(B, FIVE, "Sceptre of Influence") in events


def test_order_of_battle_3_sceptre_of_loyalty_and_vigour_for_the_defender():
    s = game(
        artefacts={B: (ART["insight"], ART["loyalty"], ART["preparation"])},
        occupants={"T25": (B, 2)},
        hands={R: (TWO,), B: (TWO,)},
    )
    s, events = play(s, A.Advance(R, "T25", 5))
    assert of(events, ev.CombatScore)[-1] == ev.CombatScore(5, 4, "Sceptre of Loyalty")
    s = game(
        artefacts={B: (ART["insight"], ART["vigour"], ART["preparation"])},
        occupants={"T25": (B, 2)},
        hands={R: (TWO,), B: (TWO,)},
    )
    s, _ = play(s, A.Advance(R, "T25", 5))
    s, events = play(s, A.Equalise(B, True))
    assert of(events, ev.CombatScore)[-1].defender == 6  # 5 knights + city


def test_order_of_battle_4_conflict_cards_are_revealed_together_and_none_counts_zero():
    s = game(occupants={"T07": (B, 3)}, hands={R: (THREE, PLUS1), B: (PLUS1, PLUS1_B, "C11", PLUS2, PLUS2_B)})
    s, events = play(s, A.Advance(R, "T07", 3))
    # B has no conflict card: played as 0 automatically. R must play one.
    assert s.pending[0].need is Need.CONFLICT and s.pending[0].players == (R,)
    assert refused(s, A.PlayConflict(R, None)).reason is Reason.MUST_PLAY_CONFLICT
    assert refused(s, A.PlayConflict(R, PLUS1)).reason is Reason.WRONG_CARD_KIND
    s, events = play(s, A.PlayConflict(R, THREE))
    assert of(events, ev.ConflictRevealed) == [ev.ConflictRevealed(THREE, None)]


def test_order_of_battle_4_ambush_adds_a_die_roll():
    s = game(occupants={"T25": (B, 2)}, hands={R: (AMBUSH,), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T25", 2), A.PlayConflict(R, AMBUSH), A.PlayConflict(B, TWO))
    assert s.pending[0].need is Need.DICE and s.pending[0].purpose.value == "ambush"
    assert refused(s, A.RollDice(R, (7,))).reason is Reason.BAD_DICE
    s, events = play(s, A.RollDice(R, (6,)))
    assert of(events, ev.BattleResult)[0].attacker_score == 2 + 6  # 2 knights + the die


def test_order_of_battle_5_support_cards_none_on_mountains():
    s = game(
        occupants={"T22": (B, 2)},
        castles={R: 6, B: 0},
        hands={R: (TWO, PLUS1), B: (TWO, PLUS2)},
        adjacency={**__import__("tests.engine.helpers", fromlist=["MAP"]).MAP, "K1": ("T22",)},
    )
    s, events = play(s, A.Advance(R, "T22", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, TWO))
    assert not of(events, ev.SupportPlayed)
    result = of(events, ev.BattleResult)[0]
    assert (result.attacker_score, result.defender_score, result.winner) == (4, 4, B)


def test_order_of_battle_5_support_tie_lets_the_attacker_start():
    s = game(occupants={"T07": (B, 3)}, hands={R: (FIVE, PLUS1), B: (THREE, PLUS2)})
    s, _ = play(s, A.Advance(R, "T07", 1), A.PlayConflict(R, FIVE), A.PlayConflict(B, THREE))
    # 1 + grasslands 1 + 5 = 7 against 3 + 3 = 6: the defender is lowest and starts
    assert s.pending[0].players[0] is B
    s = game(occupants={"T07": (B, 3)}, hands={R: (THREE, PLUS1), B: (THREE, PLUS2)})
    s, _ = play(s, A.Advance(R, "T07", 2), A.PlayConflict(R, THREE), A.PlayConflict(B, THREE))
    assert s.combat_scores() == (6, 6) and s.pending[0].players[0] is R  # R32


def test_order_of_battle_5_support_alternates_until_both_pass():
    s = game(
        occupants={"T11": (B, 3), "T07": (R, 1)}, hands={R: (TWO, PLUS1, PLUS1_B), B: (TWO, PLUS2, PLUS2_B)}
    )
    s, _ = play(s, A.Advance(R, "T11", 3), A.PlayConflict(R, TWO), A.PlayConflict(B, TWO))
    assert s.combat_scores() == (5, 5) and s.pending[0].players[0] is R
    s, _ = play(s, A.PlaySupport(R, ()), A.PlaySupport(B, (PLUS2,)), A.PlaySupport(R, (PLUS1,)))
    assert s.pending and s.pending[0].players[0] is B  # a pass does not end it while the other still plays
    assert refused(s, A.PlaySupport(R, (PLUS1_B,))).reason is Reason.NOT_YOUR_DECISION
    s, events = play(s, A.PlaySupport(B, ()), A.PlaySupport(R, ()))
    result = of(events, ev.BattleResult)[0]
    assert (result.attacker_score, result.defender_score) == (6, 7)


def test_order_of_battle_6_a_tie_goes_to_the_defender_by_one():
    s = game(occupants={"T11": (B, 4), "T07": (R, 1)}, hands={R: (THREE,), B: (THREE,)})
    s, events = play(s, A.Advance(R, "T11", 4), A.PlayConflict(R, THREE), A.PlayConflict(B, THREE))
    result = of(events, ev.BattleResult)[0]
    assert (result.attacker_score, result.defender_score) == (7, 7)
    assert result.winner is B and result.margin == 1
    assert s.knights_at("T11") == {B: 4} and s.players[R].castle == 2 + 3  # lost 1, 3 retreated


def test_order_of_battle_7_orb_window_then_orbs_of_winner_and_loser():
    s = game(
        artefacts={
            R: (ART["vitality"], ART["rage"], ART["greed"]),
            B: (ART["insight"], ART["loyalty"], ART["devotion"]),
        },
        occupants={"T11": (B, 1), "T07": (R, 1)},
        hands={R: (FIVE,), B: (TWO,)},
        castles={R: 6, B: 3},
    )
    s, events = play(s, A.Advance(R, "T11", 4), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    applied = [x.artefact for x in of(events, ev.ArtefactApplied)]
    assert applied[-2:] == [ART["greed"], ART["devotion"]]  # attacker's first (R35)
    assert s.players[R].hand_size == 6  # Greed: draw until six
    assert s.players[B].castle == 3 + 1  # Devotion (the lone knight was lost, none retreated)


def test_order_of_battle_7_fracture_on_an_orb_negates_it():
    s = game(
        (R, B, Y),
        occupants={"T25": (B, 5)},
        hands={R: (FIVE,), B: (TWO,), Y: (FRACTURE,)},
        artefacts={R: (ART["vitality"], ART["loyalty"], ART["brutality"])},
    )
    # R25: yellow may fracture either sceptre too (neither applies here), and passes.
    s, _ = play(s, A.Advance(R, "T25", 6), A.PassFracture(Y), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert s.battle is not None and s.battle.stage is BattleStage.ORBS
    assert s.pending[0].targets == (ART["brutality"], ART["devotion"]) and s.pending[0].players == (Y,)
    s, events = play(s, A.PlayFracture(Y, ART["brutality"]))
    assert not [x for x in of(events, ev.KnightsLost) if x.cause == "Orb of Brutality"]


def test_order_of_battle_7_cleansing_and_preparation_are_optional_discards():
    s = game(
        artefacts={B: (ART["insight"], ART["rage"], ART["cleansing"])},
        occupants={"T11": (B, 1), "T07": (R, 1)},
        hands={R: (FIVE,), B: (TWO, PLUS1)},
        castles={R: 6, B: 3},
    )
    s, _ = play(s, A.Advance(R, "T11", 4), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    while s.pending and s.pending[0].need is not Need.OPTIONAL_DISCARD:
        head = s.pending[0]
        s, _ = play(s, A.PlaySupport(head.players[0], ()))
    assert s.pending[0].actor is B and s.pending[0].cause == "Orb of Cleansing"
    s, events = play(s, A.DiscardCard(B, PLUS1))
    assert ev.CardDiscarded(B, PLUS1, "Orb of Cleansing") in events


def test_order_of_battle_7_resurgence_draws_to_six_for_the_loser():
    s = game(
        artefacts={B: (ART["insight"], ART["rage"], ART["resurgence"])},
        occupants={"T11": (B, 1), "T07": (R, 1)},
        hands={R: (FIVE,), B: (TWO,)},
    )
    s, events = play(s, A.Advance(R, "T11", 4), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    while s.pending and s.pending[0].need is Need.SUPPORT:
        s, more = play(s, A.PlaySupport(s.pending[0].players[0], ()))
        events += more
    assert ev.ArtefactApplied(B, ART["resurgence"], B) in events
    assert s.players[B].hand_size == 6


def test_order_of_battle_8_losses_only_from_the_disputed_territory():
    s = game(occupants={"T07": (R, 1), "T11": (B, 1)}, castles={R: 6, B: 6}, hands={R: (FIVE,), B: (TWO,)})
    s, events = play(s, A.Advance(R, "T11", 6), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert of(events, ev.BattleResult)[0].margin > 1
    assert ev.KnightsLost(B, "T11", 1, "battle") in events
    assert s.players[B].castle == 6 + 1  # only blue's Orb of Devotion adds to the castle


def test_order_of_battle_9_conquest_abilities_for_the_attacker_only():
    # Marshlands: the conqueror loses one knight there; the defender applies nothing when defending.
    s = game(occupants={"T07": (R, 1), "T11": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    s, events = play(s, A.Advance(R, "T11", 3), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    assert ev.KnightsLost(R, "T11", 1, "marshlands") in events and s.knights_at("T11") == {R: 2}
    s = game(occupants={"T07": (R, 1), "T11": (B, 5)}, hands={R: (TWO,), B: (FIVE,)})
    s, events = play(s, A.Advance(R, "T11", 1), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    assert not [e for e in events if isinstance(e, ev.KnightsLost) and e.cause == "marshlands"]


def test_order_of_battle_9_fortress_lets_the_conqueror_discard_a_card():
    adjacency = {"K1": ("T26",), "K2": ("T26", "T02")}
    s = game(adjacency=adjacency, occupants={"T26": (B, 1)}, hands={R: (FIVE, PLUS1), B: (TWO,)})
    s, _ = play(s, A.Advance(R, "T26", 5), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    while s.pending and s.pending[0].need is Need.SUPPORT:
        s, _ = play(s, A.PlaySupport(s.pending[0].players[0], ()))
    assert s.pending[0].need is Need.OPTIONAL_DISCARD and s.pending[0].cause == "fortress"
    s, _events = play(s, A.DiscardCard(R, None))
    assert s.battle is None and s.knights_at("T26") == {R: 5}


def test_battle_refuses_free_actions_while_it_is_under_way():
    s = example_position()
    s, _ = play(s, A.Advance(R, "T25", 6))
    assert refused(s, A.EndTurn(R)).reason is Reason.WRONG_STEP
    assert refused(s, A.PlayConflict(G, FIVE)).reason is Reason.UNKNOWN_PLAYER


def test_mayhem_and_variants_do_not_break_the_battle_result_default():
    assert Variant().target == 13


def test_order_of_battle_3_sceptre_of_defiance_makes_the_attacker_discard_at_random():
    s = game(
        artefacts={B: (ART["insight"], ART["defiance"], ART["devotion"])},
        occupants={"T25": (B, 2)},
        hands={R: (TWO, THREE, FOUR, FIVE, PLUS1), B: (TWO,)},
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    assert s.pending[0].need is Need.RANDOM_DISCARD and s.pending[0].actor is R
    s, events = play(s, A.DiscardRandom(R, FOUR))
    assert ev.CardDiscarded(R, FOUR, "Sceptre of Defiance") in events and FOUR not in s.players[R].hand


def test_order_of_battle_7_orb_of_preparation_lets_the_winner_discard():
    s = game(
        artefacts={R: (ART["vitality"], ART["loyalty"], ART["preparation"])},
        occupants={"T11": (B, 1), "T07": (R, 1)},
        hands={R: (FIVE, PLUS1), B: (TWO,)},
    )
    s, _ = play(s, A.Advance(R, "T11", 4), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    while s.pending and s.pending[0].need is Need.SUPPORT:
        s, _ = play(s, A.PlaySupport(s.pending[0].players[0], ()))
    assert s.pending[0].need is Need.OPTIONAL_DISCARD and s.pending[0].cause == "Orb of Preparation"
    s, events = play(s, A.DiscardCard(R, PLUS1))
    assert ev.CardDiscarded(R, PLUS1, "Orb of Preparation") in events


def test_order_of_battle_7_orb_of_greed_draws_to_six_and_plays_authority():
    rest = tuple(f"C{i:02d}" for i in range(1, 19) if f"C{i:02d}" not in (FIVE, AUTHORITY, TWO, THREE, FOUR))
    s = game(
        occupants={"T11": (B, 1), "T07": (R, 1)},
        hands={R: (FIVE, TWO, THREE, FOUR), B: (TWO,)},
        decks={R: (PLUS1, AUTHORITY, *[c for c in rest if c != PLUS1])},
    )
    s, events = play(s, A.Advance(R, "T11", 4))  # draws PLUS1 up to five
    s, more = play(s, A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    events += more
    while s.pending and s.pending[0].need is Need.SUPPORT:
        s, more = play(s, A.PlaySupport(s.pending[0].players[0], ()))
        events += more
    assert ev.CardPlayed(R, AUTHORITY, "authority") in events  # Greed drew it: played, two more drawn
    assert s.players[R].hand_size == 6 - 1 + 2  # Greed drew to six, authority left, two more came


def test_battle_events_round_trip_through_json():
    s = example_position()
    s, events = play(
        s,
        A.Advance(R, "T25", 6),
        A.PlayFracture(R, ART["defiance"]),
        A.PlayConflict(R, FIVE),
        A.PlayConflict(B, THREE),
        A.PlaySupport(B, (PLUS1, PLUS2)),
        A.PlaySupport(R, (PLUS2_B,)),
    )
    for e in events:
        assert ev.Event.from_json(e.to_json()) == e

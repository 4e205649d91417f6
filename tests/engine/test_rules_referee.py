"""What the referee says: every verdict, accepted or refused, names the most specific rule that decided it,
and every rule-driven consequence in the events names its rule (issue 25). Rulings R21 and R25 as decided,
and a game set up under their first edition keeps it."""

from __future__ import annotations

import dataclasses
import random

from engine import actions as A
from engine import events as ev
from engine.playout import choose, random_config
from engine.rulebook import RULINGS, Rule
from engine.rules import apply, check
from engine.setup import Variant, new_game, position
from engine.state import Knowledge
from engine.verdict import Reason
from tests.engine.helpers import (
    ART,
    CALL_TO_ARMS,
    FIVE,
    FRACTURE,
    MAP,
    PLUS1,
    TWO,
    B,
    R,
    Y,
    config,
    finish,
    game,
    of,
    play,
    refused,
)

# K1 (red's castle) borders lake L1, which links T07, T12, T22 and T28.
LAKESIDE = {**MAP, "K1": ("T01", "T07", "T25", "L1")}


def _lakeside(rulings: int = RULINGS, **kw: object) -> object:
    cfg = dataclasses.replace(config(adjacency=LAKESIDE), rulings=rulings)
    return position(cfg, hands={R: (), B: ()}, castles={R: 6, B: 6}, current=R, **kw)  # type: ignore[arg-type]


# --- R21: an advance across a lake needs a territory of yours on it ----------------------------------------


def test_turn_5_a_castle_by_a_lake_gives_no_advance_across_it_r21():
    s = _lakeside(occupants={})
    v = refused(s, A.Advance(R, "T12", 2))
    assert v.reason is Reason.NOT_ADJACENT and v.rule is Rule.R21 and "castle" in v.sentence
    assert check(s, A.Advance(R, "T07", 2)).ok  # its own neighbours, by an edge


def test_turn_5_a_territory_on_the_lake_gives_the_advance_across_it_r21():
    s = _lakeside(occupants={"T07": (R, 1)})
    v = check(s, A.Advance(R, "T12", 2))
    assert v.ok and v.rule is Rule.LAKES and v.citation == "Lakes, p.2" and "Lac" in v.sentence
    s, events = play(s, A.Advance(R, "T12", 2))
    advanced = of(events, ev.Advanced)[0]
    assert advanced.via == "L1" and advanced.rule is Rule.LAKES


def test_line_of_supply_runs_through_the_lake_by_a_castle_r21():
    s = _lakeside(occupants={"T12": (R, 2)})
    assert s.has_supply(R, "T12")  # the castle's lake carries the line of supply (p.10)
    assert check(s, A.Advance(R, "T13", 2)).ok  # so T12 gives advances as any supplied territory does


def test_turn_5_a_game_set_up_under_the_first_edition_keeps_its_r21():
    s = _lakeside(rulings=1, occupants={})
    assert check(s, A.Advance(R, "T12", 2)).ok


# --- R25: a battle's fracture windows hold both sides' sceptres and orbs -----------------------------------


def _r25(rulings: int = RULINGS, **kw: object) -> object:
    cfg = dataclasses.replace(config((R, B, Y)), rulings=rulings)
    hands = {R: (TWO,), B: (FIVE,), Y: (FRACTURE,)}
    return position(cfg, hands=hands, castles={R: 6, B: 6, Y: 6}, current=R, **kw)  # type: ignore[arg-type]


def test_order_of_battle_3_any_sceptre_of_either_side_can_be_fractured_r25():
    # Red attacks with a defending sceptre (Loyalty), blue defends with an attacking one (Rage): neither
    # applies.
    s = _r25(occupants={"T25": (B, 2)})
    s, _ = play(s, A.Advance(R, "T25", 3))
    head = s.pending[0]
    assert head.targets == (ART["loyalty"], ART["rage"]) and head.players == (Y,)
    v = check(s, A.PlayFracture(Y, ART["rage"]))
    assert v.ok and v.rule is Rule.BATTLE_3
    s, events = play(s, A.PlayFracture(Y, ART["rage"]))
    assert ev.ArtefactDestroyed(B, ART["rage"], Y, "fracture") in events


def test_order_of_battle_7_any_orb_of_either_side_can_be_fractured_r25():
    # Red loses: Greed (a winner's orb) and Devotion (a loser's, blue won) apply to nobody, yet are at stake.
    s = _r25(occupants={"T25": (B, 5)})
    s, _ = play(s, A.Advance(R, "T25", 1), A.PassFracture(Y), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    head = s.pending[0]
    assert head.targets == (ART["greed"], ART["devotion"]) and head.rule is Rule.BATTLE_7


def test_order_of_battle_3_a_game_under_the_first_edition_asks_only_about_what_applies():
    s = _r25(rulings=1, occupants={"T25": (B, 2)})
    s, _ = play(s, A.Advance(R, "T25", 3))
    assert s.pending[0].need.value == "conflict"  # no sceptre about to apply: no window


# --- the most specific rule against an action --------------------------------------------------------------


def test_mountains_no_support_card_whatever_the_battle_waits_for():
    adjacency = {**MAP, "K1": ("T22",)}
    s = game(occupants={"T22": (B, 2)}, hands={R: (TWO, PLUS1), B: (TWO, PLUS1)}, adjacency=adjacency)
    s, _ = play(s, A.Advance(R, "T22", 2))
    v = refused(s, A.PlaySupport(B, (PLUS1,)))  # the battle waits for conflict cards
    assert v.reason is Reason.NO_SUPPORT_ALLOWED and v.citation == "Mountains, p.7"
    s, _ = play(s, A.PlayConflict(R, TWO), A.PlayConflict(B, TWO))
    s, _ = finish(s)
    assert s.battle is None
    v = refused(s, A.PlaySupport(B, (PLUS1,)))  # and with no battle at all: support is for battles
    assert v.reason is Reason.WRONG_STEP and v.rule is Rule.BATTLE_5


def test_turn_2_no_crown_or_call_to_arms_during_a_battle_p8():
    s = game(occupants={"T25": (B, 2)}, hands={R: (TWO, CALL_TO_ARMS), B: (FIVE,)})
    s, _ = play(s, A.Advance(R, "T25", 3))
    assert s.pending[0].need.value == "conflict"
    assert refused(s, A.UseCrown(R)).citation == "Use Crowns, p.8"
    assert refused(s, A.PlayCallToArms(R)).citation == "Play Resources, p.8"
    assert refused(s, A.EndTurn(R)).rule is Rule.BATTLE_9


def test_turn_4_redistributing_after_an_advance_does_not_claim_a_redistribution():
    s = game(occupants={"T07": (R, 2)})
    s, _ = play(s, A.Advance(R, "T01", 2))
    v = refused(s, A.Redistribute(R, (("T07", 3), ("K1", 3))))
    assert v.reason is Reason.NO_ADVANCE_LEFT and "already redistributed" not in v.sentence


# --- consequences name their rule --------------------------------------------------------------------------


def test_order_of_battle_6_a_tie_goes_to_the_defender_by_one():
    # Grasslands: the attacker's 2 knights + 1 + a 2 against the defender's 3 knights + a 2: 5 all.
    s = game(occupants={"T07": (B, 3)}, hands={R: (TWO,), B: (TWO,)})
    s, events = play(s, A.Advance(R, "T07", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, TWO))
    result = of(events, ev.BattleResult)[0]
    assert (result.winner, result.attacker_score, result.defender_score, result.margin) == (B, 5, 5, 1)
    assert result.rule is Rule.BATTLE_6 and "tie" in result.cause


def test_mayhem_reversal_reports_the_scores_that_decided_the_battle():
    s = game(variant=Variant(mayhem=True), occupants={"T25": (B, 1)}, hands={R: (TWO,), B: (FIVE,)},
             castles={R: 6, B: 0})
    s, events = play(s, A.Advance(R, "T25", 2), A.PlayConflict(R, TWO), A.PlayConflict(B, FIVE))
    first = of(events, ev.BattleResult)[0]
    assert (first.winner, first.attacker_score, first.defender_score) == (B, 4, 7)
    s, events = play(s, A.RollDice(B, (1,)))
    reversed_ = of(events, ev.BattleResult)[0]
    assert (reversed_.winner, reversed_.attacker_score, reversed_.defender_score) == (R, 4, 7)
    assert reversed_.rule is Rule.R38


def test_order_of_battle_8_losses_are_capped_at_the_knights_there():
    s = game(occupants={"T25": (B, 1)}, hands={R: (FIVE,), B: (TWO,)})
    s, events = play(s, A.Advance(R, "T25", 6), A.PlayConflict(R, FIVE), A.PlayConflict(B, TWO))
    s, more = finish(s)
    capped = of(events + more, ev.LossesCapped)
    assert capped == [ev.LossesCapped(B, "T25", capped[0].margin, 1)] and capped[0].margin > 1
    assert capped[0].rule is Rule.BATTLE_8


def test_turn_9_a_restored_artefact_names_the_rule():
    s = game(destroyed={ART["vitality"]: 0})
    s, events = play(s, A.EndTurn(R))
    restored = of(events, ev.ArtefactRestored)
    assert restored == [ev.ArtefactRestored(R, ART["vitality"])] and restored[0].rule is Rule.RESTORE


def test_every_verdict_and_every_event_names_its_rule():
    """Random games, both knowledge modes: accepted actions say what they do and what allows them, refused
    ones why not, and every event names the rule behind it."""
    for seed, knowledge in ((1, Knowledge.FULL), (2, Knowledge.TABLE), (3, Knowledge.FULL)):
        rng = random.Random(seed)
        variant = Variant(mayhem=seed == 3, castle_siege=seed == 1, cut_throat=seed == 2)
        s = new_game(random_config(rng, 3, variant, knowledge))
        for _ in range(250):
            if s.winner is not None:
                break
            action = choose(s, rng)
            v = check(s, action)
            assert v.ok and v.rule is not None and v.sentence and v.sentence != "Accepted.", (action, v)
            wrong = A.EndTurn(next(c for c in s.order if c not in s.actors()))
            w = check(s, wrong)
            assert not w.ok and w.rule is not None and w.sentence
            s, events = apply(s, action)
            assert all(e.rule is not None for e in events), [e for e in events if e.rule is None]

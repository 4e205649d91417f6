"""Reconciliation of camera readings with the game (issue 4 "Reconciliation"; rulings R80-R89, R85a)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from engine import actions as A
from engine.colours import Colour
from engine.events import KnightsLost
from engine.hexgrid import Hex
from engine.maps import Board
from engine.reading import TableReading
from engine.reconcile import Reconciliation, reconcile
from engine.rules import apply
from engine.save import state_from_json
from engine.setup import GameConfig, PlayerConfig, new_game
from engine.state import GameState, Knowledge
from engine.verdict import Reason
from tests.engine.helpers import CALL_TO_ARMS, MAP, game

R, B = Colour.RED, Colour.BLUE

# A small map with no homelands (every castle starts with 6 knights, +3 placed for the first turn):
#
#        T25   .    .
#    K1  T07  T11  T16  K2          T07 grasslands, T11 marshlands, T16 fort, T25 city, T12 village,
#      T12  L1   T13  T20           T13 grasslands, T20 ruins; L1 links T12, T07, T11, T13.
TILES = {Hex(0, 0): "K1", Hex(1, 0): "T07", Hex(2, 0): "T11", Hex(3, 0): "T16", Hex(4, 0): "K2",
         Hex(0, 1): "T12", Hex(1, 1): "L1", Hex(2, 1): "T13", Hex(3, 1): "T20", Hex(2, -1): "T25"}


def _game(knowledge: Knowledge = Knowledge.FULL) -> GameState:
    board = Board.from_layout(TILES)
    # Red holds the Crown of Vitality (redistribute once more), blue the Crown of Insight.
    artefacts = {R: ("A01", "A08", "A15"), B: ("A02", "A12", "A14")}
    cfg = GameConfig(players=(PlayerConfig(R), PlayerConfig(B)), board=board, first_player=R, seed=1,
                     knowledge=knowledge, artefacts=artefacts)
    return new_game(cfg)


def _table(state: GameState, **changes: Mapping[Colour, int]) -> TableReading:
    """The reading a perfect camera would give for `state`, with some locations changed."""
    locations = [*state.data.territories, *state.data.castle_owner]
    knights = {loc: dict(state.knights_at(loc)) for loc in locations}
    knights.update({k: dict(v) for k, v in changes.items()})
    return TableReading(knights=knights)


def _play(state: GameState, *actions: A.Action) -> GameState:
    for a in actions:
        state, _ = apply(state, a)
    return state


def test_a_table_that_matches_the_game() -> None:
    s = _game()
    result = reconcile(s, _table(s))
    assert result.matches and result.status == "match" and result.sentences() == []


def test_advance_into_an_empty_territory() -> None:
    s = _game()
    assert s.players[R].castle == 9
    result = reconcile(s, _table(s, K1={R: 5}, T07={R: 4}))
    assert result.actions == (A.Advance(R, "T07", 4),)
    assert result.sentences() == ["Red advanced 4 knights into Loire Grasslands (T07)?"]
    assert not result.discrepancies


def test_advance_across_a_lake() -> None:
    """Lakes link every territory bordering them (p.2, p.11); T12 borders K1 and L1, L1 borders T13."""
    s = _play(_game(), A.Advance(R, "T12", 3), A.EndTurn(R), A.EndTurn(B))
    result = reconcile(s, _table(s, K1={R: s.players[R].castle - 2}, T13={R: 2}))
    assert result.actions == (A.Advance(R, "T13", 2),)


def test_conquest_abilities_are_part_of_the_explanation() -> None:
    """Marshlands: the conqueror loses a knight there; village/city: one more in the castle (p.7, R85)."""
    s = _play(_game(), A.Advance(R, "T07", 3), A.EndTurn(R), A.EndTurn(B))
    castle = s.players[R].castle
    result = reconcile(s, _table(s, K1={R: castle - 3}, T11={R: 2}))
    assert result.actions == (A.Advance(R, "T11", 3),)
    result = reconcile(s, _table(s, K1={R: castle - 3 + 1}, T25={R: 3}))
    assert result.actions == (A.Advance(R, "T25", 3),)


def test_redistribution_then_advance() -> None:
    s = _play(_game(), A.Advance(R, "T07", 3), A.EndTurn(R), A.EndTurn(B))
    castle = s.players[R].castle  # 6 + 3
    # Two knights from T07 back to the castle, then five into T12 (a village: one more knight in the castle).
    result = reconcile(s, _table(s, T07={R: 1}, K1={R: castle + 2 - 5 + 1}, T12={R: 5}))
    assert result.actions == (A.Redistribute(R, (("K1", castle + 2), ("T07", 1))), A.Advance(R, "T12", 5))
    assert len(result.sentences()) == 2


def test_redistribution_alone() -> None:
    s = _play(_game(), A.Advance(R, "T07", 3), A.EndTurn(R), A.EndTurn(B))
    castle = s.players[R].castle
    result = reconcile(s, _table(s, T07={R: 6}, K1={R: castle - 3}))
    assert result.actions == (A.Redistribute(R, (("K1", castle - 3), ("T07", 6))),)


def test_the_turn_ended_and_the_next_player_placed_knights() -> None:
    """Place knights (p.8): the next player's castle grows by three when the turn passes (R84)."""
    s = _game()
    result = reconcile(s, _table(s, K2={B: 9}))
    assert result.actions == (A.EndTurn(R),)
    # ...and the next player's advance in the same reading.
    result = reconcile(s, _table(s, K2={B: 5}, T16={B: 4}))
    assert result.actions == (A.EndTurn(R), A.Advance(B, "T16", 4))
    # ...even when exactly the three new knights advanced, so the castle looks unchanged.
    result = reconcile(s, _table(s, T16={B: 3}))
    assert result.actions == (A.EndTurn(R), A.Advance(B, "T16", 3))


def _battle_ready() -> GameState:
    """Red holds T07 and T11 (next to blue's fort T16, held by 4 blue knights); red to play."""
    return _play(_game(), A.Advance(R, "T07", 3), A.EndTurn(R), A.Advance(B, "T16", 4), A.EndTurn(B),
                 A.Advance(R, "T11", 3), A.EndTurn(R), A.EndTurn(B))


def test_battle_start() -> None:
    """An advance into a rival's territory starts a battle (p.11): both colours stand there."""
    s = _battle_ready()
    castle = s.players[R].castle
    result = reconcile(s, _table(s, K1={R: castle - 5}, T16={R: 5, B: 4}))
    assert result.actions == (A.Advance(R, "T16", 5),)
    after = _play(s, *result.actions)
    assert after.battle is not None and after.battle.attacker is R


def test_call_to_arms() -> None:
    s = _game(Knowledge.TABLE)
    result = reconcile(s, _table(s, K1={R: 11}))
    assert result.actions == (A.PlayCallToArms(R),)


def test_illegal_move_is_a_discrepancy_with_the_reason() -> None:
    """R83: T16 is not next to the red castle nor to a red territory, so an advance there is refused."""
    s = _game()
    result = reconcile(s, _table(s, K1={R: 6}, T16={R: 3}))
    assert not result.actions
    assert "camera: 3 red knights on Fort of Sancerre (T16); game: none" in result.sentences()
    assert "camera: 6 red knights in Nivernais (K1); game: 9 red" in result.sentences()
    assert [r.verdict.reason for r in result.refused] == [Reason.NOT_ADJACENT]
    assert any("The rules refuse it" in line for line in result.sentences())


def test_over_capacity_is_refused() -> None:
    s = _game()
    result = reconcile(s, _table(s, K1={R: 2}, T07={R: 7}))
    assert result.status == "discrepancy"
    assert Reason.OVER_CAPACITY in [r.verdict.reason for r in result.refused]


def test_knights_vanishing_is_a_discrepancy() -> None:
    s = _game()
    result = reconcile(s, _table(s, K1={R: 8}))
    assert [d.location for d in result.discrepancies] == ["K1"]
    d = result.discrepancies[0]
    assert dict(d.seen) == {R: 8} and dict(d.expected) == {R: 9}
    assert d.sentence == "camera: 8 red knights in Nivernais (K1); game: 9 red"


def test_unsure_locations_are_not_evidence() -> None:
    """R80: the castle is hidden by a hand; the advance is still recognised from the territory alone."""
    s = _game()
    base = _table(s, K1={R: 1}, T07={R: 4})
    reading = TableReading(knights=base.knights, unsure=frozenset({"K1"}))
    result = reconcile(s, reading)
    assert result.actions == (A.Advance(R, "T07", 4),)
    assert "K1" in result.unsure
    # A wrong count at an unsure location alone is no discrepancy.
    reading = TableReading(knights=_table(s, K1={R: 1}).knights, unsure=frozenset({"K1"}))
    assert reconcile(s, reading).matches


def test_tiles_the_camera_did_not_see_are_unsure() -> None:
    s = _game()
    seen_tiles = {h: t for h, t in TILES.items() if t != "K2"}
    reading = TableReading(tiles=seen_tiles, knights={"K1": {R: 9}})
    result = reconcile(s, reading)
    assert result.matches and "K2" in result.unsure


def test_knights_on_a_lake_or_off_the_map_or_of_a_colour_not_playing() -> None:
    s = _game()
    result = reconcile(s, _table(s, L1={R: 1}))
    assert result.sentences() == ["camera: 1 red knight on Lac des Settons (L1); game: none "
                                  "(lakes hold no knights)"]
    result = reconcile(s, _table(s, T30={B: 2}))
    assert "it is not part of this game" in result.sentences()[0]
    result = reconcile(s, _table(s, T07={R: 2, Colour.GREEN: 1}))
    assert any("green is not playing" in line for line in result.sentences())
    assert not result.actions


def test_artefact_face_down_when_the_game_has_it_up() -> None:
    s = _game()
    art = s.players[R].artefacts[0].id
    reading = TableReading(knights=_table(s).knights, artefacts={art: False})
    result = reconcile(s, reading)
    assert result.status == "discrepancy" and "face down; game: face up" in result.sentences()[0]
    assert reconcile(s, TableReading(knights=_table(s).knights, artefacts={art: True})).matches


def test_nothing_is_guessed_while_the_engine_waits_for_a_decision() -> None:
    """R86: during a battle the engine waits for declared cards; the camera only reports."""
    state = _play(_battle_ready(), A.Advance(R, "T16", 5))
    assert state.battle is not None and state.pending
    result = reconcile(state, _table(state, T16={R: 5}))
    assert result.status == "discrepancy" and not result.actions


def test_never_both_actions_and_discrepancies() -> None:
    with pytest.raises(ValueError, match="not both"):
        Reconciliation(actions=(A.EndTurn(R),), discrepancies=reconcile(_game(), _table(_game(), K1={R: 1}))
                       .discrepancies)


def test_json_of_a_result() -> None:
    s = _game()
    doc = reconcile(s, _table(s, K1={R: 5}, T07={R: 4})).to_json()
    assert doc["status"] == "actions"
    assert doc["actions"] == [{"type": "advance", "player": "red", "target": "T07", "knights": 4}]
    doc = reconcile(s, _table(s, K1={R: 6}, T16={R: 3})).to_json()
    assert doc["status"] == "discrepancy" and doc["refused"][0]["reason"] == Reason.NOT_ADJACENT.value
    assert {d["location"]: d["seen"] for d in doc["discrepancies"]} == {"K1": {"red": 6}, "T16": {"red": 3}}


def test_losses_and_retreat_after_a_declared_battle() -> None:
    """Order of battle steps 8-9 (p.12): the engine resolves the battle from the declared cards; the camera
    then confirms the losses and the retreat; a table that has not caught up is a discrepancy, not a move."""
    from engine.rules import legal_actions

    before = _play(_battle_ready(), A.Advance(R, "T16", 5))
    state = before
    while state.battle is not None:
        state = _play(state, legal_actions(state)[0])
    assert reconcile(state, _table(state)).matches
    stale = reconcile(state, _table(before))
    assert stale.status == "discrepancy" and not stale.actions
    assert any(d.location == "T16" for d in stale.discrepancies)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_play_every_move_the_camera_sees_is_explained(players: int) -> None:
    """R81-R82 on random legal play: a perfect reading one action ahead is explained by legal actions that
    reproduce the table exactly (or already matches when the action moved no knights)."""
    import random

    from engine.playout import random_playout

    playout = random_playout(random.Random(players), players=players, max_actions=250)
    state = playout.initial
    checked = 0
    for action in playout.actions:
        after, _ = apply(state, action)
        if not state.pending and state.battle is None and not after.pending:
            result = reconcile(state, _table(after))
            assert result.status in ("match", "actions"), (action, result.sentences())
            replay = _play(state, *result.actions)
            assert reconcile(replay, _table(after)).matches
            checked += 1
        state = after
    assert checked >= 10


def test_tactical_advance_then_a_second_advance() -> None:
    """Tactical advance (p.8): the turn's advance is spent, yet red advances again."""
    s = _play(_game(Knowledge.TABLE), A.Advance(R, "T07", 3))
    castle = s.players[R].castle
    result = reconcile(s, _table(s, K1={R: castle - 2}, T11={R: 1}))  # marshlands: 2 advanced, 1 stays
    assert result.actions == (A.PlayTacticalAdvance(R), A.Advance(R, "T11", 2))


def test_crown_of_vitality_redistribution() -> None:
    """Crown of Vitality (p.7): the engine waits for one more redistribution, which the camera shows."""
    s = _play(_game(Knowledge.TABLE), A.Advance(R, "T07", 3), A.UseCrown(R))
    while s.pending and s.pending[0].need.value == "fracture":
        s = _play(s, A.PassFracture(s.pending[0].players[0]))
    assert s.pending and s.pending[0].need.value == "redistribute"
    castle = s.players[R].castle
    result = reconcile(s, _table(s, K1={R: castle - 2}, T07={R: 5}))
    assert result.actions == (A.Redistribute(R, (("K1", castle - 2), ("T07", 5))),)


def test_tiles_in_another_arrangement_are_discrepancies() -> None:
    """R89: compared by which tiles touch, so the camera's grid origin and rotation do not matter."""
    s = _game()
    # The same map shifted and rotated by 60 degrees (axial (q, r) -> (-r, q + r)) matches.
    turned = {Hex(-h.r + 5, h.q + h.r - 2): t for h, t in TILES.items()}
    assert reconcile(s, TableReading(tiles=turned, knights=_table(s).knights)).matches
    # Swap two tiles: both are reported as moved.
    swapped = dict(TILES)
    swapped[Hex(1, 0)], swapped[Hex(3, 1)] = "T20", "T07"
    result = reconcile(s, TableReading(tiles=swapped, knights=_table(s).knights))
    assert result.status == "discrepancy"
    assert {d.location for d in result.discrepancies} >= {"T07", "T20"}
    assert any("a tile was moved" in line for line in result.sentences())
    # A tile that is not part of this map at all.
    extra = dict(TILES)
    extra[Hex(5, 0)] = "T30"
    result = reconcile(s, TableReading(tiles=extra, knights=_table(s).knights))
    want = "camera: Mountains of Auvergne (T30) on the table; game: not part of this map"
    assert want in result.sentences()


def test_refusal_after_a_turn_end_is_reported_with_its_reason() -> None:
    """The turn passed (blue's three knights appear), but blue cannot reach T12 to advance there (R83)."""
    s = _game()
    result = reconcile(s, _table(s, K2={B: 5}, T12={B: 4}))
    assert result.status == "discrepancy"
    refusal = next(r for r in result.refused if isinstance(r.action, A.Advance))
    assert refusal.verdict.reason is Reason.NOT_ADJACENT
    assert refusal.sentence.startswith("Red ended their turn")


def test_artefacts_are_compared_after_the_move() -> None:
    """Restore artefacts (p.13): the turn end flips red's destroyed sceptre face up again, so a reading that
    shows it face up and blue's three new knights is the turn end, not a discrepancy (R87)."""
    import dataclasses

    from engine.state import ArtefactHolding

    s = _game()
    red = s.players[R]
    arts = (red.artefacts[0], ArtefactHolding(red.artefacts[1].id, destroyed_on=0), red.artefacts[2])
    s = dataclasses.replace(s, players={**s.players, R: dataclasses.replace(red, artefacts=arts)})
    sceptre = arts[1].id
    knights = _table(s, K2={B: 9}).knights
    result = reconcile(s, TableReading(knights=knights, artefacts={sceptre: True}))
    assert result.actions == (A.EndTurn(R),)
    # Face up but no turn end in sight: the camera and the game disagree about the sceptre.
    result = reconcile(s, TableReading(knights=_table(s).knights, artefacts={sceptre: True}))
    assert result.status == "discrepancy" and "face up; game: face down" in result.sentences()[0]


# --- moves whose visible result differs from the knights moved (R85, R85a) ---------------------------------

def test_marshlands_last_knight_vanishes_on_conquest() -> None:
    """A castle's last knight advancing into marshlands dies at once (p.7): the camera only sees the castle
    emptied, and that is explained as the advance, not reported as a discrepancy on the castle (R85)."""
    s = game(castles={R: 1, B: 6}, adjacency={**MAP, "K1": ("T11", "T01")})
    result = reconcile(s, _table(s, K1={}))
    assert result.actions == (A.Advance(R, "T11", 1),)
    assert not result.discrepancies
    # One knight of five: same picture, the castle one knight down and the marshlands still empty.
    s = game(castles={R: 5, B: 6}, adjacency={**MAP, "K1": ("T11", "T01")})
    assert reconcile(s, _table(s, K1={R: 4})).actions == (A.Advance(R, "T11", 1),)


def test_a_dying_knight_still_on_the_marshlands_is_reported_with_what_to_do() -> None:
    s = game(castles={R: 5, B: 6}, adjacency={**MAP, "K1": ("T11", "T01")})
    result = reconcile(s, _table(s, K1={R: 2}, T11={R: 3}))  # 3 advanced, nobody removed the dead one
    assert result.status == "discrepancy" and not result.actions
    (d,) = result.discrepancies
    assert d.location == "T11" and d.seen == {R: 3} and d.expected == {R: 2}
    assert "Red advanced 3 knights into Marshes of Brenne (T11)" in d.sentence
    assert "take 1 red knight off the map: it died conquering the marshlands (page 7)" in d.sentence
    # Once the knight is taken off, the same move is explained.
    assert reconcile(s, _table(s, K1={R: 2}, T11={R: 2})).actions == (A.Advance(R, "T11", 3),)


def test_a_village_knight_not_yet_in_the_castle_is_reported_with_what_to_do() -> None:
    s = game(castles={R: 5, B: 6}, adjacency={**MAP, "K1": ("T12", "T01")})
    result = reconcile(s, _table(s, K1={R: 2}, T12={R: 3}))
    (d,) = result.discrepancies
    assert d.location == "K1" and d.seen == {R: 2} and d.expected == {R: 3}
    assert "put 1 red knight there, for conquering the village (page 7)" in d.sentence
    assert reconcile(s, _table(s, K1={R: 3}, T12={R: 3})).actions == (A.Advance(R, "T12", 3),)


def test_call_to_arms_limited_by_dice_is_explained() -> None:
    """59 knights use all ten dice but one pip: call to arms places one knight, the other is lost (R22)."""
    s = game(castles={R: 59, B: 6}, hands={R: (CALL_TO_ARMS,)})
    assert reconcile(s, _table(s, K1={R: 60})).actions == (A.PlayCallToArms(R),)


@pytest.mark.parametrize(("cause", "words"), [
    ("cut-throat", "lost their line of supply and leave the map (cut-throat, page 14, R31)"),
    ("arena", "fell in the arena (page 7, R37)"),
    ("battle", "fell in the battle (order of battle, page 12)"),
    ("Orb of Brutality", "were lost to the Orb of Brutality"),
])
def test_knights_the_game_removed_but_the_table_still_shows(cause: str, words: str) -> None:
    """After a declared action (a battle, cut-throat) the app passes its events: knights the rules removed
    that are still on the table are reported with the cause, not as an unexplained difference (R85a)."""

    s = game(occupants={"T07": (R, 2)})
    lost = (KnightsLost(B, "T25", 2, cause),)
    result = reconcile(s, _table(s, T25={B: 2}), recent=lost)
    (d,) = result.discrepancies
    assert d.sentence.endswith(f"take 2 blue knights off the map: they {words})")
    # Without the events it is a plain discrepancy, and a count the events do not explain stays one.
    assert "caught up" not in reconcile(s, _table(s, T25={B: 2})).sentences()[0]
    assert "caught up" not in reconcile(s, _table(s, T25={B: 3}), recent=lost).sentences()[0]


def test_a_battle_the_table_has_not_caught_up_with() -> None:
    """After the app resolved a battle (here the saved example: red loses 10-10 on a tie), the camera still
    shows the fight: the losses and the retreat are spelt out per location (R85a)."""
    path = Path(__file__).resolve().parents[2] / "docs" / "scenarios" / "state-battle-halfway.json"
    s = state_from_json(json.loads(path.read_text(encoding="utf-8"))["start"]["state"])
    before = _table(s)
    after, events = apply(s, A.PlaySupport(R, ("C14",)))
    result = reconcile(after, before, recent=events)
    by_place = {d.location: d.sentence for d in result.discrepancies}
    assert set(by_place) == {"T28", "K1"}
    assert "take 1 red knight off the map: it fell in the battle" in by_place["T28"]
    assert "move 3 red knights from here to their castle: they retreat" in by_place["T28"]
    assert "move 3 red knights there: they retreat" in by_place["K1"]
    # The table caught up: nothing left to say.
    assert reconcile(after, _table(after), recent=events).matches

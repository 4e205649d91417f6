"""Scenario documents (docs/scenarios.md): setups, explicit positions, states, expectations, bad input."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine import actions as A
from engine.colours import Colour
from engine.errors import SaveError
from engine.save import state_to_json
from engine.scenario import load_scenario, parse_scenario, run
from engine.state import Knowledge, TurnStep

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "scenarios").glob("*.json"))
R, B = Colour.RED, Colour.BLUE


def _doc(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((ROOT / "docs" / "scenarios" / name).read_text(encoding="utf-8"))
    return doc


def test_there_are_examples() -> None:
    assert {p.name for p in EXAMPLES} >= {"battle-example.json", "fresh-setup.json", "table-game.json",
                                          "siege-in-progress.json", "camera-readings.json"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_meets_its_own_expectations(path: Path) -> None:
    scenario = load_scenario(path)
    results = list(run(scenario))
    assert results and all(not r.failures for r in results), [r.failures for r in results]
    assert scenario.expect is not None and scenario.expect.failures(results[-1].state) == []


def test_battle_example_page_13_replays_to_its_numbers() -> None:
    """Battle example (p.13): 6 knights into a city held by 5; final 14-12, the defender retreats 2."""
    scenario = load_scenario(ROOT / "docs" / "scenarios" / "battle-example.json")
    start = scenario.start
    assert dict(start.knights_at("T25")) == {B: 5} and start.players[R].castle == 8
    results = list(run(scenario))
    after_advance = results[0].state
    assert after_advance.combat_scores() == (6, 6)  # city: defender +1
    assert results[1].state.combat_scores() == (7, 6)  # sceptre of rage after the fracture
    assert results[3].state.combat_scores() == (12, 9)  # conflict cards 5 and 3
    assert results[5].state.combat_scores() == (12, 12)  # defender's +1 and +2
    final = results[-1].state
    assert final.battle is None
    assert dict(final.knights_at("T25")) == {R: 6}
    assert final.players[B].castle == 3 + 2  # two knights retreated
    assert final.players[R].castle == 2 + 1  # the city's extra knight
    assert final.players[B].artefact("A12") is not None
    assert not final.players[B].artefact("A12").face_up  # type: ignore[union-attr]


def test_setup_start_is_a_fresh_game() -> None:
    s = load_scenario(ROOT / "docs" / "scenarios" / "fresh-setup.json").start
    assert s.order == (R, B, Colour.YELLOW) and s.current is R and s.turn == 1
    assert s.step is TurnStep.PREPARE and s.knowledge is Knowledge.FULL


def test_position_sets_turn_step_cards_and_artefacts() -> None:
    doc = _doc("table-game.json")
    pos = doc["start"]["position"]
    pos["turn"] = {"player": "blue", "number": 8, "step": "follow_up", "crown_used": True}
    pos["artefacts"] = {"red": {"A03": "down", "A07": "up", "A13": "up"}, "blue": {"A04": "down_this_turn",
                                                                                  "A10": "up", "A16": "up"}}
    doc["actions"] = []
    del doc["expect"]
    s = parse_scenario(doc).start
    assert s.current is B and s.turn == 8 and s.step is TurnStep.FOLLOW_UP and s.crown_used
    assert not s.players[R].artefacts[0].face_up and s.players[R].artefacts[0].destroyed_on == 7
    assert s.players[B].artefacts[0].destroyed_on == 8
    assert s.players[B].hand_size == 4 and s.players[B].deck_size == 18 - 4 - 3
    assert [c for c, _ in s.players[B].discard] == ["C15", "C06", "C17"]


def test_position_deck_is_completed_from_the_seed() -> None:
    s = load_scenario(ROOT / "docs" / "scenarios" / "battle-example.json").start
    red = s.players[R]
    assert red.hand == ("C18", "C06", "C12", "C01", "C02")
    assert sorted(red.hand + red.deck) == [f"C{i:02d}" for i in range(1, 19)]


def test_state_start_round_trips_a_position() -> None:
    doc = _doc("battle-example.json")
    scenario = parse_scenario(doc)
    doc2 = copy.deepcopy(doc)
    doc2["start"] = {"state": state_to_json(scenario.start)}
    again = parse_scenario(json.loads(json.dumps(doc2)))
    a = [r.state.scores() for r in run(scenario)]
    b = [r.state.scores() for r in run(again)]
    assert a == b and all(not r.failures for r in run(again))


def test_camera_reading_steps() -> None:
    """Reading steps are reconciled (R80-R89): explained ones are applied, discrepancies change nothing."""
    scenario = load_scenario(ROOT / "docs" / "scenarios" / "camera-readings.json")
    results = list(run(scenario))
    assert [r.reconciliation.status for r in results if r.reconciliation] == [
        "actions", "actions", "actions", "discrepancy", "match"]
    assert results[0].reconciliation is not None
    assert results[0].reconciliation.actions == (A.Advance(R, "T07", 4),)
    assert results[1].state.current is B
    assert not results[3].verdict.ok and results[3].verdict.citation == "R83"
    assert state_to_json(results[3].state) == state_to_json(results[2].state)
    doc = _doc("camera-readings.json")
    doc["actions"][0]["reading"] = {"knights": {"K1": {"red": -3}}}
    doc["actions"][1]["expect"] = {"status": "maybe"}
    text = _problems(doc)
    assert "whole number >= 0" in text and "'status' must be" in text


def test_refused_action_changes_nothing() -> None:
    scenario = load_scenario(ROOT / "docs" / "scenarios" / "fresh-setup.json")
    results = list(run(scenario))
    assert not results[0].verdict.ok
    assert state_to_json(results[0].state) == state_to_json(scenario.start)


def test_battle_in_progress_from_a_position() -> None:
    s = load_scenario(ROOT / "docs" / "scenarios" / "siege-in-progress.json").start
    assert s.battle is not None and s.battle.siege and s.battle.attacker_knights == 6
    assert s.players[R].castle == 1
    assert s.combat_scores() == (6, 8)  # castle siege: the defender battles as though 8 knights (p.14)


def test_expectations_that_fail_are_reported() -> None:
    doc = _doc("battle-example.json")
    doc["actions"][-1]["expect"]["battle"]["margin"] = 3
    doc["expect"] = {"scores": {"red": 4}, "winner": "red"}
    scenario = parse_scenario(doc)
    results = list(run(scenario))
    assert results[-1].failures == ("expected battle result [14, 12, 3], got [14, 12, 2]",)
    assert scenario.expect is not None
    assert scenario.expect.failures(results[-1].state) == ["expected red to score 4, got 3",
                                                           "expected winner ['red'], got None"]


def _problems(doc: Any) -> str:
    with pytest.raises(SaveError) as info:
        parse_scenario(doc)
    return str(info.value)


def test_malformed_documents() -> None:
    good = _doc("battle-example.json")
    assert "JSON object" in _problems([])
    bad = copy.deepcopy(good)
    bad["version"] = 7
    bad["extra"] = True
    bad["actions"][0] = {"type": "teleport", "player": "red"}
    bad["actions"][1]["expect"] = {"accepted": "yes", "colour": 1}
    text = _problems(bad)
    for needle in ("newer", "'extra'", "unknown action type 'teleport'", "'accepted' must be true or false",
                   "unknown expectation 'colour'"):
        assert needle in text, (needle, text)
    bad = copy.deepcopy(good)
    bad["start"] = {"setup": {}, "state": {}}
    assert "'start' must be one of" in _problems(bad)


@pytest.mark.parametrize("change, needle", [
    ({"knights": {"L1": {"red": 2}}}, "not a territory or castle on this map"),
    ({"knights": {"T25": {"red": 2, "blue": 2}}}, "one player at a time"),
    ({"knights": {"K2": {"red": 2}}}, "only blue keeps knights"),
    ({"knights": {"T25": {"purple": 2}}}, "unknown colour 'purple'"),
    ({"knights": {"T25": {"green": 2}}}, "green is not playing"),
    ({"knights": {"T25": {"blue": -1}}}, "whole number >= 0"),
    ({"knights": {"T25": {"blue": 7}}}, "capacity"),
    ({"cards": {"red": {"hand": ["C18", "C18"]}}}, "more than once"),
    ({"cards": {"red": {"hand": ["C99"]}}}, "unknown card ids"),
    ({"turn": {"player": "red", "step": "dancing"}}, "'step' must be one of"),
    ({"artefacts": {"red": ["A01", "A02", "A15"], "blue": ["A03", "A12", "A14"]}}, "one crown, one sceptre"),
    ({"map": [[0, 0, "K1"], [5, 5, "T25"], [2, 0, "K2"]]}, "connected"),
    ({"battle": {"territory": "T13", "attacker": "red", "knights": 3}}, "starts no battle"),
    ({"battle": {"territory": "T25", "attacker": "blue", "knights": 3}}, "whose turn"),
    ({"battle": {"territory": "T25", "attacker": "red", "knights": 0}}, "must be >= 1"),
    ({"variant": {"castle_siege": "yes"}}, "castle_siege must be true or false"),
    ({"seed": "x"}, "'seed' must be an integer"),
    ({"colour": "red"}, "unknown key 'colour'"),
])
def test_impossible_positions(change: dict[str, Any], needle: str) -> None:
    doc = _doc("battle-example.json")
    doc["start"]["position"].update(change)
    assert needle in _problems(doc)


def test_knights_on_a_lake_of_the_map() -> None:
    doc = _doc("table-game.json")
    doc["start"]["position"]["knights"]["L1"] = {"red": 1}
    assert "a lake holds no knights" in _problems(doc)


def test_table_game_cannot_list_hands() -> None:
    doc = _doc("table-game.json")
    doc["start"]["position"]["cards"]["red"] = {"hand": ["C01"]}
    assert "does not know hands" in _problems(doc)


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(SaveError, match="cannot read"):
        load_scenario(tmp_path / "missing.json")
    trunc = tmp_path / "t.json"
    trunc.write_text((ROOT / "docs" / "scenarios" / "fresh-setup.json").read_text(encoding="utf-8")[:300],
                     encoding="utf-8")
    with pytest.raises(SaveError, match="truncated"):
        load_scenario(trunc)
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SaveError, match="UTF-8"):
        load_scenario(binary)


def test_actions_parse_into_engine_actions() -> None:
    scenario = load_scenario(ROOT / "docs" / "scenarios" / "battle-example.json")
    assert scenario.steps[0].action == A.Advance(R, "T25", 6)
    assert scenario.steps[-1].action == A.PlaySupport(R, ("C12",))


_VALUES: list[Any] = [None, True, 0, -1, 7, 1.5, "", "red", "K1", "T25", "x", [], [1], {}, {"a": 1}, ["red"],
                      [[0, 0, "K1"]], "C01", "A01"]


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.extend(_paths(v, (*prefix, i)))
    return out


def mutate(doc: Any, rng: Any) -> Any:
    """A copy of `doc` with one to three values replaced by junk or deleted."""
    d = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(d)
        if not paths:
            break
        path = rng.choice(paths)
        parent = d
        for p in path[:-1]:
            parent = parent[p]
        if rng.random() < 0.2:
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(_VALUES))
    return d


def test_mangled_scenarios_never_crash() -> None:
    """Bad input gets a SaveError (or a refused action), never another exception: 400 seeded mutations."""
    import random

    from engine.errors import EngineError

    rng = random.Random(2026)
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in EXAMPLES]
    for _ in range(400):
        doc = mutate(rng.choice(docs), rng)
        with contextlib.suppress(EngineError, ValueError):
            for _result in run(parse_scenario(doc)):
                pass

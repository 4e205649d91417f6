"""History (undo, rewind; the rulebook's 'rewind' note, p.12) and saved games (versioned JSON)."""

from __future__ import annotations

import json
import random

import pytest

from engine import actions as A
from engine.errors import EngineError, IllegalActionError, SaveError
from engine.history import History, Rewind
from engine.playout import random_playout
from engine.save import VERSION, dumps, load, loads, save, state_from_json
from engine.setup import Variant
from engine.state import GameState, Knowledge
from tests.engine.helpers import R, game


def played(
    seed: int = 5, players: int = 3, variant: Variant | None = None, knowledge: Knowledge = Knowledge.FULL
) -> History:
    p = random_playout(random.Random(seed), players, variant, knowledge, max_actions=150)
    h = History(p.initial)
    for a in p.actions:
        h.play(a)
    return h


def test_history_undo_one_step_restores_the_previous_state():
    h = played()
    before = h.entries[-2].state
    h.undo()
    assert h.state == before and len(h) == len(h.entries)


def test_history_rewind_to_any_earlier_event_and_the_log_stays_append_only():
    h = played()
    n = len(h)
    target = n // 2
    log_before = len(h.log)
    h.rewind_to(target)
    assert h.state == h.entries[-1].state and len(h) == target
    assert isinstance(h.log[-1], Rewind) and len(h.log) == log_before + 1
    assert len(h.log[-1].abandoned) == n - target
    h.rewind_to(0)
    assert h.state == h.initial


def test_history_refuses_bad_rewinds_and_illegal_actions():
    h = History(game())
    with pytest.raises(EngineError, match="nothing to undo"):
        h.undo()
    with pytest.raises(EngineError, match="cannot rewind to 3"):
        h.rewind_to(3)
    with pytest.raises(IllegalActionError):
        h.play(A.Advance(R, "T99", 1))
    assert len(h) == 0 and h.log == []


@pytest.mark.parametrize("knowledge", list(Knowledge))
def test_save_and_load_replays_to_an_identical_state(tmp_path, knowledge):
    h = played(9, 4, Variant(mayhem=True, cut_throat=True), knowledge)
    path = tmp_path / "game.json"
    save(h, path)
    again = load(path)
    assert again.state == h.state and again.actions() == h.actions()
    assert state_from_json(json.loads(json.dumps(h.state.to_json()))) == h.state


def test_save_of_a_hand_made_position_mid_battle():
    s = game(occupants={"T25": (R.__class__("blue"), 2)}, castles={R: 6, R.__class__("blue"): 1})
    h = History(s)
    h.play(A.Advance(R, "T25", 3))
    assert h.state.battle is not None
    assert loads(dumps(h)).state == h.state


def test_save_from_a_newer_version_is_refused():
    doc = json.loads(dumps(played()))
    doc["version"] = VERSION + 1
    with pytest.raises(SaveError, match="newer than this program"):
        loads(json.dumps(doc))


def test_save_truncated_file_is_refused(tmp_path):
    text = dumps(played())
    with pytest.raises(SaveError, match="truncated"):
        loads(text[: len(text) // 2])
    path = tmp_path / "cut.json"
    path.write_bytes(text.encode()[:100])
    with pytest.raises(SaveError, match="not valid JSON"):
        load(path)
    with pytest.raises(SaveError, match="cannot read"):
        load(tmp_path / "missing.json")


def test_save_malformed_documents_are_refused_with_specific_messages():
    doc = json.loads(dumps(played()))
    with pytest.raises(SaveError, match="format"):
        loads(json.dumps({**doc, "format": "something"}))
    with pytest.raises(SaveError, match="missing"):
        loads(json.dumps({k: v for k, v in doc.items() if k != "actions"}))
    bad_action = {**doc, "actions": [{"type": "advance", "player": "red"}]}
    with pytest.raises(SaveError, match="action 1 is malformed"):
        loads(json.dumps(bad_action))
    refused = {
        **doc,
        "actions": [{"type": "advance", "player": doc["initial"]["current"], "target": "T01", "knights": 99}],
    }
    with pytest.raises(SaveError, match="refused on replay"):
        loads(json.dumps(refused))
    broken = json.loads(json.dumps(doc))
    broken["initial"]["occupants"] = {"T99": ["red", 3]}
    with pytest.raises(SaveError, match="not a territory"):
        loads(json.dumps(broken))
    with pytest.raises(SaveError):
        loads("[]")


def test_state_to_json_is_plain_json():
    s: GameState = played().state
    assert json.loads(json.dumps(s.to_json())) == s.to_json()


def test_state_json_keeps_its_old_form_without_a_conflict_declaration():
    # R46 added PlayerState.conflict_bound: written only while a declaration is in force, so saves made
    # before it (and the app's stored states) still load and compare equal.
    s = game()
    doc = s.to_json()
    assert all("conflict_bound" not in p for p in doc["players"].values())
    assert state_from_json(doc) == s
    from dataclasses import replace

    red = replace(s.players[R], hand=(), hand_size=3, conflict_bound=1)
    declared = replace(s, players={**s.players, R: red})
    assert declared.to_json()["players"]["red"]["conflict_bound"] == 1

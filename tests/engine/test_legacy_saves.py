"""Saves written before the rules became data (issue 25) still load: whole games replay to the same end, and
states waiting for every kind of decision load and offer the same answers.

The documents in tests/engine/data/legacy/ were written by the engine on main at 41629ea (the commit in their
`made_by`): two saved games (a 4-player FULL game with mayhem and cut-throat, a 3-player TABLE game with
castle siege and skirmish) and one state per kind of decision the engine can wait for, with the legal actions
that engine listed there. They were made under the first edition of rulings R21 and R25 (docs/rulings.md),
which a game keeps for its whole life.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from engine import actions as A
from engine.rules import check, legal_actions
from engine.save import loads, state_from_json, state_to_json

LEGACY = Path(__file__).parent / "data" / "legacy"
EXPECTED = json.loads((LEGACY / "expected.json").read_text(encoding="utf-8"))["games"]
STATES = json.loads((LEGACY / "states.json").read_text(encoding="utf-8"))["states"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_game_saved_before_replays_to_the_same_end(name: str) -> None:
    history = loads((LEGACY / name).read_text(encoding="utf-8"))
    want = EXPECTED[name]
    s = history.state
    assert len(history) == want["actions"]
    assert [c.value for c in s.winner or ()] == want["winner"]
    assert {c.value: s.score(c) for c in s.order} == want["scores"]
    assert s.turn == want["turn"]


def _key(doc: dict[str, Any]) -> str:
    return "/".join(x for x in doc["key"] if x)


# Kinds the old `legal_actions` abbreviated (R24, R44): the old list is a part of what is legal now.
ABBREVIATED = {"redistribute", "roll_dice"}


@pytest.mark.parametrize("doc", STATES, ids=[_key(d) for d in STATES])
def test_a_state_saved_before_loads_and_offers_the_same_answers(doc: dict[str, Any]) -> None:
    state = state_from_json(doc["state"])
    old = [A.Action.from_json(a) for a in doc["legal"]]
    assert all(check(state, a).ok for a in old), [str(check(state, a)) for a in old if not check(state, a).ok]
    new = list(itertools.islice(iter(legal_actions(state)), 5000))
    assert all(check(state, a).ok for a in new)
    full = {a for a in old if a.TYPE not in ABBREVIATED}
    assert full == {a for a in new if a.TYPE not in ABBREVIATED}
    assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state

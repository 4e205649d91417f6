"""A game the app stored before the rules became data (issue 25) resumes: its actions replay under the rulings
it was started with, and each state stored beside an action (an older state document) still matches.

tests/engine/data/legacy/app-games.json holds what the app's database held for a 60-move TABLE game stored by
the app on main at 41629ea (its `made_by`): the game's config and every record."""

from __future__ import annotations

import json
from pathlib import Path

from companion.session import EngineSession
from companion.storage import SqliteStorage

LEGACY = Path(__file__).resolve().parents[1] / "engine" / "data" / "legacy" / "app-games.json"


def test_a_game_stored_by_the_app_before_resumes() -> None:
    game = json.loads(LEGACY.read_text(encoding="utf-8"))["games"]["table"]
    storage = SqliteStorage(":memory:")
    game_id = storage.create_game(game["config"], game["initial_state"])
    for rec in game["records"]:
        storage.append(game_id, rec["seq"], rec["action"], rec["words"], rec["state"])
    session = EngineSession.resume(storage, game_id)
    assert len(session.actions) == len(game["records"]) == 60
    assert [line.text for line in session.history()] == [rec["words"] for rec in game["records"]]
    assert session.state.battle is not None  # it stopped in a battle, waiting for support cards

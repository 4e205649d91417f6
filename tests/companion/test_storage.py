"""The game database: records in order, truncation, unfinished games, score history, settings, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.errors import StorageError
from companion.storage import SqliteStorage


def test_records_unfinished_and_truncate(tmp_path: Path) -> None:
    db = SqliteStorage(tmp_path / "g.sqlite3")
    gid = db.create_game(
        {"app": {"players": [{"colour": "red", "name": "Ann"}, {"colour": "blue", "name": "Bo"}]}},
        {"turn": 0},
    )
    for i in range(5):
        db.append(gid, i, {"type": "x", "i": i}, f"move {i}", {"turn": i})
    with pytest.raises(StorageError, match="already has a record #4"):
        db.append(gid, 4, {}, "again", {})
    [summary] = db.unfinished()
    assert summary.players == ("Ann", "Bo") and summary.moves == 5
    db.truncate(gid, 2)
    game = db.load(gid)
    assert [r.words for r in game.records] == ["move 0", "move 1"] and game.records[1].state == {"turn": 1}
    with pytest.raises(StorageError, match="no saved game"):
        db.load(999)


def test_score_history_and_settings(tmp_path: Path) -> None:
    db = SqliteStorage(tmp_path / "g.sqlite3")
    for scores, winners in (
        ({"red": 13, "blue": 7}, ["red"]),
        ({"red": 9, "blue": 13}, ["blue"]),
        ({"red": 14, "blue": 2}, ["red"]),
    ):
        gid = db.create_game({}, {})
        db.finish(gid, scores, {"red": "Ann", "blue": "Bo"}, winners)
    history = db.score_history()
    assert [(r.name, r.games, r.wins) for r in history] == [("Ann", 3, 2), ("Bo", 3, 1)]
    assert history[0].average_points == pytest.approx(12.0)
    assert db.unfinished() == []
    assert db.get_setting("language", "en") == "en"
    db.set_setting("language", "sv")
    assert SqliteStorage(tmp_path / "g.sqlite3").get_setting("language", "en") == "sv"


def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match="cannot open the game database"):
        SqliteStorage(bad)


def test_a_database_from_a_newer_app_is_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "new.sqlite3"
    SqliteStorage(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value='99' WHERE key='schema'")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="newer Seneschal"):
        SqliteStorage(path)


def test_a_folder_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="is a folder"):
        SqliteStorage(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_another_programs_sqlite_database_is_left_untouched(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "places.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE moz_places (id INTEGER)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StorageError, match="not a Seneschal game database"):
        SqliteStorage(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["places.sqlite"]

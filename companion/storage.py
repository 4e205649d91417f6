"""SQLite storage: every applied action is committed before the screen shows it, so killing the app at any
instant loses nothing (R90). One file in the user data directory (platformdirs), overridable for tests."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.errors import StorageError
from companion.services import GameSummary, PlayerRecord, SavedGame, SavedRecord

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    config TEXT NOT NULL,
    initial_state TEXT NOT NULL,
    finished TEXT,
    result TEXT
);
CREATE TABLE IF NOT EXISTS records (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    words TEXT NOT NULL,
    state TEXT NOT NULL,
    written TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def default_db_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("seneschal", appauthor=False)) / "seneschal.sqlite3"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SqliteStorage:
    """The app's `Storage`. Thread-safe (one connection guarded by a lock); synchronous=FULL so that a commit
    that returned survives a power cut, not just a killed process."""

    def __init__(self, path: Path | str | None = None) -> None:
        """`path`: the game database, created when missing (with its folders: the command line checks that
        a folder the user named exists); None: the user's, in the user data directory."""
        self.path = Path(path) if path is not None else default_db_path()
        where = str(self.path)
        if where != ":memory:":
            if self.path.is_dir():
                raise StorageError(f"cannot open the game database {where!r}: it is a folder")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
            tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and "meta" not in tables:  # never add our tables to another program's database
                self._db.close()
                raise StorageError(f"{where!r} is an SQLite database, but not a Seneschal game database")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"cannot open the game database {where!r}: {exc}") from exc
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) > SCHEMA_VERSION:
            raise StorageError(
                f"the game database {str(self.path)!r} is from a newer Seneschal (schema {row[0]}, "
                f"this version reads {SCHEMA_VERSION})"
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------------------------------- games

    def create_game(self, config: Mapping[str, Any], initial_state: Mapping[str, Any]) -> int:
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO games (started, config, initial_state) VALUES (?, ?, ?)",
                (_now(), json.dumps(config), json.dumps(initial_state)),
            )
            assert cur.lastrowid is not None
            return int(cur.lastrowid)

    def append(
        self, game_id: int, seq: int, action: Mapping[str, Any], words: str, state: Mapping[str, Any]
    ) -> None:
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, seq, json.dumps(action), words, json.dumps(state), _now()),
                )
            except sqlite3.IntegrityError as exc:
                raise StorageError(f"game {game_id} already has a record #{seq}: {exc}") from exc

    def truncate(self, game_id: int, keep: int) -> None:
        with self._lock:
            self._db.execute("DELETE FROM records WHERE game_id=? AND seq>=?", (game_id, keep))

    def load(self, game_id: int) -> SavedGame:
        with self._lock:
            row = self._db.execute(
                "SELECT config, initial_state FROM games WHERE id=?", (game_id,)
            ).fetchone()
            if row is None:
                raise StorageError(f"no saved game with id {game_id}")
            recs = self._db.execute(
                "SELECT seq, action, words, state FROM records WHERE game_id=? ORDER BY seq", (game_id,)
            ).fetchall()
        records = tuple(SavedRecord(int(s), json.loads(a), w, json.loads(st)) for s, a, w, st in recs)
        for i, rec in enumerate(records):
            if rec.seq != i:
                raise StorageError(f"game {game_id}: record #{i} is missing (found #{rec.seq})")
        return SavedGame(game_id, json.loads(row[0]), json.loads(row[1]), records)

    def unfinished(self) -> list[GameSummary]:
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.started, g.config, (SELECT COUNT(*) FROM records r WHERE r.game_id=g.id) "
                "FROM games g WHERE g.finished IS NULL ORDER BY g.id DESC"
            ).fetchall()
        out = []
        for gid, started, config, moves in rows:
            doc = json.loads(config)
            app = doc.get("app", doc)  # the app's new-game settings sit beside the engine's config
            players = tuple(str(p.get("name") or p.get("colour", "?")) for p in app.get("players", []))
            out.append(GameSummary(int(gid), str(started), players, int(moves)))
        return out

    def abandon(self, game_id: int) -> None:
        with self._lock:
            self._db.execute("UPDATE games SET finished=?, result='null' WHERE id=?", (_now(), game_id))

    def finish(
        self, game_id: int, scores: Mapping[str, int], names: Mapping[str, str], winners: Sequence[str]
    ) -> None:
        result = {"scores": dict(scores), "names": dict(names), "winners": list(winners)}
        with self._lock:
            self._db.execute(
                "UPDATE games SET finished=?, result=? WHERE id=?", (_now(), json.dumps(result), game_id)
            )

    def score_history(self) -> list[PlayerRecord]:
        with self._lock:
            rows = self._db.execute("SELECT result FROM games WHERE finished IS NOT NULL").fetchall()
        games: dict[str, list[int]] = {}
        wins: dict[str, int] = {}
        for (raw,) in rows:
            result = json.loads(raw) if raw else None
            if not result:
                continue
            for colour, points in result["scores"].items():
                name = result["names"].get(colour, colour)
                games.setdefault(name, []).append(int(points))
                if colour in result["winners"]:
                    wins[name] = wins.get(name, 0) + 1
        return sorted(
            (PlayerRecord(n, len(p), wins.get(n, 0), sum(p) / len(p)) for n, p in games.items()),
            key=lambda r: (-r.wins, -r.average_points, r.name),
        )

    # ---------------------------------------------------------------------------------------- settings

    def get_setting(self, key: str, default: str) -> str:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

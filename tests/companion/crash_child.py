"""Run as a subprocess by test_session: plays a seeded game through EngineSession, printing each stored move
number, and is killed by the parent at an arbitrary moment."""

from __future__ import annotations

import random
import sys

from companion.presenters.newgame import NewGamePresenter
from companion.session import EngineSession
from companion.storage import SqliteStorage
from engine.playout import choose


def main() -> None:
    db, seed = sys.argv[1], int(sys.argv[2])
    storage = SqliteStorage(db)
    session = EngineSession.create(NewGamePresenter(random.Random(seed)).config(), storage, knowledge="full")
    rng = random.Random(seed)
    print(f"game {session.game_id}", flush=True)
    while session.state.winner is None:
        session.apply(choose(session.state, rng))
        print(f"applied {len(session.actions)}", flush=True)


if __name__ == "__main__":
    main()

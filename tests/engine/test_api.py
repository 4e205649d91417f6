"""The package's re-exports (ENGINE-API): the names the app and vision import from `engine` itself."""

from __future__ import annotations

import importlib
import random

import engine
from engine import catalogue, hexgrid, maps, reading, rules


def test_reexports_are_the_modules_own_objects() -> None:
    assert engine.Hex is hexgrid.Hex
    assert engine.Board is maps.Board
    assert engine.default_board is maps.default_board
    assert engine.TableReading is reading.TableReading
    # The function shadows its module as an attribute of the package (as the API asks); the module itself is
    # still imported by its full name (`from engine.reconcile import ...`).
    assert engine.reconcile is importlib.import_module("engine.reconcile").reconcile
    assert engine.load_default_catalogue is catalogue.load_default_catalogue
    assert engine.load_box_catalogue is catalogue.load_box_catalogue
    assert engine.redistributions is rules.redistributions
    assert sorted(engine.__all__) == engine.__all__
    assert all(hasattr(engine, name) for name in engine.__all__)


def test_the_reexports_work_together() -> None:
    board = engine.default_board(4, engine.load_default_catalogue(), random.Random(3))
    assert isinstance(board.hex_of(board.castles[0]), engine.Hex)
    players = tuple(engine.PlayerConfig(c) for c in board.colours)
    state = engine.new_game(engine.GameConfig(players=players, board=board, seed=3))
    table = engine.TableReading(knights={loc: dict(state.knights_at(loc))
                                         for loc in (*state.data.territories, *state.data.castle_owner)})
    assert engine.reconcile(state, table).matches

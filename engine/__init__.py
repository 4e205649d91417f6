"""Seneschal's rules engine for Medieval Mastery: pure Python, standard library only.

Main entry points: `new_game(GameConfig(...))`, `legal_actions(state)`, `check(state, action)`, `apply(state,
action)`, `redistributions(state)` (every legal redistribution), `History` (undo, rewind, save/load) and
`random_playout` for simulations. Maps and components: `Hex`, `Board`, `default_board`,
`load_default_catalogue`, `load_box_catalogue`. The camera: `TableReading` and `reconcile`.
"""

from engine import speed
from engine.actions import ACTION_TYPES, Action
from engine.catalogue import load_box_catalogue, load_default_catalogue
from engine.colours import Colour
from engine.decisions import DECISION_TYPES, Decision, Need
from engine.errors import EngineError, IllegalActionError, SaveError, SetupError
from engine.events import EVENT_TYPES, Event
from engine.hexgrid import Hex
from engine.history import History
from engine.maps import Board, default_board
from engine.playout import random_playout
from engine.reading import TableReading
from engine.reconcile import reconcile
from engine.rules import apply, check, legal_actions, redistributions
from engine.setup import GameConfig, PlayerConfig, new_game, position
from engine.state import ArtefactHolding, Battle, DiceSource, GameState, Knowledge, TurnStep
from engine.variants import Variant
from engine.verdict import Reason, Verdict

# Records built on every action get a faster constructor (engine/speed.py; off: SENESCHAL_ENGINE_SPEED=0).
speed.install([*ACTION_TYPES.values(), *EVENT_TYPES.values(), *DECISION_TYPES.values(), ArtefactHolding])

__all__ = [
    "Action",
    "Battle",
    "Board",
    "Colour",
    "Decision",
    "DiceSource",
    "EngineError",
    "Event",
    "GameConfig",
    "GameState",
    "Hex",
    "History",
    "IllegalActionError",
    "Knowledge",
    "Need",
    "PlayerConfig",
    "Reason",
    "SaveError",
    "SetupError",
    "TableReading",
    "TurnStep",
    "Variant",
    "Verdict",
    "apply",
    "check",
    "default_board",
    "legal_actions",
    "load_box_catalogue",
    "load_default_catalogue",
    "new_game",
    "position",
    "random_playout",
    "reconcile",
    "redistributions",
]

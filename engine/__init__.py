"""Seneschal's rules engine for Medieval Mastery: pure Python, standard library only.

Main entry points: `new_game(GameConfig(...))`, `legal_actions(state)`, `check(state, action)`, `apply(state,
action)`, `redistributions(state)` (every legal redistribution), `History` (undo, rewind, save/load) and
`random_playout` for simulations.
"""

from engine.actions import Action
from engine.colours import Colour
from engine.errors import EngineError, IllegalActionError, SaveError, SetupError
from engine.events import Event
from engine.history import History
from engine.playout import random_playout
from engine.rules import apply, check, legal_actions, redistributions
from engine.setup import GameConfig, PlayerConfig, Variant, new_game, position
from engine.state import Battle, DiceSource, GameState, Knowledge, Need, Pending, TurnStep
from engine.verdict import Reason, Verdict

__all__ = [
    "Action",
    "Battle",
    "Colour",
    "DiceSource",
    "EngineError",
    "Event",
    "GameConfig",
    "GameState",
    "History",
    "IllegalActionError",
    "Knowledge",
    "Need",
    "Pending",
    "PlayerConfig",
    "Reason",
    "SaveError",
    "SetupError",
    "TurnStep",
    "Variant",
    "Verdict",
    "apply",
    "check",
    "legal_actions",
    "new_game",
    "position",
    "random_playout",
    "redistributions",
]

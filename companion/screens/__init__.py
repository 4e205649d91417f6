"""One module per screen (its layout in `companion/kv/<name>.kv`); `SCREENS` declares them, in order."""

from __future__ import annotations

from companion.screens.base import BaseScreen
from companion.screens.battle import BattleScreen
from companion.screens.boxsetup import BoxSetupScreen
from companion.screens.camera import CameraScreen
from companion.screens.dice import DiceScreen
from companion.screens.endgame import EndGameScreen
from companion.screens.history import HistoryScreen
from companion.screens.newgame import NewGameScreen
from companion.screens.referee import RefereeScreen
from companion.screens.settings import SettingsScreen
from companion.screens.start import StartScreen
from companion.screens.table import TableScreen

SCREENS: dict[str, type[BaseScreen]] = {
    "start": StartScreen,
    "boxsetup": BoxSetupScreen,
    "newgame": NewGameScreen,
    "table": TableScreen,
    "battle": BattleScreen,
    "referee": RefereeScreen,
    "history": HistoryScreen,
    "camera": CameraScreen,
    "dice": DiceScreen,
    "endgame": EndGameScreen,
    "settings": SettingsScreen,
}
# Screens without the score and navigation bars (no game on them).
OUTSIDE_GAME = frozenset({"start", "newgame", "boxsetup"})

__all__ = ["OUTSIDE_GAME", "SCREENS", "BaseScreen"]

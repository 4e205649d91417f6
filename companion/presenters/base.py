"""What every presenter shares: change notification for the (thin) screens that draw it."""

from __future__ import annotations

from collections.abc import Callable

from engine.colours import Colour

# Player colours are also told apart by a shape mark drawn next to them (never colour alone).
SHAPES: dict[Colour, str] = {
    Colour.RED: "circle",
    Colour.BLUE: "triangle",
    Colour.YELLOW: "square",
    Colour.GREEN: "diamond",
    Colour.WHITE: "star",
    Colour.BLACK: "cross",
}

NAV = ("table", "battle", "referee", "history", "camera", "dice", "settings")
NAV_TITLES = {
    "table": "Table",
    "battle": "Battle",
    "referee": "Referee",
    "history": "History",
    "camera": "Camera",
    "dice": "Dice",
    "settings": "Settings",
}


class Presenter:
    """Screens subscribe; presenters call `changed()` after every state change they make."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def changed(self) -> None:
        for listener in list(self._listeners):
            listener()

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

RGB: dict[Colour, tuple[float, float, float]] = {
    Colour.RED: (0.85, 0.16, 0.16),
    Colour.BLUE: (0.18, 0.40, 0.90),
    Colour.YELLOW: (0.96, 0.80, 0.15),
    Colour.GREEN: (0.15, 0.65, 0.30),
    Colour.WHITE: (0.95, 0.95, 0.92),
    Colour.BLACK: (0.12, 0.12, 0.14),
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

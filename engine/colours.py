"""Player colours. A player is identified by the colour of their castle, deck and dice."""

from __future__ import annotations

from enum import Enum

from engine.speed import identity_hash


@identity_hash
class Colour(Enum):
    RED = "red"
    BLUE = "blue"
    YELLOW = "yellow"
    GREEN = "green"
    WHITE = "white"
    BLACK = "black"

    def __repr__(self) -> str:
        return f"Colour.{self.name}"


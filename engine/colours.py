"""Player colours. A player is identified by the colour of their castle, deck and dice."""

from __future__ import annotations

from enum import Enum


class Colour(Enum):
    RED = "red"
    BLUE = "blue"
    YELLOW = "yellow"
    GREEN = "green"
    WHITE = "white"
    BLACK = "black"

    def __repr__(self) -> str:
        return f"Colour.{self.name}"


# Appended for speed (engine owners): `Enum.__hash__` hashes the member's name in Python code, and colours
# are the commonest dict keys on the rules' hot path. Members are singletons compared by identity, so the
# identity hash is equivalent (equal members, equal hashes) and runs in C. Set before any dict uses it.
Colour.__hash__ = object.__hash__  # type: ignore[method-assign]

"""The app's error taxonomy."""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every error the app raises on purpose."""


class StorageError(CompanionError):
    """The game database cannot be read or written as asked."""


class ServiceUnavailableError(CompanionError):
    """A service the app wanted (engine part, vision, roller) is not installed or failed to start."""


class RollNotTakenError(CompanionError):
    """The dice roller may have rolled (and shown) dice that the app never received: a timeout or unplug after
    the request left, or a restart mid-roll. The app must NOT roll anew on its own (that could make two rolls
    of one request); the players are told to roll again, and the driver is ready for it at once."""

    SENTENCE = "Roll not taken: roll again. The roller's display may show dice that do not count."

    def __init__(self, detail: str = "") -> None:
        self.detail = detail
        super().__init__(self.SENTENCE + (f" ({detail})" if detail else ""))

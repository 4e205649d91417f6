"""The engine's error taxonomy. Every message quotes the input it refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.verdict import Verdict


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class CatalogueError(EngineError, ValueError):
    """A component catalogue (default or an owner's box file) is invalid; `problems` lists every problem."""

    def __init__(self, problems: list[str], source: str = "catalogue") -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(f"{source}: {len(self.problems)} problem(s):\n  - " + "\n  - ".join(self.problems))


class MapError(EngineError, ValueError):
    """A map layout is not a playable Medieval Mastery map; `problems` lists every problem found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("map is not playable:\n  - " + "\n  - ".join(self.problems))


class IllegalActionError(EngineError, ValueError):
    """`apply` was given an action the rules refuse; carries the engine's verdict."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        super().__init__(str(verdict))


class SaveError(EngineError, ValueError):
    """A saved game or scenario document cannot be read (malformed, truncated, or from a newer version)."""


class ActionFormatError(EngineError, ValueError):
    """An action or event document is malformed: unknown type, missing or mistyped fields."""


class ReadingError(EngineError, ValueError):
    """A table reading (from the camera) is malformed: unknown ids, negative counts, bad colours."""


class SetupError(EngineError, ValueError):
    """A game cannot be set up as asked (player count, colours, teams, artefact deal); lists every problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("cannot set up the game:\n  - " + "\n  - ".join(self.problems))

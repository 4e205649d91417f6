"""Box setup (once per box, changeable later): confirm each territory's value and capacity against the owner's
tiles starting from the default guesses, print the sticker sheet, calibrate the players' dice colours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from companion.presenters.base import Presenter


@dataclass(frozen=True, slots=True)
class BoxRow:
    id: str
    name: str
    kind: str
    value: int
    capacity: int
    guessed: bool  # still our guess: the owner has not confirmed it


class BoxService(Protocol):
    def rows(self) -> list[BoxRow]: ...

    def save(self, document: Mapping[str, Any]) -> list[str]:
        """Validate and store a box document; returns every problem (empty when saved)."""
        ...

    def print_stickers(self) -> str:
        """Write the printable sticker sheet; returns its path."""
        ...

    def calibrate(self, colours: Sequence[str]) -> str:
        """Measure each player's die colour from the camera; returns a status sentence."""
        ...


LIMITS = {"value": (1, 3), "capacity": (1, 12)}


class BoxSetupPresenter(Presenter):
    def __init__(self, service: BoxService) -> None:
        super().__init__()
        self.service = service
        self._rows: list[BoxRow] = service.rows()
        self._original = {r.id: r for r in self._rows}
        self.status = ""
        self.problems: list[str] = []

    def rows(self) -> list[BoxRow]:
        return list(self._rows)

    def adjust(self, row_id: str, field_name: str, delta: int) -> None:
        lo, hi = LIMITS[field_name]
        self._rows = [
            replace(r, **{field_name: min(hi, max(lo, getattr(r, field_name) + delta)), "guessed": False})
            if r.id == row_id
            else r
            for r in self._rows
        ]
        self.changed()

    def confirm(self, row_id: str) -> None:
        """The tile matches the guess: tap to confirm, no typing."""
        self._rows = [replace(r, guessed=False) if r.id == row_id else r for r in self._rows]
        self.changed()

    def document(self) -> dict[str, Any]:
        entries = []
        for r in self._rows:
            o = self._original[r.id]
            entry: dict[str, Any] = {"id": r.id}
            if r.value != o.value:
                entry["value"] = r.value
            if r.capacity != o.capacity:
                entry["capacity"] = r.capacity
            if not r.guessed and o.guessed:
                entry["confirmed"] = [f for f in ("value", "capacity") if f not in entry]
            if len(entry) > 1:
                entries.append(entry)
        return {"format": "seneschal-box", "version": 1, "territories": entries}

    def save(self) -> bool:
        self.problems = self.service.save(self.document())
        self.status = "Saved." if not self.problems else f"{len(self.problems)} problem(s)"
        self.changed()
        return not self.problems

    def print_stickers(self) -> None:
        try:
            self.status = f"Sticker sheet: {self.service.print_stickers()}"
        except Exception as exc:  # shown, never a crash: vision may be missing on this tablet
            self.status = f"Cannot write the sticker sheet: {exc}"
        self.changed()

    def calibrate(self, colours: Sequence[str]) -> None:
        try:
            self.status = self.service.calibrate(colours)
        except Exception as exc:
            self.status = f"Calibration failed: {exc}"
        self.changed()

"""The real box-setup service: the engine's catalogue (default + the owner's box file), the sticker sheet from
`vision.sheet`, and the dice colours the camera measured (`companion.calibrate` over `vision.calibration`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.calibrate import (
    Calibrator,
    ColourState,
    DieSample,
    castle_colours,
    load_calibration,
    missing_colours,
)
from companion.presenters.boxsetup import BoxRow, CalibrationStatus
from engine.colours import Colour

# castles (tile id -> colour) -> ({colour: sample}, notes): the camera measures (`ProcessFeed.sample_dice`)
Sampler = Callable[[Mapping[str, Colour]], tuple[Mapping[Colour, DieSample], list[str]]]


class CatalogueBox:
    """`sampler` measures the dice on the castles in the camera's latest frame (None: no camera);
    `on_calibrated` receives the saved calibration's JSON so the running camera uses it at once."""

    def __init__(
        self,
        data_dir: Path,
        sampler: Sampler | None = None,
        on_calibrated: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.box_path = data_dir / "box.json"
        self.calibration_path = data_dir / "calibration.json"
        self.sampler = sampler
        self.on_calibrated = on_calibrated
        self.calibrator = Calibrator(self.calibration_path)

    def catalogue(self) -> Any:
        from engine.catalogue import load_box_catalogue, load_default_catalogue

        if self.box_path.exists():
            return load_box_catalogue(self.box_path)
        return load_default_catalogue()

    def rows(self) -> list[BoxRow]:
        cat = self.catalogue()
        return [
            BoxRow(t.id, t.name, t.kind.value, t.value, t.capacity, bool(t.guessed & {"value", "capacity"}))
            for t in cat.territories
        ]

    def save(self, document: Mapping[str, Any]) -> list[str]:
        from engine.catalogue import load_box_catalogue
        from engine.errors import CatalogueError

        try:
            load_box_catalogue(document)
        except CatalogueError as exc:
            return exc.problems
        self.data_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.box_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(dict(document), indent=2), encoding="utf-8")
        tmp.replace(self.box_path)
        return []

    def print_stickers(self) -> str:
        """Write the sticker sheet (PDF) of the box as saved next to the box file; returns its path. The same
        sheet as `seneschal tags OUT --catalogue BOX`, made by calling vision's writer directly."""
        import importlib

        sheet = importlib.import_module("vision.sheet")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        out = self.data_dir / "stickers.pdf"
        sheet.write_sheet(out, self.catalogue())
        return str(out)

    # ---------------------------------------------------------------------------------- dice colours

    def calibration_json(self) -> dict[str, Any] | None:
        """The saved calibration (vision's JSON) for the camera reader, or None (its defaults)."""
        cal = load_calibration(self.calibration_path)
        return None if cal is None else dict(cal.to_json())

    def unmeasured(self, colours: Sequence[Colour]) -> list[Colour]:
        """Of `colours`, those whose dice the saved calibration has no measured model of: a real camera asks
        about every one of their dice. None of them with no camera (nothing measures them, nothing asks)."""
        if self.sampler is None:
            return []
        try:
            saved = load_calibration(self.calibration_path)
        except ValueError:  # vision's CalibrationError: a damaged file names nobody's dice
            saved = None
        return missing_colours(saved, colours)

    def calibration_status(self, notes: tuple[str, ...] = ()) -> CalibrationStatus:
        reports = tuple(self.calibrator.reports())
        measured = tuple(r.colour.value for r in reports if r.state is ColourState.MEASURED)
        saved = tuple(r.colour.value for r in reports if r.state is ColourState.SAVED)
        problems = tuple(s for r in reports if r.state is ColourState.REFUSED for s in r.sentences)
        return CalibrationStatus(measured, notes, problems, saved, reports)

    def measure_dice(self) -> CalibrationStatus:
        """Blocking (a worker thread): measure the dice standing on the castles now."""
        if self.sampler is None:
            return CalibrationStatus(notes=("no camera: start the app with --camera to measure the dice",))
        found, notes = self.sampler(castle_colours(self.catalogue()))
        self.calibrator.add(found)
        return self.calibration_status(tuple(notes))

    def save_calibration(self) -> CalibrationStatus:
        """Save the colours measured well; a refused colour stays refused, with why (`Calibrator.savable`)."""
        problems = self.calibrator.check()
        if not self.calibrator.savable():
            status = self.calibration_status()
            return CalibrationStatus(status.measured, (), tuple(problems), (), status.reports)
        cal = self.calibrator.save()
        if self.on_calibrated is not None:
            self.on_calibrated(dict(cal.to_json()))
        return self.calibration_status()

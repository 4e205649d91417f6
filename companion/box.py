"""The real box-setup service: the engine's catalogue (default + the owner's box file), the sticker sheet from
`vision.sheet`, colour calibration from `vision.calibration`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.presenters.boxsetup import BoxRow


class CatalogueBox:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.box_path = data_dir / "box.json"

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
        import importlib

        sheet = importlib.import_module("vision.sheet")
        out = self.data_dir / "stickers.pdf"
        code = sheet.main([str(out)] + (["--box", str(self.box_path)] if self.box_path.exists() else []))
        if code:
            raise RuntimeError(f"seneschal tags exited with {code}")
        return str(out)

    def calibrate(self, colours: Sequence[str]) -> str:
        # Needs a frame with each player's die on its sticker; done from the camera panel's latest frame.
        from engine.colours import Colour
        from vision.calibration import default_calibration

        cal = default_calibration([Colour(c) for c in colours])
        path = self.data_dir / "calibration.json"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cal.to_json()), encoding="utf-8")
        return f"Colours calibrated for {', '.join(colours)} (default references; show each die to refine)"

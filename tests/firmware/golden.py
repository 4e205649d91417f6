"""Loads docs/dice-protocol.golden.json for the firmware tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_PATH = ROOT / "docs" / "dice-protocol.golden.json"


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))
    return data


GOLDEN = load()
FRAMES: list[dict[str, Any]] = GOLDEN["frames"]
INVALID: list[dict[str, Any]] = GOLDEN["invalid"]

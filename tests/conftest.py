"""Test-wide setup. Kivy reads its environment at import time, so this runs before any test imports it."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
SHARED = ROOT.parent / "shared"

os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ.setdefault("KIVY_WINDOW", "sdl2")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
# The map reader stops refining a frame after a time budget (for a live camera); tests judge accuracy, which
# must not depend on how loaded the machine is. Subprocesses (the app's camera process) inherit this.
os.environ.setdefault("SENESCHAL_REFINE_BUDGET_MS", "inf")
os.environ.setdefault("KIVY_HOME", str(ARTIFACTS / "kivy-home"))
Path(os.environ["KIVY_HOME"]).mkdir(parents=True, exist_ok=True)

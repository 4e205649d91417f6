"""The scenario examples in docs/scenarios/ (issue 3 "Scenarios and a CLI"): each runs through the installed
`seneschal referee` command and exits 0, and the `state` example is an exact engine state."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.save import state_from_json, state_to_json
from engine.state import Need

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "docs" / "scenarios"
EXAMPLES = sorted(SCENARIOS.glob("*.json"))


def _seneschal() -> list[str]:
    """The `seneschal` console script next to this interpreter (the project is installed editable), else the
    same entry point run as a module."""
    script = Path(sys.executable).with_name("seneschal")
    return [str(script)] if script.exists() else [sys.executable, "-m", "companion"]


def test_there_are_examples_including_a_state_start() -> None:
    starts = {next(iter(json.loads(p.read_text(encoding="utf-8"))["start"])) for p in EXAMPLES}
    assert starts == {"setup", "position", "state"}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_runs_through_seneschal_referee(path: Path) -> None:
    done = subprocess.run([*_seneschal(), "referee", str(path)], capture_output=True, text=True, timeout=60,
                          check=False, cwd=ROOT)
    assert done.returncode == 0, (path.name, done.stderr, done.stdout[-2000:])
    lines: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert lines and lines[-1]["final"] is True
    assert not any("expectation_failed" in line for line in lines)


def test_the_state_example_is_an_exact_engine_state() -> None:
    doc = json.loads((SCENARIOS / "state-battle-halfway.json").read_text(encoding="utf-8"))
    saved = doc["start"]["state"]
    state = state_from_json(saved)
    assert state_to_json(state) == saved  # written by engine.save, not by hand
    assert state.battle is not None and state.battle.revealed
    assert state.pending and state.pending[0].need is Need.SUPPORT

"""`seneschal referee SCENARIO.json` (issue 3 "Scenarios and a CLI")."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "docs" / "scenarios"


def _run(argv: list[str], stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None
         ) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv, out=out, err=err)
    lines = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    return code, lines, err.getvalue()


def test_battle_example_prints_one_line_per_action_and_the_scores() -> None:
    code, lines, err = _run([str(SCENARIOS / "battle-example.json")])
    assert code == 0 and err == ""
    *steps, final = lines
    assert [s["index"] for s in steps] == list(range(1, 8))
    assert steps[4]["accepted"] is False and steps[4]["reason"] == "not_your_decision"
    assert steps[4]["sentence"] and steps[4]["citation"] and steps[4]["events"] == []
    battle = steps[6]["battle"]
    assert battle == {"winner": "red", "loser": "blue", "attacker_score": 14, "defender_score": 12,
                      "margin": 2}
    assert any(e["type"] == "retreated" and e["count"] == 2 for e in steps[6]["events"])
    assert final == {"final": True, "scores": {"red": 3, "blue": 0}, "winner": None, "turn": 5,
                     "current": "red", "step": "follow_up"}


def test_every_example_exits_zero() -> None:
    for path in sorted(SCENARIOS.glob("*.json")):
        code, lines, err = _run([str(path)])
        assert code == 0, (path.name, err, [x.get("expectation_failed") for x in lines])
        assert lines[-1]["final"] is True


def test_strict_fails_on_a_refused_action() -> None:
    code, _lines, _err = _run(["--strict", str(SCENARIOS / "fresh-setup.json")])
    assert code == 1


def test_failed_expectation_exits_one(tmp_path: Path) -> None:
    doc = json.loads((SCENARIOS / "battle-example.json").read_text(encoding="utf-8"))
    doc["expect"]["scores"]["red"] = 9
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, lines, _err = _run([str(path)])
    assert code == 1 and lines[-1]["expectation_failed"] == ["expected red to score 9, got 3"]


def test_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (SCENARIOS / "fresh-setup.json").read_text(encoding="utf-8")
    code, lines, _err = _run(["-"], stdin=text, monkeypatch=monkeypatch)
    assert code == 0 and lines[-1]["scores"] == {"red": 3, "blue": 2, "yellow": 1}
    code, lines, err = _run(["-"], stdin="{nope", monkeypatch=monkeypatch)
    assert code == 2 and lines == [] and "standard input is not valid JSON" in err


@pytest.mark.parametrize("content, needle", [
    ("", "not valid JSON"),
    ('{"format": "seneschal-scenario", "version": 1, "start": {"setup": {"players": ["red",', "truncated"),
    ('{"format": "seneschal-scenario", "version": 2, "start": {}, "actions": []}', "newer"),
    ('{"format": "seneschal-game", "version": 1}', "'format' must be"),
    ('{"format": "seneschal-scenario", "version": 1, "start": {"setup": {"players": ["red", "red"]}}, '
     '"actions": []}', "own colour"),
    ('{"format": "seneschal-scenario", "version": 1, "start": {"setup": {"players": ["red", "blue"]}}, '
     '"actions": [{"type": "advance", "player": "red", "target": "T07", "knights": "lots"}]}', "action 1"),
    ('{"format": "seneschal-scenario", "version": 1, "start": {"state": {"format": "seneschal-state", '
     '"version": 1}}, "actions": []}', "missing"),
])
def test_malformed_input_is_a_clear_error_with_exit_2(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    code, lines, err = _run([str(path)])
    assert code == 2 and lines == []
    assert needle in err and "Traceback" not in err
    assert err.startswith("seneschal referee: ")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["a.json", "--frobnicate"]) == 2
    assert "see `seneschal referee --help`" in capsys.readouterr().err
    code, _lines, err = _run([str(SCENARIOS / "no-such-file.json")])
    assert code == 2 and "cannot read scenario" in err


def test_wired_as_seneschal_referee() -> None:
    """The installed command dispatches `referee` to engine.cli.main (companion/cli.py)."""
    example = str(SCENARIOS / "battle-example.json")
    proc = subprocess.run([sys.executable, "-m", "companion", "referee", example], capture_output=True,
                          text=True, timeout=60, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["scores"] == {"red": 3, "blue": 0}
    proc = subprocess.run([sys.executable, "-m", "companion", "referee", "/nonexistent/x.json"],
                          capture_output=True, text=True, timeout=60, check=False, cwd=ROOT)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""


def test_pretty_output_is_indented_json() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["--pretty", str(SCENARIOS / "fresh-setup.json")], out=out, err=err) == 0
    text = out.getvalue()
    assert text.startswith("{\n  \"index\": 1") and '"final": true' in text

"""The headless pipeline: script → table → frames → reading → reconciliation → engine → storage."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from companion.pipeline import Replayer, TruthReader, load_script, make_script, replay
from companion.replay import main
from companion.storage import SqliteStorage


def fast_render(spec: Any, seed: int) -> tuple[Any, Any]:
    """The renderer's contract without the pixels: ground truth straight from the scene spec."""
    truth = SimpleNamespace(
        tiles=dict(spec.tiles),
        knights={k: dict(v) for k, v in spec.knights.items()},
        artefacts=dict(spec.artefacts),
    )
    return np.zeros((16, 16, 3), np.uint8), truth


class DroppingReader(TruthReader):
    """Misreads: from frame `after` on, one knight disappears from the busiest location."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after

    def read(self, image: Any, frame_index: int) -> Any:
        result = super().read(image, frame_index)
        if frame_index >= self.after:
            from engine.reading import TableReading

            r = result.reading
            knights = {k: dict(v) for k, v in r.knights.items()}
            loc = max(knights, key=lambda k: sum(knights[k].values()))
            colour = next(iter(knights[loc]))
            knights[loc][colour] -= 1
            result.reading = TableReading(
                tiles=dict(r.tiles), knights=knights, artefacts=dict(r.artefacts), frame_index=frame_index
            )
        return result


def test_replay_agrees_with_the_script_and_stores_every_move(tmp_path: Path) -> None:
    script = make_script(seed=7, moves=120)
    storage = SqliteStorage(tmp_path / "r.sqlite3")
    out = io.StringIO()
    code = replay(script, storage, out, reader=TruthReader(), renderer=fast_render)
    text = out.getvalue()
    assert code == 0, text
    assert "[camera]" in text and "[tap   ]" in text and "final scores:" in text
    assert "0 disagreement(s)" in text
    game = storage.unfinished()[0] if storage.unfinished() else None
    assert game is not None and game.moves == 120 == len(script.actions)


def test_replay_exits_non_zero_when_the_camera_disagrees(tmp_path: Path) -> None:
    script = make_script(seed=7, moves=30)
    out = io.StringIO()
    code = replay(
        script,
        SqliteStorage(tmp_path / "r.sqlite3"),
        out,
        reader=DroppingReader(after=6),
        renderer=fast_render,
    )
    assert code == 1
    assert "DISAGREES" in out.getvalue()


def test_replay_each_step_reports_how_it_was_entered(tmp_path: Path) -> None:
    rep = Replayer(
        make_script(seed=3, moves=25),
        SqliteStorage(tmp_path / "r.sqlite3"),
        reader=TruthReader(),
        renderer=fast_render,
    )
    rep.settle()
    reports = list(rep.steps())
    assert all(r.ok for r in reports)
    assert {r.via for r in reports} == {"camera", "tap"}
    assert all(r.action != "play_conflict" or r.via == "tap" for r in reports)  # cards are never guessed


def test_replay_with_the_synthetic_renderer(tmp_path: Path) -> None:
    pytest.importorskip("vision.synth")
    script = make_script(seed=7, moves=6)
    out = io.StringIO()
    assert replay(script, SqliteStorage(tmp_path / "r.sqlite3"), out, reader=TruthReader()) == 0, (
        out.getvalue()
    )


def test_replay_with_vision(tmp_path: Path) -> None:
    for part in ("vision.dice", "vision.mapreader", "vision.knights"):
        pytest.importorskip(part)
    script = make_script(seed=7, moves=8)
    out = io.StringIO()
    code = replay(script, SqliteStorage(tmp_path / "r.sqlite3"), out)
    assert code == 0, out.getvalue()


def test_script_files_round_trip_and_bad_ones_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.json"
    assert main(["--write-script", str(path), "--moves", "5"]) == 0
    script = load_script(path)
    assert len(script.actions) == 5 and script.config.players[0].name == "Ann"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "nope"}))
    assert main(["--headless", str(bad)]) == 2
    assert "not a Seneschal demo script" in capsys.readouterr().err
    bad.write_text("{")
    assert main(["--headless", str(bad)]) == 2
    assert main([str(path)]) == 2  # only --headless exists

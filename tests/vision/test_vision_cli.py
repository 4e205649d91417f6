"""`seneschal vision`: JSON out, annotated --show, bad input -> a clear message and exit 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from vision.cli import main
from vision.synth import GroundTruth, SceneSpec, TrueDie, render_scene

LAYOUT = {Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "K1", Hex(-1, 1): "T03"}
KNIGHTS = {"K1": {Colour.RED: 7}, "T01": {Colour.RED: 2}, "T02": {Colour.BLUE: 4}}


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GroundTruth]:
    image, truth = render_scene(SceneSpec(LAYOUT, KNIGHTS, {"A03": True}, layout_seed=2), 2)
    path = tmp_path_factory.mktemp("cli") / "table.png"
    cv2.imwrite(str(path), image)
    return path, truth


@pytest.fixture
def table_png(scene: tuple[Path, GroundTruth], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CLI's plumbing is under test here: the dice finder is the renderer's truth (the real one is tested
    in tests/vision/test_pipeline.py and test_dice*.py)."""
    import vision.knights

    path, truth = scene

    def read(image: np.ndarray, region: object = None, calibration: object = None) -> list[TrueDie]:
        return [TrueDie(d.box, d.value) for d in truth.dice]  # whole-die boxes, as vision.dice reports

    monkeypatch.setattr(vision.knights, "default_dice_reader", lambda: read)
    return path


def test_an_image_prints_the_reading_and_show_writes_the_annotated_frame(
    table_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "annotated.png"
    assert main([str(table_png), "--show", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "ok"
    reading = doc["reading"]
    assert sorted(t[2] for t in reading["tiles"]) == ["K1", "T01", "T02", "T03"]
    assert reading["knights"] == {"K1": {"red": 7}, "T01": {"red": 2}, "T02": {"blue": 4}}
    assert reading["artefacts"] == {"A03": True}
    shown = cv2.imread(str(out))
    assert shown is not None and shown.shape == cv2.imread(str(table_png)).shape


def test_a_video_is_read_frame_by_frame(
    table_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = cv2.imread(str(table_png))
    video = tmp_path / "table.avi"
    size = (frame.shape[1], frame.shape[0])
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, size)
    for _ in range(4):
        writer.write(frame)
    writer.release()
    assert main([str(video), "--every", "--hold", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["frame_index"] for d in lines] == [0, 1, 2, 3]
    assert lines[0]["reading"]["knights"] == {}
    assert lines[-1]["reading"]["knights"] == {"K1": {"red": 7}, "T01": {"red": 2}, "T02": {"blue": 4}}


def test_a_black_frame_reads_but_holds_no_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "black.png"
    cv2.imwrite(str(path), np.zeros((480, 640, 3), np.uint8))
    assert main([str(path)]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "no signal"
    assert "no signal" in captured.err


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (None, ["/nonexistent/table.png"], "no such file"),
        ("garbage.png", [], "not a readable image"),
        ("empty-dir", [], "holds no images"),
        ("junk.mp4", [], "cannot open"),
        ("ok.png", ["--calibration", "/nonexistent/cal.json"], "cal.json"),
        ("ok.png", ["--hold", "0"], "--hold"),
        ("ok.png", ["--decoder", "opencv"], "invalid choice"),
    ],
)
def test_bad_input_gives_a_clear_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: str | None, args: list[str], message: str
) -> None:
    argv = list(args)
    if make is not None:
        target = tmp_path / make
        if make == "empty-dir":
            target.mkdir()
        elif make == "ok.png":
            cv2.imwrite(str(target), np.full((64, 64, 3), 200, np.uint8))
        else:
            target.write_bytes(b"not what the name says" * 20)
        argv = [str(target), *argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_dice_subcommand_without_the_dice_reader_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "vision.dice", None)  # import fails as if not installed
    assert main(["dice", "photo.jpg"]) == 2
    assert "dice reader is not available" in capsys.readouterr().err


def test_dice_subcommand_is_v3s(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.dice as vision_dice

    calls: list[list[str]] = []
    monkeypatch.setattr(vision_dice, "dice_main", lambda argv: calls.append(argv) or 0)
    assert main(["dice", "photo.jpg", "--show", "out.png"]) == 0
    assert calls == [["photo.jpg", "--show", "out.png"]]

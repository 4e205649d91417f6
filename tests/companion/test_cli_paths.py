"""Every `seneschal` command given bad input, as a tester would: one clear line on stderr naming the problem,
exit code 2 (1 where the input was read but holds nothing), never a traceback, never a hang, never a silently
wrong value, and nothing created that was not asked for."""

from __future__ import annotations

import io
import json
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from companion import cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "docs" / "scenarios"


def _script(**change: object) -> str:
    from companion.pipeline import make_script

    doc = make_script(7, 3).to_json()
    doc.update(change)
    return json.dumps(doc)


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files a tester would throw at the commands."""
    import cv2

    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(1)
    cv2.imwrite(str(d / "table.png"), rng.integers(0, 255, (240, 320, 3), dtype=np.uint8))
    (d / "fake.png").write_bytes(b"\x89PNG not really")
    (d / "corrupt.mp4").write_bytes(rng.integers(0, 255, 4000, dtype=np.uint8).tobytes())
    (d / "notsqlite.txt").write_text("hello\n")
    (d / "bad.json").write_text('{"a":')
    (d / "notscript.json").write_text('{"a": 1}')
    (d / "empty.json").write_text("")
    (d / "adir").mkdir()
    (d / "emptydir").mkdir()
    for name in ("fresh-setup.json", "battle-example.json"):
        (d / name).write_text((SCENARIOS / name).read_text(encoding="utf-8"), encoding="utf-8")
    db = sqlite3.connect(d / "foreign.sqlite")
    db.execute("CREATE TABLE moz_places (id INTEGER)")
    db.commit()
    db.close()
    (d / "v2.json").write_text(json.dumps({"format": "seneschal-demo-script", "version": 2}))
    (d / "nogame.json").write_text(_script(game={}))
    (d / "badgame.json").write_text(_script(game={"players": 5}))
    (d / "badaction.json").write_text(_script(actions=[{"type": "bogus"}]))
    (d / "notactions.json").write_text(_script(actions="x"))
    (d / "listaction.json").write_text(_script(actions=[[1]]))
    return d


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# (argv, exit code, a piece of the one line on stderr). `M` stands for a folder that does not exist.
CASES: list[tuple[list[str], int, str]] = [
    # the dispatcher
    ([], 2, "usage: seneschal COMMAND"),
    (["bogus"], 2, "unknown command 'bogus'"),
    ([""], 2, "unknown command ''"),
    # demo: every bad value is refused before a window opens
    (["demo", "--size", "abc"], 2, "WIDTHxHEIGHT"),
    (["demo", "--size", "0x0"], 2, "0x0 cannot be shown"),
    (["demo", "--size", "99999x99999"], 2, "99999x99999 cannot be shown"),
    (["demo", "--size", "1280x"], 2, "'1280x'"),
    (["demo", "--size", "1280x800x3"], 2, "'1280x800x3'"),
    (["demo", "--size=-1280x800"], 2, "WIDTHxHEIGHT"),
    (["demo", "--seed", "abc"], 2, "--seed"),
    (["demo", "--pause=-1"], 2, "seconds must be from 0 to 60"),
    (["demo", "--pause", "nan"], 2, "seconds must be from 0 to 60"),
    (["demo", "--pause", "inf"], 2, "seconds must be from 0 to 60"),
    (["demo", "--pause", "61"], 2, "seconds must be from 0 to 60"),
    (["demo", "--pause", "soon"], 2, "a number of seconds"),
    (["demo", "--lang", "de"], 2, "invalid choice: 'de'"),
    (["demo", "extra"], 2, "unrecognized arguments: extra"),
    (["demo", "--exit-after=-1"], 2, "seconds must be"),
    (["demo", "--screenshot", "M/x.png"], 2, "does not exist"),
    # app
    (["app", "--db", "adir"], 2, "'adir' is a folder"),
    (["app", "--db", "notsqlite.txt"], 2, "not an SQLite file"),
    (["app", "--db", "M/x.db"], 2, "does not exist"),
    (["app", "--db", ""], 2, "an empty file name"),
    (["app", "--db", "foreign.sqlite"], 2, "not a Seneschal game database"),
    (["app", "--size", "abc"], 2, "WIDTHxHEIGHT"),
    (["app", "--size", "100x100"], 2, "100x100 cannot be shown"),
    (["app", "--camera", "M/table.mp4"], 2, "no such camera, video, image or folder"),
    (["app", "--camera", ""], 2, "no such camera"),
    (["app", "--roller", "/dev/ttyACM0", "--no-roller"], 2, "not allowed with argument --roller"),
    (["app", "--exit-after", "nan"], 2, "seconds must be"),
    # replay
    (["replay"], 2, "only --headless is supported"),
    (["replay", "--headless", "table.png"], 2, "not a text file"),
    (["replay", "--headless", "missing.json"], 2, "No such file"),
    (["replay", "--headless", "bad.json"], 2, "not valid JSON"),
    (["replay", "--headless", "notscript.json"], 2, "not a Seneschal demo script"),
    (["replay", "--headless", "empty.json"], 2, "not valid JSON"),
    (["replay", "--headless", "adir"], 2, "Is a directory"),
    (["replay", "--headless", "v2.json"], 2, "unsupported script version 2"),
    (["replay", "--headless", "nogame.json"], 2, "lacks the field 'players'"),
    (["replay", "--headless", "badgame.json"], 2, "wrong shape"),
    (["replay", "--headless", "badaction.json"], 2, "unknown action type 'bogus'"),
    (["replay", "--headless", "notactions.json"], 2, "an action is a JSON object"),
    (["replay", "--headless", "listaction.json"], 2, "an action is a JSON object"),
    (["replay", "--headless", "--db", "adir"], 2, "'adir' is a folder"),
    (["replay", "--headless", "--db", "notsqlite.txt"], 2, "not an SQLite file"),
    (["replay", "--headless", "--db", "foreign.sqlite"], 2, "not a Seneschal game database"),
    (["replay", "--headless", "--db", "M/x.db"], 2, "does not exist"),
    (["replay", "--write-script", "M/s.json"], 2, "does not exist"),
    (["replay", "--write-script", "adir"], 2, "'adir' is a folder"),
    (["replay", "--write-script", ""], 2, "an empty file name"),
    (["replay", "--headless", "--write-script", "s.json"], 2, "does not take --headless"),
    (["replay", "--write-script", "s.json", "--db", "g.db"], 2, "does not take --db"),
    (["replay", "--headless", "--moves=-5"], 2, "at least 1"),
    (["replay", "--headless", "--moves", "0"], 2, "at least 1"),
    (["replay", "--headless", "--moves", "abc"], 2, "at least 1"),
    (["replay", "--headless", "--seed", "abc"], 2, "--seed"),
    (["replay", "--headless", "--reader", "bogus"], 2, "invalid choice: 'bogus'"),
    (["replay", "--headless", "fresh-setup.json", "--moves", "3"], 2, "cannot change a script file"),
    # referee
    (["referee"], 2, "the following arguments are required"),
    (["referee", "missing.json"], 2, "cannot read scenario 'missing.json'"),
    (["referee", "table.png"], 2, "not UTF-8 text"),
    (["referee", "adir"], 2, "Is a directory"),
    (["referee", "bad.json"], 2, "bad.json"),
    (["referee", "-", "-"], 2, "read only once"),
    (["referee", "--bogus", "fresh-setup.json"], 2, "unrecognized arguments: --bogus"),
    # vision
    (["vision"], 2, "the following arguments are required: input"),
    (["vision", ""], 2, "no input given"),
    (["vision", "missing.png"], 2, "no such file or folder"),
    (["vision", "fake.png"], 2, "not a readable image"),
    (["vision", "emptydir"], 2, "holds no images"),
    (["vision", "corrupt.mp4"], 2, "cannot open 'corrupt.mp4'"),
    (["vision", "table.png", "--hold", "0"], 2, "at least 1 is needed, got 0"),
    (["vision", "table.png", "--hold=-3"], 2, "at least 1"),
    (["vision", "table.png", "--frames=-1"], 2, "at least 1"),
    (["vision", "table.png", "--decoder", "bogus"], 2, "invalid choice: 'bogus'"),
    (["vision", "table.png", "--calibration", "missing.json"], 2, "cannot read colour calibration"),
    (["vision", "table.png", "--calibration", "bad.json"], 2, "not JSON"),
    (["vision", "table.png", "--calibration", "adir"], 2, "cannot read colour calibration"),
    (["vision", "table.png", "--show", "M/out.png"], 2, "its folder does not exist"),
    (["vision", "dice", "table.png", "--die-px", "1e9"], 2, "--die-px must be from 4 to 240"),
    (["vision", "dice", "table.png", "--die-px", "0"], 2, "--die-px must be from 4"),
    (["vision", "dice", "table.png", "--die-px=-5"], 2, "--die-px must be from 4"),
    (["vision", "dice", "table.png", "--die-px", "nan"], 2, "--die-px must be from 4"),
    (["vision", "dice", "table.png", "--die-px", "inf"], 2, "--die-px must be from 4"),
    (["vision", "dice", "table.png", "--die-px", "abc"], 2, "invalid float value"),
    (["vision", "dice", "missing.png"], 2, "cannot read an image"),
    (["vision", "dice"], 2, "the following arguments are required: image"),
    # tags
    (["tags", "M/out.pdf"], 2, "cannot write"),
    (["tags", "out.txt"], 2, "must end in .pdf or .png"),
    (["tags", "--dpi", "0"], 2, "--dpi must be 150..1200"),
]


def _case_id(case: tuple[list[str], int, str]) -> str:
    return " ".join(a if a else '""' for a in case[0]) or "(nothing)"


@pytest.fixture
def in_fx(fx: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(fx)

    def no_window(*_a: object) -> None:
        raise AssertionError("the command got as far as opening a window")

    monkeypatch.setattr("companion.demo._kivy_env", no_window)
    yield fx


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_bad_input_gets_one_clear_line(
    in_fx: Path, case: tuple[list[str], int, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv, code, needle = case
    missing = in_fx / "missing-folder"
    argv = [a.replace("M/", f"{missing}/") if a.startswith("M/") else a for a in argv]
    before = _tree(in_fx)
    assert cli.main(argv) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    if argv:  # with no command at all, the usage is the answer
        assert len(lines) == 1, err
    assert needle in err, err
    assert _tree(in_fx) == before, "the command created files it was not asked for"
    assert not missing.exists()


@pytest.mark.parametrize(
    "stdin,needle",
    [("", "not valid JSON"), ('{"a":', "not valid JSON"), ("[1, 2]", "scenario")],
    ids=["empty", "truncated", "not a scenario"],
)
def test_referee_reads_bad_standard_input(
    stdin: str, needle: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert cli.main(["referee", "-"]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_referee_takes_several_scenarios_like_a_glob(in_fx: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["referee", "fresh-setup.json", "battle-example.json"]) in (0, 1)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {x["scenario"] for x in lines} == {"fresh-setup.json", "battle-example.json"}
    assert [x["scenario"] for x in lines if x.get("final")] == ["fresh-setup.json", "battle-example.json"]
    # one bad file among good ones: the good ones are still refereed, the exit code says bad input
    assert cli.main(["referee", "fresh-setup.json", "missing.json"]) == 2
    out, err = capsys.readouterr()
    assert '"final": true' in out and "cannot read scenario 'missing.json'" in err


def _head_1(fx: Path, *argv: str) -> tuple[int, str]:
    """Run `seneschal ARGV | head -1`: the exit code and what the command said on stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", *argv],
        cwd=fx,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"{")
    proc.stdout.close()  # what `head -1` does after its line
    err = proc.stderr.read().decode()
    return proc.wait(60), err


def test_referee_piped_into_head_stops_quietly(fx: Path) -> None:
    assert _head_1(fx, "referee", *["fresh-setup.json", "battle-example.json"] * 60) == (141, "")


def test_vision_every_frame_piped_into_head_stops_quietly(fx: Path) -> None:
    folder = fx / "frames"
    folder.mkdir(exist_ok=True)
    for i in range(6):
        (folder / f"f{i}.png").write_bytes((fx / "table.png").read_bytes())
    assert _head_1(fx, "vision", str(folder), "--every") == (141, "")


def test_version_and_help_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("seneschal ")
    for name in ("demo", "app", "replay", "referee", "vision"):
        assert cli.main([name, "--help"]) == 0
        assert "usage:" in capsys.readouterr().out


def test_replay_writes_the_script_it_was_asked_for_and_nothing_else(in_fx: Path) -> None:
    out = in_fx / "adir" / "s.json"
    try:
        assert cli.main(["replay", "--write-script", str(out), "--moves", "4", "--seed", "3"]) == 0
        doc = json.loads(out.read_text(encoding="utf-8"))
        assert len(doc["actions"]) == 4 and doc["game"]["seed"] == 3
    finally:
        out.unlink(missing_ok=True)


# ----------------------------------------------------------------------------------- cameras that never open


@pytest.fixture
def quick_open(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr("vision.sources.OPEN_TIMEOUT", 0.6)
    return 0.6


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never says a word (a stream behind a dead router)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join()
    for c in held:
        c.close()
    srv.close()


@pytest.mark.parametrize("kind", ["device", "refused", "silent"])
def test_a_camera_that_does_not_open_is_an_error_not_a_wait(
    kind: str, quick_open: float, silent_server: int, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {"device": "63", "refused": "rtsp://127.0.0.1:9/table", "silent": f"rtsp://127.0.0.1:{silent_server}/t"}
    start = time.monotonic()
    assert cli.main(["vision", spec[kind]]) == 2
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert "gave up after" in err and len(err.strip().splitlines()) == 1, err
    assert took < quick_open + 8, f"took {took:.1f} s"


def test_a_camera_lost_after_it_opened_is_still_reconnected(quick_open: float) -> None:
    """The open deadline is for the first open only: a camera unplugged mid-game is waited for."""
    from vision.sources import CameraWorker, Frame, SourceError, SourceLostError, Status

    class Flaky:
        live, fps, name = True, None, "flaky camera"

        def __init__(self) -> None:
            self.opens = 0
            self.reads = 0

        def open(self) -> None:
            self.opens += 1
            if self.opens > 1 and self.opens < 6:
                raise SourceError("unplugged")

        def read(self) -> Frame:
            self.reads += 1
            if self.reads == 2:
                raise SourceLostError("unplugged")
            time.sleep(0.01)
            return Frame(np.zeros((32, 32, 3), np.uint8), self.reads, time.monotonic())

        def close(self) -> None:
            pass

    cam = Flaky()
    worker: CameraWorker[int] = CameraWorker(cam, lambda f: f.index, reconnect_delay=0.2)
    with worker:
        deadline = time.monotonic() + 10
        while cam.opens < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert cam.opens >= 6  # kept trying for longer than the open deadline
        while worker.status is not Status.OK and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.status is Status.OK

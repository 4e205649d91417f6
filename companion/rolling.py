"""The app's `Roller`s over `hardware`: the USB roller (or the simulated one, run as a SUBPROCESS — the app
never imports firmware), and on-screen rolls when there is neither. Every roll carries its source."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from typing import Any

from companion.services import RollerStatus, RollResult


def _source(roll: Any) -> str:
    src = getattr(roll.source, "value", str(roll.source))
    if src == "device":
        return f"device {roll.device_id} #{roll.seq}"
    return str(src)


class ScreenRollerAdapter:
    """No device: the tablet rolls (the OS's cryptographic source)."""

    def __init__(self, reason: str = "no dice roller: rolls on screen") -> None:
        from hardware.rolls import ScreenRoller

        self._roller = ScreenRoller()
        self._reason = reason

    @property
    def status(self) -> RollerStatus:
        return RollerStatus.NONE

    @property
    def status_text(self) -> str:
        return self._reason

    def roll(self, n: int) -> RollResult:
        r = self._roller.roll(n)
        return RollResult(tuple(r.dice), _source(r))

    def close(self) -> None:
        pass


class DeviceRollerAdapter:
    """A `hardware.DiceRoller` on a port. When the device is gone a roll falls back to the screen, and the
    status says so (the driver reconnects by itself)."""

    def __init__(self, port: str, simulated: bool = False, on_button: Any = None) -> None:
        from hardware.client import DiceRoller

        self.port = port
        self.simulated = simulated
        self._on_button = on_button
        self._roller = DiceRoller(port, on_event=self._event)
        self._fallback = ScreenRollerAdapter()
        self._info: Any = None
        self._error = ""

    def set_on_button(self, callback: Any) -> None:
        """Rolls made with the device's own button (called on the driver's thread: post to the UI)."""
        self._on_button = callback

    def open(self, timeout: float = 3.0) -> None:
        self._info = self._roller.open(timeout=timeout)

    def _event(self, event: Any) -> None:
        dice = getattr(event, "dice", None)
        if dice is not None and self._on_button is not None:
            roll = getattr(event, "roll", None)
            seq = getattr(roll, "seq", "?")
            self._on_button(RollResult(tuple(dice), f"device {getattr(roll, 'device_id', '')} button #{seq}"))

    @property
    def status(self) -> RollerStatus:
        if not self._roller.connected:
            return RollerStatus.RECONNECTING
        return RollerStatus.SIMULATED if self.simulated else RollerStatus.CONNECTED

    @property
    def status_text(self) -> str:
        info = self._roller.info
        what = "simulated roller" if self.simulated else "dice roller"
        if info is None or not self._roller.connected:
            return f"{what} on {self.port}: reconnecting" + (f" ({self._error})" if self._error else "")
        return f"{what} {getattr(info, 'device_id', '')} on {self.port}, firmware {info.firmware}"

    def roll(self, n: int) -> RollResult:
        from hardware.errors import HardwareError

        try:
            r = self._roller.roll(n, timeout=2.5)
        except HardwareError as exc:  # unplugged mid-game: the roll still happens, on screen, and says so
            self._error = str(exc)
            fallback = self._fallback.roll(n)
            return RollResult(fallback.values, f"screen (roller: {exc})")
        self._error = ""
        return RollResult(tuple(r.dice), _source(r))

    def close(self) -> None:
        self._roller.close()


class SimulatorProcess:
    """`python -m firmware.sim` as a child process; its first stdout line is `PORT /dev/pts/N`."""

    def __init__(self, seed: int | None = None, timeout: float = 10.0) -> None:
        cmd = [sys.executable, "-m", "firmware.sim"] + ([] if seed is None else ["--seed", str(seed)])
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.port = self._read_port(timeout)

    def _read_port(self, timeout: float) -> str:
        result: list[str] = []

        def read() -> None:
            assert self.proc.stdout is not None
            result.append(self.proc.stdout.readline())

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        line = result[0].strip() if result else ""
        if not line.startswith("PORT "):
            err = ""
            if self.proc.poll() is not None and self.proc.stderr is not None:
                err = self.proc.stderr.read()[-300:]
            self.stop()
            raise RuntimeError(f"the dice simulator did not start (got {line!r}) {err}".strip())
        return line.split(None, 1)[1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class SimulatedRollerAdapter(DeviceRollerAdapter):
    """The demo's roller: the firmware's own code in a simulator subprocess, talked to over its pty."""

    def __init__(self, sim: SimulatorProcess, on_button: Any = None) -> None:
        super().__init__(sim.port, simulated=True, on_button=on_button)
        self.sim = sim

    def close(self) -> None:
        super().close()
        self.sim.stop()


def start_simulated_roller(seed: int | None = None) -> tuple[Any, str]:
    """The simulated roller, or on-screen rolls with a visible reason when the simulator fails to start."""
    sim: SimulatorProcess | None = None
    try:
        sim = SimulatorProcess(seed)
        roller = SimulatedRollerAdapter(sim)
        roller.open()
        return roller, ""
    except Exception as exc:  # any failure (no pty, no firmware, timeout) → on-screen rolls, said plainly
        if sim is not None:
            with contextlib.suppress(Exception):
                sim.stop()
        reason = f"simulated roller unavailable ({exc}); rolling on screen"
        return ScreenRollerAdapter(reason), reason


def open_device_roller(port: str | None) -> Any:
    """The real table: a roller on `port`, or discovered by USB id; the screen when there is none."""
    try:
        if port is None:
            from hardware.discovery import find_roller

            port = find_roller()
        roller = DeviceRollerAdapter(port)
        roller.open()
        return roller
    except Exception as exc:
        return ScreenRollerAdapter(f"dice roller not available ({exc}); rolling on screen")

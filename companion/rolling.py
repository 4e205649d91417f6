"""The app's `Roller`s over `hardware`: the USB roller (or the simulated one, run as a SUBPROCESS — the app
never imports firmware), and on-screen rolls when there is neither. Every roll carries its source.

A roll falls back to the screen only when the device certainly rolled nothing for it (not connected, refused,
or the request never left). When it may have rolled — a timeout or unplug after the ROLL left, a restart
mid-roll (`device_may_have_rolled`, `DeviceRestartedError`) — the roller's display may show dice the app never
received, so nothing is rolled in the players' place: `RollNotTakenError` says "roll not taken: roll again".
Button rolls and connection changes arrive on the driver's thread and are posted to the UI thread (`listen`).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from companion.errors import RollNotTakenError
from companion.lifetime import tied_to_us
from companion.services import RollerStatus, RollResult, UiClock


def _source(roll: Any) -> str:
    from hardware.rolls import RollSource

    if roll.source is RollSource.DEVICE:
        return f"device {roll.device_id} #{roll.seq}"
    return str(roll.source.value)


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

    def listen(
        self,
        clock: UiClock,
        on_button: Callable[[RollResult], Any] | None = None,
        on_status: Callable[[], Any] | None = None,
        on_dropped: Callable[[int], Any] | None = None,
    ) -> None:
        pass  # no device, no button, no connection to follow

    def close(self) -> None:
        pass


class DeviceRollerAdapter:
    """A `hardware.DiceRoller` on a port (the driver reconnects by itself).

    `roll` falls back to the screen, saying so in the roll's source, only when the device surely rolled
    nothing; when it may have rolled it raises `RollNotTakenError`. Other errors (a bug such as calling the
    roller from its own callback, too many dice) are raised as they are, never hidden behind a screen roll.
    """

    def __init__(self, port: str, simulated: bool = False, **driver: Any) -> None:
        from hardware.client import DiceRoller

        self.port = port
        self.simulated = simulated
        self._lock = threading.Lock()
        self._clock: UiClock | None = None
        self._on_button: Callable[[RollResult], Any] | None = None
        self._on_status: Callable[[], Any] | None = None
        self._on_dropped: Callable[[int], Any] | None = None
        self._early: deque[RollResult] = deque(maxlen=8)  # button rolls before anyone listened
        self._reason = ""  # the last ConnectionEvent's reason
        self._roll_note = ""  # why the last roll failed (cleared by the next good roll)
        self._roller = DiceRoller(port, on_event=self._event, **driver)
        self._fallback = ScreenRollerAdapter()

    def open(self, timeout: float = 3.0) -> None:
        self._roller.open(timeout=timeout)

    def listen(
        self,
        clock: UiClock,
        on_button: Callable[[RollResult], Any] | None = None,
        on_status: Callable[[], Any] | None = None,
        on_dropped: Callable[[int], Any] | None = None,
    ) -> None:
        with self._lock:
            self._clock, self._on_button, self._on_status = clock, on_button, on_status
            self._on_dropped = on_dropped
            early = list(self._early)
            self._early.clear()
        for result in early:
            self._post_button(result)
        self._post_status()

    # ------------------------------------------------------------------- the driver's thread (post only)

    def _event(self, event: Any) -> None:
        """On the driver's thread: never call the roller from here (it would wait on itself)."""
        from hardware.events import ButtonRollEvent, ButtonRollsDroppedEvent, ConnectionEvent

        if isinstance(event, ButtonRollEvent):
            r = event.roll
            # Button seqs come from the device's own counter and can collide with the host's: say "button".
            result = RollResult(tuple(r.dice), f"device {r.device_id} button #{r.seq}")
            with self._lock:
                if self._on_button is None:
                    self._early.append(result)
                    return
            self._post_button(result)
        elif isinstance(event, ButtonRollsDroppedEvent):
            clock, cb = self._clock, self._on_dropped
            if clock is not None and cb is not None:
                clock.schedule_once(lambda _dt: cb(event.count), 0)
        elif isinstance(event, ConnectionEvent):
            with self._lock:
                self._reason = event.reason
            self._post_status()

    def _post_button(self, result: RollResult) -> None:
        clock, cb = self._clock, self._on_button
        if clock is not None and cb is not None:
            clock.schedule_once(lambda _dt: cb(result), 0)

    def _post_status(self) -> None:
        clock, cb = self._clock, self._on_status
        if clock is not None and cb is not None:
            clock.schedule_once(lambda _dt: cb(), 0)

    # ----------------------------------------------------------------------------------------- status

    @property
    def status(self) -> RollerStatus:
        from hardware.client import ConnectionState

        state = self._roller.state
        if state is ConnectionState.CLOSED:
            return RollerStatus.CLOSED
        if state is ConnectionState.DISCONNECTED:
            return RollerStatus.RECONNECTING
        return RollerStatus.SIMULATED if self.simulated else RollerStatus.CONNECTED

    @property
    def status_text(self) -> str:
        what = "simulated roller" if self.simulated else "dice roller"
        status = self.status
        notes = [x for x in (self._reason, self._roll_note) if x]
        why = f" ({'; '.join(notes)})" if notes else ""
        if status is RollerStatus.CLOSED:
            return f"{what} on {self.port}: closed{why}"
        info = self._roller.info
        if status is RollerStatus.RECONNECTING or info is None:
            return f"{what} on {self.port}: reconnecting{why}"
        return f"{what} {info.device_id} on {self.port}, firmware {info.firmware}{why}"

    # ------------------------------------------------------------------------------------------- rolls

    def roll(self, n: int) -> RollResult:
        from hardware.errors import (
            DeviceDisconnectedError,
            DeviceNotFoundError,
            DeviceRefusedError,
            DeviceRestartedError,
            DeviceTimeoutError,
            HardwareError,
        )

        try:
            r = self._roller.roll(n, timeout=2.5)
        except HardwareError as exc:
            if isinstance(exc, DeviceRestartedError) or exc.device_may_have_rolled:
                self._roll_note = f"roll not taken: {exc}"
                self._post_status()
                raise RollNotTakenError(str(exc)) from exc
            if not isinstance(
                exc, DeviceDisconnectedError | DeviceTimeoutError | DeviceNotFoundError | DeviceRefusedError
            ):
                raise  # a bug (e.g. a roll from the driver's own callback): never a silent screen roll
            # The device surely rolled nothing (gone, or refused before rolling): roll on screen, say so.
            self._roll_note = f"rolled on screen: {exc}"
            self._post_status()
            fallback = self._fallback.roll(n)
            return RollResult(fallback.values, f"screen (roller: {exc})")
        if self._roll_note:
            self._roll_note = ""
            self._post_status()
        return RollResult(tuple(r.dice), _source(r))

    def close(self) -> None:
        self._roller.close()


class SimulatorProcess:
    """`python -m firmware.sim` as a child process; its first stdout line is `PORT /dev/pts/N`. Its stderr
    goes to a temporary file (a pipe nobody reads would fill up and stall the simulator)."""

    def __init__(self, seed: int | None = None, timeout: float = 10.0, extra: tuple[str, ...] = ()) -> None:
        cmd = [sys.executable, "-m", "firmware.sim"] + ([] if seed is None else ["--seed", str(seed)])
        self._stderr = tempfile.TemporaryFile(prefix="seneschal-dice-sim-")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            tied_to_us([*cmd, *extra]), stdout=subprocess.PIPE, stderr=self._stderr, text=True
        )
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
            if self.proc.poll() is not None:
                self._stderr.seek(0)
                err = self._stderr.read()[-300:].decode(errors="replace")
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
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()


class SimulatedRollerAdapter(DeviceRollerAdapter):
    """The demo's roller: the firmware's own code in a simulator subprocess, talked to over its pty."""

    def __init__(self, sim: SimulatorProcess, **driver: Any) -> None:
        super().__init__(sim.port, simulated=True, **driver)
        self.sim = sim

    def close(self) -> None:
        super().close()
        self.sim.stop()


def start_simulated_roller(seed: int | None = None, extra: tuple[str, ...] = ()) -> tuple[Any, str]:
    """The simulated roller, or on-screen rolls with a visible reason when the simulator fails to start.
    Wire its button rolls and status with `listen` (the app does, with its UI clock)."""
    sim: SimulatorProcess | None = None
    try:
        sim = SimulatorProcess(seed, extra=extra)
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
    """The real table: a roller on `port`, or discovered by USB id; the screen when there is none.
    Wire its button rolls and status with `listen` (the app does, with its UI clock)."""
    try:
        if port is None:
            from hardware.discovery import find_roller

            port = find_roller()
        roller = DeviceRollerAdapter(port)
        roller.open()
        return roller
    except Exception as exc:
        return ScreenRollerAdapter(f"dice roller not available ({exc}); rolling on screen")

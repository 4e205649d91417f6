"""The fault run: rolls through the simulated device behind a faulty cable, each outcome judged against the
device's own log. Used by tests/hardware/test_fault_run.py and bench/dice.py (which prints the figures).

The simulator (`python -m firmware.sim --faults P`, a subprocess: the host side never imports firmware)
corrupts bytes, and drops, delays (reorders), duplicates and replays frames in both directions, and makes the
device reboot after a roll before its answer leaves. `--micropython` runs the firmware under the real
MicroPython interpreter instead of CPython. The driver's writes are recorded, so every ROLL a request sent is
known by its (session, seq), and the device's log says what it rolled for each.

Per request (a `DiceRoller.roll` call):
- accepted: the call returned dice.
- wrong: accepted dice that are not the device's roll for that (session, seq), or not the count asked for.
- duplicated: the device rolled more than once for the request (one seq twice, or two of its seqs).
- hidden: the device rolled for the request, which failed without `device_may_have_rolled`.
- lost: the request failed although no device reset came during it (noise alone must not fail a roll).
- hangs: the call ran past its own timeout by more than HANG_MARGIN seconds.
- not taken: failed with `device_may_have_rolled` because the device reset during it (the app says
  "roll again"; by design when the run resets the device).
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware import DiceRoller, HardwareError, LinkStats
from hardware.errors import ProtocolError
from hardware.protocol import RollRequest, decode_frame
from hardware.transport import SerialPort, open_port
from tests.hardware.fakes import simulator

HANG_MARGIN = 1.0
REFUSALS = (6, 8, 9)  # NO_SESSION, STALE, SESSION_CLOSED: the device answered a ROLL without rolling


def micropython_binary() -> str | None:
    local = Path(sys.executable).parent / "micropython"
    return str(local) if local.exists() else shutil.which("micropython")


class RecordingPort:
    """A real port whose writes are decoded: every ROLL the driver sends, by (session, seq)."""

    def __init__(self, port: SerialPort, sent: list[tuple[int, int]]) -> None:
        self._port = port
        self._sent = sent
        self._lock = threading.Lock()

    def read(self, size: int = 1) -> bytes:
        return self._port.read(size)

    def write(self, data: bytes, /) -> int | None:
        for frame in bytes(data).split(b"\x00")[:-1]:
            if not frame:
                continue
            try:
                message = decode_frame(frame)
            except ProtocolError:
                continue
            if isinstance(message, RollRequest):
                with self._lock:
                    self._sent.append((message.session, message.seq))
        return self._port.write(data)

    def close(self) -> None:
        self._port.close()

    @property
    def in_waiting(self) -> int:
        return self._port.in_waiting

    def cancel_read(self) -> None:
        cancel = getattr(self._port, "cancel_read", None)
        if callable(cancel):
            cancel()


@dataclass
class Outcome:
    start: float
    end: float
    timeout: float
    sent: list[tuple[int, int]]
    dice: tuple[int, ...] | None = None
    key: tuple[int, int] | None = None  # the accepted roll's (session, seq)
    count: int = 0
    error: HardwareError | None = None


@dataclass
class FaultRun:
    faults: float
    core: str
    requests: int = 0
    accepted: int = 0
    wrong: int = 0
    duplicated: int = 0
    lost: int = 0
    hidden: int = 0
    hangs: int = 0
    not_taken: int = 0
    resets: int = 0
    elapsed: float = 0.0
    stats: LinkStats = field(default_factory=LinkStats)
    device: dict[str, int] = field(default_factory=dict)  # the device log's event kinds, counted
    wire: dict[str, dict[str, int]] = field(default_factory=dict)  # what the simulator's cable did
    failures: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.wrong or self.duplicated or self.lost or self.hidden or self.hangs)

    def lines(self) -> list[str]:
        s = self.stats
        return [
            f"fault run, firmware under {self.core}, faults {self.faults:.0%} (bytes corrupted; frames "
            f"dropped, delayed 0-400 ms, duplicated, replayed; device reset after a roll) — "
            f"{self.elapsed:.1f} s:",
            f"  requests {self.requests}   accepted {self.accepted}   wrong {self.wrong}   duplicated "
            f"{self.duplicated}   lost {self.lost}   hidden {self.hidden}   hangs {self.hangs}",
            f"  not taken (device reset mid-roll, reported 'roll again') {self.not_taken}; device resets "
            f"{self.resets}",
            f"  host: resends {s.resends}, frames dropped {s.frames_dropped}, stale or foreign replies "
            f"ignored {s.stale_replies}, sessions {s.sessions}, conflicting answers {s.conflicting_replies}",
            f"  device: rolls {self.device.get('roll', 0)}, answers from the record "
            f"{self.device.get('duplicate', 0)}, refusals {self.device.get('refused', 0)}",
            *(f"  wire to {where}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
              for where, counts in self.wire.items()),
            *(f"  failure: {text}" for text in self.failures[:5]),
        ]


@contextmanager
def _recording_roller(port: str, sent: list[tuple[int, int]], attempt: float) -> Iterator[DiceRoller]:
    # The simulator answers within a few milliseconds, so the sends can be that close (a board needs 250 ms);
    # they still back off, doubling up to twice the first wait.
    roller = DiceRoller(
        lambda: RecordingPort(open_port(port), sent), name=port, keepalive=None, attempt_timeout=attempt,
        max_attempt_timeout=2 * attempt, hello_timeout=60.0,
    )
    roller.open()
    try:
        yield roller
    finally:
        roller.close()


def run(
    rolls: int, faults: float, log: Path, *, seed: int = 2026, micropython: str | None = None,
    attempt: float = 0.005, timeout: float = 30.0,
) -> FaultRun:
    """`rolls` requests of 1..10 dice through the simulator with every fault at `faults`."""
    options = ["--seed", str(seed), "--faults", str(faults)]
    if micropython is not None:
        options += ["--micropython", micropython]
    sent: list[tuple[int, int]] = []
    outcomes: list[Outcome] = []
    start = time.monotonic()
    with simulator(*options, log=log) as sim, _recording_roller(sim.port, sent, attempt) as roller:
        for i in range(rolls):
            outcomes.append(_request(roller, 1 + i % 10, timeout, sent))
        stats = roller.stats
    result = FaultRun(faults, "MicroPython" if micropython else "CPython", stats=stats)
    result.elapsed = time.monotonic() - start
    _judge(result, outcomes, sim.events())
    return result


def _request(roller: DiceRoller, n: int, timeout: float, sent: list[tuple[int, int]]) -> Outcome:
    mark = len(sent)
    outcome = Outcome(time.monotonic(), 0.0, timeout, [], count=n)
    try:
        roll = roller.roll(n, timeout=timeout)
        assert roll.session is not None and roll.seq is not None
        outcome.dice, outcome.key = roll.dice, (roll.session, roll.seq)
    except HardwareError as exc:
        outcome.error = exc
    outcome.end = time.monotonic()
    outcome.sent = sent[mark:]
    return outcome


def _judge(result: FaultRun, outcomes: list[Outcome], events: list[dict[str, Any]]) -> None:
    rolled: dict[tuple[int, int], list[tuple[int, ...]]] = defaultdict(list)
    resets: list[float] = []
    for event in events:
        kind = event["kind"]
        result.device[kind] = result.device.get(kind, 0) + 1
        if kind == "roll":
            rolled[(event["session"], event["seq"])].append(tuple(event["value"]))
        elif kind == "reset":
            resets.append(event["t"])
        elif kind == "error" and event["value"] in REFUSALS:
            result.device["refused"] = result.device.get("refused", 0) + 1
        elif kind == "wire":
            result.wire = {where.replace("_", " ").removeprefix("to "): counts
                           for where, counts in event["value"].items()}
    result.resets = len(resets)
    for outcome in outcomes:
        result.requests += 1
        made = [dice for key in set(outcome.sent) for dice in rolled.get(key, [])]
        if len(made) > 1:
            result.duplicated += 1
        if outcome.end - outcome.start > outcome.timeout + HANG_MARGIN:
            result.hangs += 1
        if outcome.dice is not None:
            result.accepted += 1
            if rolled.get(outcome.key or (-1, -1)) != [outcome.dice] or len(outcome.dice) != outcome.count:
                result.wrong += 1
            continue
        assert outcome.error is not None
        reset_during = any(outcome.start <= t <= outcome.end for t in resets)
        if made and not outcome.error.device_may_have_rolled:
            result.hidden += 1
        elif reset_during and outcome.error.device_may_have_rolled:
            result.not_taken += 1
        else:
            result.lost += 1
            result.failures.append(f"{type(outcome.error).__name__}: {outcome.error}")
    # A roll the device made for no request at all would be a ROLL nobody sent: count it as duplicated.
    every_sent = {key for outcome in outcomes for key in outcome.sent}
    result.duplicated += sum(len(v) for key, v in rolled.items() if key not in every_sent)


@dataclass
class ButtonRun:
    """Button presses on the simulated device while the app only listens (the keepalive running)."""

    corrupt: float
    every: float
    seconds: float
    pressed: int = 0  # button rolls the device made in a session, each with an event seq
    delivered: int = 0  # reported to the app as a ButtonRollEvent
    dropped: int = 0  # reported to the app as dropped (ButtonRollsDroppedEvent counts)
    vanished: int = 0  # neither: silently lost
    wrong: int = 0  # delivered with other dice than the device rolled, or twice
    disconnects: int = 0
    stats: LinkStats = field(default_factory=LinkStats)

    def lines(self) -> list[str]:
        return [
            f"button run: {self.corrupt:.0%} of bytes corrupted both ways, a press every {self.every:g} s, "
            f"the app only listening (keepalive PINGs) — {self.seconds:.0f} s:",
            f"  pressed {self.pressed}   delivered {self.delivered}   reported dropped {self.dropped}   "
            f"vanished {self.vanished}   wrong {self.wrong}   false disconnects {self.disconnects}",
        ]


def button_run(presses: int, corrupt: float, log: Path, *, every: float = 2.5, seed: int = 7) -> ButtonRun:
    """`presses` presses `every` seconds apart, then quiet until every event is settled (delivered, or
    reported dropped), or 30 s have passed."""
    from hardware import ButtonRollEvent, ButtonRollsDroppedEvent, ConnectionEvent, ConnectionState, DiceEvent

    got: list[DiceEvent] = []
    options = ("--seed", str(seed), "--corrupt", str(corrupt), "--button-every", str(every),
               "--presses", str(presses))
    start = time.monotonic()
    with simulator(*options, log=log) as sim:
        roller = DiceRoller(sim.port, on_event=got.append, attempt_timeout=0.005, max_attempt_timeout=0.01,
                            hello_timeout=60.0)
        roller.open()
        deadline = time.monotonic() + presses * every + 30
        while time.monotonic() < deadline:
            time.sleep(0.5)
            made = [e for e in sim.events() if e["kind"] == "button" and e["seq"] is not None]
            settled = sum(isinstance(e, ButtonRollEvent) for e in got) + sum(
                e.count for e in got if isinstance(e, ButtonRollsDroppedEvent))
            if len(made) >= presses - 1 and settled >= len(made):
                break
        stats = roller.stats
        roller.close()
    result = ButtonRun(corrupt, every, time.monotonic() - start, stats=stats)
    made_dice = {
        e["seq"]: tuple(e["value"]) for e in sim.events() if e["kind"] == "button" and e["seq"] is not None
    }
    seen: set[int] = set()
    for event in got:
        if isinstance(event, ButtonRollEvent):
            result.delivered += 1
            seq = event.seq if event.seq is not None else -1
            result.wrong += made_dice.get(seq) != event.dice or seq in seen
            seen.add(seq)
        elif isinstance(event, ButtonRollsDroppedEvent):
            result.dropped += event.count
        elif isinstance(event, ConnectionEvent) and event.state is ConnectionState.DISCONNECTED:
            result.disconnects += 1
    result.pressed = len(made_dice)
    result.vanished = result.pressed - result.delivered - result.dropped
    return result

"""DiceRoller against the firmware's own code, run by `python -m firmware.sim` behind a real pty.

The simulator is started as a subprocess (hardware tests may not import firmware) and logs every roll it makes
(`--log`), so each roll the host accepts is checked against what the device actually rolled.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from hardware import (
    ButtonRollEvent,
    ConnectionEvent,
    ConnectionState,
    DeviceDisconnectedError,
    DeviceNotFoundError,
    DeviceTimeoutError,
    DiceEvent,
    DiceRoller,
    HardwareError,
    Roll,
    RollSource,
)
from hardware.protocol import Capability
from tests.hardware.fakes import SimProcess, simulator

SIM_ID = "53454e4553494d31"  # the simulator's default device id, "SENESIM1"


def device_rolls(sim: SimProcess) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    """(session, seq) → every set of dice the device rolled for it (more than one would be a re-roll)."""
    rolls: dict[tuple[int, int], list[tuple[int, ...]]] = defaultdict(list)
    for event in sim.events():
        if event["kind"] == "roll":
            rolls[(event["session"], event["seq"])].append(tuple(event["value"]))
    return rolls


def key(roll: Roll) -> tuple[int, int]:
    assert roll.session is not None and roll.seq is not None
    return roll.session, roll.seq


def wait_for_log(sim: SimProcess, predicate: Any, timeout: float = 5.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        events = sim.events()
        if predicate(events) or time.monotonic() > deadline:
            return events
        time.sleep(0.01)


def test_rolls_pings_and_status_through_the_simulated_device(tmp_path: Path) -> None:
    with simulator("--seed", "11", log=tmp_path / "sim.jsonl") as sim:
        with DiceRoller(sim.port, keepalive=None) as roller:
            info = roller.info
            assert info is not None and info.device_id == SIM_ID and info.port == sim.port
            assert Capability.STATUS in info.capabilities
            rolls = [roller.roll(n) for n in range(1, 11)]
            assert roller.ping(b"\x00seneschal"[:8]) >= 0
            status = roller.status()
        logged = device_rolls(sim)
    for n, roll in zip(range(1, 11), rolls, strict=True):
        assert roll.source is RollSource.DEVICE and roll.device_id == SIM_ID and len(roll.dice) == n
        assert logged[key(roll)] == [roll.dice]
    assert status.rolls == 10 and status.duplicates == 0 and status.bad_crc == 0


def test_threads_share_one_roller_safely(tmp_path: Path) -> None:
    results: list[Roll] = []
    errors: list[BaseException] = []
    with simulator("--seed", "12", log=tmp_path / "sim.jsonl") as sim:
        with DiceRoller(sim.port, keepalive=None) as roller:

            def work() -> None:
                try:
                    for _ in range(20):
                        results.append(roller.roll(2))
                except HardwareError as exc:
                    errors.append(exc)

            threads = [threading.Thread(target=work) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        logged = device_rolls(sim)
    assert not errors
    assert len({r.seq for r in results}) == len(results) == 80
    assert all(logged[key(r)] == [r.dice] for r in results)


def test_button_rolls_arrive_once_each_and_are_acked(tmp_path: Path) -> None:
    events: queue.Queue[DiceEvent] = queue.Queue()
    with simulator("--seed", "13", "--button-every", "0.15", log=tmp_path / "sim.jsonl") as sim:
        roller = DiceRoller(sim.port, keepalive=None, on_event=events.put)
        roller.open()
        roller.roll(3)  # button presses roll the last host roll's count (1 before it)
        pressed: list[Roll] = []
        while sum(len(r.dice) == 3 for r in pressed) < 3:
            event = events.get(timeout=5)
            if isinstance(event, ButtonRollEvent):
                pressed.append(event.roll)
        log = wait_for_log(sim, lambda evs: sum(e["kind"] == "acked" for e in evs) >= len(pressed))
        roller.close()
    buttons = {e["seq"]: tuple(e["value"]) for e in log if e["kind"] == "button" and e["seq"] is not None}
    acked = {e["seq"] for e in log if e["kind"] == "acked"}
    for roll in pressed:
        assert roll.seq is not None and buttons[roll.seq] == roll.dice and roll.seq in acked
    assert all(len(r.dice) in (1, 3) for r in pressed)
    assert len({r.seq for r in pressed}) == len(pressed)


def test_reconnects_after_an_unplug_and_never_rolls_twice(tmp_path: Path) -> None:
    events: queue.Queue[DiceEvent] = queue.Queue()
    accepted: list[Roll] = []
    failures: list[HardwareError] = []
    options = ("--seed", "14", "--unplug-after", "15", "--replug-after", "0.3")
    with simulator(*options, log=tmp_path / "sim.jsonl") as sim:
        roller = DiceRoller(sim.port, keepalive=None, backoff=(0.05, 0.2), on_event=events.put)
        roller.open()
        deadline = time.monotonic() + 20
        while len(accepted) < 30 and time.monotonic() < deadline:
            try:
                accepted.append(roller.roll(2, timeout=3.0))
            except (DeviceDisconnectedError, DeviceTimeoutError) as exc:
                failures.append(exc)
        stats = roller.stats
        roller.close()
        logged = device_rolls(sim)
        boots = {e["boot"] for e in sim.events()}
    states = []
    while not events.empty():
        event = events.get()
        if isinstance(event, ConnectionEvent):
            states.append(event.state)
    assert states[:3] == [ConnectionState.CONNECTED, ConnectionState.DISCONNECTED, ConnectionState.CONNECTED]
    assert len(accepted) == 30 and boots == {1, 2}
    assert stats.disconnects == 1 and stats.connects == 2
    assert len(failures) <= 1  # at most the roll in flight at the unplug
    for roll in accepted:
        assert logged[key(roll)] == [roll.dice]


def test_a_device_that_never_answers_times_out(tmp_path: Path) -> None:
    with simulator("--drop", "1.0") as sim:
        roller = DiceRoller(sim.port, keepalive=None, reconnect=False)
        with pytest.raises(DeviceTimeoutError, match="HelloRequest"):
            roller.open(timeout=0.6)
        roller.close()


def test_unplugged_for_good_reports_disconnected(tmp_path: Path) -> None:
    events: queue.Queue[DiceEvent] = queue.Queue()
    with simulator("--unplug-after", "3") as sim:
        roller = DiceRoller(sim.port, keepalive=None, backoff=(0.05, 0.1), on_event=events.put)
        roller.open()
        with pytest.raises(DeviceDisconnectedError):
            for _ in range(5):
                roller.roll(1, timeout=1.0)
        assert not roller.connected
        roller.close()
    states: list[ConnectionState] = []
    while not events.empty():
        event = events.get()
        if isinstance(event, ConnectionEvent):
            states.append(event.state)
    assert states == [ConnectionState.CONNECTED, ConnectionState.DISCONNECTED, ConnectionState.CLOSED]


def test_a_port_in_use_is_refused_clearly() -> None:
    with simulator() as sim, DiceRoller(sim.port, keepalive=None) as _first:
        second = DiceRoller(sim.port, keepalive=None, reconnect=False)
        with pytest.raises(DeviceNotFoundError, match="lock"):
            second.open(timeout=0.5)

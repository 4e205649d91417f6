"""Self-test of the firmware library under the real MicroPython interpreter (also runs under CPython).

    micropython tests/firmware/mp_selftest.py REPO_ROOT

Checks the codec against docs/dice-protocol.golden.json and drives the device core through a scripted session
with the fakes of fw_fakes.py. Prints one line per failure and a summary; exits 1 if anything failed.
"""

import json
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, ROOT)
sys.path.insert(0, ROOT + "/tests/firmware")

from fw_fakes import (  # noqa: E402
    TICKS_PERIOD,
    FakeClock,
    FakePin,
    FakeStream,
    FakeWatchdog,
    RecordingView,
    SeededBytes,
)

from firmware.dice import protocol as p  # noqa: E402
from firmware.dice.device import MAX_SENDS, Device  # noqa: E402
from firmware.dice.rng import Dice, face_of  # noqa: E402

results = {"ok": 0, "failed": 0}


def check(cond, what):
    if cond:
        results["ok"] += 1
    else:
        results["failed"] += 1
        print("FAIL:", what)


def unhex(text):
    return p.unhexlify(text)


def golden():
    with open(ROOT + "/docs/dice-protocol.golden.json") as f:
        data = json.load(f)
    for case in data["frames"]:
        wire = unhex(case["hex"])
        try:
            msg = p.decode_message(wire)
        except p.FrameError as exc:
            check(False, "golden " + case["name"] + " rejected: " + exc.kind)
            continue
        check(msg == case["message"], "golden decode " + case["name"] + ": " + repr(msg))
        check(p.encode_message(case["message"]) == wire, "golden encode " + case["name"])
    for case in data["invalid"]:
        try:
            p.decode_message(unhex(case["hex"]))
            check(False, "invalid " + case["name"] + " accepted")
        except p.FrameError as exc:
            check(exc.kind == case["error"], "invalid " + case["name"] + ": " + exc.kind)
    # The whole golden stream, one byte at a time.
    d = p.Deframer()
    got = []
    for case in data["frames"]:
        for b in unhex(case["hex"]):
            got.extend(d.feed(bytes((b,))))
    check([p.packet_to_message(x) for x in got] == [c["message"] for c in data["frames"]], "byte-wise stream")
    return data


def crc_and_cobs():
    check(p.crc16(b"123456789") == 0x29B1, "crc check value")
    check(p.check16(b"123456789") == 0xD0DB, "check (T10-DIF) check value")
    check(p.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33", "cobs vector")
    check(p.cobs_decode(b"\x02\x11\x01\x01\x01") == b"\x11\x00\x00\x00", "cobs decode vector")
    long = bytes(range(1, 256))
    check(p.cobs_decode(p.cobs_encode(long)) == long, "cobs 255 bytes")


def rng():
    counts = [0] * 7
    for b in range(256):
        counts[face_of(b)] += 1
    check(counts == [4, 42, 42, 42, 42, 42, 42], "byte->face mapping exact: " + repr(counts))
    dice = Dice(SeededBytes(99))
    faces = [0] * 7
    for _ in range(600):
        for f in dice.roll(10):
            faces[f] += 1
    check(
        faces[0] == 0 and min(faces[1:]) > 850 and max(faces[1:]) < 1150, "6000 rolls spread: " + repr(faces)
    )


class Session:
    def __init__(self, clock_start=0):
        self.stream = FakeStream()
        self.clock = FakeClock(clock_start)
        self.pin = FakePin(1)
        self.wd = FakeWatchdog()
        self.rng = SeededBytes(5)
        self.view = RecordingView()
        self.dev = Device(
            self.stream,
            self.rng,
            self.clock,
            button=self.pin,
            views=[self.view],
            watchdog=self.wd,
            device_id=b"\x01\x02\x03\x04\x05\x06\x07\x08",
            reset_cause=1,
        )

    def send(self, data):
        self.stream.feed(data)
        self.dev.step()
        return self.stream.take()

    def msg(self, m):
        return [p.decode_message(f) for f in self.send(p.encode_message(m))]

    def run(self, ms):
        out = []
        for _ in range(ms // 10):
            self.clock.advance(10)
            self.dev.step()
            out.extend(p.decode_message(f) for f in self.stream.take())
        return out


def window(s, sid):
    # A late duplicate is never rolled again: not after many later rolls, not after a new HELLO.
    late = p.encode_message({"type": "ROLL", "seq": 0x2001, "session": sid, "n": 2})
    first = s.send(late)
    for seq in range(0x2002, 0x2002 + 40):
        s.send(p.encode_message({"type": "ROLL", "seq": seq, "session": sid, "n": 1}))
    rolls = s.dev.counters["rolls"]
    r = [p.decode_message(f) for f in s.send(late)]
    check(r and r[0]["type"] == "ERROR" and r[0]["code"] == p.E_STALE, "late duplicate refused: " + repr(r))
    recent = p.encode_message({"type": "ROLL", "seq": 0x2002 + 39, "session": sid, "n": 1})
    recent_answer = s.send(recent)
    r = s.msg({"type": "HELLO_REQ", "seq": 0x3000})
    check(r and r[0]["session"] != sid, "a new HELLO_REQ opens a new session")
    new_sid = r[0]["session"]
    check(s.send(recent) == recent_answer, "the closed session still answers from its record")
    r = s.msg({"type": "ROLL", "seq": 0x2100, "session": sid, "n": 1})
    check(r and r[0]["code"] == p.E_SESSION_CLOSED, "a closed session never rolls: " + repr(r))
    check(s.dev.counters["rolls"] == rolls and first, "nothing rolled twice")
    return new_sid


def session(data):
    s = Session(clock_start=TICKS_PERIOD - 500)  # crosses the ticks wrap-around mid-session
    r = s.msg({"type": "ROLL", "seq": 1, "session": 5, "n": 2})
    check(len(r) == 1 and r[0]["type"] == "ERROR" and r[0]["code"] == p.E_NO_SESSION, "roll before hello")
    r = s.msg({"type": "HELLO_REQ", "seq": 0x1234})
    check(
        r and r[0]["type"] == "HELLO" and r[0]["device_id"] == "0102030405060708" and r[0]["seq"] == 0x1234,
        "hello: " + repr(r),
    )
    sid = r[0]["session"]
    first = s.send(p.encode_message({"type": "ROLL", "seq": 0x2000, "session": sid, "n": 3}))
    m = p.decode_message(first[0])
    check(m["type"] == "RESULT" and m["seq"] == 0x2000 and len(m["dice"]) == 3, "roll: " + repr(m))
    drawn = s.rng.drawn
    again = s.send(p.encode_message({"type": "ROLL", "seq": 0x2000, "session": sid, "n": 3}))
    check(again == first and s.rng.drawn == drawn, "duplicate roll answered from the record")
    check(s.dev.counters["rolls"] == 1 and s.dev.counters["duplicates"] == 1, "roll counters")
    sid = window(s, sid)
    r = s.msg({"type": "PING", "seq": 9, "data": "00ff00"})
    check(r and r[0]["data"] == "00ff00" and r[0]["session"] == sid, "ping: " + repr(r))
    rolls_before = s.dev.counters["rolls"]
    for case in data["invalid"]:
        if case["direction"] != "host_to_device":
            continue
        out = s.send(unhex(case["hex"]))
        want = [] if case["reply"] is None else [unhex(case["reply"])]
        check(out == want, "invalid reply " + case["name"] + ": " + repr(out))
    check(s.dev.counters["rolls"] == rolls_before, "no roll from invalid frames")
    # corrupted frame
    wire = bytearray(p.encode_message({"type": "ROLL", "seq": 0x3001, "session": sid, "n": 1}))
    wire[5] ^= 0x10
    check(s.send(bytes(wire)) == [], "corrupt roll dropped")
    # button: bounce, then resend until ACK
    for level in (0, 1, 0, 1, 0):
        s.pin.level = level
        s.clock.advance(5)
        s.dev.step()
    out = s.run(1000)
    s.pin.level = 1
    events = [m for m in out if m["type"] == "BUTTON_ROLL"]
    check(len(events) >= 3 and all(e == events[0] for e in events), "button roll resent: " + repr(events))
    check(s.dev.counters["button_presses"] == 1, "debounced to one press")
    if events:
        s.msg({"type": "ACK", "seq": events[0]["seq"], "session": sid})
        check(s.run(1000) == [], "no resend after ACK")
    # unacked events are given up after MAX_SENDS
    s.pin.level = 0
    out = s.run(5000)
    check(len([m for m in out if m["type"] == "BUTTON_ROLL"]) == MAX_SENDS, "resend limit")
    r = s.msg({"type": "STATUS_REQ", "seq": 77})
    check(
        r and r[0]["type"] == "STATUS" and r[0]["events_dropped"] == 1 and r[0]["reset_cause"] == 1,
        "status: " + repr(r),
    )
    # watchdog fed only by completed passes
    feeds = s.wd.feeds
    s.stream.fail = OSError("usb")
    try:
        s.dev.step()
        check(False, "failing stream must raise")
    except OSError:
        pass
    check(s.wd.feeds == feeds, "watchdog not fed after a failed pass")


def main():
    crc_and_cobs()
    data = golden()
    rng()
    session(data)
    impl = sys.implementation.name
    print("mp_selftest (" + impl + "): " + str(results["ok"]) + " ok, " + str(results["failed"]) + " failed")
    if results["failed"]:
        sys.exit(1)


main()

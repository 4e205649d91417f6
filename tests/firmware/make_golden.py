"""Regenerate docs/dice-protocol.golden.json from the firmware codec (run by hand, then review the diff).

The golden file is the contract with hardware/: once published, frames only change by agreement. The CRC and
COBS are independently pinned by tests/firmware/test_codec.py (check value, published COBS vectors, and a
hand-assembled frame).
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from firmware.dice import protocol as p  # noqa: E402

H2D = "host_to_device"
D2H = "device_to_host"
DEVICE_ID = "e6614103e7452d2f"


def frame(msg: dict) -> str:
    return p.encode_message(msg).hex()


def raw_frame(packet: bytes) -> str:
    return (p.cobs_encode(packet) + b"\x00").hex()


def with_crc(head: bytes) -> bytes:
    """A v1-style packet: the trailing CRC only."""
    return head + struct.pack(">H", p.crc16(head))


def with_check(head: bytes) -> bytes:
    """A v2 packet's trailer (check, then CRC) after whatever header and body."""
    return with_crc(head + struct.pack(">H", p.check16(head)))


def error_reply(seq: int, code: int, detail: str, session: int = 0) -> str:
    return frame({"type": "ERROR", "seq": seq, "code": code, "session": session, "detail": detail})


SESSION = 0x5E55_1D01
V1_HELLO_BODY = bytes((1, 1, 0, 0, 15, 10)) + bytes.fromhex(DEVICE_ID)  # a version-1 HELLO's body
BOOT = 0xB0_07_1D_01


def build() -> dict:
    valid = [
        ("hello_req", H2D, {"type": "HELLO_REQ", "seq": 0}),
        ("hello_req_seq_1234", H2D, {"type": "HELLO_REQ", "seq": 0x1234}),
        ("roll_1", H2D, {"type": "ROLL", "seq": 0x2A00, "session": SESSION, "n": 1}),
        ("roll_2", H2D, {"type": "ROLL", "seq": 0x1235, "session": SESSION, "n": 2}),
        ("roll_10_seq_ffff", H2D, {"type": "ROLL", "seq": 0xFFFF, "session": 0xFFFFFFFF, "n": 10}),
        ("ping_empty", H2D, {"type": "PING", "seq": 7, "data": ""}),
        ("ping_8_with_zeros", H2D, {"type": "PING", "seq": 0x0100, "data": "00ff00ff01020300"}),
        ("ack", H2D, {"type": "ACK", "seq": 0xBEEF, "session": SESSION}),
        ("status_req", H2D, {"type": "STATUS_REQ", "seq": 0x1236}),
        (
            "hello",
            D2H,
            {
                "type": "HELLO",
                "seq": 0x1234,
                "protocol": 2,
                "firmware": [2, 0, 0],
                "capabilities": 0x0F,
                "max_dice": 10,
                "device_id": DEVICE_ID,
                "boot": BOOT,
                "session": SESSION,
                "event_floor": 0xBEEF,
            },
        ),
        (
            "hello_no_display",
            D2H,
            {
                "type": "HELLO",
                "seq": 0,
                "protocol": 2,
                "firmware": [2, 1, 3],
                "capabilities": 0x0D,
                "max_dice": 10,
                "device_id": "0000000000000001",
                "boot": 1,
                "session": 0xFFFFFFFF,
                "event_floor": 0,
            },
        ),
        ("result_1", D2H, {"type": "RESULT", "seq": 0x2A00, "session": SESSION, "dice": [6]}),
        ("result_2", D2H, {"type": "RESULT", "seq": 0x1235, "session": SESSION, "dice": [3, 5]}),
        (
            "result_10",
            D2H,
            {"type": "RESULT", "seq": 0xFFFF, "session": 0xFFFFFFFF, "dice": [1, 2, 3, 4, 5, 6, 6, 5, 4, 3]},
        ),
        ("button_roll", D2H, {"type": "BUTTON_ROLL", "seq": 0xBEEF, "session": SESSION, "dice": [4, 1]}),
        ("pong_empty", D2H, {"type": "PONG", "seq": 7, "session": SESSION, "event_floor": 0xBEF0,
                             "data": ""}),
        ("pong_no_session", D2H, {"type": "PONG", "seq": 8, "session": 0, "event_floor": 0x0102,
                                  "data": ""}),
        (
            "pong_8_with_zeros",
            D2H,
            {"type": "PONG", "seq": 0x0100, "session": SESSION, "event_floor": 0, "data": "00ff00ff01020300"},
        ),
        ("error_bad_length", D2H, {"type": "ERROR", "seq": 0x1237, "code": 1, "session": 0,
                                   "detail": "ROLL len 6"}),
        ("error_bad_count", D2H, {"type": "ERROR", "seq": 0x1238, "code": 2, "session": SESSION,
                                  "detail": "n=0"}),
        (
            "error_unknown_type",
            D2H,
            {"type": "ERROR", "seq": 0x1239, "code": 3, "session": 0, "detail": "type 0x7E"},
        ),
        (
            "error_bad_version",
            D2H,
            {"type": "ERROR", "seq": 0x0102, "code": 4, "session": 0, "detail": "version 3; speaks 2"},
        ),
        ("error_busy", D2H, {"type": "ERROR", "seq": 0x123A, "code": 5, "session": SESSION, "detail": ""}),
        (
            "error_no_session",
            D2H,
            {"type": "ERROR", "seq": 0x123B, "code": 6, "session": SESSION, "detail": "send HELLO_REQ"},
        ),
        ("error_internal", D2H, {"type": "ERROR", "seq": 0x123C, "code": 7, "session": SESSION,
                                 "detail": "rng"}),
        (
            "error_stale",
            D2H,
            {"type": "ERROR", "seq": 0x1235, "code": 8, "session": SESSION, "detail": "seq already answered"},
        ),
        (
            "error_session_closed",
            D2H,
            {"type": "ERROR", "seq": 0x123D, "code": 9, "session": SESSION, "detail": "session closed"},
        ),
        (
            "status",
            D2H,
            {
                "type": "STATUS",
                "seq": 0x1236,
                "reset_cause": 1,
                "uptime_s": 3600,
                "frames_ok": 120,
                "bad_crc": 3,
                "bad_framing": 2,
                "bad_version": 1,
                "ignored": 0,
                "errors_sent": 4,
                "rolls": 57,
                "duplicates": 2,
                "refused": 1,
                "button_presses": 5,
                "resends": 1,
                "events_dropped": 0,
            },
        ),
    ]
    frames = [{"name": n, "direction": d, "message": m, "hex": frame(m)} for n, d, m in valid]

    sess = SESSION.to_bytes(4, "big")
    roll2 = p.encode_packet(p.ROLL, 0x1235, sess + b"\x02")
    bad_crc = roll2[:-1] + bytes((roll2[-1] ^ 0x01,))
    bad_body = roll2[:9] + b"\x03" + roll2[10:]
    # The body changed and the trailing CRC recomputed: only the inner check can tell.
    check_only = roll2[:9] + b"\x03" + roll2[10:12]
    check_only = check_only + struct.pack(">H", p.crc16(check_only))
    v1_roll = with_crc(bytes((1, p.ROLL, 0x01, 0x03, 1, 2)))
    invalid = [
        ("bad_crc", H2D, raw_frame(bad_crc), p.BAD_CRC, None),
        ("bad_crc_body_changed", H2D, raw_frame(bad_body), p.BAD_CRC, None),
        ("bad_check_crc_recomputed", H2D, raw_frame(check_only), p.BAD_CRC, None),
        ("truncated_4_bytes", H2D, raw_frame(roll2[:4]), p.TRUNCATED, None),
        ("truncated_lost_tail", H2D, raw_frame(roll2[:6]), p.TRUNCATED, None),
        ("truncated_no_check", H2D, raw_frame(with_crc(bytes((2, p.PING, 0x00, 0x07, 0)))), p.TRUNCATED,
         None),
        (
            "length_field_mismatch",
            H2D,
            raw_frame(with_check(bytes((2, p.ROLL, 0x12, 0x40, 2)) + sess + b"\x02")),
            p.LENGTH_MISMATCH,
            None,
        ),
        (
            "wrong_version_3",
            H2D,
            raw_frame(p.encode_packet(p.ROLL, 0x0102, sess + b"\x02", version=3)),
            p.BAD_VERSION,
            error_reply(0x0102, 4, "version 3; speaks 2"),
        ),
        (
            "wrong_version_1",
            H2D,
            raw_frame(v1_roll),
            p.BAD_VERSION,
            p.legacy_error_frame(0x0103, 4, "protocol 2").hex(),
        ),
        ("over_long_65_bytes", H2D, (bytes(range(1, 66)) + b"\x00").hex(), p.TOO_LONG, None),
        ("bad_cobs_block_past_end", H2D, "05010203" + "00", p.BAD_COBS, None),
        (
            "bad_cobs_in_valid_frame",
            H2D,
            "0c" + frame({"type": "PING", "seq": 7, "data": ""})[2:],
            p.BAD_COBS,
            None,
        ),
        (
            "roll_zero_dice",
            H2D,
            raw_frame(p.encode_packet(p.ROLL, 0x1238, sess + b"\x00")),
            p.BAD_COUNT,
            error_reply(0x1238, 2, "n=0", SESSION),
        ),
        (
            "roll_eleven_dice",
            H2D,
            raw_frame(p.encode_packet(p.ROLL, 0x1240, sess + b"\x0b")),
            p.BAD_COUNT,
            error_reply(0x1240, 2, "n=11", SESSION),
        ),
        (
            "roll_body_6_bytes",
            H2D,
            raw_frame(p.encode_packet(p.ROLL, 0x1237, sess + b"\x02\x02")),
            p.BAD_LENGTH,
            error_reply(0x1237, 1, "ROLL len 6"),
        ),
        (
            "roll_without_session",
            H2D,
            raw_frame(p.encode_packet(p.ROLL, 0x1243, b"\x02")),
            p.BAD_LENGTH,
            error_reply(0x1243, 1, "ROLL len 1"),
        ),
        (
            "hello_req_with_body",
            H2D,
            raw_frame(p.encode_packet(p.HELLO_REQ, 0x1241, b"\x01")),
            p.BAD_LENGTH,
            error_reply(0x1241, 1, "HELLO_REQ len 1"),
        ),
        (
            "ack_without_session",
            H2D,
            raw_frame(p.encode_packet(p.ACK, 0xBEEF, b"")),
            p.BAD_LENGTH,
            error_reply(0xBEEF, 1, "ACK len 0"),
        ),
        (
            "ping_9_bytes",
            H2D,
            raw_frame(p.encode_packet(p.PING, 0x1242, bytes(range(9)))),
            p.BAD_LENGTH,
            error_reply(0x1242, 1, "PING len 9"),
        ),
        (
            "unknown_type",
            H2D,
            raw_frame(p.encode_packet(0x7E, 0x1239, b"")),
            p.UNKNOWN_TYPE,
            error_reply(0x1239, 3, "type 0x7E"),
        ),
        (
            "result_die_7",
            D2H,
            raw_frame(p.encode_packet(p.RESULT, 0x1235, sess + b"\x02\x03\x07")),
            p.BAD_VALUE,
            None,
        ),
        ("result_die_0", D2H, raw_frame(p.encode_packet(p.RESULT, 0x1235, sess + b"\x01\x00")), p.BAD_VALUE,
         None),
        (
            "result_count_mismatch",
            D2H,
            raw_frame(p.encode_packet(p.RESULT, 0x1235, sess + b"\x03\x03\x05")),
            p.BAD_LENGTH,
            None,
        ),
        (
            "result_zero_dice",
            D2H,
            raw_frame(p.encode_packet(p.RESULT, 0x1236, sess + b"\x00")),
            p.BAD_LENGTH,  # a roll has at least one die: a body of just n=0 is the wrong length (§2)
            None,
        ),
        (
            "result_without_session",
            D2H,
            raw_frame(p.encode_packet(p.RESULT, 0x1235, b"\x02\x03\x05")),
            p.BAD_LENGTH,
            None,
        ),
        (
            "button_roll_zero_dice",
            D2H,
            raw_frame(p.encode_packet(p.BUTTON_ROLL, 0xBEF0, sess + b"\x00")),
            p.BAD_LENGTH,
            None,
        ),
        (
            "button_roll_empty",
            D2H,
            raw_frame(p.encode_packet(p.BUTTON_ROLL, 0xBEEF, b"")),
            p.BAD_LENGTH,
            None,
        ),
        (
            "hello_v1_body",
            D2H,
            raw_frame(p.encode_packet(p.HELLO, 0x1234, V1_HELLO_BODY)),
            p.BAD_LENGTH,
            None,
        ),
        ("pong_short", D2H, raw_frame(p.encode_packet(p.PONG, 7, sess)), p.BAD_LENGTH, None),
        (
            "error_non_ascii_detail",
            D2H,
            raw_frame(p.encode_packet(p.ERROR, 0x1237, b"\x01" + sess + b"\xff")),
            p.BAD_VALUE,
            None,
        ),
        ("unknown_device_type", D2H, raw_frame(p.encode_packet(0xF0, 0x0001, b"")), p.UNKNOWN_TYPE, None),
    ]
    bad = [{"name": n, "direction": d, "hex": h, "error": e, "reply": r} for n, d, h, e, r in invalid]
    return {
        "protocol_version": p.VERSION,
        "about": "Golden frames for docs/dice-protocol.md. hex = complete on-wire bytes incl. the 0x00 "
        "delimiter. frames: decode(hex) == message and encode(message) == hex. invalid: must be rejected "
        "with `error`; `reply` is what the firmware answers (null = dropped silently and counted).",
        "frames": frames,
        "invalid": bad,
    }


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


def main() -> int:
    out = ROOT / "docs" / "dice-protocol.golden.json"
    data = build()
    out.write_text(render())
    print(f"wrote {out}: {len(data['frames'])} frames, {len(data['invalid'])} invalid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""hardware.protocol against docs/dice-protocol.md and its golden frames (shared with the firmware tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hardware.errors import ProtocolError, Rejection
from hardware.protocol import (
    MAX_FRAME,
    Ack,
    ButtonRoll,
    Capability,
    ErrorCode,
    ErrorReply,
    FrameDecoder,
    Hello,
    HelloRequest,
    Message,
    MessageType,
    Ping,
    Pong,
    Result,
    RollRequest,
    Status,
    StatusRequest,
    cobs_decode,
    cobs_encode,
    crc16_ccitt_false,
    decode_frame,
    decode_packet,
    encode_frame,
    encode_packet,
    message_from_json,
    message_to_json,
)

GOLDEN_PATH = Path(__file__).resolve().parents[2] / "docs" / "dice-protocol.golden.json"
GOLDEN: dict[str, Any] = json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))

# One of each message, with edge values (seq 0 and 0xffff, empty and full payloads).
SAMPLES: list[Message] = [
    HelloRequest(0),
    RollRequest(0xFFFF, 10),
    Ping(1, b""),
    Ping(2, b"\x00\xff\x00\x00\x00\x00\x00\x00"),
    Ack(0xBEEF),
    StatusRequest(3),
    Hello(4, 1, (1, 2, 3), Capability.BUTTON | Capability.STATUS, 10, bytes(8)),
    Result(5, (1,)),
    Result(6, (6, 5, 4, 3, 2, 1, 1, 2, 3, 4)),
    ButtonRoll(7, (4, 1)),
    Pong(8, b"\x00"),
    ErrorReply(9, ErrorCode.NO_SESSION, "x" * 32),
    ErrorReply(10, ErrorCode(200), ""),
    Status(11, 1, 2**32 - 1, *range(11)),
]


def test_golden_file_covers_every_message_type() -> None:
    assert GOLDEN["protocol_version"] == 1
    seen = {entry["message"]["type"] for entry in GOLDEN["frames"]}
    assert seen == {t.name for t in MessageType}


@pytest.mark.parametrize("entry", GOLDEN["frames"], ids=lambda e: e["name"])
def test_golden_frame_decodes_to_its_message(entry: dict[str, Any]) -> None:
    message = decode_frame(bytes.fromhex(entry["hex"]))
    assert message == message_from_json(entry["message"])
    assert message_to_json(message) == entry["message"]
    is_host = message.TYPE < 0x80
    assert is_host == (entry["direction"] == "host_to_device")


@pytest.mark.parametrize("entry", GOLDEN["frames"], ids=lambda e: e["name"])
def test_golden_message_encodes_to_its_frame(entry: dict[str, Any]) -> None:
    assert encode_frame(message_from_json(entry["message"])).hex() == entry["hex"]


@pytest.mark.parametrize("entry", GOLDEN["invalid"], ids=lambda e: e["name"])
def test_golden_invalid_frame_is_rejected_with_its_name(entry: dict[str, Any]) -> None:
    frame = bytes.fromhex(entry["hex"])
    with pytest.raises(ProtocolError) as caught:
        decode_frame(frame)
    assert caught.value.rejection is Rejection(entry["error"])
    decoder = FrameDecoder()
    assert decoder.feed(frame) == []
    assert decoder.dropped == 1
    assert decoder.last_error is not None and decoder.last_error.rejection is Rejection(entry["error"])


@pytest.mark.parametrize("entry", [e for e in GOLDEN["invalid"] if e["reply"]], ids=lambda e: e["name"])
def test_golden_device_replies_to_invalid_frames_decode(entry: dict[str, Any]) -> None:
    reply = decode_frame(bytes.fromhex(entry["reply"]))
    assert isinstance(reply, ErrorReply)


@pytest.mark.parametrize("name", ["result_zero_dice", "button_roll_zero_dice"])
def test_a_roll_of_zero_dice_from_the_device_is_bad_length(name: str) -> None:
    """docs/dice-protocol.md §4: RESULT/BUTTON_ROLL with n = 0 is `bad_length` (a body of one byte), not
    `bad_count`; the golden entry must exist so both ends keep agreeing on it."""
    entry = {e["name"]: e for e in GOLDEN["invalid"]}[name]
    assert entry["error"] == "bad_length" and entry["reply"] is None
    packet = cobs_decode(bytes.fromhex(entry["hex"])[:-1])
    assert packet[4:6] == b"\x01\x00"  # len 1, n = 0
    with pytest.raises(ProtocolError) as caught:
        decode_frame(bytes.fromhex(entry["hex"]))
    assert caught.value.rejection is Rejection.BAD_LENGTH


def test_worked_example_from_the_doc() -> None:
    packet = encode_packet(RollRequest(0x1235, 2))
    assert packet.hex(" ") == "01 02 12 35 01 02 c4 da"
    assert cobs_encode(packet).hex(" ") == "09 01 02 12 35 01 02 c4 da"


def test_crc_check_value() -> None:
    assert crc16_ccitt_false(b"123456789") == 0x29B1
    assert crc16_ccitt_false(b"") == 0xFFFF


@pytest.mark.parametrize(
    ("raw", "encoded"),
    [
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x00", b"\x01\x01"),
        (b"", b"\x01"),
        (b"\x00\x00", b"\x01\x01\x01"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),  # no trailing empty block
        (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    ],
)
def test_cobs_examples(raw: bytes, encoded: bytes) -> None:
    assert cobs_encode(raw) == encoded
    assert cobs_decode(encoded) == raw


def test_cobs_refuses_a_block_past_the_end_and_quotes_it() -> None:
    with pytest.raises(ProtocolError, match="05 01 02") as caught:
        cobs_decode(b"\x05\x01\x02")
    assert caught.value.rejection is Rejection.BAD_COBS


@pytest.mark.parametrize("message", SAMPLES, ids=repr)
def test_every_message_round_trips(message: Message) -> None:
    frame = encode_frame(message)
    assert frame.endswith(b"\x00") and b"\x00" not in frame[:-1]
    assert len(frame) - 1 <= MAX_FRAME
    assert decode_frame(frame) == message
    assert message_from_json(json.loads(json.dumps(message_to_json(message)))) == message


@pytest.mark.parametrize("message", SAMPLES, ids=repr)
def test_reprs_paste_back(message: Message) -> None:
    namespace = {name: obj for name, obj in globals().items() if not name.startswith("_")}
    assert eval(repr(message), namespace) == message


def test_unknown_error_codes_are_accepted_as_the_protocol_requires() -> None:
    reply = decode_frame(encode_frame(ErrorReply(1, ErrorCode(99), "new")))
    assert isinstance(reply, ErrorReply)
    assert int(reply.code) == 99 and reply.code.name == "UNKNOWN_99"
    assert ErrorCode(99) == 99 and repr(ErrorCode(99)) == "ErrorCode(99)"


def test_unknown_capability_bits_are_kept() -> None:
    hello = Hello(1, 1, (1, 0, 0), Capability(0xF1), 10, bytes(8))
    decoded = decode_frame(encode_frame(hello))
    assert isinstance(decoded, Hello) and int(decoded.capabilities) == 0xF1
    assert Capability.BUTTON in decoded.capabilities


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: RollRequest(1, 0), "0"),
        (lambda: RollRequest(1, 11), "11"),
        (lambda: RollRequest(-1, 2), "-1"),
        (lambda: RollRequest(65536, 2), "65536"),
        (lambda: Result(1, (0, 1)), r"\(0, 1\)"),
        (lambda: Result(1, ()), r"\(\)"),
        (lambda: Ping(1, bytes(9)), "longer than 8"),
        (lambda: ErrorReply(1, ErrorCode.BUSY, "é"), "é"),
        (lambda: ErrorReply(1, ErrorCode.BUSY, "x" * 33), "longer"),
        (lambda: Hello(1, 1, (1, 0, 0), Capability.NONE, 10, bytes(7)), "device id"),
        (lambda: Status(1, 0, -1), "uptime_s"),
    ],
)
def test_constructors_refuse_what_cannot_be_sent(make: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_packet_checks_run_in_the_documented_order() -> None:
    good = encode_packet(RollRequest(7, 2))
    # Wrong version AND wrong length: version is checked first (after the CRC).
    bad = bytearray(good[:-2])
    bad[0], bad[4] = 2, 9
    bad += crc16_ccitt_false(bytes(bad)).to_bytes(2, "big")
    with pytest.raises(ProtocolError) as caught:
        decode_packet(bytes(bad))
    assert caught.value.rejection is Rejection.BAD_VERSION
    with pytest.raises(ProtocolError) as caught:
        decode_packet(good[:6])
    assert caught.value.rejection is Rejection.TRUNCATED


def test_json_refuses_malformed_messages_quoting_them() -> None:
    bad: list[object] = [
        {"type": "ROLL", "seq": 1}, {"type": "NOPE", "seq": 1}, {"type": "ROLL", "seq": 1, "n": 2, "x": 1},
        ["ROLL"], {"type": "RESULT", "seq": 1, "dice": [7]},
    ]
    for obj in bad:
        with pytest.raises(ValueError, match="message"):
            message_from_json(obj)


# ------------------------------------------------------------------------------------------- stream decoder

def test_decoder_splits_a_stream_fed_byte_by_byte() -> None:
    stream = b"".join(encode_frame(m) for m in SAMPLES)
    decoder = FrameDecoder()
    out: list[Message] = []
    for i in range(len(stream)):
        out += decoder.feed(stream[i : i + 1])
    assert out == SAMPLES
    assert decoder.dropped == 0 and decoder.decoded == len(SAMPLES) and decoder.pending == 0


def test_decoder_resynchronises_after_garbage_and_ignores_empty_frames() -> None:
    decoder = FrameDecoder()
    roll = RollRequest(0x1235, 2)
    # A MicroPython banner (no 0x00), then empty frames, then a real frame.
    banner = b"MicroPython v1.23 on 2024-06-02; Raspberry Pi Pico\r\n>>> "
    out = decoder.feed(banner + b"\x00\x00\x00" + encode_frame(roll))
    assert out == [roll]
    assert decoder.dropped == 1  # the banner was one rejected frame; empty frames are not counted


def test_decoder_drops_an_over_long_frame_once_and_recovers() -> None:
    decoder = FrameDecoder()
    roll = RollRequest(1, 3)
    assert decoder.feed(b"\x01" * 200) == []
    assert decoder.dropped == 1
    assert decoder.feed(b"\x01" * 50 + b"\x00" + encode_frame(roll)) == [roll]
    assert decoder.dropped == 1
    assert decoder.last_error is not None and decoder.last_error.rejection is Rejection.TOO_LONG


def test_decoder_accepts_a_frame_of_exactly_64_bytes_before_the_delimiter() -> None:
    status = Status(1, 0, 0)
    frame = encode_frame(status)
    assert len(frame) - 1 <= MAX_FRAME
    assert FrameDecoder().feed(frame) == [status]


def test_drop_partial_discards_a_stale_half_frame() -> None:
    reports: list[ProtocolError] = []
    decoder = FrameDecoder(on_drop=reports.append)
    frame = encode_frame(Result(9, (3, 5)))
    assert decoder.feed(frame[:6]) == []
    assert decoder.drop_partial()
    assert not decoder.drop_partial()
    assert decoder.feed(frame[6:]) == []  # the tail alone is garbage
    assert decoder.feed(frame) == [Result(9, (3, 5))]
    assert [r.rejection for r in reports] == [Rejection.STALE, Rejection.BAD_COBS]

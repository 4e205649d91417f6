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
    crc16_t10_dif,
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
    RollRequest(0xFFFF, 0xFFFFFFFF, 10),
    RollRequest(0, 0, 1),
    Ping(1, b""),
    Ping(2, b"\x00\xff\x00\x00\x00\x00\x00\x00"),
    Ack(0xBEEF, 0x01000000),
    StatusRequest(3),
    Hello(4, 2, (1, 2, 3), Capability.BUTTON | Capability.STATUS, 10, bytes(8), 0xFFFFFFFF, 1, 0xFFFF),
    Result(5, 7, (1,)),
    Result(6, 0xFFFFFFFF, (6, 5, 4, 3, 2, 1, 1, 2, 3, 4)),
    ButtonRoll(7, 8, (4, 1)),
    Pong(8, 9, 10, b"\x00"),
    Pong(8, 0, 0, bytes(8)),
    ErrorReply(9, ErrorCode.NO_SESSION, "x" * 32, 0xFFFFFFFF),
    ErrorReply(10, ErrorCode(200), ""),
    ErrorReply(11, ErrorCode.SESSION_CLOSED, "session closed", 5),
    Status(11, 1, 2**32 - 1, *range(12)),
]


def test_golden_file_covers_every_message_type() -> None:
    assert GOLDEN["protocol_version"] == 2
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
    if entry["name"] == "wrong_version_1":  # answered in v1's own format, which this driver names, not reads
        with pytest.raises(ProtocolError) as caught:
            decode_frame(bytes.fromhex(entry["reply"]))
        assert caught.value.legacy and caught.value.version == 1 and caught.value.message_type == 0x85
        return
    reply = decode_frame(bytes.fromhex(entry["reply"]))
    assert isinstance(reply, ErrorReply)


@pytest.mark.parametrize("name", ["result_zero_dice", "button_roll_zero_dice"])
def test_a_roll_of_zero_dice_from_the_device_is_bad_length(name: str) -> None:
    """docs/dice-protocol.md §4: RESULT/BUTTON_ROLL with n = 0 is `bad_length` (a body of one byte), not
    `bad_count`; the golden entry must exist so both ends keep agreeing on it."""
    entry = {e["name"]: e for e in GOLDEN["invalid"]}[name]
    assert entry["error"] == "bad_length" and entry["reply"] is None
    packet = cobs_decode(bytes.fromhex(entry["hex"])[:-1])
    assert packet[4] == 5 and packet[9] == 0  # len 5: a session, then n = 0
    with pytest.raises(ProtocolError) as caught:
        decode_frame(bytes.fromhex(entry["hex"]))
    assert caught.value.rejection is Rejection.BAD_LENGTH


def test_worked_example_from_the_doc() -> None:
    text = " ".join(GOLDEN_PATH.with_name("dice-protocol.md").read_text(encoding="utf-8").split())
    packet = encode_packet(RollRequest(0x1235, 0x5E551D01, 2))
    wire = cobs_encode(packet) + bytes(1)
    assert f"packet `{packet.hex(' ').upper()}`" in text
    assert f"`{wire.hex(' ').upper()}`" in text


def test_crc_check_values() -> None:
    assert crc16_ccitt_false(b"123456789") == 0x29B1
    assert crc16_ccitt_false(b"") == 0xFFFF
    assert crc16_t10_dif(b"123456789") == 0xD0DB


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
    hello = Hello(1, 2, (1, 0, 0), Capability(0xF1), 10, bytes(8), 1, 2, 3)
    decoded = decode_frame(encode_frame(hello))
    assert isinstance(decoded, Hello) and int(decoded.capabilities) == 0xF1
    assert Capability.BUTTON in decoded.capabilities


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: RollRequest(1, 1, 0), "0"),
        (lambda: RollRequest(1, 1, 11), "11"),
        (lambda: RollRequest(-1, 1, 2), "-1"),
        (lambda: RollRequest(65536, 1, 2), "65536"),
        (lambda: RollRequest(1, 1 << 32, 2), "session"),
        (lambda: RollRequest(1, -1, 2), "session"),
        (lambda: Ack(1, 1 << 32), "session"),
        (lambda: Result(1, 1, (0, 1)), r"\(0, 1\)"),
        (lambda: Result(1, 1, ()), r"\(\)"),
        (lambda: Ping(1, bytes(9)), "longer than 8"),
        (lambda: Pong(1, 1, 1 << 16), "65536"),
        (lambda: ErrorReply(1, ErrorCode.BUSY, "é"), "é"),
        (lambda: ErrorReply(1, ErrorCode.BUSY, "x" * 33), "longer"),
        (lambda: Hello(1, 2, (1, 0, 0), Capability.NONE, 10, bytes(7), 1, 1, 1), "device id"),
        (lambda: Hello(1, 2, (1, 0, 0), Capability.NONE, 10, bytes(8), 1 << 32, 1, 1), "boot"),
        (lambda: Status(1, 0, -1), "uptime_s"),
    ],
)
def test_constructors_refuse_what_cannot_be_sent(make: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def _recrc(packet: bytes) -> bytes:
    """The packet with its trailing CRC made right again (whatever else is wrong stays wrong)."""
    return packet[:-2] + crc16_ccitt_false(packet[:-2]).to_bytes(2, "big")


def test_packet_checks_run_in_the_documented_order() -> None:
    good = encode_packet(RollRequest(7, 1, 2))
    # Wrong version AND wrong check AND wrong length: the version is checked first (after the CRC).
    bad = bytearray(good)
    bad[0], bad[4], bad[-3] = 3, 9, bad[-3] ^ 1
    with pytest.raises(ProtocolError) as caught:
        decode_packet(_recrc(bytes(bad)))
    assert caught.value.rejection is Rejection.BAD_VERSION
    assert (caught.value.version, caught.value.seq, caught.value.message_type) == (3, 7, 0x02)
    # Right version, wrong check and length: the check first.
    bad[0] = 2
    with pytest.raises(ProtocolError) as caught:
        decode_packet(_recrc(bytes(bad)))
    assert caught.value.rejection is Rejection.BAD_CRC and caught.value.seq is None
    with pytest.raises(ProtocolError) as caught:
        decode_packet(good[:6])
    assert caught.value.rejection is Rejection.TRUNCATED


def test_a_well_formed_v1_packet_is_named_as_such() -> None:
    v1 = encode_packet(ErrorReply(0x0103, ErrorCode.BAD_VERSION, "protocol 1"), version=1)
    with pytest.raises(ProtocolError) as caught:
        decode_packet(v1)
    assert caught.value.rejection is Rejection.BAD_VERSION and caught.value.legacy
    assert (caught.value.version, caught.value.seq) == (1, 0x0103)


def test_a_corrupted_packet_that_fools_the_outer_crc_is_still_refused() -> None:
    good = encode_packet(Result(5, 1, (3, 5)))
    forged = bytearray(good)
    forged[-5] = 6  # the second die, 5 -> 6
    with pytest.raises(ProtocolError) as caught:
        decode_packet(_recrc(bytes(forged)))
    assert caught.value.rejection is Rejection.BAD_CRC


def test_json_refuses_malformed_messages_quoting_them() -> None:
    bad: list[object] = [
        {"type": "ROLL", "seq": 1}, {"type": "NOPE", "seq": 1},
        {"type": "ROLL", "seq": 1, "session": 1, "n": 2, "x": 1}, {"type": "ROLL", "seq": 1, "n": 2},
        ["ROLL"], {"type": "RESULT", "seq": 1, "session": 1, "dice": [7]},
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
    roll = RollRequest(0x1235, 1, 2)
    # A MicroPython banner (no 0x00), then empty frames, then a real frame.
    banner = b"MicroPython v1.23 on 2024-06-02; Raspberry Pi Pico\r\n>>> "
    out = decoder.feed(banner + b"\x00\x00\x00" + encode_frame(roll))
    assert out == [roll]
    assert decoder.dropped == 1  # the banner was one rejected frame; empty frames are not counted


def test_decoder_drops_an_over_long_frame_once_and_recovers() -> None:
    decoder = FrameDecoder()
    roll = RollRequest(1, 1, 3)
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
    frame = encode_frame(Result(9, 1, (3, 5)))
    assert decoder.feed(frame[:6]) == []
    assert decoder.drop_partial()
    assert not decoder.drop_partial()
    assert decoder.feed(frame[6:]) == []  # the tail alone is garbage
    assert decoder.feed(frame) == [Result(9, 1, (3, 5))]
    assert len(reports) == 2 and reports[0].rejection is Rejection.STALE

"""The firmware's protocol codec (firmware/dice/protocol.py) against docs/dice-protocol.golden.json."""

from __future__ import annotations

from typing import Any

import pytest

from firmware.dice import protocol as p
from tests.firmware.golden import FRAMES, GOLDEN, INVALID


def test_crc_check_values() -> None:
    # The published check values of CRC-16/CCITT-FALSE and CRC-16/T10-DIF.
    assert p.crc16(b"123456789") == 0x29B1
    assert p.crc16(b"") == 0xFFFF
    assert p.check16(b"123456789") == 0xD0DB
    assert p.check16(b"") == 0


def test_the_two_crc_generators_share_no_factor() -> None:
    # gcd over GF(2) of x^16+x^12+x^5+1 and x^16+x^15+x^11+x^9+x^8+x^7+x^5+x^4+x^2+x+1 is 1, so together
    # they detect every error a degree-32 generator (their product) would: random corruption passes 2**-32.
    def mod(a: int, b: int) -> int:
        while a and a.bit_length() >= b.bit_length():
            a ^= b << (a.bit_length() - b.bit_length())
        return a

    a, b = 0x11021, 0x18BB7
    while b:
        a, b = b, mod(a, b)
    assert a == 1


@pytest.mark.parametrize(
    ("raw", "encoded"),
    [  # the examples of the COBS paper / Wikipedia
        ("00", "0101"),
        ("0000", "010101"),
        ("11220033", "0311220233"),
        ("11223344", "0511223344"),
        ("11000000", "0211010101"),
        (bytes(range(1, 255)).hex(), "ff" + bytes(range(1, 255)).hex()),
        (bytes(range(0, 255)).hex(), "01ff" + bytes(range(1, 255)).hex()),
        (bytes(range(1, 256)).hex(), "ff" + bytes(range(1, 255)).hex() + "02ff"),
    ],
)
def test_cobs_vectors(raw: str, encoded: str) -> None:
    assert p.cobs_encode(bytes.fromhex(raw)).hex() == encoded
    assert p.cobs_decode(bytes.fromhex(encoded)).hex() == raw


def test_hand_assembled_frame_matches_golden() -> None:
    # ROLL seq 0x1235 in session 0x5E551D01, n=2, built by hand from the spec (not by the codec): header,
    # body, check, CRC, COBS, 0x00.
    head = bytes([0x02, 0x02, 0x12, 0x35, 0x05, 0x5E, 0x55, 0x1D, 0x01, 0x02])
    check = p.check16(head)
    head += bytes([check >> 8, check & 0xFF])
    crc = p.crc16(head)
    packet = head + bytes([crc >> 8, crc & 0xFF])
    assert 0 not in packet
    wire = bytes([len(packet) + 1]) + packet + b"\x00"
    golden = next(f for f in FRAMES if f["name"] == "roll_2")
    assert wire.hex() == golden["hex"]


def test_golden_file_covers_every_message_type_and_rejection() -> None:
    assert GOLDEN["protocol_version"] == p.VERSION
    assert {f["message"]["type"] for f in FRAMES} == set(p.TYPE_CODES)
    assert {f["error"] for f in INVALID} == {
        p.BAD_COBS, p.TRUNCATED, p.BAD_CRC, p.LENGTH_MISMATCH, p.TOO_LONG, p.BAD_VERSION, p.BAD_LENGTH,
        p.BAD_COUNT, p.BAD_VALUE, p.UNKNOWN_TYPE,
    }
    assert {f["message"]["code"] for f in FRAMES if f["message"]["type"] == "ERROR"} == set(range(1, 10))
    names = [f["name"] for f in FRAMES + INVALID]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", FRAMES, ids=lambda c: c["name"])
def test_golden_frame_decodes_and_encodes(case: dict[str, Any]) -> None:
    wire = bytes.fromhex(case["hex"])
    assert p.decode_message(wire) == case["message"]
    assert p.encode_message(case["message"]) == wire
    packets = p.Deframer().feed(wire)
    assert len(packets) == 1
    assert isinstance(packets[0], p.Packet)
    host_type = p.is_host_type(packets[0].type)
    assert case["direction"] == ("host_to_device" if host_type else "device_to_host")


@pytest.mark.parametrize("case", INVALID, ids=lambda c: c["name"])
def test_golden_invalid_frame_is_rejected(case: dict[str, Any]) -> None:
    wire = bytes.fromhex(case["hex"])
    with pytest.raises(p.FrameError) as info:
        p.decode_message(wire)
    assert info.value.kind == case["error"]


@pytest.mark.parametrize("name", ["result_zero_dice", "button_roll_zero_dice"])
def test_a_roll_of_zero_dice_from_the_device_is_bad_length(name: str) -> None:
    case = {c["name"]: c for c in INVALID}[name]
    assert case["error"] == p.BAD_LENGTH and case["reply"] is None
    packet = p.cobs_decode(bytes.fromhex(case["hex"])[:-1])
    assert packet[4] == 5 and packet[9] == 0  # len 5: a session and n = 0
    with pytest.raises(p.FrameError) as info:
        p.decode_message(bytes.fromhex(case["hex"]))
    assert info.value.kind == p.BAD_LENGTH


def test_stream_of_all_golden_frames_with_garbage_between() -> None:
    stream = bytearray(b"\x00garbage\x00")
    for case in FRAMES:
        stream += bytes.fromhex(case["hex"]) + b"\x00\x00\x13\x37\x00"
    items = p.Deframer().feed(bytes(stream))
    packets = [i for i in items if isinstance(i, p.Packet)]
    assert [p.packet_to_message(pk) for pk in packets] == [f["message"] for f in FRAMES]
    assert all(isinstance(i, p.FrameError) for i in items if not isinstance(i, p.Packet))


def test_deframer_byte_by_byte_equals_whole() -> None:
    wire = b"".join(bytes.fromhex(f["hex"]) for f in FRAMES + INVALID)
    whole = p.Deframer().feed(wire)
    d = p.Deframer()
    pieces: list[object] = []
    for b in wire:
        pieces.extend(d.feed(bytes([b])))
    assert [repr(x) if isinstance(x, p.Packet) else x.kind for x in whole] == [
        repr(x) if isinstance(x, p.Packet) else x.kind for x in pieces  # type: ignore[attr-defined]
    ]


def test_over_long_frame_reported_once_then_stream_recovers() -> None:
    d = p.Deframer()
    items = d.feed(b"\x01" * 500 + b"\x00" + bytes.fromhex(FRAMES[0]["hex"]))
    assert [type(i).__name__ for i in items] == ["FrameError", "Packet"]
    assert items[0].kind == p.TOO_LONG  # type: ignore[union-attr]
    assert d.feed(b"\x05" * 64 + b"\x00")[0].kind != p.TOO_LONG  # type: ignore[union-attr]  # 64 is allowed


@pytest.mark.parametrize(("name", "version", "seq", "legacy"), [
    ("wrong_version_3", 3, 0x0102, False), ("wrong_version_1", 1, 0x0103, True),
])
def test_bad_version_error_carries_trusted_header(name: str, version: int, seq: int, legacy: bool) -> None:
    case = next(c for c in INVALID if c["name"] == name)
    (error,) = p.Deframer().feed(bytes.fromhex(case["hex"]))
    assert isinstance(error, p.FrameError) and error.kind == p.BAD_VERSION
    assert (error.version, error.seq, error.ptype, error.legacy) == (version, seq, p.ROLL, legacy)


def test_a_v1_reply_is_in_v1s_own_format() -> None:
    # A v1 host can read only v1 frames: version 1, the body code + ASCII, the trailing CRC-16 alone.
    frame = p.legacy_error_frame(0x0103, p.E_BAD_VERSION, "protocol 2")
    packet = p.cobs_decode(frame[:-1])
    assert packet[:5] == bytes([1, p.ERROR, 0x01, 0x03, 11]) and packet[5:-2] == b"\x04protocol 2"
    assert p.crc16(packet[:-2]) == int.from_bytes(packet[-2:], "big")


def test_every_version_can_be_named_from_its_first_bytes_and_trailing_crc() -> None:
    # docs/dice-protocol.md §2: bytes 0..3 and the trailing CRC-16 stay in every version.
    for version in (1, 3, 200):
        packet = p.encode_packet(p.HELLO_REQ, 0x4242, b"", version=version)
        with pytest.raises(p.FrameError) as info:
            p.decode_packet(packet)
        assert (info.value.kind, info.value.version, info.value.seq) == (p.BAD_VERSION, version, 0x4242)


def test_encoders_refuse_bad_values() -> None:
    with pytest.raises(ValueError, match="seq"):
        p.encode_packet(p.ROLL, 0x10000, b"\x01")
    with pytest.raises(ValueError, match="body too long"):
        p.encode_packet(p.PING, 1, bytes(55))
    with pytest.raises(ValueError, match="die value"):
        p.dice_body(1, [1, 7])
    with pytest.raises(ValueError, match="dice"):
        p.dice_body(1, [])
    with pytest.raises(ValueError, match="session"):
        p.dice_body(1 << 32, [1])
    with pytest.raises(ValueError, match="device id"):
        p.hello_body((1, 0, 0), 0, 10, b"short", 1, 1, 0)
    # Error details are clipped to 32 printable ASCII bytes.
    body = p.error_body(1, "x" * 40 + "\n")
    assert body == b"\x01\x00\x00\x00\x00" + b"x" * 32
    assert p.error_body(1, "caf\u00e9", 7) == b"\x01\x00\x00\x00\x07caf??"


def test_largest_message_fits_a_frame() -> None:
    status = next(f for f in FRAMES if f["message"]["type"] == "STATUS")
    assert len(bytes.fromhex(status["hex"])) - 1 <= p.MAX_FRAME
    biggest = p.encode_frame(p.PING, 0, bytes(range(1, p.MAX_BODY + 1)))
    assert len(biggest) - 1 == p.MAX_FRAME
    assert len(p.Deframer().feed(biggest)) == 1


def test_generator_reproduces_the_committed_golden_file() -> None:
    from tests.firmware import make_golden

    assert make_golden.build() == GOLDEN
    assert make_golden.render() == make_golden.ROOT.joinpath("docs", "dice-protocol.golden.json").read_text()

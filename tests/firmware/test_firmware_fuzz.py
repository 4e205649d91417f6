"""Fuzzing the firmware's parser and core with random and mutated bytes: no crash, no phantom frame."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.dice import protocol as p
from firmware.dice.device import Device
from tests.firmware.fw_fakes import FakeClock, FakePin, FakeStream, SeededBytes
from tests.firmware.golden import FRAMES

HOST_FRAMES = [bytes.fromhex(f["hex"]) for f in FRAMES if f["direction"] == "host_to_device"]
ALL_FRAMES = [bytes.fromhex(f["hex"]) for f in FRAMES]
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _wire_frames(data: bytes) -> set[bytes]:
    """Every delimited chunk of the input, as it would reach COBS decoding."""
    return {bytes(chunk) for chunk in data.split(b"\x00")}


@FUZZ
@given(st.binary(max_size=600), st.integers(min_value=1, max_value=70))
def test_random_bytes_never_crash_and_accepted_frames_were_on_the_wire(data: bytes, chunk: int) -> None:
    d = p.Deframer()
    items = []
    for i in range(0, len(data), chunk):
        items.extend(d.feed(data[i : i + chunk]))
    on_wire = _wire_frames(data)
    for item in items:
        if isinstance(item, p.Packet):
            # A packet is only ever the literal decoding of one delimited chunk with a matching CRC.
            assert p.encode_frame(item.type, item.seq, item.body)[:-1] in on_wire
        else:
            assert isinstance(item, p.FrameError)


mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10_000), st.integers(1, 255)),
    st.tuples(st.just("insert"), st.integers(0, 10_000), st.integers(0, 255)),
    st.tuples(st.just("delete"), st.integers(0, 10_000), st.just(0)),
)


def _mutate(data: bytes, mutations: list[tuple[str, int, int]]) -> bytes:
    out = bytearray(data)
    for kind, pos, value in mutations:
        if not out:
            break
        i = pos % len(out)
        if kind == "flip":
            out[i] ^= value
        elif kind == "insert":
            out[i:i] = bytes([value])
        else:
            del out[i]
    return bytes(out)


@FUZZ
@given(st.lists(st.sampled_from(ALL_FRAMES), min_size=1, max_size=12),
       st.lists(mutation, min_size=1, max_size=6))
def test_mutated_frames_never_decode_to_something_else(frames: list[bytes], mutations: list) -> None:
    original = {p.decode_frame(f) for f in frames}
    items = p.Deframer().feed(_mutate(b"".join(frames), mutations))
    for item in items:
        if isinstance(item, p.Packet):
            assert item in original  # a surviving frame is one that was sent, never a new one
        else:
            assert isinstance(item, p.FrameError)


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(HOST_FRAMES), st.binary(max_size=40)), max_size=20),
       st.lists(mutation, max_size=8), st.integers(min_value=1, max_value=64))
def test_device_survives_garbage_and_only_ever_writes_valid_frames(
    pieces: list[bytes], mutations: list, chunk: int
) -> None:
    stream = FakeStream()
    stream.chunk = chunk
    clock = FakeClock()
    device = Device(stream, SeededBytes(3), clock, button=FakePin())
    stream.feed(p.encode_message({"type": "HELLO_REQ", "seq": 1}))
    data = _mutate(b"".join(pieces), mutations) if pieces else b""
    stream.feed(data)
    for _ in range(len(data) // chunk + 3):
        clock.advance(1)
        device.step()
    accepted = [pk for pk in p.Deframer().feed(data) if isinstance(pk, p.Packet)]
    sent_rolls = {pk.seq for pk in accepted if pk.type == p.ROLL}
    for frame in stream.written:
        msg = p.decode_message(frame)  # raises if the device ever wrote a malformed frame
        assert not p.is_host_type(p.TYPE_CODES[msg["type"]])
        if msg["type"] == "RESULT":
            assert msg["seq"] in sent_rolls  # no phantom roll
    # At most one roll per ROLL frame (fewer: duplicates come from the cache, bad counts are refused).
    assert device.counters["rolls"] <= sum(1 for pk in accepted if pk.type == p.ROLL)

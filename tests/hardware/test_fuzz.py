"""Fuzzing the host's stream parser: random and mutated bytes never crash it nor produce a phantom frame."""

from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware import DeviceTimeoutError, DiceRoller
from hardware.errors import ProtocolError
from hardware.protocol import (
    Ack,
    ButtonRoll,
    Capability,
    ErrorCode,
    ErrorReply,
    FrameDecoder,
    Hello,
    HelloRequest,
    Message,
    Ping,
    Pong,
    Result,
    RollRequest,
    Status,
    StatusRequest,
    cobs_decode,
    decode_frame,
    encode_frame,
)
from tests.hardware.fakes import ScriptedPort, Step, frame

FUZZ = settings(
    max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

seqs = st.integers(0, 0xFFFF)
sessions = st.integers(0, 0xFFFFFFFF)
dice = st.lists(st.integers(1, 6), min_size=1, max_size=10).map(tuple)
payloads = st.binary(max_size=8)
messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(HelloRequest, seqs),
    st.builds(RollRequest, seqs, sessions, st.integers(1, 10)),
    st.builds(Ping, seqs, payloads),
    st.builds(Ack, seqs, sessions),
    st.builds(StatusRequest, seqs),
    st.builds(Hello, seqs, st.integers(0, 255), st.tuples(*[st.integers(0, 255)] * 3),
              st.integers(0, 255).map(Capability), st.integers(0, 255), st.binary(min_size=8, max_size=8),
              sessions, sessions, seqs),
    st.builds(Result, seqs, sessions, dice),
    st.builds(ButtonRoll, seqs, sessions, dice),
    st.builds(Pong, seqs, sessions, seqs, payloads),
    st.builds(ErrorReply, seqs, st.integers(0, 255).map(ErrorCode),
              st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=32), sessions),
    st.builds(Status, seqs, st.integers(0, 255), *[st.integers(0, 2**32 - 1)] * 13),
)


def frames_in(stream: bytes) -> set[bytes]:
    """Every delimiter-terminated segment of the stream (what a frame could have been made from)."""
    parts = stream.split(b"\x00")
    return {p for p in parts[:-1] if p}


def check_no_phantom(stream: bytes, chunks: list[int]) -> list[Message]:
    decoder = FrameDecoder()
    out: list[Message] = []
    start = 0
    for size in [*chunks, len(stream)]:
        out += decoder.feed(stream[start : start + size])
        start += size
        if start >= len(stream):
            break
    segments = frames_in(stream)
    for message in out:
        # A decoded message is exactly one whole segment of the input, re-encodable byte for byte: never
        # stitched from pieces, never invented.
        assert encode_frame(message)[:-1] in segments
    assert decoder.decoded == len(out)
    return out


@FUZZ
@given(st.binary(max_size=300), st.lists(st.integers(1, 40), max_size=20))
def test_random_bytes_never_crash_and_never_invent_a_frame(stream: bytes, chunks: list[int]) -> None:
    check_no_phantom(stream, chunks)


@FUZZ
@given(st.binary(max_size=80))
def test_decode_frame_raises_only_protocol_errors(data: bytes) -> None:
    try:
        message = decode_frame(data)
    except ProtocolError as exc:
        assert exc.rejection is not None
    else:
        assert encode_frame(message) == (data if data.endswith(b"\x00") else data + b"\x00")
    with contextlib.suppress(ProtocolError):
        cobs_decode(data)


@FUZZ
@given(
    st.lists(messages, min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4),
    st.lists(st.integers(0, 10_000), max_size=2),
    st.lists(st.integers(1, 40), max_size=20),
)
def test_mutated_streams_yield_only_frames_that_were_sent(
    sent: list[Message], flips: list[tuple[int, int]], cuts: list[int], chunks: list[int]
) -> None:
    stream = bytearray(b"".join(encode_frame(m) for m in sent))
    for where, value in flips:  # overwrite bytes, including delimiters and COBS codes
        stream[where % len(stream)] = value
    for where in cuts:  # lose bytes, as a dropped USB packet would
        del stream[where % len(stream)]
    out = check_no_phantom(bytes(stream), chunks)
    # The two CRCs catch any corruption confined to a few bytes of one frame: what survives was really sent.
    assert all(message in sent for message in out)


@FUZZ
@given(
    st.lists(messages, min_size=1, max_size=8),
    st.binary(max_size=100),
    st.lists(st.integers(1, 30), max_size=30),
)
def test_valid_frames_after_garbage_are_all_recovered(
    sent: list[Message], garbage: bytes, chunks: list[int]
) -> None:
    stream = garbage + b"\x00" + b"".join(encode_frame(m) for m in sent)
    out = check_no_phantom(stream, chunks)
    assert out[-len(sent):] == sent


# ------------------------------------------------------------------------------------- the client end to end

CLIENT_FUZZ = settings(max_examples=25, derandomize=True, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])


@CLIENT_FUZZ
@given(st.binary(min_size=1, max_size=200), st.booleans())
def test_garbage_around_a_reply_never_becomes_a_roll(garbage: bytes, then_reply: bool) -> None:
    """Whatever noise the line carries, the client returns exactly the device's RESULT, or times out."""
    hello_seq = random.Random(3).randrange(65536)
    seq = (hello_seq + 1) % 65536
    request = frame(RollRequest(seq, 77, 2))
    reply = garbage + (b"\x00" + frame(Result(seq, 77, (6, 1))) if then_reply else b"")
    hello = frame(Hello(hello_seq, 2, (1, 0, 0), Capability.NONE, 10, bytes(8), 1, 77, 0))
    port = ScriptedPort([Step(b"\x00"), Step(frame(HelloRequest(hello_seq)), hello), Step(request, reply),
                         *[Step(request) for _ in range(40)]])
    roller = DiceRoller(lambda: port, rng=random.Random(3), keepalive=None, reconnect=False,
                        attempt_timeout=0.01, attempts=3, inter_byte_timeout=0.005)
    roller.open()
    try:
        if then_reply:
            roll = roller.roll(2)
            assert (roll.seq, roll.dice) == (seq, (6, 1))
        else:
            try:
                roll = roller.roll(2)
            except DeviceTimeoutError:
                pass
            else:  # only if the garbage itself held this exact RESULT frame
                assert encode_frame(Result(seq, 77, roll.dice))[:-1] in frames_in(garbage + b"\x00")
    finally:
        roller.close()

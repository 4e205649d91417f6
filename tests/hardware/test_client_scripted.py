"""DiceRoller against a scripted port: the exact bytes the host must write, and what the "device" answers."""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hardware import (
    ButtonRollEvent,
    ButtonRollsDroppedEvent,
    ConnectionEvent,
    ConnectionState,
    DeviceDisconnectedError,
    DeviceNotFoundError,
    DeviceRefusedError,
    DeviceRestartedError,
    DeviceTimeoutError,
    DiceEvent,
    DiceRoller,
    HardwareError,
    ProtocolError,
    Roll,
    RollSource,
    VersionMismatchError,
)
from hardware.protocol import (
    Ack,
    ButtonRoll,
    Capability,
    ErrorCode,
    ErrorReply,
    Hello,
    HelloRequest,
    Ping,
    Pong,
    Result,
    RollRequest,
    Status,
    StatusRequest,
    cobs_encode,
    crc16_ccitt_false,
    crc16_t10_dif,
    encode_frame,
)
from tests.hardware.fakes import ScriptedPort, Step, frame

SEED = 7
DEVICE_ID = bytes.fromhex("e6614103e7452d2f")
NOW = 1_795_000_000.0
S1, S2, S3 = 0x5E551D01, 0x5E551D02, 0x5E551D03  # the sessions the scripted device opens, in order
BOOT, BOOT2 = 0xB0071D01, 0xB0071D02


def hello_seqs(count: int = 3) -> list[int]:
    """The HELLO seqs a DiceRoller with rng=Random(SEED) picks, in order."""
    rng = random.Random(SEED)
    return [rng.randrange(65536) for _ in range(count)]


H, H2, H3 = hello_seqs()


def hello(seq: int, session: int = S1, *, caps: Capability = Capability.BUTTON | Capability.STATUS,
          max_dice: int = 10, protocol: int = 2, boot: int = BOOT, floor: int = 0x0100) -> bytes:
    return frame(Hello(seq, protocol, (2, 0, 0), caps, max_dice, DEVICE_ID, boot, session, floor))


def handshake(seq: int = H, session: int = S1, **kw: object) -> list[Step]:
    return [Step(b"\x00"), Step(frame(HelloRequest(seq)), hello(seq, session, **kw))]  # type: ignore[arg-type]


def rehello(seq: int, session: int, **kw: object) -> Step:
    return Step(frame(HelloRequest(seq)), hello(seq, session, **kw))  # type: ignore[arg-type]


def roller_for(port: ScriptedPort | Callable[[], ScriptedPort], **options: object) -> DiceRoller:
    opener = port if callable(port) and not isinstance(port, ScriptedPort) else (lambda: port)
    settings: dict[str, object] = {
        "name": "scripted", "rng": random.Random(SEED), "keepalive": None, "reconnect": False,
        "attempt_timeout": 0.05, "clock": lambda: NOW,
    }
    settings.update(options)
    return DiceRoller(opener, **settings)  # type: ignore[arg-type]


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.002)


def forged(packet: bytes) -> bytes:
    """A frame of `packet` with both its check and its CRC made right: the device really sent it so."""
    head = packet[:-4]
    head += crc16_t10_dif(head).to_bytes(2, "big")
    return cobs_encode(head + crc16_ccitt_false(head).to_bytes(2, "big")) + b"\x00"


def v1_frame(head: bytes) -> bytes:
    """A protocol-v1 frame: no check, the trailing CRC-16 alone."""
    return cobs_encode(head + crc16_ccitt_false(head).to_bytes(2, "big")) + b"\x00"


# ---------------------------------------------------------------------------------------- rolls and sessions

def test_handshake_then_roll_writes_exactly_the_protocol_bytes() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, S1, 2)), frame(Result(seq, S1, (3, 5))))])
    roller = roller_for(port)
    info = roller.open()
    assert info.device_id == DEVICE_ID.hex() and info.firmware == "2.0.0" and info.max_dice == 10
    assert roller.session == S1
    expected = Roll((3, 5), RollSource.DEVICE, NOW, device_id=DEVICE_ID.hex(), seq=seq, session=S1)
    assert roller.roll(2) == expected
    roller.close()
    assert port.done and port.closed
    assert roller.state is ConnectionState.CLOSED


def test_a_lost_reply_is_retried_with_the_same_bytes() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, S1, 3))
    result = frame(Result(seq, S1, (1, 2, 6)))
    port = ScriptedPort([*handshake(), Step(request), Step(request), Step(request, result)])
    roller = roller_for(port)
    roller.open()
    assert roller.roll(3, timeout=2.0).dice == (1, 2, 6)
    assert port.done and roller.stats.resends == 2
    roller.close()


def test_retries_back_off_growing_to_a_bound() -> None:
    """Issue 24, defect 3: no resend storm. Waits of 0.05, 0.1, 0.2, then 0.2 s each: at most 7 sends in 1 s
    (one every 0.05 s would be 20)."""
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, S1, 1))
    port = ScriptedPort([*handshake(), *[Step(request) for _ in range(50)]])
    roller = roller_for(port, attempt_timeout=0.05, max_attempt_timeout=0.2)
    roller.open()
    with pytest.raises(DeviceTimeoutError):
        roller.roll(1, timeout=1.0)
    assert 3 <= len(port.written) - 2 <= 7
    roller.close()


def test_a_corrupted_reply_is_no_reason_to_send_again_sooner() -> None:
    """Issue 24, defect 3: a reply that fails to decode made the driver resend at once (11,561 sends in
    1.25 s). Now only the attempt's wait does."""
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, S1, 2))
    good = frame(Result(seq, S1, (4, 4)))
    corrupted = good[:3] + bytes([good[3] ^ 0x10]) + good[4:]
    port = ScriptedPort([*handshake(), Step(request, corrupted * 50), Step(request, good)])
    roller = roller_for(port, attempt_timeout=0.3)
    roller.open(timeout=2.0)
    assert roller.roll(2, timeout=2.0).dice == (4, 4)
    assert port.done and len(port.written) == 4 and roller.stats.frames_dropped == 50
    roller.close()


def test_an_invalid_reply_the_device_really_sent_ends_the_roll_at_once() -> None:
    """Issue 24, defect 3: a RESULT with a die of 7 (both CRCs right) was resent 11,561 times and reported as
    "no reply". It is the device's answer, and a bad one: a ProtocolError, after one send."""
    seq = (H + 1) % 65536
    die7 = bytearray(frame(Result(seq, S1, (3, 5))))
    from hardware.protocol import cobs_decode

    packet = bytearray(cobs_decode(bytes(die7[:-1])))
    packet[11] = 7
    port = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, S1, 2)), forged(bytes(packet)))])
    roller = roller_for(port, attempt_timeout=0.25)
    roller.open()
    with pytest.raises(ProtocolError, match=r"invalid frame.*1..6") as caught:
        roller.roll(2, timeout=1.25)
    assert caught.value.device_may_have_rolled  # it rolled something: its display may show it
    assert len(port.written) == 3
    roller.close()


def test_a_duplicate_answer_is_ignored_and_a_conflicting_one_reported() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, S1, 2))
    twice = frame(Result(seq, S1, (2, 3)), Result(seq, S1, (2, 3)))
    port = ScriptedPort([*handshake(), Step(request), Step(request, twice)])
    roller = roller_for(port)
    roller.open()
    assert roller.roll(2, timeout=2.0).dice == (2, 3)
    wait_until(lambda: roller.stats.stale_replies == 1)
    assert roller.stats.conflicting_replies == 0
    port.inject(frame(Result(seq, S1, (6, 6))))  # the same ROLL answered with other dice: a device bug
    wait_until(lambda: roller.stats.conflicting_replies == 1)
    port.inject(frame(Result(seq, S2, (6, 6))))  # the same seq of another session is another roll
    wait_until(lambda: roller.stats.stale_replies == 3)
    assert roller.stats.conflicting_replies == 1
    roller.close()


def test_an_answer_naming_another_session_is_not_ours() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, S1, 2))
    port = ScriptedPort([*handshake(), Step(request, frame(Result(seq, S2, (1, 1)))),
                         Step(request, frame(Result(seq, S1, (5, 5))))])
    roller = roller_for(port)
    roller.open()
    assert roller.roll(2, timeout=2.0).dice == (5, 5)
    roller.close()


def test_no_reply_raises_device_timeout_error_quoting_the_frame() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, S1, 1))
    port = ScriptedPort([*handshake(), *[Step(request) for _ in range(50)]])
    roller = roller_for(port, attempt_timeout=0.02, attempts=5)
    roller.open()
    with pytest.raises(DeviceTimeoutError, match=request.hex(" ")) as caught:
        roller.roll(1)
    assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, OSError)
    assert caught.value.device_may_have_rolled  # the ROLL left: the device may have rolled and shown dice
    sent = port.written[2:]
    assert 1 <= len(sent) <= 6 and set(sent) == {request}
    roller.close()


def test_open_times_out_when_nothing_answers_hello() -> None:
    port = ScriptedPort([Step(b"\x00"), *[Step(frame(HelloRequest(H))) for _ in range(20)]])
    with pytest.raises(DeviceTimeoutError, match="HelloRequest"):
        roller_for(port).open(timeout=0.2)
    assert port.closed


@pytest.mark.parametrize("sends", [1, 2])
def test_no_session_after_a_roll_left_is_reported_never_rolled_again(sends: int) -> None:
    """Issue 24, defect 2: NO_SESSION to a ROLL sent once was taken as "nothing rolled" and the driver rolled
    again, silently. A duplicated frame may have reached the old boot: the device may have rolled."""
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, S1, 2))
    no_session = frame(ErrorReply(seq, ErrorCode.NO_SESSION, "send HELLO_REQ", S1))
    port = ScriptedPort([
        *handshake(),
        *[Step(request) for _ in range(sends - 1)],
        Step(request, no_session),
        rehello(H2, S2, boot=BOOT2),
    ])
    events: list[DiceEvent] = []
    roller = roller_for(port, on_event=events.append)
    roller.open()
    with pytest.raises(DeviceRestartedError, match=r"restarted.*roll again") as caught:
        roller.roll(2, timeout=2.0)
    assert isinstance(caught.value, DeviceRefusedError) and caught.value.code == ErrorCode.NO_SESSION
    assert caught.value.device_may_have_rolled  # the app must not hide dice the device may be showing
    assert port.done  # re-introduced itself, rolled nothing more
    assert roller.session == S2 and roller.stats.restarts == 1
    assert [e.reason for e in events if isinstance(e, ConnectionEvent)][-1].startswith("device restarted")
    roller.close()


def test_a_closed_session_is_a_proof_nothing_was_rolled_so_a_new_session_rolls() -> None:
    """SESSION_CLOSED: a newer HELLO reached the device (a replayed HELLO_REQ); this seq was never rolled
    and never will be, so the driver opens a session again and rolls once, there."""
    seq, new_seq = (H + 1) % 65536, (H2 + 1) % 65536
    port = ScriptedPort([
        *handshake(),
        Step(frame(RollRequest(seq, S1, 2)), frame(ErrorReply(seq, ErrorCode.SESSION_CLOSED, "", S1))),
        rehello(H2, S3),
        Step(frame(RollRequest(new_seq, S3, 2)), frame(Result(new_seq, S3, (5, 1)))),
    ])
    roller = roller_for(port)
    roller.open()
    roll = roller.roll(2)
    assert (roll.dice, roll.seq, roll.session) == ((5, 1), new_seq, S3)
    assert port.done and roller.stats.restarts == 0
    roller.close()


def test_stale_for_our_own_seq_means_it_was_answered_before_not_to_us() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([
        *handshake(), Step(frame(RollRequest(seq, S1, 2)), frame(ErrorReply(seq, ErrorCode.STALE, "", S1)))
    ])
    roller = roller_for(port)
    roller.open()
    with pytest.raises(DeviceRefusedError, match="STALE") as caught:
        roller.roll(2)
    assert caught.value.device_may_have_rolled
    roller.close()


def test_busy_is_retried_with_a_new_seq() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([
        *handshake(),
        Step(frame(RollRequest(seq, S1, 1)), frame(ErrorReply(seq, ErrorCode.BUSY, "", S1))),
        Step(frame(RollRequest(seq + 1, S1, 1)), frame(Result(seq + 1, S1, (6,)))),
    ])
    roller = roller_for(port)
    roller.open()
    assert roller.roll(1).seq == seq + 1
    roller.close()


def test_internal_is_an_error_not_a_retry() -> None:
    """Issue 24, defect 3: INTERNAL made the driver roll anew (4,341 ROLLs in 1.25 s). The device keeps its
    INTERNAL answer for that seq, so nothing was rolled and never will be: an error, after one send."""
    seq = (H + 1) % 65536
    internal = frame(ErrorReply(seq, ErrorCode.INTERNAL, "rng", S1))
    port = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, S1, 1)), internal),
                         *[Step(frame(RollRequest(seq + k, S1, 1)), internal) for k in range(1, 50)]])
    roller = roller_for(port)
    roller.open()
    with pytest.raises(DeviceRefusedError, match="INTERNAL") as caught:
        roller.roll(1, timeout=1.25)
    assert not caught.value.device_may_have_rolled and caught.value.code == ErrorCode.INTERNAL
    assert len(port.written) == 3
    roller.close()


@pytest.mark.parametrize("code", [ErrorCode.BAD_COUNT, ErrorCode.BAD_LENGTH, ErrorCode(99)])
def test_other_errors_are_refusals_quoting_the_code(code: ErrorCode) -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([*handshake(),
                         Step(frame(RollRequest(seq, S1, 4)), frame(ErrorReply(seq, code, "why", S1)))])
    roller = roller_for(port)
    roller.open()
    with pytest.raises(DeviceRefusedError, match=f"code {int(code)}.*'why'") as caught:
        roller.roll(4)
    assert caught.value.code == int(code)
    assert not caught.value.device_may_have_rolled and not isinstance(caught.value, DeviceRestartedError)
    roller.close()


# --------------------------------------------------------------------------------------------- versions

def test_a_device_whose_hello_says_another_version_is_refused_naming_both() -> None:
    port = ScriptedPort(handshake(protocol=3))
    with pytest.raises(VersionMismatchError, match="speaks protocol version 3; this driver speaks version 2"):
        roller_for(port).open()


def test_a_version_1_device_is_named_at_once_not_a_timeout() -> None:
    """Issue 24, defect 3: a device of another version got 8,252 HELLOs and a timeout. A v1 device answers
    our HELLO_REQ with its own ERROR BAD_VERSION (v1 frame, our seq): twice, and its version is named."""
    answer = v1_frame(bytes([1, 0x85, H >> 8, H & 0xFF, 10, 4]) + b"version 2")
    port = ScriptedPort([Step(b"\x00"), *[Step(frame(HelloRequest(H)), answer) for _ in range(50)]])
    with pytest.raises(VersionMismatchError) as caught:
        roller_for(port, attempt_timeout=0.25).open(timeout=1.25)
    assert "protocol version 1" in str(caught.value) and "speaks version 2" in str(caught.value)
    assert "firmware" in str(caught.value)
    assert (caught.value.device_version, caught.value.driver_version) == (1, 2)
    assert len(port.written) == 3  # the flush and two HELLO_REQs


def test_a_newer_device_speaking_its_own_version_is_named_too() -> None:
    newer = bytearray(encode_frame(ErrorReply(H, ErrorCode.BAD_VERSION, "speaks 3")))
    from hardware.protocol import cobs_decode

    packet = bytearray(cobs_decode(bytes(newer[:-1])))
    packet[0] = 3
    answer = forged(bytes(packet))
    port = ScriptedPort([Step(b"\x00"), *[Step(frame(HelloRequest(H)), answer) for _ in range(50)]])
    with pytest.raises(VersionMismatchError, match=r"version 3.*update Seneschal"):
        roller_for(port).open(timeout=1.0)
    assert len(port.written) == 3


def test_one_frame_of_another_version_is_not_enough_to_refuse_a_device() -> None:
    # Noise can fool the 16-bit CRC of a frame of "another version" once; the device's real HELLO follows.
    fake = v1_frame(bytes([1, 0x85, H >> 8, H & 0xFF, 10, 4]) + b"version 2")
    port = ScriptedPort([Step(b"\x00"), Step(frame(HelloRequest(H)), fake + hello(H))])
    roller = roller_for(port)
    assert roller.open(timeout=1.0).firmware == "2.0.0"
    roller.close()


def test_roll_counts_are_checked_before_anything_is_sent() -> None:
    port = ScriptedPort(handshake(max_dice=2))
    roller = roller_for(port)
    roller.open()
    for bad in (0, 11, 3, "2"):
        with pytest.raises(ValueError, match=repr(bad) if bad != 3 else "at most 2"):
            roller.roll(bad)  # type: ignore[arg-type]
    assert port.done
    roller.close()


# ------------------------------------------------------------------------------------------- ping, status

def test_ping_and_status() -> None:
    seq = (H + 1) % 65536
    status = Status(seq + 2, 1, 3600, 120, 3)
    port = ScriptedPort([
        *handshake(),
        Step(frame(Ping(seq, b"hi")), frame(Pong(seq, S1, 0x0100, b"hi"))),
        Step(frame(Ping(seq + 1, b"x")), frame(Pong(seq + 1, S1, 0x0100, b"y"))),
        Step(frame(StatusRequest(seq + 2)), frame(status)),
    ])
    roller = roller_for(port)
    roller.open()
    assert roller.ping(b"hi") >= 0
    with pytest.raises(ProtocolError, match="echoed as b'y'"):
        roller.ping(b"x")
    assert roller.status() == status
    assert port.done
    roller.close()


def test_status_is_not_requested_from_a_device_without_it() -> None:
    port = ScriptedPort(handshake(caps=Capability.BUTTON))
    roller = roller_for(port)
    roller.open()
    with pytest.raises(DeviceRefusedError, match="STATUS"):
        roller.status()
    assert port.done
    roller.close()


# ------------------------------------------------------------------------------------------- button rolls

def button_events(roller: DiceRoller, count: int) -> list[DiceEvent]:
    got: list[DiceEvent] = []
    while len(got) < count:
        event = roller.events.get(timeout=2)
        if not isinstance(event, ConnectionEvent):
            got.append(event)
    return got


def test_button_rolls_are_acked_every_time_and_reported_once() -> None:
    press = ButtonRoll(0x0100, S1, (4, 1))
    ack = frame(Ack(0x0100, S1))
    port = ScriptedPort([*handshake(), Step(ack), Step(ack * 2)])  # a repeat: our ACK was lost, so twice
    roller = roller_for(port)
    roller.open()
    port.inject(encode_frame(press))
    port.inject(encode_frame(press))  # our first ACK "was lost": the device re-sends
    wait_until(lambda: port.done)
    (event,) = button_events(roller, 1)
    roll = Roll((4, 1), RollSource.DEVICE, NOW, device_id=DEVICE_ID.hex(), seq=0x0100)
    assert event == ButtonRollEvent(roll)
    wait_until(lambda: roller.stats.button_duplicates == 1)
    assert roller.events.empty()
    roller.close()


def test_a_gap_in_button_seqs_is_reported_as_dropped_button_rolls() -> None:
    """Issue 24, defect 6: the device's dropped events never reached the app. Its events are numbered
    consecutively from the HELLO's floor, so a gap is events the device dropped."""
    acks = [Step(frame(Ack(0x0100, S1))), Step(frame(Ack(0x0103, S1))), Step(frame(Ack(0x0100, S1)) * 2)]
    port = ScriptedPort([*handshake(floor=0x0100), *acks])
    roller = roller_for(port)
    roller.open()
    for seq, dice in ((0x0100, (1,)), (0x0103, (2,)), (0x0100, (1,))):  # the last: a replay, long after
        port.inject(encode_frame(ButtonRoll(seq, S1, dice)))
    wait_until(lambda: port.done)
    first, dropped, second = button_events(roller, 3)
    assert isinstance(first, ButtonRollEvent) and first.dice == (1,)
    assert dropped == ButtonRollsDroppedEvent(2, DEVICE_ID.hex())
    assert isinstance(second, ButtonRollEvent) and second.dice == (2,)
    wait_until(lambda: roller.stats.button_duplicates == 1)
    assert roller.stats.button_dropped == 2 and roller.events.empty()
    roller.close()


def test_a_pong_floor_past_the_events_seen_reports_the_ones_dropped_at_the_end() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([*handshake(floor=0x0100), Step(frame(Ping(seq, b"")), frame(Pong(seq, S1, 0x0103)))])
    roller = roller_for(port)
    roller.open()
    roller.ping()
    assert button_events(roller, 1) == [ButtonRollsDroppedEvent(3, DEVICE_ID.hex())]
    roller.close()


def test_events_of_another_session_are_not_taken_and_make_the_keepalive_check_at_once() -> None:
    seq = (H + 1) % 65536
    pings = [Step(frame(Ping((seq + k) % 65536, b"")), frame(Pong((seq + k) % 65536, S1, 0x0100)))
             for k in range(40)]
    port = ScriptedPort([*handshake(), *pings])
    roller = roller_for(port, keepalive=60.0)  # the keepalive would not PING for a minute on its own
    roller.open()
    port.inject(encode_frame(ButtonRoll(0x0100, S2, (3,))))
    wait_until(lambda: len(port.written) >= 3)  # a PING, at once: no ACK for the foreign event
    assert frame(Ping(seq, b"")) == port.written[2]
    assert roller.stats.button_rolls == 0
    roller.close()


def test_events_go_to_the_callback_when_one_is_given() -> None:
    got: list[DiceEvent] = []
    port = ScriptedPort(handshake())
    roller = roller_for(port, on_event=got.append)
    roller.open()
    roller.close()
    assert [e.state for e in got if isinstance(e, ConnectionEvent)] == [
        ConnectionState.CONNECTED, ConnectionState.CLOSED
    ]
    assert roller.events.empty()


# ----------------------------------------------------------------------------- link loss, keepalive, restarts

def test_unplug_fails_the_roll_in_flight_then_reconnects_with_a_new_session() -> None:
    seq, seq2 = (H + 1) % 65536, (H2 + 1) % 65536
    first = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, S1, 2)))])
    second = ScriptedPort([*handshake(H2, S2),
                           Step(frame(RollRequest(seq2, S2, 2)), frame(Result(seq2, S2, (1, 1))))])
    ports = iter([first, second])
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = roller_for(lambda: next(ports), reconnect=True, backoff=(0.01, 0.05), on_event=events.put)
    roller.open()

    def unplug_soon() -> None:
        wait_until(lambda: len(first.written) == 3)  # the ROLL has gone out; its answer never comes
        first.unplug()

    threading.Thread(target=unplug_soon, daemon=True).start()
    with pytest.raises(DeviceDisconnectedError) as caught:
        roller.roll(2, timeout=5.0)
    assert caught.value.device_may_have_rolled
    states = [events.get(timeout=5).state for _ in range(3)]  # type: ignore[union-attr]
    assert states == [ConnectionState.CONNECTED, ConnectionState.DISCONNECTED, ConnectionState.CONNECTED]
    roll = roller.roll(2, timeout=5.0)
    assert (roll.dice, roll.seq, roll.session) == ((1, 1), seq2, S2)
    assert roller.stats.disconnects == 1 and roller.stats.connects == 2
    roller.close()
    assert second.done


def test_a_missing_port_is_device_not_found_quoting_it() -> None:
    with pytest.raises(DeviceNotFoundError, match="/dev/no-such-dice-roller"):
        DiceRoller("/dev/no-such-dice-roller", keepalive=None).open()


def test_requests_on_a_closed_roller_fail_clearly() -> None:
    roller = DiceRoller("loop://", keepalive=None)
    with pytest.raises(DeviceDisconnectedError, match="not open") as caught:
        roller.roll(2)
    assert not caught.value.device_may_have_rolled


def test_keepalive_pings_and_notices_a_device_that_stopped_answering() -> None:
    """Issue 24, defect 6: the keepalive asked for STATUS, the largest frame; it is PING, the smallest. A
    device that sends nothing at all for keepalive + dead_after is gone."""
    seq = (H + 1) % 65536
    pings = [Step(frame(Ping((seq + k) % 65536, b""))) for k in range(200)]
    port = ScriptedPort([*handshake(), *pings])
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = roller_for(port, keepalive=0.05, dead_after=0.3, attempt_timeout=0.03, on_event=events.put)
    roller.open()
    assert events.get(timeout=2).state is ConnectionState.CONNECTED  # type: ignore[union-attr]
    event = events.get(timeout=5)
    assert isinstance(event, ConnectionEvent) and event.state is ConnectionState.DISCONNECTED
    assert "hung or unplugged" in event.reason
    assert not roller.connected
    assert {bytes(w) for w in port.written[2:]} <= {frame(Ping((seq + k) % 65536, b"")) for k in range(200)}
    wait_until(lambda: port.closed)
    roller.close()


def test_keepalive_is_not_fooled_by_a_noisy_line() -> None:
    """Bytes keep coming (corrupted PONGs): the device is there, so no false disconnect however long no
    frame survives."""
    seq = (H + 1) % 65536
    garbage = b"\x07\x01\x02\x03\x04\x05\x06\x00"
    pings = [Step(frame(Ping((seq + k) % 65536, b"")), garbage) for k in range(400)]
    port = ScriptedPort([*handshake(), *pings])
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = roller_for(port, keepalive=0.05, dead_after=0.2, attempt_timeout=0.03, on_event=events.put)
    roller.open()
    time.sleep(1.0)
    assert roller.connected and roller.stats.disconnects == 0
    roller.close()


def test_keepalive_pong_naming_another_session_means_a_restart_and_a_new_session() -> None:
    """The device rebooted under an open port (UART, USB-serial): its PONG names no session of ours. The
    driver shakes hands at once, and says so when the boot changed."""
    s1, s2 = (H + 1) % 65536, (H + 2) % 65536
    later = [(H2 + i) % 65536 for i in range(1, 60)]
    port = ScriptedPort([
        *handshake(),
        Step(frame(Ping(s1, b"")), frame(Pong(s1, S1, 0x0100))),
        Step(frame(Ping(s2, b"")), frame(Pong(s2, 0, 0x0200))),  # rebooted: no session
        rehello(H2, S2, boot=BOOT2, floor=0x0200),
        *[Step(frame(Ping(q, b"")), frame(Pong(q, S2, 0x0200))) for q in later],
    ])
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = roller_for(port, keepalive=0.05, attempt_timeout=0.1, on_event=events.put)
    roller.open()
    assert events.get(timeout=2) == ConnectionEvent(ConnectionState.CONNECTED, roller.info)
    renewed = events.get(timeout=5)
    assert isinstance(renewed, ConnectionEvent) and renewed.state is ConnectionState.CONNECTED
    assert "device restarted" in renewed.reason
    wait_until(lambda: len(port.written) > 7)  # the keepalive goes on in the new session without alarm
    roller.close()
    assert not port.mismatches
    assert roller.stats.restarts == 1 and roller.stats.disconnects == 0
    assert roller.stats.button_dropped == 0  # a new boot's events start afresh at its floor


# ------------------------------------------------------------------------------------ the protocol document

class _FixedRandom(random.Random):
    """Picks the HELLO seq the protocol document's example uses."""

    def randrange(self, *args: int, **kwargs: int) -> int:  # type: ignore[override]
        return 0x1234


def _doc_conversation() -> list[tuple[str, bytes]]:
    """(who, bytes) for each line of docs/dice-protocol.md §8, read from the document itself."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "dice-protocol.md").read_text(encoding="utf-8")
    block = text.split("## 8.", 1)[1].split("```", 2)[1]
    lines = []
    for line in block.splitlines():
        words = line.split()
        if not words or words[0] not in ("host", "device"):
            continue
        hex_words = []
        for word in words[1:]:
            if len(word) != 2 or any(c not in "0123456789abcdefABCDEF" for c in word):
                break
            hex_words.append(word)
        lines.append((words[0], bytes.fromhex("".join(hex_words))))
    return lines


def test_the_protocol_documents_example_conversation_byte_for_byte() -> None:
    talk = _doc_conversation()
    who = [w for w, _ in talk]
    assert who == ["host", "host", "device", "host", "device", "host", "device", "device", "host"]
    flush, hello_req, hello_frame, roll, result, retry, cached, button, ack = [b for _, b in talk]
    assert retry == roll and cached == result
    # The device's first RESULT is lost on the way (as in the document), so the host retries the same bytes.
    steps = [Step(flush), Step(hello_req, hello_frame), Step(roll), Step(retry, cached), Step(ack)]
    port = ScriptedPort(steps)
    roller = roller_for(port, rng=_FixedRandom(), attempt_timeout=0.05)
    info = roller.open()
    assert (info.device_id, info.firmware, int(info.capabilities)) == ("e6614103e7452d2f", "2.0.0", 0x0F)
    assert roller.session == 0x5E551D01
    roll_result = roller.roll(2)
    assert (roll_result.seq, roll_result.dice) == (0x1235, (3, 5))
    port.inject(button)
    (event,) = button_events(roller, 1)
    assert isinstance(event, ButtonRollEvent) and (event.seq, event.dice) == (0xBEEF, (4, 1))
    wait_until(lambda: port.done)
    roller.close()


# ------------------------------------------------------------------------------------------------ threads

def test_a_request_that_never_left_waits_for_the_reconnect_and_runs_in_the_new_session() -> None:
    seq2 = (H2 + 1) % 65536
    first = ScriptedPort(handshake())
    second = ScriptedPort([*handshake(H2, S2),
                           Step(frame(RollRequest(seq2, S2, 2)), frame(Result(seq2, S2, (2, 5))))])
    ports = iter([first, second])
    roller = roller_for(lambda: next(ports), reconnect=True, backoff=(0.01, 0.05))
    roller.open()
    # The reader thread has seen the link die but not yet reported it: the next write is refused before any
    # byte leaves, so the device cannot have seen the ROLL and it is safe to send it after reconnecting.
    transport = roller._transport
    assert transport is not None
    transport._alive.clear()
    roll = roller.roll(2, timeout=5.0)
    assert (roll.dice, roll.seq) == ((2, 5), seq2)
    assert first.written == [b"\x00", frame(HelloRequest(H))]  # nothing more went to the dead port
    assert second.done
    roller.close()


@pytest.mark.parametrize("call", ["roll", "ping", "status", "hello", "open"])
def test_calling_the_roller_from_its_event_callback_is_refused_not_a_deadlock(call: str) -> None:
    """on_event runs on the reader thread, which must deliver the reply the call would wait for."""
    press = ButtonRoll(0x0100, S1, (4, 1))
    port = ScriptedPort([*handshake(), Step(frame(Ack(0x0100, S1)))])
    outcome: queue.Queue[BaseException | object] = queue.Queue()
    requests: dict[str, Callable[[DiceRoller], object]] = {
        "roll": lambda r: r.roll(2), "ping": lambda r: r.ping(), "status": lambda r: r.status(),
        "hello": lambda r: r.hello(), "open": lambda r: r.open(),
    }

    def on_event(event: DiceEvent) -> None:
        if isinstance(event, ButtonRollEvent):
            try:
                outcome.put(requests[call](roller))
            except BaseException as exc:  # the test inspects whatever it was
                outcome.put(exc)

    roller = roller_for(port, on_event=on_event)
    roller.open()
    port.inject(encode_frame(press))
    result = outcome.get(timeout=5)
    assert type(result) is HardwareError, result
    assert f"DiceRoller.{call}()" in str(result) and "reader" in str(result) and "deadlock" in str(result)
    wait_until(lambda: port.done)
    assert port.written[2:] == [frame(Ack(0x0100, S1))]  # nothing else was sent
    roller.close()


def test_the_same_calls_from_another_thread_are_fine_and_close_from_a_callback_is_allowed() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, S1, 2)), frame(Result(seq, S1, (2, 6))))])
    closed: list[ConnectionState] = []

    def on_event(event: DiceEvent) -> None:
        if isinstance(event, ConnectionEvent):
            closed.append(event.state)
        if isinstance(event, ConnectionEvent) and event.state is ConnectionState.DISCONNECTED:
            roller.close()  # allowed: the app gives up on the roller from its callback
            with pytest.raises(HardwareError, match="event callback"):  # still inside the callback
                roller.roll(1)

    roller = roller_for(port, on_event=on_event)
    roller.open()
    assert roller.roll(2).dice == (2, 6)
    port.unplug()
    wait_until(lambda: roller.state is ConnectionState.CLOSED)
    assert closed == [ConnectionState.CONNECTED, ConnectionState.DISCONNECTED, ConnectionState.CLOSED]

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
    encode_frame,
)
from tests.hardware.fakes import ScriptedPort, Step, frame

SEED = 7
DEVICE_ID = bytes.fromhex("e6614103e7452d2f")
NOW = 1_795_000_000.0


def hello_seqs(count: int = 2) -> list[int]:
    """The HELLO seqs a DiceRoller with rng=Random(SEED) picks, in order."""
    rng = random.Random(SEED)
    return [rng.randrange(65536) for _ in range(count)]


H, H2 = hello_seqs()


def hello(seq: int, caps: Capability = Capability.BUTTON | Capability.STATUS, max_dice: int = 10,
          protocol: int = 1) -> bytes:
    return frame(Hello(seq, protocol, (1, 0, 0), caps, max_dice, DEVICE_ID))


def handshake(seq: int = H, **kw: object) -> list[Step]:
    return [Step(b"\x00"), Step(frame(HelloRequest(seq)), hello(seq, **kw))]  # type: ignore[arg-type]


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


def test_handshake_then_roll_writes_exactly_the_protocol_bytes() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, 2)), frame(Result(seq, (3, 5))))])
    roller = roller_for(port)
    info = roller.open()
    assert info.device_id == DEVICE_ID.hex() and info.firmware == "1.0.0" and info.max_dice == 10
    assert roller.roll(2) == Roll((3, 5), RollSource.DEVICE, NOW, device_id=DEVICE_ID.hex(), seq=seq)
    roller.close()
    assert port.done and port.closed
    assert roller.state is ConnectionState.CLOSED


def test_a_lost_reply_is_retried_with_the_same_bytes() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, 3))
    result = frame(Result(seq, (1, 2, 6)))
    port = ScriptedPort([*handshake(), Step(request), Step(request), Step(request, result)])
    roller = roller_for(port)
    roller.open()
    assert roller.roll(3, timeout=2.0).dice == (1, 2, 6)
    assert port.done and roller.stats.resends == 2
    roller.close()


def test_a_corrupted_reply_is_retried_at_once_not_after_the_attempt_timeout() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, 2))
    good = frame(Result(seq, (4, 4)))
    corrupted = good[:3] + bytes([good[3] ^ 0x10]) + good[4:]
    port = ScriptedPort([*handshake(), Step(request, corrupted), Step(request, good)])
    # The attempt timeout is far beyond the overall timeout: only the dropped frame can trigger the resend.
    roller = roller_for(port, attempt_timeout=60.0)
    roller.open(timeout=2.0)
    assert roller.roll(2, timeout=2.0).dice == (4, 4)
    assert port.done and roller.stats.frames_dropped == 1
    roller.close()


def test_a_duplicate_answer_to_a_retry_is_ignored_and_a_conflicting_one_reported() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, 2))
    twice = frame(Result(seq, (2, 3)), Result(seq, (2, 3)))
    port = ScriptedPort([*handshake(), Step(request), Step(request, twice)])
    roller = roller_for(port)
    roller.open()
    assert roller.roll(2, timeout=2.0).dice == (2, 3)
    wait_until(lambda: roller.stats.stale_replies == 1)
    assert roller.stats.conflicting_replies == 0
    port.inject(frame(Result(seq, (6, 6))))  # the same ROLL answered with other dice: a device bug
    wait_until(lambda: roller.stats.conflicting_replies == 1)
    roller.close()


def test_no_reply_raises_device_timeout_error_quoting_the_frame() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, 1))
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


def test_no_session_on_the_first_send_means_nothing_was_rolled_so_hello_and_roll_anew() -> None:
    seq, new_seq = (H + 1) % 65536, (H2 + 1) % 65536
    port = ScriptedPort([
        *handshake(),
        Step(frame(RollRequest(seq, 2)), frame(ErrorReply(seq, ErrorCode.NO_SESSION, "send HELLO_REQ"))),
        Step(frame(HelloRequest(H2)), hello(H2)),
        Step(frame(RollRequest(new_seq, 2)), frame(Result(new_seq, (5, 1)))),
    ])
    roller = roller_for(port)
    roller.open()
    roll = roller.roll(2)
    assert (roll.dice, roll.seq) == ((5, 1), new_seq)
    assert port.done
    roller.close()


def test_no_session_after_a_resend_fails_the_roll_rather_than_rolling_again() -> None:
    seq = (H + 1) % 65536
    request = frame(RollRequest(seq, 2))
    port = ScriptedPort([
        *handshake(),
        Step(request),  # perhaps rolled and shown, then the board restarted
        Step(request, frame(ErrorReply(seq, ErrorCode.NO_SESSION))),
        Step(frame(HelloRequest(H2)), hello(H2)),
    ])
    roller = roller_for(port)
    roller.open()
    with pytest.raises(DeviceRestartedError, match=r"restarted.*roll again") as caught:
        roller.roll(2, timeout=2.0)
    assert isinstance(caught.value, DeviceRefusedError) and caught.value.code == ErrorCode.NO_SESSION
    assert caught.value.device_may_have_rolled  # the app must not hide dice the device may be showing
    assert port.done  # re-introduced itself, rolled nothing more
    roller.close()


def test_busy_is_retried_with_a_new_seq() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([
        *handshake(),
        Step(frame(RollRequest(seq, 1)), frame(ErrorReply(seq, ErrorCode.BUSY))),
        Step(frame(RollRequest(seq + 1, 1)), frame(Result(seq + 1, (6,)))),
    ])
    roller = roller_for(port)
    roller.open()
    assert roller.roll(1).seq == seq + 1
    roller.close()


@pytest.mark.parametrize("code", [ErrorCode.BAD_COUNT, ErrorCode.BAD_LENGTH, ErrorCode(99)])
def test_other_errors_are_refusals_quoting_the_code(code: ErrorCode) -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, 4)), frame(ErrorReply(seq, code, "why")))])
    roller = roller_for(port)
    roller.open()
    with pytest.raises(DeviceRefusedError, match=f"code {int(code)}.*'why'") as caught:
        roller.roll(4)
    assert caught.value.code == int(code)
    assert not caught.value.device_may_have_rolled and not isinstance(caught.value, DeviceRestartedError)
    roller.close()


def test_a_device_speaking_another_protocol_version_is_refused() -> None:
    port = ScriptedPort(handshake(protocol=2))
    with pytest.raises(ProtocolError, match="protocol version 2"):
        roller_for(port).open()


def test_roll_counts_are_checked_before_anything_is_sent() -> None:
    port = ScriptedPort(handshake(max_dice=2))
    roller = roller_for(port)
    roller.open()
    for bad in (0, 11, 3, "2"):
        with pytest.raises(ValueError, match=repr(bad) if bad != 3 else "at most 2"):
            roller.roll(bad)  # type: ignore[arg-type]
    assert port.done
    roller.close()


def test_ping_and_status() -> None:
    seq = (H + 1) % 65536
    status = Status(seq + 2, 1, 3600, 120, 3)
    port = ScriptedPort([
        *handshake(),
        Step(frame(Ping(seq, b"hi")), frame(Pong(seq, b"hi"))),
        Step(frame(Ping(seq + 1, b"x")), frame(Pong(seq + 1, b"y"))),
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


def test_button_rolls_are_acked_every_time_and_reported_once() -> None:
    press = ButtonRoll(0xBEEF, (4, 1))
    ack = frame(Ack(0xBEEF))
    port = ScriptedPort([*handshake(), Step(ack), Step(ack)])
    roller = roller_for(port)
    roller.open()
    assert isinstance(roller.events.get(timeout=1), ConnectionEvent)
    port.inject(encode_frame(press))
    port.inject(encode_frame(press))  # our first ACK "was lost": the device re-sends
    wait_until(lambda: port.done)
    event = roller.events.get(timeout=1)
    roll = Roll((4, 1), RollSource.DEVICE, NOW, device_id=DEVICE_ID.hex(), seq=0xBEEF)
    assert event == ButtonRollEvent(roll)
    wait_until(lambda: roller.stats.button_duplicates == 1)
    assert roller.events.empty()
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


def test_unplug_fails_the_roll_in_flight_then_reconnects_with_a_new_session() -> None:
    seq, seq2 = (H + 1) % 65536, (H2 + 1) % 65536
    first = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, 2)))])
    second = ScriptedPort([*handshake(H2), Step(frame(RollRequest(seq2, 2)), frame(Result(seq2, (1, 1))))])
    ports = iter([first, second])
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = roller_for(lambda: next(ports), reconnect=True, backoff=(0.01, 0.05), on_event=events.put)
    roller.open()

    def unplug_soon() -> None:
        wait_until(lambda: len(first.written) == 3)  # the ROLL has gone out; its answer never comes
        first.unplug()

    threading.Thread(target=unplug_soon, daemon=True).start()
    with pytest.raises(DeviceDisconnectedError):
        roller.roll(2, timeout=5.0)
    states = [events.get(timeout=5).state for _ in range(3)]  # type: ignore[union-attr]
    assert states == [ConnectionState.CONNECTED, ConnectionState.DISCONNECTED, ConnectionState.CONNECTED]
    roll = roller.roll(2, timeout=5.0)
    assert (roll.dice, roll.seq) == ((1, 1), seq2)
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


def test_keepalive_notices_a_device_that_stopped_answering() -> None:
    ping = frame(Ping((H + 1) % 65536, b""))  # a device without STATUS gets PINGs
    port = ScriptedPort([*handshake(caps=Capability.BUTTON), *[Step(ping) for _ in range(30)]])
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = roller_for(port, keepalive=0.05, attempt_timeout=0.03, on_event=events.put)
    roller.open()
    assert events.get(timeout=2).state is ConnectionState.CONNECTED  # type: ignore[union-attr]
    event = events.get(timeout=5)
    assert isinstance(event, ConnectionEvent) and event.state is ConnectionState.DISCONNECTED
    assert "Ping" in event.reason
    assert not roller.connected
    wait_until(lambda: port.closed)
    roller.close()


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
    assert (info.device_id, info.firmware, int(info.capabilities)) == ("e6614103e7452d2f", "1.0.0", 0x0F)
    roll_result = roller.roll(2)
    assert (roll_result.seq, roll_result.dice) == (0x1235, (3, 5))
    port.inject(button)
    event = roller.events.get(timeout=2)
    while not isinstance(event, ButtonRollEvent):
        event = roller.events.get(timeout=2)
    assert (event.seq, event.dice) == (0xBEEF, (4, 1))
    wait_until(lambda: port.done)
    roller.close()


def test_a_request_that_never_left_waits_for_the_reconnect_and_runs_in_the_new_session() -> None:
    seq2 = (H2 + 1) % 65536
    first = ScriptedPort(handshake())
    second = ScriptedPort([*handshake(H2), Step(frame(RollRequest(seq2, 2)), frame(Result(seq2, (2, 5))))])
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
    press = ButtonRoll(0xBEEF, (4, 1))
    port = ScriptedPort([*handshake(), Step(frame(Ack(0xBEEF)))])
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
    assert port.written[2:] == [frame(Ack(0xBEEF))]  # nothing else was sent
    roller.close()


def test_the_same_calls_from_another_thread_are_fine_and_close_from_a_callback_is_allowed() -> None:
    seq = (H + 1) % 65536
    port = ScriptedPort([*handshake(), Step(frame(RollRequest(seq, 2)), frame(Result(seq, (2, 6))))])
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


def test_a_seen_button_seq_with_other_dice_is_a_new_roll_after_a_reboot() -> None:
    """§11: a re-send repeats the same bytes; the same (device id, seq) with other dice is a rebooted
    device's event counter coming round to a seq seen before: a new roll (ACKed like every copy)."""
    before, repeat, after = ButtonRoll(0x0101, (2, 2)), ButtonRoll(0x0101, (2, 2)), ButtonRoll(0x0101, (6, 3))
    ack = frame(Ack(0x0101))
    port = ScriptedPort([*handshake(), Step(ack), Step(ack), Step(ack)])
    roller = roller_for(port)
    roller.open()
    assert isinstance(roller.events.get(timeout=1), ConnectionEvent)
    for press in (before, repeat, after):
        port.inject(encode_frame(press))
    wait_until(lambda: port.done)
    got = [roller.events.get(timeout=1), roller.events.get(timeout=1)]
    assert [e.roll.dice for e in got if isinstance(e, ButtonRollEvent)] == [(2, 2), (6, 3)]
    assert [e.roll.seq for e in got if isinstance(e, ButtonRollEvent)] == [0x0101, 0x0101]
    wait_until(lambda: roller.stats.button_duplicates == 1)
    assert roller.stats.button_rolls == 2 and roller.events.empty()
    roller.close()


def test_keepalive_status_notices_a_reboot_under_the_open_port_and_renews_the_session() -> None:
    """STATUS counters going backwards: the device rebooted but the port stayed open (UART, USB-serial).
    Without a new HELLO it has no session and would report no button roll, so the client shakes hands."""
    s1, s2 = (H + 1) % 65536, (H + 2) % 65536
    later = [(H2 + i) % 65536 for i in range(1, 40)]
    port = ScriptedPort([
        *handshake(),
        Step(frame(StatusRequest(s1)), frame(Status(s1, 0, 10, 5))),
        Step(frame(StatusRequest(s2)), frame(Status(s2, 1, 0, 1))),  # uptime 10 → 0, 5 frames → 1: rebooted
        Step(frame(HelloRequest(H2)), hello(H2)),
        *[Step(frame(StatusRequest(q)), frame(Status(q, 1, 1, 2 + i))) for i, q in enumerate(later)],
    ])
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = roller_for(port, keepalive=0.05, attempt_timeout=0.1, on_event=events.put)
    roller.open()
    assert events.get(timeout=2) == ConnectionEvent(ConnectionState.CONNECTED, roller.info)
    renewed = events.get(timeout=5)
    assert isinstance(renewed, ConnectionEvent) and renewed.state is ConnectionState.CONNECTED
    assert "device restarted" in renewed.reason and "watchdog" in renewed.reason
    wait_until(lambda: len(port.written) > 6)  # the keepalive goes on in the new session without alarm
    roller.close()
    assert not port.mismatches
    assert roller.stats.restarts == 1 and roller.stats.disconnects == 0

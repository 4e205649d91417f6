"""`DiceRoller`: the thread-safe client of the USB dice roller (docs/dice-protocol.md).

    with DiceRoller("/dev/ttyACM0") as roller:          # or a pty path, "socket://host:port", "loop://"
        roll = roller.roll(2)                           # Roll(dice=(3, 5), source=RollSource.DEVICE, ...)

A request is re-sent with the SAME sequence number when its reply is late or arrives corrupted, and the
device answers a repeated ROLL from its cache, so a retry never becomes a re-roll. Button rolls and connection
changes arrive as events (`on_event` on the reader thread, or the `events` queue). After an unplug the client
reconnects in the background with exponential backoff and a fresh HELLO. A roll in flight when the link
drops, or when the device restarts under it, fails with an error rather than being retried in a new session,
where the device has forgotten it and would roll again.
"""

from __future__ import annotations

import enum
import logging
import queue
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from hardware.errors import (
    DeviceDisconnectedError,
    DeviceRefusedError,
    DeviceRestartedError,
    DeviceTimeoutError,
    HardwareError,
    ProtocolError,
)
from hardware.protocol import (
    MAX_DICE,
    MAX_PING_PAYLOAD,
    MIN_DICE,
    PROTOCOL_VERSION,
    SEQ_MODULUS,
    Ack,
    ButtonRoll,
    Capability,
    ErrorCode,
    ErrorReply,
    Hello,
    HelloRequest,
    HostMessage,
    Message,
    Ping,
    Pong,
    Result,
    RollRequest,
    Status,
    StatusRequest,
    encode_frame,
)
from hardware.rolls import Roll, RollSource
from hardware.transport import DEFAULT_BAUDRATE, FrameTransport, LinkDownError, SerialPort, open_port

log = logging.getLogger(__name__)

# docs/dice-protocol.md §6
ATTEMPT_TIMEOUT = 0.25
ATTEMPTS = 5
INTER_BYTE_TIMEOUT = 0.1
HELLO_TIMEOUT = 2.0
KEEPALIVE = 2.0
KEEPALIVE_ATTEMPTS = 3
RETRY_LATER = 0.1  # after BUSY

_RECENT = 64  # answered seqs / button seqs remembered for duplicate checks
_K = TypeVar("_K")
_T = TypeVar("_T")


class _NotSent(DeviceDisconnectedError):
    """The link failed before a request's first byte went out: the device never saw it."""


def _remember(store: OrderedDict[_K, tuple[int, ...]], key: _K, dice: tuple[int, ...]) -> None:
    store[key] = dice
    store.move_to_end(key)
    while len(store) > _RECENT:
        store.popitem(last=False)


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What a roller said in HELLO, and where it is connected."""

    port: str
    device_id: str  # 16 hex digits
    protocol_version: int
    firmware_version: tuple[int, int, int]
    capabilities: Capability
    max_dice: int

    @classmethod
    def from_hello(cls, port: str, hello: Hello) -> DeviceInfo:
        return cls(
            port,
            hello.device_id.hex(),
            hello.protocol_version,
            hello.firmware_version,
            hello.capabilities,
            hello.max_dice,
        )

    @property
    def firmware(self) -> str:
        return ".".join(map(str, self.firmware_version))


class ConnectionState(enum.Enum):
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"  # lost; reconnecting in the background if enabled
    CLOSED = "closed"  # closed by the app (or never opened)

    def __repr__(self) -> str:
        return f"ConnectionState.{self.name}"


@dataclass(frozen=True, slots=True)
class ConnectionEvent:
    state: ConnectionState
    info: DeviceInfo | None  # the device now connected, or the one last connected
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ButtonRollEvent:
    """Someone pressed the roller's button; `roll` is what it rolled (reported once per device seq)."""

    roll: Roll

    @property
    def dice(self) -> tuple[int, ...]:
        return self.roll.dice

    @property
    def seq(self) -> int | None:
        return self.roll.seq


DiceEvent = ConnectionEvent | ButtonRollEvent


@dataclass(frozen=True, slots=True)
class LinkStats:
    """Counters since the client was made; `conflicting_replies` stays 0 with a correct device."""

    requests: int = 0
    resends: int = 0  # same bytes, same seq
    frames_dropped: int = 0  # corrupted, truncated, over-long or stale frames the decoder refused
    stale_replies: int = 0  # replies to an earlier attempt or request (harmless duplicates)
    conflicting_replies: int = 0  # one ROLL seq answered with two different results: a device bug
    button_rolls: int = 0
    button_duplicates: int = 0  # re-sent BUTTON_ROLLs already delivered (our ACK was lost)
    connects: int = 0
    disconnects: int = 0
    restarts: int = 0  # the device rebooted under an open port (seen by NO_SESSION or STATUS counters)


class _Pending:
    __slots__ = ("expect", "lost", "nudged", "reply", "seq")

    def __init__(self, seq: int, expect: tuple[type, ...]) -> None:
        self.seq = seq
        self.expect = expect
        self.reply: Message | None = None
        self.lost: BaseException | None = None
        self.nudged = False  # a frame was dropped while waiting: perhaps our reply, so resend at once


class DiceRoller:
    """The USB dice roller. Every public method is thread-safe; requests go one at a time.

    `port` is a pyserial URL or a zero-argument callable returning an open `SerialPort` (tests pass fakes);
    `name` is what messages call it (default: the URL).
    A request without an explicit `timeout` gets `attempts` × `attempt_timeout` (1.25 s by default, as the
    protocol recommends); with one, it is re-sent every `attempt_timeout` until that time is up.
    `on_event` receives `ButtonRollEvent`s and `ConnectionEvent`s on one of the driver's threads (post them to
    the UI thread); without it they are put on the `events` queue. The callback must not call the roller's
    requests (`open`, `roll`, `ping`, `status`, `hello`): they would wait for a reply that only the thread
    running the callback can deliver, so they raise `HardwareError` at once instead (`close` is allowed).
    While connected and idle the client checks the device every `keepalive` seconds (None: never) with
    STATUS_REQ (PING if the device lacks STATUS) and treats three unanswered attempts as an unplug; STATUS
    counters that went backwards mean the device rebooted under the open port: the client shakes hands
    again and reports `ConnectionEvent(CONNECTED, reason="device restarted ...")`.
    """

    def __init__(
        self,
        port: str | Callable[[], SerialPort],
        *,
        name: str | None = None,
        baudrate: int = DEFAULT_BAUDRATE,
        attempt_timeout: float = ATTEMPT_TIMEOUT,
        attempts: int = ATTEMPTS,
        inter_byte_timeout: float = INTER_BYTE_TIMEOUT,
        hello_timeout: float = HELLO_TIMEOUT,
        reconnect: bool = True,
        backoff: tuple[float, float] = (0.05, 2.0),
        keepalive: float | None = KEEPALIVE,
        on_event: Callable[[DiceEvent], None] | None = None,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        if isinstance(port, str):
            url = port
            self._opener: Callable[[], SerialPort] = lambda: open_port(url, baudrate)
        else:
            self._opener = port
        default_name = port if isinstance(port, str) else str(getattr(port, "__name__", port))
        self.port_name: str = name or default_name
        self.attempt_timeout = attempt_timeout
        self.attempts = attempts
        self.inter_byte_timeout = inter_byte_timeout
        self.hello_timeout = hello_timeout
        self.reconnect = reconnect
        self.backoff = backoff
        self.keepalive = keepalive
        self.on_event = on_event
        self.events: queue.Queue[DiceEvent] = queue.Queue()
        self._clock = clock
        self._rng = rng if rng is not None else random.SystemRandom()

        self._cond = threading.Condition()  # guards the fields below
        self._request_lock = threading.Lock()  # one request (or handshake) on the wire at a time
        self._connected = threading.Event()
        self._closing = threading.Event()
        self._transport: FrameTransport | None = None
        self._info: DeviceInfo | None = None
        self._last_info: DeviceInfo | None = None
        self._state = ConnectionState.CLOSED
        self._pending: _Pending | None = None
        self._next_seq = 0
        self._seqs_left = 0
        self._last_heard = 0.0
        self._answered: OrderedDict[int, tuple[int, ...]] = OrderedDict()
        self._buttons: OrderedDict[tuple[str, int], tuple[int, ...]] = OrderedDict()
        self._reconnector: threading.Thread | None = None
        self._keeper: threading.Thread | None = None
        self._counts: dict[str, int] = dict.fromkeys(LinkStats.__dataclass_fields__, 0)
        self._local = threading.local()  # .emitting: this thread is running on_event
        self._status_seen: tuple[int, int] | None = None  # (uptime_s, frames_ok): this session's last STATUS

    # ---------------------------------------------------------------------------------------- lifecycle

    def open(self, timeout: float | None = None) -> DeviceInfo:
        """Open the port and shake hands (default `hello_timeout`, 2 s: a board just plugged in may boot).

        `DeviceNotFoundError` if the port cannot be opened, `DeviceTimeoutError` if nothing answers HELLO,
        `ProtocolError` if the device speaks another protocol version.
        """
        self._not_from_callback("open")
        deadline = time.monotonic() + (self.hello_timeout if timeout is None else timeout)
        self._closing.clear()
        with self._request_lock:
            info = self._info
            if self._connected.is_set() and info is not None:
                return info
            info = self._connect(deadline)
        if self.keepalive is not None and (self._keeper is None or not self._keeper.is_alive()):
            self._keeper = threading.Thread(
                target=self._keepalive_loop, name=f"dice roller keepalive {self.port_name}", daemon=True
            )
            self._keeper.start()
        return info

    def close(self) -> None:
        """Close the port and stop reconnecting; a request in progress fails (`DeviceDisconnectedError`)."""
        self._closing.set()
        with self._cond:
            transport, self._transport = self._transport, None
            was = self._state
            self._state = ConnectionState.CLOSED
            self._info = None
            self._connected.clear()
            if self._pending is not None:
                self._pending.lost = DeviceDisconnectedError(f"dice roller on {self.port_name!r} was closed")
            self._cond.notify_all()
        if transport is not None:
            self._retire(transport)
        for thread in (self._reconnector, self._keeper):
            if thread is not None and thread.is_alive() and thread is not threading.current_thread():
                thread.join(timeout=5.0)
        if was is not ConnectionState.CLOSED:
            self._emit(ConnectionEvent(ConnectionState.CLOSED, self._last_info, "closed"))

    def __enter__(self) -> DiceRoller:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def info(self) -> DeviceInfo | None:
        """The connected device's HELLO, or None while disconnected."""
        return self._info

    @property
    def stats(self) -> LinkStats:
        with self._cond:
            counts = dict(self._counts)
            if self._transport is not None:
                counts["frames_dropped"] += self._transport.decoder.dropped
        return LinkStats(**counts)

    def wait_connected(self, timeout: float | None = None) -> bool:
        return self._connected.wait(timeout)

    # ----------------------------------------------------------------------------------------- requests

    def roll(self, n: int, timeout: float | None = None) -> Roll:
        """Roll `n` dice on the device.

        `DeviceTimeoutError` if no valid RESULT arrives in time, `DeviceDisconnectedError` if the link drops
        (or is down for the whole timeout), `DeviceRestartedError` if the device restarted while the ROLL was
        being retried, `DeviceRefusedError` if the device refuses. None of these ever hides a roll: the device
        either rolled once for this request or not at all, and the error's `device_may_have_rolled` says
        whether it may have (the ROLL left for the device; its display may show dice nobody accepted).
        """
        self._not_from_callback("roll")
        if type(n) is not int or not MIN_DICE <= n <= MAX_DICE:
            raise ValueError(f"cannot roll {n!r} dice; a roll has {MIN_DICE}..{MAX_DICE}")

        def request(transport: FrameTransport, info: DeviceInfo, deadline: float) -> Roll:
            if n > info.max_dice:
                raise ValueError(f"cannot roll {n} dice; {info.device_id} rolls at most {info.max_dice}")
            writes = 0  # ROLL frames of the current seq handed to the port (a failed write may still land)

            def wrote() -> None:
                nonlocal writes
                writes += 1

            try:
                while True:
                    seq = self._take_seq(transport, deadline)
                    writes = 0
                    reply, sends = self._exchange(
                        transport, RollRequest(seq, n), (Result, ErrorReply), deadline, on_write=wrote
                    )
                    if isinstance(reply, Result):
                        break
                    assert isinstance(reply, ErrorReply)
                    if reply.code is ErrorCode.NO_SESSION:
                        with self._cond:
                            self._counts["restarts"] += 1
                        # The device restarted since our HELLO. If it saw this seq only once it rolled
                        # nothing; after several sends an earlier one may have rolled (and shown) dice before
                        # the restart, so rolling anew could make a second roll of one request.
                        self._handshake(transport, deadline)
                        if sends == 1:
                            continue
                        raise DeviceRestartedError(
                            f"dice roller on {self.port_name!r} restarted during ROLL seq 0x{seq:04x} "
                            f"(sent {sends} times); it may show dice that were not accepted: roll again",
                            int(reply.code),
                        )
                    if reply.code in (ErrorCode.BUSY, ErrorCode.INTERNAL):  # nothing rolled: new seq
                        self._sleep_until(deadline, RETRY_LATER if reply.code is ErrorCode.BUSY else 0.0)
                        continue
                    writes = 0  # refused: nothing rolled
                    raise self._refused(reply, f"ROLL of {n} dice")
                if len(reply.dice) != n:
                    raise ProtocolError(f"device answered ROLL of {n} dice (seq 0x{seq:04x}) with {reply!r}")
            except HardwareError as exc:
                exc.device_may_have_rolled = writes > 0 and not isinstance(exc, _NotSent)
                raise
            with self._cond:
                _remember(self._answered, seq, reply.dice)
            return Roll(reply.dice, RollSource.DEVICE, self._clock(), device_id=info.device_id, seq=seq)

        return self._request(timeout, request)

    def ping(self, payload: bytes = b"", timeout: float | None = None) -> float:
        """Round trip of a PING in seconds; `ProtocolError` if the echo differs."""
        self._not_from_callback("ping")
        if len(payload) > MAX_PING_PAYLOAD:
            raise ValueError(f"PING payload {payload!r} is longer than {MAX_PING_PAYLOAD} bytes")
        return self._request(timeout, lambda link, _info, deadline: self._ping(link, payload, deadline))

    def status(self, timeout: float | None = None) -> Status:
        """The device's health counters; `DeviceRefusedError` if it does not advertise STATUS."""
        self._not_from_callback("status")

        def request(transport: FrameTransport, info: DeviceInfo, deadline: float) -> Status:
            if Capability.STATUS not in info.capabilities:
                raise DeviceRefusedError(
                    f"dice roller {info.device_id} on {self.port_name!r} does not support STATUS",
                    int(ErrorCode.UNKNOWN_TYPE),
                )
            return self._status(transport, deadline)

        return self._request(timeout, request)

    def hello(self, timeout: float | None = None) -> DeviceInfo:
        """Shake hands again (a new session on the device) and return what it says about itself."""
        self._not_from_callback("hello")
        return self._request(timeout, lambda transport, _info, deadline: self._handshake(transport, deadline))

    # ------------------------------------------------------------------------------------------ helpers

    def _request(
        self, timeout: float | None, body: Callable[[FrameTransport, DeviceInfo, float], _T]
    ) -> _T:
        """Run `body` on a connected link under the request lock. A request whose first write failed never
        reached the device, so it waits for the reconnect and runs again, within the same deadline."""
        deadline = self._deadline(timeout)
        while True:
            try:
                with self._session(deadline) as (transport, info):
                    return body(transport, info, deadline)
            except _NotSent:
                if not self.reconnect or time.monotonic() >= deadline:
                    raise

    def _not_from_callback(self, what: str) -> None:
        """Refuse a request from `on_event` (or from the reader thread): it would wait on itself."""
        transport = self._transport
        emitting: bool = getattr(self._local, "emitting", False)
        if emitting or (transport is not None and transport.on_reader_thread()):
            raise HardwareError(
                f"DiceRoller.{what}() called from the dice roller's event callback on thread "
                f"{threading.current_thread().name!r}: on_event runs on the driver's own thread, which must "
                "deliver the reply, so the call would deadlock. Post the event to another thread (the UI "
                "thread) and call the roller from there."
            )

    def _deadline(self, timeout: float | None) -> float:
        return time.monotonic() + (self.attempts * self.attempt_timeout if timeout is None else timeout)

    @staticmethod
    def _sleep_until(deadline: float, seconds: float) -> None:
        time.sleep(max(0.0, min(seconds, deadline - time.monotonic())))

    @contextmanager
    def _session(self, deadline: float) -> Iterator[tuple[FrameTransport, DeviceInfo]]:
        """Wait for a connection, then hold the request lock (re-checking that the link did not change)."""
        while True:
            if self._closing.is_set() or self._state is ConnectionState.CLOSED:
                raise DeviceDisconnectedError(f"dice roller on {self.port_name!r} is not open")
            if not self.reconnect and not self._connected.is_set():
                raise DeviceDisconnectedError(f"dice roller on {self.port_name!r} is disconnected")
            if not self._connected.wait(max(0.0, deadline - time.monotonic())):
                raise DeviceDisconnectedError(f"dice roller on {self.port_name!r} is down (reconnecting)")
            if not self._request_lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                raise DeviceTimeoutError(f"dice roller on {self.port_name!r} stayed busy with others")
            with self._cond:
                transport, info = self._transport, self._info
            if transport is not None and info is not None and self._connected.is_set():
                break
            self._request_lock.release()
        try:
            yield transport, info
        finally:
            self._request_lock.release()

    def _take_seq(self, transport: FrameTransport, deadline: float) -> int:
        if self._seqs_left <= 0:  # every seq of this session used: never reuse one, start a new session
            self._handshake(transport, deadline)
        seq = self._next_seq
        self._next_seq = (seq + 1) % SEQ_MODULUS
        self._seqs_left -= 1
        return seq

    def _refused(self, reply: ErrorReply, what: str) -> DeviceRefusedError:
        detail = f" ({reply.detail!r})" if reply.detail else ""
        return DeviceRefusedError(
            f"dice roller on {self.port_name!r} refused {what} (seq 0x{reply.seq:04x}): "
            f"{reply.code.name} (code {int(reply.code)}){detail}",
            int(reply.code),
        )

    def _status(self, transport: FrameTransport, deadline: float) -> Status:
        """STATUS_REQ → STATUS. Counters that went backwards mean the device rebooted under the open port (a
        UART or USB-serial link survives a reset): it has no session, so button rolls would be lost until the
        next ROLL's NO_SESSION. Shake hands at once and report the new session."""
        seq = self._take_seq(transport, deadline)
        reply, _ = self._exchange(transport, StatusRequest(seq), (Status, ErrorReply), deadline)
        if isinstance(reply, ErrorReply):
            raise self._refused(reply, "STATUS_REQ")
        assert isinstance(reply, Status)
        with self._cond:
            before, self._status_seen = self._status_seen, (reply.uptime_s, reply.frames_ok)
        if before is not None and (reply.uptime_s < before[0] or reply.frames_ok < before[1]):
            why = (
                f"device restarted (uptime {reply.uptime_s} s after {before[0]} s, "
                f"{reply.frames_ok} frames after {before[1]}, reset cause {reply.reset.name.lower()}): "
                "new session"
            )
            log.warning("dice roller on %s: %s", self.port_name, why)
            # The STATUS may have used up the caller's time; the handshake still gets a few attempts.
            info = self._handshake(transport, max(deadline, time.monotonic() + 3 * self.attempt_timeout))
            with self._cond:
                self._counts["restarts"] += 1
            self._emit(ConnectionEvent(ConnectionState.CONNECTED, info, why))
        return reply

    def _ping(self, transport: FrameTransport, payload: bytes, deadline: float) -> float:
        seq = self._take_seq(transport, deadline)
        start = time.perf_counter()
        reply, _ = self._exchange(transport, Ping(seq, payload), (Pong, ErrorReply), deadline)
        elapsed = time.perf_counter() - start
        if isinstance(reply, ErrorReply):
            raise self._refused(reply, "PING")
        assert isinstance(reply, Pong)
        if reply.payload != payload:
            raise ProtocolError(f"PING {payload!r} (seq 0x{seq:04x}) echoed as {reply.payload!r}")
        return elapsed

    def _exchange(
        self,
        transport: FrameTransport,
        request: HostMessage,
        expect: tuple[type, ...],
        deadline: float,
        on_write: Callable[[], None] | None = None,
    ) -> tuple[Message, int]:
        """Send `request` until a reply of an `expect`ed type with its seq arrives; (reply, times sent).

        The same bytes are resent when an attempt times out, and at once when a frame is dropped while
        waiting (perhaps it was our reply, corrupted). `on_write` is called before every write.
        """
        frame = encode_frame(request)
        pending = _Pending(request.seq, expect)
        with self._cond:
            self._pending = pending
            self._counts["requests"] += 1
        sends = 0
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    raise DeviceTimeoutError(
                        f"no reply from dice roller on {self.port_name!r} to {request!r} "
                        f"(frame {frame.hex(' ')!r}) after {sends} send(s)"
                    )
                with self._cond:
                    pending.nudged = False
                if on_write is not None:
                    on_write()
                try:
                    transport.write(frame)
                except HardwareError as exc:
                    self._lost(transport, exc)
                    # Only a write refused before any byte left is certainly unseen by the device.
                    unseen = sends == 0 and isinstance(exc, LinkDownError)
                    raise (_NotSent if unseen else DeviceDisconnectedError)(
                        f"dice roller on {self.port_name!r} went away during {request!r}: {exc}"
                    ) from exc
                sends += 1
                attempt_deadline = min(deadline, now + self.attempt_timeout)
                with self._cond:
                    if sends > 1:
                        self._counts["resends"] += 1
                    while pending.reply is None and pending.lost is None and not pending.nudged:
                        remaining = attempt_deadline - time.monotonic()
                        if remaining <= 0:
                            break
                        self._cond.wait(remaining)
                    reply, lost = pending.reply, pending.lost
                if lost is not None:
                    raise DeviceDisconnectedError(
                        f"dice roller on {self.port_name!r} went away during {request!r}: {lost}"
                    )
                if reply is not None:
                    return reply, sends
        finally:
            with self._cond:
                if self._pending is pending:
                    self._pending = None

    def _handshake(self, transport: FrameTransport, deadline: float) -> DeviceInfo:
        hello_seq = self._rng.randrange(SEQ_MODULUS)
        reply, _ = self._exchange(transport, HelloRequest(hello_seq), (Hello, ErrorReply), deadline)
        if isinstance(reply, ErrorReply):
            raise self._refused(reply, "HELLO_REQ")
        assert isinstance(reply, Hello)
        if reply.protocol_version != PROTOCOL_VERSION:
            raise ProtocolError(
                f"device on {self.port_name!r} speaks protocol version {reply.protocol_version}; "
                f"this driver speaks {PROTOCOL_VERSION} ({reply!r})"
            )
        if not MIN_DICE <= reply.max_dice <= MAX_DICE:
            raise ProtocolError(f"device on {self.port_name!r} claims max_dice {reply.max_dice} ({reply!r})")
        info = DeviceInfo.from_hello(self.port_name, reply)
        with self._cond:
            # A new session: the device forgot its duplicate cache, so nothing of the old one carries over.
            # The counter starts at a random value (the HELLO's own random seq, plus one).
            self._next_seq = (hello_seq + 1) % SEQ_MODULUS
            self._seqs_left = SEQ_MODULUS - 1
            self._answered.clear()
            self._status_seen = None
            self._info = self._last_info = info
        return info

    def _connect(self, deadline: float) -> DeviceInfo:
        """Open, start the reader, shake hands, publish the link. The caller holds the request lock."""
        port = self._opener()

        def on_message(message: Message) -> None:
            self._on_message(transport, message)

        def on_lost(exc: BaseException) -> None:
            self._lost(transport, exc)

        def on_drop(error: ProtocolError) -> None:
            self._on_drop(transport, error)

        transport = FrameTransport(
            port,
            on_message,
            on_lost,
            on_drop=on_drop,
            inter_byte_timeout=self.inter_byte_timeout,
            name=f"dice roller on {self.port_name!r}",
        )
        with self._cond:
            self._transport = transport
        transport.start()
        try:
            transport.write(b"\x00")  # end whatever half frame the device holds from before
            info = self._handshake(transport, deadline)
        except BaseException:
            with self._cond:
                if self._transport is transport:
                    self._transport = None
                self._info = None
            self._retire(transport)
            raise
        with self._cond:
            if self._transport is not transport:  # lost or closed during the handshake
                raise DeviceDisconnectedError(f"dice roller on {self.port_name!r} went away during HELLO")
            self._state = ConnectionState.CONNECTED
            self._counts["connects"] += 1
            self._connected.set()
        log.info("dice roller %s on %s (firmware %s)", info.device_id, self.port_name, info.firmware)
        self._emit(ConnectionEvent(ConnectionState.CONNECTED, info))
        return info

    def _retire(self, transport: FrameTransport) -> None:
        transport.close()
        with self._cond:
            self._counts["frames_dropped"] += transport.decoder.dropped
            transport.decoder.dropped = 0

    # ------------------------------------------------------------------------------- background threads

    def _on_message(self, transport: FrameTransport, message: Message) -> None:
        with self._cond:
            if self._transport is not transport:
                return
            self._last_heard = time.monotonic()
        if isinstance(message, ButtonRoll):
            self._on_button(transport, message)
            return
        with self._cond:
            pending = self._pending
            earlier: tuple[int, ...] | None = None
            if pending is not None and message.seq == pending.seq and isinstance(message, pending.expect):
                if pending.reply is None:
                    pending.reply = message
                    self._cond.notify_all()
                    return
                if isinstance(pending.reply, Result):
                    earlier = pending.reply.dice
            self._counts["stale_replies"] += 1
            if isinstance(message, Result):
                earlier = earlier or self._answered.get(message.seq)
                if earlier is not None and earlier != message.dice:
                    self._counts["conflicting_replies"] += 1
                    log.error(
                        "dice roller on %s answered ROLL seq 0x%04x twice, with %r and %r",
                        self.port_name, message.seq, earlier, message.dice,
                    )

    def _on_button(self, transport: FrameTransport, message: ButtonRoll) -> None:
        with self._cond:
            info = self._info
        if info is None:
            return  # mid-handshake: leave it un-ACKed; the device re-sends it every 300 ms
        try:
            transport.send(Ack(message.seq))  # ACK every copy, repeats included
        except HardwareError as exc:
            log.warning("dice roller on %s: cannot ACK %r: %s", self.port_name, message, exc)
        key = (info.device_id, message.seq)
        with self._cond:
            if self._buttons.get(key) == message.dice:
                self._counts["button_duplicates"] += 1
                return
            # Unseen, or the same seq with other dice (the device rebooted and its counter came round): new.
            _remember(self._buttons, key, message.dice)
            self._counts["button_rolls"] += 1
        roll = Roll(message.dice, RollSource.DEVICE, self._clock(), device_id=info.device_id, seq=message.seq)
        self._emit(ButtonRollEvent(roll))

    def _on_drop(self, transport: FrameTransport, error: ProtocolError) -> None:
        log.debug("dice roller on %s: %s", self.port_name, error)
        with self._cond:
            if self._transport is transport and self._pending is not None:
                self._pending.nudged = True
                self._cond.notify_all()

    def _lost(self, transport: FrameTransport, exc: BaseException) -> None:
        with self._cond:
            if self._transport is not transport:
                return
            self._transport = None
            self._info = None
            self._connected.clear()
            closing = self._closing.is_set()
            reconnector = None
            if not closing:
                self._state = ConnectionState.DISCONNECTED
                self._counts["disconnects"] += 1
                if self.reconnect and (self._reconnector is None or not self._reconnector.is_alive()):
                    reconnector = self._reconnector = threading.Thread(
                        target=self._reconnect_loop, name=f"dice roller reconnect {self.port_name}"
                    )
                    reconnector.daemon = True
        if not closing:
            log.warning("dice roller on %s lost: %s", self.port_name, exc)
            # Announce the loss before failing the request in flight, so listeners see DISCONNECTED before
            # anything the app does about that failure (such as closing).
            self._emit(ConnectionEvent(ConnectionState.DISCONNECTED, self._last_info, str(exc)))
        with self._cond:
            if self._pending is not None:
                self._pending.lost = exc
            self._cond.notify_all()
        threading.Thread(target=self._retire, args=(transport,), daemon=True).start()
        if reconnector is not None:
            reconnector.start()

    def _reconnect_loop(self) -> None:
        low, high = self.backoff
        delay = low
        jitter = random.Random()
        while not self._closing.wait(delay * (0.5 + jitter.random())):  # no lock-step retries
            with self._request_lock:
                if self._closing.is_set() or self._connected.is_set():
                    return
                try:
                    self._connect(time.monotonic() + self.hello_timeout)
                    return
                except OSError as exc:  # HardwareError, or whatever a custom opener raises
                    log.debug("dice roller on %s: reconnect failed: %s", self.port_name, exc)
            delay = min(high, delay * 2)

    def _keepalive_loop(self) -> None:
        assert self.keepalive is not None
        period = self.keepalive
        while not self._closing.wait(period / 4):
            with self._cond:
                transport = self._transport
                quiet = time.monotonic() - self._last_heard
            if transport is None or not self._connected.is_set() or quiet < period:
                continue
            if not self._request_lock.acquire(blocking=False):
                continue  # a request is on the wire: that is a liveness check too
            try:
                with self._cond:
                    info = self._info
                    if self._transport is not transport or not self._connected.is_set() or info is None:
                        continue
                deadline = time.monotonic() + KEEPALIVE_ATTEMPTS * self.attempt_timeout
                try:
                    if Capability.STATUS in info.capabilities:  # also notices a reboot under an open port
                        self._status(transport, deadline)
                    else:
                        self._ping(transport, b"", deadline)
                except DeviceTimeoutError as exc:
                    self._lost(transport, exc)
                except HardwareError as exc:
                    log.debug("dice roller on %s: keepalive: %s", self.port_name, exc)
            finally:
                self._request_lock.release()

    def _emit(self, event: DiceEvent) -> None:
        if self.on_event is None:
            self.events.put(event)
            return
        outer: bool = getattr(self._local, "emitting", False)  # a callback may close(), which emits CLOSED
        self._local.emitting = True
        try:
            self.on_event(event)
        except Exception:
            log.exception("dice roller on %s: on_event(%r) failed", self.port_name, event)
        finally:
            self._local.emitting = outer

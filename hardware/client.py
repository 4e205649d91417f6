"""`DiceRoller`: the thread-safe client of the USB dice roller (docs/dice-protocol.md).

    with DiceRoller("/dev/ttyACM0") as roller:          # or a pty path, "socket://host:port", "loop://"
        roll = roller.roll(2)                           # Roll(dice=(3, 5), source=RollSource.DEVICE, ...)

Every roll is made once or reported as possibly made, never twice and never hidden: each ROLL names the
session the device opened for this connection and a seq past the last one that session answered, and the
device answers a repeat, or any older seq, from its record and never rolls it again, whatever came since
(later rolls, a new HELLO). A request is re-sent with the same bytes at growing intervals until its answer
comes or its time is up. When the answer cannot be had (a timeout, an unplug, a device that restarted and no
longer knows the session) the roll fails with `device_may_have_rolled` set, and nothing is rolled in the
players' place.

Button rolls arrive as events, each once; the ones the device had to drop are counted and reported. While
idle, a PING (the smallest frame) checks that the device is alive and still in our session; a device that
sends nothing for `keepalive` + `dead_after` seconds is reported gone. After an unplug the client reconnects
in the background with exponential backoff and a fresh HELLO.
"""

from __future__ import annotations

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
    Rejection,
    VersionMismatchError,
)
from hardware.events import (
    ButtonRollEvent,
    ButtonRollsDroppedEvent,
    ConnectionEvent,
    ConnectionState,
    DeviceInfo,
    DiceEvent,
    EventWindow,
)
from hardware.protocol import (
    LEGACY_VERSION,
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

__all__ = [
    "ButtonRollEvent",
    "ButtonRollsDroppedEvent",
    "ConnectionEvent",
    "ConnectionState",
    "DeviceInfo",
    "DiceEvent",
    "DiceRoller",
    "LinkStats",
]

log = logging.getLogger(__name__)

# docs/dice-protocol.md §6
ATTEMPT_TIMEOUT = 0.25  # the first attempt's wait; each further attempt waits twice as long ...
MAX_ATTEMPT_FACTOR = 4  # ... up to four times the first (1 s)
ATTEMPTS = 5
INTER_BYTE_TIMEOUT = 0.1
HELLO_TIMEOUT = 2.0
KEEPALIVE = 2.0  # idle this long: PING
PROBE_INTERVAL = 0.1  # PINGs while the device is silent
DEAD_AFTER = 4.0  # and not one byte back for this much longer: hung or gone
BABBLE_FACTOR = 5  # bytes, but no valid frame for this many times DEAD_AFTER: not our protocol
RETRY_LATER = 0.1  # after BUSY
SESSION_SEQS = 0x4000  # a new HELLO before the device's window (half the seq space) could wrap

_RECENT = 64  # answered (session, seq)s remembered for duplicate checks
# Rejections made after both CRCs matched: the frame is what the device sent (noise passes once in 2**32).
_CHECKED = frozenset(
    {Rejection.LENGTH_MISMATCH, Rejection.BAD_LENGTH, Rejection.BAD_COUNT, Rejection.BAD_VALUE}
)
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
class LinkStats:
    """Counters since the client was made; `conflicting_replies` stays 0 with a correct device."""

    requests: int = 0
    resends: int = 0  # same bytes, same seq
    frames_dropped: int = 0  # corrupted, truncated, over-long or stale frames the decoder refused
    stale_replies: int = 0  # replies to an earlier attempt or request, or of another session (ignored)
    conflicting_replies: int = 0  # one ROLL (session, seq) answered with two different results: a device bug
    button_rolls: int = 0
    button_duplicates: int = 0  # BUTTON_ROLLs already delivered (our ACK was lost) or replayed
    button_dropped: int = 0  # button rolls the device made but never delivered (reported to the app)
    connects: int = 0
    disconnects: int = 0
    sessions: int = 0  # handshakes done
    restarts: int = 0  # the device rebooted under an open port (a new boot id at a handshake)


class _Pending:
    """The request on the wire and what it may be answered with."""

    __slots__ = ("error", "expect", "lost", "other_version", "reply", "request", "session")

    def __init__(self, request: HostMessage, expect: tuple[type, ...], session: int | None) -> None:
        self.request = request
        self.expect = expect
        self.session = session  # a ROLL's: its answer must name the same session
        self.reply: Message | None = None
        self.lost: BaseException | None = None  # the link went away
        self.error: HardwareError | None = None  # the device answered, but not with anything we can accept
        self.other_version: int | None = None  # a frame of this version echoed the request once

    def matches(self, message: Message) -> bool:
        if message.seq != self.request.seq or not isinstance(message, self.expect):
            return False
        return self.session is None or getattr(message, "session", None) == self.session

    def expects_type(self, message_type: int | None) -> bool:
        return any(getattr(kind, "TYPE", None) == message_type for kind in self.expect)


class DiceRoller:
    """The USB dice roller. Every public method is thread-safe; requests go one at a time.

    `port` is a pyserial URL or a zero-argument callable returning an open `SerialPort` (tests pass fakes);
    `name` is what messages call it (default: the URL).
    A request is sent again with the same bytes when no answer came: after `attempt_timeout`, then twice as
    long each time up to `max_attempt_timeout` (default 4 × `attempt_timeout`). Without an explicit `timeout`
    a request gets `attempts` such attempts (3.75 s by default); with one, it goes on until that time is up.
    A frame that arrives corrupted is not a reason to send again sooner.
    `on_event` receives `ButtonRollEvent`s, `ButtonRollsDroppedEvent`s and `ConnectionEvent`s on one of the
    driver's threads (post them to the UI thread); without it they are put on the `events` queue. The
    callback must not call the roller's requests (`open`, `roll`, `ping`, `status`, `hello`): they would wait
    for a reply that only the thread running the callback can deliver, so they raise `HardwareError` at once
    instead (`close` is allowed).
    When nothing has been heard for `keepalive` seconds (None: never check) the client PINGs every 0.1 s; a
    device that then sends nothing at all for `dead_after` seconds more is reported DISCONNECTED (hung or
    gone). A PONG naming another session than ours means the device restarted (or another HELLO reached it):
    the client shakes hands again, and reports `ConnectionEvent(CONNECTED, reason="device restarted ...")`
    when it was a restart.
    """

    def __init__(
        self,
        port: str | Callable[[], SerialPort],
        *,
        name: str | None = None,
        baudrate: int = DEFAULT_BAUDRATE,
        attempt_timeout: float = ATTEMPT_TIMEOUT,
        attempts: int = ATTEMPTS,
        max_attempt_timeout: float | None = None,
        inter_byte_timeout: float = INTER_BYTE_TIMEOUT,
        hello_timeout: float = HELLO_TIMEOUT,
        reconnect: bool = True,
        backoff: tuple[float, float] = (0.05, 2.0),
        keepalive: float | None = KEEPALIVE,
        dead_after: float = DEAD_AFTER,
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
        self.max_attempt_timeout = (
            MAX_ATTEMPT_FACTOR * attempt_timeout if max_attempt_timeout is None else max_attempt_timeout
        )
        self.inter_byte_timeout = inter_byte_timeout
        self.hello_timeout = hello_timeout
        self.reconnect = reconnect
        self.backoff = backoff
        self.keepalive = keepalive
        self.dead_after = dead_after
        self.on_event = on_event
        self.events: queue.Queue[DiceEvent] = queue.Queue()
        self._clock = clock
        self._rng = rng if rng is not None else random.SystemRandom()

        self._cond = threading.Condition()  # guards the fields below
        self._request_lock = threading.Lock()  # one request (or handshake) on the wire at a time
        self._connected = threading.Event()
        self._closing = threading.Event()
        self._check_session = threading.Event()  # an event of another session arrived: PING now
        self._transport: FrameTransport | None = None
        self._info: DeviceInfo | None = None
        self._last_info: DeviceInfo | None = None
        self._state = ConnectionState.CLOSED
        self._pending: _Pending | None = None
        self._session_id: int | None = None  # the device's id for our session (None: shake hands first)
        self._boot: tuple[str, int] | None = None  # (device id, boot id) the event window belongs to
        self._window: EventWindow | None = None
        self._next_seq = 0
        self._seqs_left = 0
        self._last_heard = 0.0  # when the last valid frame arrived
        self._answered: OrderedDict[tuple[int, int], tuple[int, ...]] = OrderedDict()
        self._reconnector: threading.Thread | None = None
        self._keeper: threading.Thread | None = None
        self._counts: dict[str, int] = dict.fromkeys(LinkStats.__dataclass_fields__, 0)
        self._local = threading.local()  # .emitting: this thread is running on_event

    # ---------------------------------------------------------------------------------------- lifecycle

    def open(self, timeout: float | None = None) -> DeviceInfo:
        """Open the port and shake hands (default `hello_timeout`, 2 s: a board just plugged in may boot).

        `DeviceNotFoundError` if the port cannot be opened, `DeviceTimeoutError` if nothing answers HELLO,
        `VersionMismatchError` (a `ProtocolError`) naming both versions if the device speaks another protocol.
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
    def session(self) -> int | None:
        """The device's id for the current session (every roll carries it), or None before a handshake."""
        return self._session_id

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
        """Roll `n` dice on the device, once.

        `DeviceTimeoutError` if no answer arrives in time, `DeviceDisconnectedError` if the link drops (or is
        down for the whole timeout), `DeviceRestartedError` if the device no longer knows our session (it
        restarted: a send that reached it before may have rolled), `DeviceRefusedError` if it refuses,
        `ProtocolError` if it answers with something invalid. None of these hides a roll: the error's
        `device_may_have_rolled` is True whenever the ROLL left for the device and its dice were not accepted
        (its display may show dice that do not count), False when the device certainly rolled nothing.
        """
        self._not_from_callback("roll")
        if type(n) is not int or not MIN_DICE <= n <= MAX_DICE:
            raise ValueError(f"cannot roll {n!r} dice; a roll has {MIN_DICE}..{MAX_DICE}")
        return self._request(timeout, lambda link, info, deadline: self._roll(link, info, n, deadline))

    def ping(self, payload: bytes = b"", timeout: float | None = None) -> float:
        """Round trip of a PING in seconds; `ProtocolError` if the echo differs."""
        self._not_from_callback("ping")
        if len(payload) > MAX_PING_PAYLOAD:
            raise ValueError(f"PING payload {payload!r} is longer than {MAX_PING_PAYLOAD} bytes")

        def request(transport: FrameTransport, _info: DeviceInfo, deadline: float) -> float:
            start = time.perf_counter()
            self._ping(transport, payload, deadline)
            elapsed: float = time.perf_counter() - start
            return elapsed

        return self._request(timeout, request)

    def status(self, timeout: float | None = None) -> Status:
        """The device's health counters; `DeviceRefusedError` if it does not advertise STATUS."""
        self._not_from_callback("status")

        def request(transport: FrameTransport, info: DeviceInfo, deadline: float) -> Status:
            if Capability.STATUS not in info.capabilities:
                raise DeviceRefusedError(
                    f"dice roller {info.device_id} on {self.port_name!r} does not support STATUS",
                    int(ErrorCode.UNKNOWN_TYPE),
                )
            seq, _ = self._take_seq(transport, deadline)
            reply, _ = self._exchange(transport, StatusRequest(seq), (Status, ErrorReply), deadline)
            if isinstance(reply, ErrorReply):
                raise self._refused(reply, "STATUS_REQ")
            assert isinstance(reply, Status)
            return reply

        return self._request(timeout, request)

    def hello(self, timeout: float | None = None) -> DeviceInfo:
        """Shake hands again (a new session on the device) and return what it says about itself."""
        self._not_from_callback("hello")
        return self._request(
            timeout, lambda transport, _info, deadline: self._renew(transport, deadline, "asked for")
        )

    # ------------------------------------------------------------------------------------------- rolling

    def _roll(self, transport: FrameTransport, info: DeviceInfo, n: int, deadline: float) -> Roll:
        if n > info.max_dice:
            raise ValueError(f"cannot roll {n} dice; {info.device_id} rolls at most {info.max_dice}")
        writes = 0  # ROLL frames of the current seq handed to the port (a failed write may still land)

        def wrote() -> None:
            nonlocal writes
            writes += 1

        try:
            while True:
                seq, session = self._take_seq(transport, deadline)
                writes = 0
                request = RollRequest(seq, session, n)
                reply, _ = self._exchange(
                    transport, request, (Result, ErrorReply), deadline, session=session, on_write=wrote
                )
                if isinstance(reply, Result):
                    break
                assert isinstance(reply, ErrorReply)
                writes = 0  # the device answered this seq, and its answer says whether it may have rolled
                self._roll_refused(transport, request, reply, deadline)  # raises, unless a new seq may go
            if len(reply.dice) != n:
                raise ProtocolError(f"device answered {request!r} with {reply!r}")
        except DeviceRefusedError:
            raise  # it says itself whether the device may have rolled
        except HardwareError as exc:
            exc.device_may_have_rolled = writes > 0 and not isinstance(exc, _NotSent)
            raise
        return Roll(reply.dice, RollSource.DEVICE, self._clock(), device_id=info.device_id, seq=seq,
                    session=session)

    def _roll_refused(
        self, transport: FrameTransport, request: RollRequest, reply: ErrorReply, deadline: float
    ) -> None:
        """Return when the device certainly did not and never will roll `request` (a new seq may go); raise
        otherwise, saying whether it may have rolled."""
        code = reply.code
        where = f"dice roller on {self.port_name!r}"
        if code is ErrorCode.SESSION_CLOSED:  # a newer HELLO reached the device; this seq is dead for good
            self._renew(transport, deadline, "the device closed our session")
            return
        if code is ErrorCode.BUSY:
            self._sleep_until(deadline, RETRY_LATER)
            return
        if code is ErrorCode.NO_SESSION:
            with self._cond:
                self._session_id = None
            try:
                self._renew(transport, deadline, "the device no longer knew our session")
            except HardwareError as exc:  # the roll's outcome is what matters; the next request retries
                log.warning("%s: new session after NO_SESSION failed: %s", where, exc)
            raise DeviceRestartedError(
                f"{where} no longer knows session 0x{request.session:08x}: it restarted during {request!r} "
                "and may show dice that were not accepted: roll again",
                int(code),
            )
        error = self._refused(reply, f"ROLL of {request.count} dice")
        # STALE: the seq is behind the session's window, so some send of it was answered before, not to us.
        error.device_may_have_rolled = code is ErrorCode.STALE
        raise error

    def _take_seq(self, transport: FrameTransport, deadline: float) -> tuple[int, int]:
        """The next request's (seq, session); a new session first when there is none or its seqs ran out."""
        if self._session_id is None or self._seqs_left <= 0:
            self._renew(transport, deadline, "seqs used up" if self._session_id is not None else "none")
        seq = self._next_seq
        self._next_seq = (seq + 1) % SEQ_MODULUS
        self._seqs_left -= 1
        session = self._session_id
        assert session is not None
        return seq, session

    # ------------------------------------------------------------------------------------ ping, sessions

    def _ping(self, transport: FrameTransport, payload: bytes, deadline: float) -> Pong:
        seq, _ = self._take_seq(transport, deadline)
        reply, _ = self._exchange(transport, Ping(seq, payload), (Pong, ErrorReply), deadline)
        if isinstance(reply, ErrorReply):
            raise self._refused(reply, "PING")
        assert isinstance(reply, Pong)
        if reply.payload != payload:
            raise ProtocolError(f"PING {payload!r} (seq 0x{seq:04x}) echoed as {reply.payload!r}")
        with self._cond:
            ours, window = self._session_id, self._window
            dropped = 0
            if reply.session == ours and window is not None:
                dropped = window.advance(reply.event_floor)
                self._counts["button_dropped"] += dropped
        if reply.session != ours:
            why = f"the device is in session 0x{reply.session:08x}, not ours"
            self._renew(transport, max(deadline, time.monotonic() + 3 * self.attempt_timeout), why)
        elif dropped:
            self._emit_dropped(dropped)
        return reply

    def _handshake(self, transport: FrameTransport, deadline: float) -> tuple[DeviceInfo, bool]:
        """HELLO → a new session; (info, whether the device restarted since our previous session)."""
        hello_seq = self._rng.randrange(SEQ_MODULUS)
        reply, _ = self._exchange(transport, HelloRequest(hello_seq), (Hello, ErrorReply), deadline)
        if isinstance(reply, ErrorReply):
            if reply.code is ErrorCode.BAD_VERSION:
                raise VersionMismatchError(
                    f"dice roller on {self.port_name!r} refuses protocol version {PROTOCOL_VERSION} "
                    f"({reply.detail!r}); this driver speaks only {PROTOCOL_VERSION}",
                    0,
                    PROTOCOL_VERSION,
                )
            raise self._refused(reply, "HELLO_REQ")
        assert isinstance(reply, Hello)
        if reply.protocol_version != PROTOCOL_VERSION:
            raise self._version_error(reply.protocol_version)
        if not MIN_DICE <= reply.max_dice <= MAX_DICE:
            raise ProtocolError(f"device on {self.port_name!r} claims max_dice {reply.max_dice} ({reply!r})")
        info = DeviceInfo.from_hello(self.port_name, reply)
        boot = (info.device_id, reply.boot)
        with self._cond:
            before, self._boot = self._boot, boot
            restarted = before is not None and before[0] == boot[0] and before[1] != boot[1]
            dropped = 0
            if before != boot or self._window is None:  # another boot: its events start afresh
                self._window = EventWindow(reply.event_floor)
            else:
                dropped = self._window.advance(reply.event_floor)
            self._counts["button_dropped"] += dropped
            self._counts["sessions"] += 1
            self._session_id = reply.session
            self._next_seq = (hello_seq + 1) % SEQ_MODULUS  # the device's window starts at the HELLO's seq
            self._seqs_left = SESSION_SEQS
            self._info = self._last_info = info
        if dropped:
            self._emit_dropped(dropped)
        return info, restarted

    def _renew(self, transport: FrameTransport, deadline: float, why: str) -> DeviceInfo:
        """A new session on a connected link; a restart found on the way is reported as a CONNECTED event."""
        info, restarted = self._handshake(transport, deadline)
        if restarted:
            with self._cond:
                self._counts["restarts"] += 1
            reason = f"device restarted ({why}): new session"
            log.warning("dice roller on %s: %s", self.port_name, reason)
            self._emit(ConnectionEvent(ConnectionState.CONNECTED, info, reason))
        else:
            log.info("dice roller on %s: new session (%s)", self.port_name, why)
        return info

    def _version_error(self, version: int) -> VersionMismatchError:
        update = "update the roller's firmware (firmware/README.md)" if version < PROTOCOL_VERSION else (
            "update Seneschal"
        )
        return VersionMismatchError(
            f"dice roller on {self.port_name!r} speaks protocol version {version}; this driver speaks "
            f"version {PROTOCOL_VERSION}: {update}",
            version,
            PROTOCOL_VERSION,
        )

    # ------------------------------------------------------------------------------------------ exchange

    def _attempt_wait(self, attempt: int) -> float:
        wait: float = min(self.max_attempt_timeout, self.attempt_timeout * 2 ** min(attempt, 16))
        return wait

    def _exchange(
        self,
        transport: FrameTransport,
        request: HostMessage,
        expect: tuple[type, ...],
        deadline: float,
        *,
        session: int | None = None,
        on_write: Callable[[], None] | None = None,
    ) -> tuple[Message, int]:
        """Send `request` until a reply of an `expect`ed type with its seq (and `session`) arrives; (reply,
        times sent). The same bytes go again after each attempt's wait, which doubles up to its bound.
        `on_write` is called before every write."""
        frame = encode_frame(request)
        pending = _Pending(request, expect, session)
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
                if on_write is not None:
                    on_write()
                self._write(transport, frame, request, sends)
                sends += 1
                reply = self._await(pending, min(deadline, now + self._attempt_wait(sends - 1)), sends)
                if reply is not None:
                    return reply, sends
        finally:
            with self._cond:
                if self._pending is pending:
                    self._pending = None

    def _write(self, transport: FrameTransport, frame: bytes, request: HostMessage, sends: int) -> None:
        try:
            transport.write(frame)
        except HardwareError as exc:
            self._lost(transport, exc)
            # Only a write refused before any byte left is certainly unseen by the device.
            unseen = sends == 0 and isinstance(exc, LinkDownError)
            raise (_NotSent if unseen else DeviceDisconnectedError)(
                f"dice roller on {self.port_name!r} went away during {request!r}: {exc}"
            ) from exc

    def _await(self, pending: _Pending, until: float, sends: int) -> Message | None:
        with self._cond:
            if sends > 1:
                self._counts["resends"] += 1
            while pending.reply is None and pending.lost is None and pending.error is None:
                remaining = until - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            reply, lost, error = pending.reply, pending.lost, pending.error
        if error is not None:
            raise error
        if lost is not None:
            raise DeviceDisconnectedError(
                f"dice roller on {self.port_name!r} went away during {pending.request!r}: {lost}"
            )
        return reply

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
            self._session_id = None
        transport.start()
        try:
            transport.write(b"\x00")  # end whatever half frame the device holds from before
            info, _ = self._handshake(transport, deadline)
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
            self._last_heard = time.monotonic()
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
            if pending is not None and pending.reply is None and pending.matches(message):
                pending.reply = message
                if isinstance(message, Result):
                    _remember(self._answered, (message.session, message.seq), message.dice)
                self._cond.notify_all()
                return
            self._counts["stale_replies"] += 1
            if isinstance(message, Result):
                earlier = self._answered.get((message.session, message.seq))
                if earlier is not None and earlier != message.dice:
                    self._counts["conflicting_replies"] += 1
                    log.error(
                        "dice roller on %s answered ROLL seq 0x%04x of session 0x%08x twice, with %r and %r",
                        self.port_name, message.seq, message.session, earlier, message.dice,
                    )

    def _on_button(self, transport: FrameTransport, message: ButtonRoll) -> None:
        with self._cond:
            info, session, window = self._info, self._session_id, self._window
        if info is None or session is None or window is None:
            return  # mid-handshake: leave it un-ACKed; the device re-sends it every 300 ms
        if message.session != session:  # the device is in another session: see to ours at once
            self._check_session.set()
            return
        with self._cond:
            deliver, dropped = window.receive(message.seq)
            self._counts["button_rolls" if deliver else "button_duplicates"] += 1
            self._counts["button_dropped"] += dropped
        # ACK every copy, repeats included; a repeat means our ACK was lost, so that one goes twice: the
        # device moves on to its next event only once an ACK arrives.
        try:
            transport.write(encode_frame(Ack(message.seq, session)) * (1 if deliver else 2))
        except HardwareError as exc:
            log.warning("dice roller on %s: cannot ACK %r: %s", self.port_name, message, exc)
        if dropped:
            self._emit_dropped(dropped)
        if deliver:
            roll = Roll(message.dice, RollSource.DEVICE, self._clock(), info.device_id, message.seq)
            self._emit(ButtonRollEvent(roll))

    def _on_drop(self, transport: FrameTransport, error: ProtocolError) -> None:
        """A frame refused by the decoder. Corruption is no reason to send again sooner; but a frame whose CRC
        matched and that echoes the request on the wire is the device's answer, and a bad one ends it."""
        log.debug("dice roller on %s: %s", self.port_name, error)
        if error.seq is None:
            return
        with self._cond:
            pending = self._pending
            if self._transport is not transport or pending is None or pending.reply is not None:
                return
            if error.seq != pending.request.seq or pending.error is not None:
                return
            pending.error = self._bad_answer(pending, error)
            if pending.error is not None:
                self._cond.notify_all()

    def _bad_answer(self, pending: _Pending, error: ProtocolError) -> HardwareError | None:
        if error.rejection is Rejection.BAD_VERSION:
            # Only a handshake can meet another version; later, a frame like that is noise that fooled a CRC.
            if not isinstance(pending.request, HelloRequest) or error.version is None:
                return None
            if error.version == LEGACY_VERSION and not error.legacy:
                return None
            # Such a frame passed only the 16-bit CRC: believe it when it comes twice (the device answers
            # every send alike; noise does not).
            if pending.other_version != error.version:
                pending.other_version = error.version
                return None
            return self._version_error(error.version)
        if error.rejection not in _CHECKED or not pending.expects_type(error.message_type):
            return None
        return ProtocolError(
            f"dice roller on {self.port_name!r} answered {pending.request!r} with an invalid frame: {error}",
            error.rejection,
        )

    def _lost(self, transport: FrameTransport, exc: BaseException) -> None:
        with self._cond:
            if self._transport is not transport:
                return
            self._transport = None
            self._info = None
            self._session_id = None
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
        tick = min(self.keepalive / 4, PROBE_INTERVAL)
        while not self._closing.wait(tick):
            with self._cond:
                transport = self._transport
                quiet = time.monotonic() - self._last_heard
            if transport is None or not self._connected.is_set():
                continue
            if quiet < self.keepalive and not self._check_session.is_set():
                continue
            if not self._request_lock.acquire(blocking=False):
                continue  # a request is on the wire: that is a liveness check too
            try:
                self._check_session.clear()
                with self._cond:
                    current = self._transport is transport and self._connected.is_set()
                if current:
                    self._probe(transport)
            finally:
                self._request_lock.release()

    def _probe(self, transport: FrameTransport) -> None:
        """One PING. A device silent past `keepalive` + `dead_after` is gone (hung, unplugged); one that talks
        but sends nothing valid for BABBLE_FACTOR times as long does not speak our protocol (any more)."""
        try:  # one send per probe: the next probe is the retry
            self._ping(transport, b"", time.monotonic() + min(PROBE_INTERVAL, self.attempt_timeout))
        except DeviceTimeoutError:
            now = time.monotonic()
            silent, mute = now - transport.last_byte, now - self._last_heard
            assert self.keepalive is not None
            if silent >= self.keepalive + self.dead_after:
                why = f"sent nothing for {silent:.1f} s: hung or unplugged"
            elif mute >= self.keepalive + BABBLE_FACTOR * self.dead_after:
                why = f"sent no valid frame for {mute:.1f} s"
            else:
                return
            self._lost(transport, DeviceTimeoutError(f"dice roller on {self.port_name!r} {why}"))
        except HardwareError as exc:
            log.debug("dice roller on %s: keepalive: %s", self.port_name, exc)

    def _emit_dropped(self, count: int) -> None:
        info = self._last_info
        log.warning("dice roller on %s: %d button roll(s) never arrived", self.port_name, count)
        self._emit(ButtonRollsDroppedEvent(count, info.device_id if info is not None else "?"))

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
        if timeout is None:
            timeout = sum(self._attempt_wait(k) for k in range(self.attempts))
        return time.monotonic() + timeout

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

    def _refused(self, reply: ErrorReply, what: str) -> DeviceRefusedError:
        detail = f" ({reply.detail!r})" if reply.detail else ""
        return DeviceRefusedError(
            f"dice roller on {self.port_name!r} refused {what} (seq 0x{reply.seq:04x}): "
            f"{reply.code.name} (code {int(reply.code)}){detail}",
            int(reply.code),
        )

"""The dice-roller wire protocol (docs/dice-protocol.md), pure: no I/O, no threads, no clocks.

A packet is `ver:u8 | type:u8 | seq:u16 BE | len:u8 | body[len] | check:u16 BE | crc:u16 BE`: `check` is
CRC-16/T10-DIF over the header and body, `crc` CRC-16/CCITT-FALSE over every byte before it (the two
together let a corrupted packet through about once in 2**32). On the wire each packet is COBS-encoded and
followed by one 0x00 delimiter, so a receiver resynchronises at the next 0x00 whatever it lost. `FrameDecoder`
turns an arbitrary byte stream into messages and counts what it had to drop; `encode_frame` / `decode_frame`
are the two directions for one frame.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hardware.errors import ProtocolError, Rejection

PROTOCOL_VERSION = 2  # the `ver` byte of every packet
LEGACY_VERSION = 1  # its packets have no `check`: ver, type, seq, len, body, crc
DELIMITER = 0
MAX_FRAME = 64  # COBS-encoded bytes before a delimiter; longer frames are dropped
HEADER_SIZE = 5  # ver, type, seq (2), len
CRC_SIZE = 2
CHECK_SIZE = 2
TRAILER_SIZE = CHECK_SIZE + CRC_SIZE
MIN_ANY_PACKET = HEADER_SIZE + CRC_SIZE  # what every version has: bytes 0..3 and the trailing CRC
MIN_PACKET = HEADER_SIZE + TRAILER_SIZE
MAX_PACKET = MAX_FRAME - 1  # COBS adds one byte to packets this short
MAX_BODY = MAX_PACKET - MIN_PACKET
MIN_DICE, MAX_DICE = 1, 10
MAX_PING_PAYLOAD = 8
MAX_DETAIL = 32
DEVICE_ID_SIZE = 8
SESSION_SIZE = 4
HELLO_BODY_SIZE = 6 + DEVICE_ID_SIZE + 4 + SESSION_SIZE + 2
PONG_HEAD_SIZE = SESSION_SIZE + 2
SEQ_MODULUS = 1 << 16
NO_SESSION = 0  # a PONG's session before any HELLO_REQ since the device booted


def _enum_repr(member: enum.Enum) -> str:
    """`Capability.BUTTON|Capability.LEDS` rather than `<Capability.BUTTON|LEDS: 5>`, so reprs paste back."""
    cls = type(member).__name__
    if member.name is None:  # an IntFlag value with no named bits
        return f"{cls}({member.value!r})"
    return "|".join(f"{cls}.{name}" for name in member.name.split("|"))


class MessageType(enum.IntEnum):
    """The `type` byte. Host → device below 0x80, device → host from 0x80."""

    HELLO_REQ = 0x01
    ROLL = 0x02
    PING = 0x03
    ACK = 0x04
    STATUS_REQ = 0x05
    HELLO = 0x81
    RESULT = 0x82
    BUTTON_ROLL = 0x83
    PONG = 0x84
    ERROR = 0x85
    STATUS = 0x86

    __repr__ = _enum_repr


class ErrorCode(enum.IntEnum):
    """The code byte of an ERROR frame. Codes this driver does not know (a newer firmware's) are accepted as
    pseudo-members named `UNKNOWN_<n>`, as the protocol requires, and treated as non-retryable."""

    BAD_LENGTH = 1  # host bug
    BAD_COUNT = 2
    UNKNOWN_TYPE = 3  # feature missing on this device
    BAD_VERSION = 4
    BUSY = 5  # reserved: nothing rolled; retry with a new seq after 100 ms
    NO_SESSION = 6  # the device does not know the session (it restarted): an earlier send may have rolled
    INTERNAL = 7  # the random source failed: nothing was rolled, and this seq never will be
    STALE = 8  # at or below the session's last answered ROLL, its answer gone: not rolled now
    SESSION_CLOSED = 9  # a newer HELLO closed the session: this seq was never rolled and never will be

    @classmethod
    def _missing_(cls, value: object) -> ErrorCode | None:
        if not isinstance(value, int) or not 0 <= value <= 255:
            return None
        member = int.__new__(cls, value)
        member._name_ = f"UNKNOWN_{value}"
        member._value_ = value
        return member

    def __repr__(self) -> str:
        if self.name.startswith("UNKNOWN_"):
            return f"ErrorCode({self.value})"
        return f"ErrorCode.{self.name}"


class Capability(enum.IntFlag):
    """The HELLO capability bitfield; unknown bits from newer firmware are kept, not refused."""

    NONE = 0
    BUTTON = 0x01
    DISPLAY = 0x02
    LEDS = 0x04
    STATUS = 0x08  # STATUS_REQ supported

    __repr__ = _enum_repr


# ------------------------------------------------------------------------------------------ CRC / COBS

def _crc_table(poly: int) -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ poly) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CCITT_TABLE = _crc_table(0x1021)
_T10DIF_TABLE = _crc_table(0x8BB7)


def crc16_ccitt_false(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0 (check "123456789" → 0x29B1)."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CCITT_TABLE[(crc >> 8) ^ byte]
    return crc


def crc16_t10_dif(data: bytes, crc: int = 0) -> int:
    """CRC-16/T10-DIF: poly 0x8BB7, init 0, no reflection, xorout 0 (check "123456789" → 0xD0DB). Its
    generator shares no factor with CCITT's, so together they are as strong as a 32-bit CRC against random
    errors."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _T10DIF_TABLE[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result has no 0x00 byte and is one byte longer per 254 bytes."""
    out = bytearray(b"\x00")
    code_at, code = 0, 1
    for i, byte in enumerate(data):
        if byte == 0:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
            continue
        out.append(byte)
        code += 1
        if code == 0xFF and i + 1 < len(data):  # no trailing empty block (docs/dice-protocol.md §1)
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of `cobs_encode`; refuses anything `cobs_encode` could not have produced."""
    if not data:
        raise ProtocolError("COBS: empty frame", Rejection.TRUNCATED)
    out = bytearray()
    i, size = 0, len(data)
    while i < size:
        code = data[i]
        if code == 0:
            raise ProtocolError(f"COBS: 0x00 inside {data.hex(' ')!r} at offset {i}", Rejection.BAD_COBS)
        end = i + code
        if end > size:
            raise ProtocolError(
                f"COBS: code 0x{code:02x} at offset {i} overruns {data.hex(' ')!r}", Rejection.BAD_COBS
            )
        block = data[i + 1 : end]
        if 0 in block:
            raise ProtocolError(f"COBS: 0x00 inside frame {data.hex(' ')!r}", Rejection.BAD_COBS)
        out += block
        i = end
        if i < size and code != 0xFF:
            out.append(0)
    return bytes(out)


# -------------------------------------------------------------------------------------------- messages

def _check_seq(seq: int) -> None:
    if type(seq) is not int or not 0 <= seq < SEQ_MODULUS:
        raise ValueError(f"seq {seq!r} is not a u16")


def _check_dice(dice: tuple[int, ...]) -> None:
    if not isinstance(dice, tuple) or not MIN_DICE <= len(dice) <= MAX_DICE:
        raise ValueError(f"dice {dice!r}: a roll is a tuple of {MIN_DICE}..{MAX_DICE} dice")
    if any(type(d) is not int or not 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice {dice!r} are not all 1..6")


def _check_u8(name: str, value: int) -> None:
    if type(value) is not int or not 0 <= value <= 0xFF:
        raise ValueError(f"{name} {value!r} is not a u8")


def _check_u32(name: str, value: int) -> None:
    if type(value) is not int or not 0 <= value <= 0xFFFFFFFF:
        raise ValueError(f"{name} {value!r} is not a u32")


@dataclass(frozen=True, slots=True)
class HelloRequest:
    """Host → device: who are you? Opens a new session (a repeat of the same seq gets the same session)."""

    TYPE: ClassVar[MessageType] = MessageType.HELLO_REQ
    seq: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)

    def body(self) -> bytes:
        return b""


@dataclass(frozen=True, slots=True)
class RollRequest:
    """Host → device: roll `count` dice in `session`. A repeat of the same seq gets the same answer, never a
    new roll, and so does any seq at or below the session's last answered one."""

    TYPE: ClassVar[MessageType] = MessageType.ROLL
    seq: int
    session: int
    count: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        _check_u32("session", self.session)
        if type(self.count) is not int or not MIN_DICE <= self.count <= MAX_DICE:
            raise ValueError(f"roll of {self.count!r} dice; a roll has {MIN_DICE}..{MAX_DICE}")

    def body(self) -> bytes:
        return self.session.to_bytes(4, "big") + bytes((self.count,))


@dataclass(frozen=True, slots=True)
class Ping:
    """Host → device: echo `payload` (0..8 bytes) in a PONG."""

    TYPE: ClassVar[MessageType] = MessageType.PING
    seq: int
    payload: bytes = b""

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        if len(self.payload) > MAX_PING_PAYLOAD:
            raise ValueError(f"PING payload {self.payload!r} is longer than {MAX_PING_PAYLOAD} bytes")

    def body(self) -> bytes:
        return bytes(self.payload)


@dataclass(frozen=True, slots=True)
class Ack:
    """Host → device: the BUTTON_ROLL with this seq arrived in `session`; stop re-sending it."""

    TYPE: ClassVar[MessageType] = MessageType.ACK
    seq: int
    session: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        _check_u32("session", self.session)

    def body(self) -> bytes:
        return self.session.to_bytes(4, "big")


@dataclass(frozen=True, slots=True)
class StatusRequest:
    """Host → device: send your STATUS counters (only if HELLO advertised `Capability.STATUS`)."""

    TYPE: ClassVar[MessageType] = MessageType.STATUS_REQ
    seq: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)

    def body(self) -> bytes:
        return b""


@dataclass(frozen=True, slots=True)
class Hello:
    """Device → host: answer to HELLO_REQ (seq echoes it). Values are as sent; the client judges them.

    `boot` is random per boot of the device, `session` the id the host puts in its ROLLs and ACKs, and
    `event_floor` the seq of the oldest button event not yet ACKed or dropped (or of the next one).
    """

    TYPE: ClassVar[MessageType] = MessageType.HELLO
    seq: int
    protocol_version: int
    firmware_version: tuple[int, int, int]
    capabilities: Capability
    max_dice: int
    device_id: bytes
    boot: int
    session: int
    event_floor: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        if len(self.firmware_version) != 3:
            raise ValueError(f"firmware version {self.firmware_version!r} is not major, minor, patch")
        for name, value in (
            ("protocol version", self.protocol_version),
            ("firmware version", self.firmware_version[0]),
            ("firmware version", self.firmware_version[1]),
            ("firmware version", self.firmware_version[2]),
            ("capabilities", int(self.capabilities)),
            ("max dice", self.max_dice),
        ):
            _check_u8(name, value)
        if len(self.device_id) != DEVICE_ID_SIZE:
            raise ValueError(f"device id {self.device_id!r} is not {DEVICE_ID_SIZE} bytes")
        _check_u32("boot", self.boot)
        _check_u32("session", self.session)
        _check_seq(self.event_floor)

    def body(self) -> bytes:
        head = (self.protocol_version, *self.firmware_version, int(self.capabilities), self.max_dice)
        tail = self.boot.to_bytes(4, "big") + self.session.to_bytes(4, "big")
        return bytes(head) + bytes(self.device_id) + tail + self.event_floor.to_bytes(2, "big")


@dataclass(frozen=True, slots=True)
class Result:
    """Device → host: the dice of the ROLL with this seq in `session`, in roll order."""

    TYPE: ClassVar[MessageType] = MessageType.RESULT
    seq: int
    session: int
    dice: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        _check_u32("session", self.session)
        _check_dice(self.dice)

    def body(self) -> bytes:
        return self.session.to_bytes(4, "big") + bytes((len(self.dice), *self.dice))


@dataclass(frozen=True, slots=True)
class ButtonRoll:
    """Device → host, unsolicited: someone pressed the button. `seq` is the device's own event counter (one
    per press, consecutive); re-sent, in the session current at each send, until ACKed."""

    TYPE: ClassVar[MessageType] = MessageType.BUTTON_ROLL
    seq: int
    session: int
    dice: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        _check_u32("session", self.session)
        _check_dice(self.dice)

    def body(self) -> bytes:
        return self.session.to_bytes(4, "big") + bytes((len(self.dice), *self.dice))


@dataclass(frozen=True, slots=True)
class Pong:
    """Device → host: the PING's payload, echoed after the device's current `session` (NO_SESSION before any
    HELLO_REQ since boot) and its `event_floor` (as in HELLO)."""

    TYPE: ClassVar[MessageType] = MessageType.PONG
    seq: int
    session: int
    event_floor: int
    payload: bytes = b""

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        _check_u32("session", self.session)
        _check_seq(self.event_floor)
        if len(self.payload) > MAX_PING_PAYLOAD:
            raise ValueError(f"PONG payload {self.payload!r} is longer than {MAX_PING_PAYLOAD} bytes")

    def body(self) -> bytes:
        head = self.session.to_bytes(4, "big") + self.event_floor.to_bytes(2, "big")
        return head + bytes(self.payload)


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """Device → host: the request with this seq was refused; `session` is the refused ROLL's (0 for other
    requests); `detail` is 0..32 printable ASCII, for logs."""

    TYPE: ClassVar[MessageType] = MessageType.ERROR
    seq: int
    code: ErrorCode
    detail: str = field(default="")
    session: int = 0

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        _check_u8("error code", int(self.code))
        _check_u32("session", self.session)
        if not _printable_ascii(self.detail.encode("utf-8")):
            raise ValueError(f"ERROR detail {self.detail!r} is not printable ASCII")
        if len(self.detail) > MAX_DETAIL:
            raise ValueError(f"ERROR detail {self.detail!r} is longer than {MAX_DETAIL} characters")

    def body(self) -> bytes:
        return bytes((int(self.code),)) + self.session.to_bytes(4, "big") + self.detail.encode("ascii")


STATUS_COUNTERS = (
    "frames_ok",
    "bad_crc",
    "bad_framing",
    "bad_version",
    "ignored",
    "errors_sent",
    "rolls",
    "duplicates",
    "refused",
    "button_presses",
    "resends",
    "events_dropped",
)
STATUS_BODY_SIZE = 5 + 4 * len(STATUS_COUNTERS)


class ResetCause(enum.IntEnum):
    """Why the device last started (STATUS `reset_cause`); unknown values read as OTHER."""

    POWER_ON = 0
    WATCHDOG = 1
    OTHER = 2

    __repr__ = _enum_repr


@dataclass(frozen=True, slots=True)
class Status:
    """Device → host: health counters since boot (docs/dice-protocol.md §4), all u32, saturating."""

    TYPE: ClassVar[MessageType] = MessageType.STATUS
    seq: int
    reset_cause: int
    uptime_s: int
    frames_ok: int = 0
    bad_crc: int = 0
    bad_framing: int = 0
    bad_version: int = 0
    ignored: int = 0
    errors_sent: int = 0
    rolls: int = 0
    duplicates: int = 0
    refused: int = 0
    button_presses: int = 0
    resends: int = 0
    events_dropped: int = 0

    def __post_init__(self) -> None:
        _check_seq(self.seq)
        _check_u8("reset cause", self.reset_cause)
        for name in ("uptime_s", *STATUS_COUNTERS):
            value = getattr(self, name)
            if type(value) is not int or not 0 <= value <= 0xFFFFFFFF:
                raise ValueError(f"STATUS {name} {value!r} is not a u32")

    @property
    def reset(self) -> ResetCause:
        return ResetCause(self.reset_cause) if self.reset_cause in (0, 1) else ResetCause.OTHER

    def counters(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in STATUS_COUNTERS}

    def body(self) -> bytes:
        values = (self.uptime_s, *(getattr(self, name) for name in STATUS_COUNTERS))
        return bytes((self.reset_cause,)) + b"".join(v.to_bytes(4, "big") for v in values)


Message = (
    HelloRequest
    | RollRequest
    | Ping
    | Ack
    | StatusRequest
    | Hello
    | Result
    | ButtonRoll
    | Pong
    | ErrorReply
    | Status
)
HostMessage = HelloRequest | RollRequest | Ping | Ack | StatusRequest
DeviceMessage = Hello | Result | ButtonRoll | Pong | ErrorReply | Status


def _printable_ascii(data: bytes) -> bool:
    return all(0x20 <= c <= 0x7E for c in data)


class _Reject(Exception):
    """A body check failed; carries the rejection name for `decode_packet`'s ProtocolError."""

    def __init__(self, rejection: Rejection, why: str) -> None:
        super().__init__(why)
        self.rejection = rejection


def _body_size(body: bytes, low: int, high: int) -> None:
    if not low <= len(body) <= high:
        size = str(low) if low == high else f"{low}..{high}"
        raise _Reject(Rejection.BAD_LENGTH, f"body of {len(body)} bytes, expected {size}")


def _u32(body: bytes, at: int = 0) -> int:
    return int.from_bytes(body[at : at + 4], "big")


def _decode_dice(body: bytes) -> tuple[int, tuple[int, ...]]:
    """(session, dice) of a RESULT or BUTTON_ROLL body, checked in the documented order: length, count,
    values."""
    if len(body) < SESSION_SIZE + 2 or body[SESSION_SIZE] != len(body) - SESSION_SIZE - 1:
        raise _Reject(Rejection.BAD_LENGTH, "count byte does not match the number of dice")
    if body[SESSION_SIZE] > MAX_DICE:
        raise _Reject(Rejection.BAD_COUNT, f"{body[SESSION_SIZE]} dice, at most {MAX_DICE}")
    dice = tuple(body[SESSION_SIZE + 1 :])
    if not all(1 <= d <= 6 for d in dice):
        raise _Reject(Rejection.BAD_VALUE, f"dice {dice!r} are not all 1..6")
    return _u32(body), dice


def _decode_hello(seq: int, body: bytes) -> Hello:
    _body_size(body, HELLO_BODY_SIZE, HELLO_BODY_SIZE)
    return Hello(
        seq,
        body[0],
        (body[1], body[2], body[3]),
        Capability(body[4]),
        body[5],
        body[6:14],
        _u32(body, 14),
        _u32(body, 18),
        int.from_bytes(body[22:24], "big"),
    )


def _decode_error(seq: int, body: bytes) -> ErrorReply:
    _body_size(body, 1 + SESSION_SIZE, 1 + SESSION_SIZE + MAX_DETAIL)
    detail = body[1 + SESSION_SIZE :]
    if not _printable_ascii(detail):
        raise _Reject(Rejection.BAD_VALUE, f"detail {detail!r} is not printable ASCII")
    return ErrorReply(seq, ErrorCode(body[0]), detail.decode("ascii"), _u32(body, 1))


def _decode_body(mtype: MessageType, seq: int, body: bytes) -> Message:
    if mtype in (MessageType.HELLO_REQ, MessageType.STATUS_REQ):
        _body_size(body, 0, 0)
        return HelloRequest(seq) if mtype is MessageType.HELLO_REQ else StatusRequest(seq)
    if mtype is MessageType.ACK:
        _body_size(body, SESSION_SIZE, SESSION_SIZE)
        return Ack(seq, _u32(body))
    if mtype is MessageType.ROLL:
        _body_size(body, SESSION_SIZE + 1, SESSION_SIZE + 1)
        count = body[SESSION_SIZE]
        if not MIN_DICE <= count <= MAX_DICE:
            raise _Reject(Rejection.BAD_COUNT, f"roll of {count} dice, expected {MIN_DICE}..{MAX_DICE}")
        return RollRequest(seq, _u32(body), count)
    if mtype is MessageType.PING:
        _body_size(body, 0, MAX_PING_PAYLOAD)
        return Ping(seq, body)
    if mtype is MessageType.PONG:
        _body_size(body, PONG_HEAD_SIZE, PONG_HEAD_SIZE + MAX_PING_PAYLOAD)
        return Pong(seq, _u32(body), int.from_bytes(body[4:6], "big"), body[PONG_HEAD_SIZE:])
    if mtype is MessageType.HELLO:
        return _decode_hello(seq, body)
    if mtype in (MessageType.RESULT, MessageType.BUTTON_ROLL):
        session, dice = _decode_dice(body)
        return Result(seq, session, dice) if mtype is MessageType.RESULT else ButtonRoll(seq, session, dice)
    if mtype is MessageType.ERROR:
        return _decode_error(seq, body)
    _body_size(body, STATUS_BODY_SIZE, STATUS_BODY_SIZE)
    words = [int.from_bytes(body[i : i + 4], "big") for i in range(1, STATUS_BODY_SIZE, 4)]
    return Status(seq, body[0], *words)


# ------------------------------------------------------------------------------------ packets & frames

def encode_packet(message: Message, version: int = PROTOCOL_VERSION) -> bytes:
    """The packet (header, body, check, CRC) before COBS framing. `version` other than ours is for tests that
    play a device of another version (a v1 packet has no check)."""
    body = message.body()
    if len(body) > MAX_BODY:
        raise ValueError(f"{message!r}: body of {len(body)} bytes exceeds {MAX_BODY}")
    seq = message.seq
    head = bytes((version, int(message.TYPE), seq >> 8, seq & 0xFF, len(body))) + body
    if version != LEGACY_VERSION:
        head += crc16_t10_dif(head).to_bytes(2, "big")
    return head + crc16_ccitt_false(head).to_bytes(2, "big")


def _trusted(packet: bytes, why: str, rejection: Rejection) -> ProtocolError:
    """A rejection of a packet whose CRC matched: its version, type and seq can be believed."""
    error = ProtocolError(f"packet {packet.hex(' ')!r}: {why}", rejection)
    error.version, error.message_type, error.seq = packet[0], packet[1], (packet[2] << 8) | packet[3]
    return error


def decode_packet(packet: bytes) -> Message:
    """A packet's message, or `ProtocolError` quoting the bytes and naming the first check that failed.

    The checks run in the order of docs/dice-protocol.md §2, so rejections match the golden file's names.
    A rejection after the CRC matched carries the packet's `version`, `message_type` and `seq`.
    """
    size = len(packet)
    if size < MIN_ANY_PACKET:
        why = f"packet {packet.hex(' ')!r} is under {MIN_ANY_PACKET} bytes"
        raise ProtocolError(why, Rejection.TRUNCATED)
    if size > MAX_PACKET:
        raise ProtocolError(f"packet {packet[:16].hex(' ')!r}... has {size} bytes", Rejection.TOO_LONG)
    if crc16_ccitt_false(packet[:-CRC_SIZE]) != int.from_bytes(packet[-CRC_SIZE:], "big"):
        raise ProtocolError(f"packet {packet.hex(' ')!r}: CRC mismatch", Rejection.BAD_CRC)
    if packet[0] != PROTOCOL_VERSION:
        why = f"protocol version {packet[0]}, expected {PROTOCOL_VERSION}"
        error = _trusted(packet, why, Rejection.BAD_VERSION)
        error.legacy = packet[0] == LEGACY_VERSION and packet[4] == size - MIN_ANY_PACKET
        raise error
    if size < MIN_PACKET:
        raise _trusted(packet, f"{size} bytes, under {MIN_PACKET}", Rejection.TRUNCATED)
    if crc16_t10_dif(packet[:-TRAILER_SIZE]) != int.from_bytes(packet[-TRAILER_SIZE:-CRC_SIZE], "big"):
        raise ProtocolError(f"packet {packet.hex(' ')!r}: check mismatch", Rejection.BAD_CRC)
    if packet[4] != size - MIN_PACKET:
        why = f"len byte {packet[4]} but a {size - MIN_PACKET}-byte body"
        raise _trusted(packet, why, Rejection.LENGTH_MISMATCH)
    try:
        mtype = MessageType(packet[1])
    except ValueError:
        raise _trusted(packet, f"unknown message type 0x{packet[1]:02x}", Rejection.UNKNOWN_TYPE) from None
    seq = (packet[2] << 8) | packet[3]
    try:
        return _decode_body(mtype, seq, bytes(packet[HEADER_SIZE:-TRAILER_SIZE]))
    except _Reject as exc:
        raise _trusted(packet, f"({mtype.name}) {exc}", exc.rejection) from None


def encode_frame(message: Message, version: int = PROTOCOL_VERSION) -> bytes:
    """The bytes to write: COBS(packet) followed by the 0x00 delimiter."""
    return cobs_encode(encode_packet(message, version)) + b"\x00"


def decode_frame(frame: bytes) -> Message:
    """One frame's message. The trailing 0x00 delimiter may be included or not."""
    if frame.endswith(b"\x00"):
        frame = frame[:-1]
    if len(frame) > MAX_FRAME:
        raise ProtocolError(
            f"frame {frame[:16].hex(' ')!r}... has {len(frame)} bytes, over {MAX_FRAME}", Rejection.TOO_LONG
        )
    return decode_packet(cobs_decode(frame))


# -------------------------------------------------------------------------------------------- JSON

_JSON_FIELDS: dict[MessageType, tuple[str, ...]] = {
    MessageType.ROLL: ("session", "n"),
    MessageType.ACK: ("session",),
    MessageType.PING: ("data",),
    MessageType.PONG: ("session", "event_floor", "data"),
    MessageType.HELLO: (
        "protocol", "firmware", "capabilities", "max_dice", "device_id", "boot", "session", "event_floor"
    ),
    MessageType.RESULT: ("session", "dice"),
    MessageType.BUTTON_ROLL: ("session", "dice"),
    MessageType.ERROR: ("code", "session", "detail"),
    MessageType.STATUS: ("reset_cause", "uptime_s", *STATUS_COUNTERS),
}


def message_to_json(message: Message) -> dict[str, Any]:
    """The message as docs/dice-protocol.golden.json writes it (bytes as lowercase hex)."""
    obj: dict[str, Any] = {"type": message.TYPE.name, "seq": message.seq}
    if isinstance(message, RollRequest):
        obj.update(session=message.session, n=message.count)
    elif isinstance(message, Ack):
        obj["session"] = message.session
    elif isinstance(message, Ping):
        obj["data"] = message.payload.hex()
    elif isinstance(message, Pong):
        obj.update(session=message.session, event_floor=message.event_floor, data=message.payload.hex())
    elif isinstance(message, Hello):
        obj.update(
            protocol=message.protocol_version,
            firmware=list(message.firmware_version),
            capabilities=int(message.capabilities),
            max_dice=message.max_dice,
            device_id=message.device_id.hex(),
            boot=message.boot,
            session=message.session,
            event_floor=message.event_floor,
        )
    elif isinstance(message, Result | ButtonRoll):
        obj.update(session=message.session, dice=list(message.dice))
    elif isinstance(message, ErrorReply):
        obj.update(code=int(message.code), session=message.session, detail=message.detail)
    elif isinstance(message, Status):
        obj.update(reset_cause=message.reset_cause, uptime_s=message.uptime_s, **message.counters())
    return obj


def _message_from_fields(mtype: MessageType, seq: int, obj: dict[str, Any]) -> Message:
    if mtype is MessageType.HELLO_REQ:
        return HelloRequest(seq)
    if mtype is MessageType.ACK:
        return Ack(seq, obj["session"])
    if mtype is MessageType.STATUS_REQ:
        return StatusRequest(seq)
    if mtype is MessageType.ROLL:
        return RollRequest(seq, obj["session"], obj["n"])
    if mtype is MessageType.PING:
        return Ping(seq, bytes.fromhex(obj.get("data", "")))
    if mtype is MessageType.PONG:
        return Pong(seq, obj["session"], obj["event_floor"], bytes.fromhex(obj.get("data", "")))
    if mtype is MessageType.HELLO:
        major, minor, patch = obj["firmware"]
        return Hello(
            seq,
            obj["protocol"],
            (major, minor, patch),
            Capability(obj["capabilities"]),
            obj["max_dice"],
            bytes.fromhex(obj["device_id"]),
            obj["boot"],
            obj["session"],
            obj["event_floor"],
        )
    if mtype is MessageType.RESULT:
        return Result(seq, obj["session"], tuple(obj["dice"]))
    if mtype is MessageType.BUTTON_ROLL:
        return ButtonRoll(seq, obj["session"], tuple(obj["dice"]))
    if mtype is MessageType.ERROR:
        return ErrorReply(seq, ErrorCode(obj["code"]), obj.get("detail", ""), obj["session"])
    counters = [obj.get(name, 0) for name in STATUS_COUNTERS]
    return Status(seq, obj["reset_cause"], obj["uptime_s"], *counters)


def message_from_json(obj: Any) -> Message:
    """Inverse of `message_to_json`; `ValueError` quoting the object for anything else."""
    try:
        if not isinstance(obj, dict):
            raise TypeError("not an object")
        mtype = MessageType[obj["type"]]
        unknown = set(obj) - {"type", "seq", *_JSON_FIELDS.get(mtype, ())}
        if unknown:
            raise KeyError(", ".join(sorted(unknown)))
        return _message_from_fields(mtype, obj["seq"], obj)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"message {obj!r}: {type(exc).__name__}: {exc}") from None


class FrameDecoder:
    """Incremental byte-stream → messages. Resynchronises at every 0x00 and never raises on bad input.

    Every dropped frame is counted in `dropped` and reported to `on_drop`; empty frames (two delimiters in a
    row, which a sender may write to resynchronise its peer) are neither messages nor drops.
    """

    __slots__ = ("_buffer", "_overlong", "decoded", "dropped", "last_error", "max_frame", "on_drop")

    def __init__(
        self, max_frame: int = MAX_FRAME, on_drop: Callable[[ProtocolError], None] | None = None
    ) -> None:
        self.max_frame = max_frame
        self.on_drop = on_drop
        self.decoded = 0
        self.dropped = 0
        self.last_error: ProtocolError | None = None
        self._buffer = bytearray()
        self._overlong = False  # discarding until the next delimiter

    @property
    def pending(self) -> int:
        """Bytes of an unfinished frame held back (including an over-long one being skipped)."""
        return len(self._buffer) + (1 if self._overlong else 0)

    def feed(self, data: bytes) -> list[Message]:
        """Every message completed by `data`, in order."""
        messages: list[Message] = []
        start = 0
        while True:
            end = data.find(DELIMITER, start)
            chunk = data[start:] if end < 0 else data[start:end]
            if not self._overlong:
                self._buffer += chunk
                if len(self._buffer) > self.max_frame:
                    self._drop(
                        ProtocolError(
                            f"over-long frame dropped: {bytes(self._buffer[:16]).hex(' ')!r}... "
                            f"passed {self.max_frame} bytes without a delimiter",
                            Rejection.TOO_LONG,
                        )
                    )
                    self._buffer.clear()
                    self._overlong = True
            if end < 0:
                return messages
            if self._overlong:
                self._overlong = False
            elif self._buffer:
                frame = bytes(self._buffer)
                self._buffer.clear()
                try:
                    message = decode_frame(frame)
                except ProtocolError as exc:
                    self._drop(exc)
                else:
                    self.decoded += 1
                    messages.append(message)
            start = end + 1

    def drop_partial(self, reason: str = "inter-byte timeout") -> bool:
        """Discard an unfinished frame (the sender went quiet mid-frame); True if there was one."""
        if self._overlong:  # already counted when it overflowed
            self._overlong = False
            return False
        if not self._buffer:
            return False
        frame = bytes(self._buffer)
        self._buffer.clear()
        self._drop(ProtocolError(f"{reason}: partial frame {frame[:16].hex(' ')!r} dropped", Rejection.STALE))
        return True

    def _drop(self, error: ProtocolError) -> None:
        self.dropped += 1
        self.last_error = error
        if self.on_drop is not None:
            self.on_drop(error)

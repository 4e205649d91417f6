"""Dice roller wire protocol v2: COBS framing, two CRC-16s, packets and message bodies.

Pure code, no I/O; runs under CPython and MicroPython. The normative description is docs/dice-protocol.md and
docs/dice-protocol.golden.json holds the frames both ends are tested against.

Packet (before COBS): ver:u8 | type:u8 | seq:u16 BE | len:u8 | body[len] | check:u16 BE | crc:u16 BE, then
COBS and one 0x00. `check` is CRC-16/T10-DIF over the header and body, `crc` CRC-16/CCITT-FALSE over
everything before it. Every version keeps bytes 0..3 and the trailing CRC-16/CCITT-FALSE, so a receiver can
always verify a frame of another version and name that version (a v1 packet has no `check`).
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


import struct

VERSION = const(2)
LEGACY_VERSION = const(1)  # answered in its own format (ERROR BAD_VERSION), so a v1 host can say why
HEADER_LEN = const(5)
CRC_LEN = const(2)
TRAILER_LEN = const(4)  # check + crc
MIN_ANY_PACKET = const(7)  # header + trailing CRC: the least any version sends
MIN_PACKET = const(9)
MAX_FRAME = const(64)  # COBS-encoded bytes before the 0x00 delimiter
MAX_PACKET = const(63)  # COBS adds one byte to anything shorter than 254 bytes
MAX_BODY = const(54)
MAX_DICE = const(10)
MAX_PING = const(8)
MAX_DETAIL = const(32)
DEVICE_ID_LEN = const(8)
SESSION_LEN = const(4)
NO_SESSION_ID = const(0)  # "no session": the PONG of a device nobody has greeted since it booted

# Host -> device (0x01..0x7F)
HELLO_REQ = const(0x01)
ROLL = const(0x02)
PING = const(0x03)
ACK = const(0x04)
STATUS_REQ = const(0x05)
# Device -> host (0x80..0xFF)
HELLO = const(0x81)
RESULT = const(0x82)
BUTTON_ROLL = const(0x83)
PONG = const(0x84)
ERROR = const(0x85)
STATUS = const(0x86)

TYPE_NAMES = {
    HELLO_REQ: "HELLO_REQ",
    ROLL: "ROLL",
    PING: "PING",
    ACK: "ACK",
    STATUS_REQ: "STATUS_REQ",
    HELLO: "HELLO",
    RESULT: "RESULT",
    BUTTON_ROLL: "BUTTON_ROLL",
    PONG: "PONG",
    ERROR: "ERROR",
    STATUS: "STATUS",
}
TYPE_CODES = {name: code for code, name in TYPE_NAMES.items()}

# ERROR body codes
E_BAD_LENGTH = const(1)
E_BAD_COUNT = const(2)
E_UNKNOWN_TYPE = const(3)
E_BAD_VERSION = const(4)
E_BUSY = const(5)
E_NO_SESSION = const(6)
E_INTERNAL = const(7)
E_STALE = const(8)
E_SESSION_CLOSED = const(9)

# Capability bits in HELLO
CAP_BUTTON = const(0x01)
CAP_DISPLAY = const(0x02)
CAP_LEDS = const(0x04)
CAP_STATUS = const(0x08)

# Why a frame or message was rejected (names used in the golden file and the device counters).
BAD_COBS = "bad_cobs"
TRUNCATED = "truncated"
BAD_CRC = "bad_crc"
LENGTH_MISMATCH = "length_mismatch"
TOO_LONG = "too_long"
BAD_VERSION = "bad_version"
BAD_LENGTH = "bad_length"
BAD_COUNT = "bad_count"
BAD_VALUE = "bad_value"
UNKNOWN_TYPE = "unknown_type"

# STATUS body: reset_cause u8, uptime_s u32, then these counters as u32 in this order.
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
STATUS_BODY_LEN = 5 + 4 * len(STATUS_COUNTERS)
HELLO_BODY_LEN = 6 + DEVICE_ID_LEN + 4 + SESSION_LEN + 2
PONG_HEAD_LEN = SESSION_LEN + 2


class FrameError(Exception):
    """A frame or message that must not be acted on; `kind` is one of the rejection names above.

    `seq`, `ptype` and `version` are set when the packet's header could be trusted (its CRC matched).
    """

    def __init__(self, kind, seq=None, ptype=None, detail="", version=None):
        super().__init__(kind if not detail else kind + ": " + detail)
        self.kind = kind
        self.seq = seq
        self.ptype = ptype
        self.detail = detail
        self.version = version
        self.legacy = False  # a well-formed v1 packet (BAD_VERSION only): answered in v1's own format


class Packet:
    """One decoded packet: CRCs, version and length already checked; the body is not interpreted."""

    __slots__ = ("body", "seq", "type")

    def __init__(self, ptype, seq, body=b""):
        self.type = ptype
        self.seq = seq
        self.body = bytes(body)

    def __eq__(self, other):
        return (
            isinstance(other, Packet)
            and self.type == other.type
            and self.seq == other.seq
            and self.body == other.body
        )

    def __hash__(self):
        return hash((self.type, self.seq, self.body))

    def __repr__(self):
        return f"Packet(0x{self.type:02X}, {self.seq}, {self.body!r})"


def _make_crc_table(poly):
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ poly) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CCITT_TABLE = _make_crc_table(0x1021)
_T10DIF_TABLE = _make_crc_table(0x8BB7)


def _crc(table, data, crc):
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, xorout 0 (check "123456789" = 0x29B1)."""
    return _crc(_CCITT_TABLE, data, crc)


def check16(data, crc=0):
    """CRC-16/T10-DIF: poly 0x8BB7, init 0, not reflected, xorout 0 (check "123456789" = 0xD0DB).

    Its generator shares no factor with CCITT's, so a corrupted packet passes both only about once in 2**32.
    """
    return _crc(_T10DIF_TABLE, data, crc)


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result holds no 0x00 (the delimiter is not appended)."""
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    n = len(data)
    for i in range(n):
        b = data[i]
        if b:
            out.append(b)
            code += 1
            if code == 0xFF and i + 1 < n:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
        else:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Inverse of cobs_encode; raises FrameError(BAD_COBS) on a zero byte or a block running past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError(BAD_COBS, detail="zero byte inside frame")
        end = i + code
        if end > n:
            raise FrameError(BAD_COBS, detail="block runs past end of frame")
        for j in range(i + 1, end):
            if data[j] == 0:
                raise FrameError(BAD_COBS, detail="zero byte inside frame")
        out.extend(data[i + 1 : end])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_packet(ptype, seq, body=b"", version=VERSION):
    """The packet bytes (header, body, check, CRC) before COBS; a v1 packet has no check."""
    body = bytes(body)
    if len(body) > MAX_BODY:
        raise ValueError(f"body too long: {len(body)} bytes (max {MAX_BODY})")
    if not 0 <= seq <= 0xFFFF:
        raise ValueError(f"seq out of range: {seq!r}")
    head = struct.pack(">BBHB", version, ptype, seq, len(body)) + body
    if version != LEGACY_VERSION:
        head += struct.pack(">H", check16(head))
    return head + struct.pack(">H", crc16(head))


def encode_frame(ptype, seq, body=b"", version=VERSION):
    """The complete on-wire frame: COBS(packet) followed by the 0x00 delimiter."""
    return cobs_encode(encode_packet(ptype, seq, body, version)) + b"\x00"


def decode_packet(packet):
    """Check a COBS-decoded packet and return a Packet; raises FrameError.

    Order of checks (docs/dice-protocol.md §2): size, CRC, version, size again, check, length field. Only
    after the CRC matched are version, seq and type trusted (reported in the error), so a device can answer
    another version with ERROR BAD_VERSION and a host can name the version its peer speaks.
    """
    n = len(packet)
    if n < MIN_ANY_PACKET:
        raise FrameError(TRUNCATED, detail=f"{n} bytes")
    if n > MAX_PACKET:
        raise FrameError(TOO_LONG, detail=f"{n} bytes")
    mv = memoryview(packet)
    (crc,) = struct.unpack_from(">H", packet, n - CRC_LEN)
    if crc16(mv[: n - CRC_LEN]) != crc:
        raise FrameError(BAD_CRC)
    version, ptype, seq, length = struct.unpack_from(">BBHB", packet, 0)
    if version != VERSION:
        raise FrameError(BAD_VERSION, seq, ptype, f"version {version}", version)
    if n < MIN_PACKET:
        raise FrameError(TRUNCATED, seq, ptype, f"{n} bytes")
    (check,) = struct.unpack_from(">H", packet, n - TRAILER_LEN)
    if check16(mv[: n - TRAILER_LEN]) != check:
        raise FrameError(BAD_CRC, detail="check")
    if length != n - MIN_PACKET:
        raise FrameError(LENGTH_MISMATCH, seq, ptype, f"len {length}, body {n - MIN_PACKET}")
    return Packet(ptype, seq, packet[HEADER_LEN : n - TRAILER_LEN])


def decode_frame(frame):
    """Decode one COBS frame (with or without its trailing 0x00) into a Packet; raises FrameError."""
    if frame and frame[-1] == 0:
        frame = frame[:-1]
    if len(frame) > MAX_FRAME:
        raise FrameError(TOO_LONG, detail=f"{len(frame)} bytes")
    if not frame:
        raise FrameError(TRUNCATED, detail="empty frame")
    return decode_packet(cobs_decode(frame))


def is_legacy_packet(packet):
    """A v1 packet whose CRC matched (BAD_VERSION with version 1) and whose length field fits too."""
    return len(packet) >= MIN_ANY_PACKET and packet[0] == LEGACY_VERSION and packet[4] == len(packet) - 7


class Deframer:
    """Splits a byte stream at 0x00 delimiters and decodes each frame.

    feed() returns a list whose items are Packet or FrameError (returned, not raised). Empty frames
    (0x00 0x00) are ignored: hosts send a lone 0x00 to flush a partial frame. A frame longer than max_frame is
    discarded up to its delimiter and reported once as TOO_LONG.
    """

    def __init__(self, max_frame=MAX_FRAME):
        self.max_frame = max_frame
        self._buf = bytearray()
        self._overflow = False

    def pending(self):
        """True while part of a frame has been received."""
        return bool(self._buf) or self._overflow

    def reset(self):
        self._buf = bytearray()
        self._overflow = False

    def _decode(self, buf):
        try:
            packet = cobs_decode(buf)
        except FrameError as exc:
            return exc
        try:
            return decode_packet(packet)
        except FrameError as exc:
            exc.legacy = exc.kind == BAD_VERSION and is_legacy_packet(packet)
            return exc

    def feed(self, data):
        out = []
        for b in data:
            if b == 0:
                if self._overflow:
                    out.append(FrameError(TOO_LONG))
                elif self._buf:
                    out.append(self._decode(self._buf))
                self._buf = bytearray()
                self._overflow = False
            elif self._overflow:
                continue
            elif len(self._buf) >= self.max_frame:
                self._overflow = True
                self._buf = bytearray()
            else:
                self._buf.append(b)
        return out


# ---- message bodies ---------------------------------------------------------------------------------------


def is_host_type(ptype):
    return 0 < ptype < 0x80


def session_bytes(session):
    if not 0 <= session <= 0xFFFFFFFF:
        raise ValueError(f"session out of range: {session!r}")
    return struct.pack(">I", session)


def session_of(body):
    """The u32 session id that opens a body (ROLL, ACK, RESULT, BUTTON_ROLL, PONG, ERROR after its code)."""
    return struct.unpack_from(">I", body, 0)[0]


def dice_body(session, dice):
    dice = bytes(dice)
    if not 1 <= len(dice) <= MAX_DICE:
        raise ValueError(f"1..{MAX_DICE} dice, got {len(dice)}")
    for d in dice:
        if not 1 <= d <= 6:
            raise ValueError(f"die value out of range: {d}")
    return session_bytes(session) + bytes((len(dice),)) + dice


def hello_body(firmware, capabilities, max_dice, device_id, boot, session, event_floor, protocol=VERSION):  # noqa: PLR0917
    device_id = bytes(device_id)
    if len(device_id) != DEVICE_ID_LEN:
        raise ValueError(f"device id must be {DEVICE_ID_LEN} bytes")
    major, minor, patch = firmware
    head = bytes((protocol, major, minor, patch, capabilities, max_dice)) + device_id
    return head + struct.pack(">IIH", boot, session, event_floor)


def pong_body(session, event_floor, data=b""):
    data = bytes(data)
    if len(data) > MAX_PING:
        raise ValueError(f"PONG data of {len(data)} bytes (max {MAX_PING})")
    return struct.pack(">IH", session, event_floor) + data


def _ascii(detail):
    raw = detail.encode() if isinstance(detail, str) else bytes(detail)
    return bytes(c if 0x20 <= c < 0x7F else 0x3F for c in raw[:MAX_DETAIL])


def error_body(code, detail="", session=NO_SESSION_ID):
    return bytes((code,)) + session_bytes(session) + _ascii(detail)


def legacy_error_frame(seq, code, detail):
    """An ERROR in protocol v1's own format (code, then ASCII detail; CRC-16 only)."""
    return encode_frame(ERROR, seq, bytes((code,)) + _ascii(detail), LEGACY_VERSION)


def status_body(reset_cause, uptime_s, counters):
    """counters: a dict keyed by STATUS_COUNTERS names; values saturate at 2**32-1."""
    parts = [struct.pack(">BI", reset_cause & 0xFF, min(uptime_s, 0xFFFFFFFF))]
    for name in STATUS_COUNTERS:
        parts.append(struct.pack(">I", min(counters.get(name, 0), 0xFFFFFFFF)))
    return b"".join(parts)


def parse_roll(body):
    """(session, dice count) of a ROLL body; raises FrameError(BAD_LENGTH/BAD_COUNT)."""
    if len(body) != SESSION_LEN + 1:
        raise FrameError(BAD_LENGTH, detail=f"ROLL len {len(body)}")
    n = body[SESSION_LEN]
    if not 1 <= n <= MAX_DICE:
        raise FrameError(BAD_COUNT, detail=f"n={n}")
    return session_of(body), n


def parse_dice(body):
    """(session, dice) of a RESULT or BUTTON_ROLL body; raises FrameError."""
    if len(body) < SESSION_LEN + 2 or body[SESSION_LEN] != len(body) - SESSION_LEN - 1:
        raise FrameError(BAD_LENGTH, detail=f"dice len {len(body)}")
    n = body[SESSION_LEN]
    if n > MAX_DICE:
        raise FrameError(BAD_COUNT, detail=f"n={n}")
    dice = list(body[SESSION_LEN + 1 :])
    for d in dice:
        if not 1 <= d <= 6:
            raise FrameError(BAD_VALUE, detail=f"die {d}")
    return session_of(body), dice


def _hex(data):
    return "".join(f"{b:02x}" for b in data)


def _unhex(text):
    if len(text) % 2:
        raise ValueError("odd-length hex string")
    return bytes(int(text[i : i + 2], 16) for i in range(0, len(text), 2))


def _expect_len(body, lo, hi, name):
    if not lo <= len(body) <= hi:
        raise FrameError(BAD_LENGTH, detail=f"{name} len {len(body)}")


def _body_to_message(ptype, name, body, msg):
    if ptype in (HELLO_REQ, STATUS_REQ):
        _expect_len(body, 0, 0, name)
    elif ptype == ACK:
        _expect_len(body, SESSION_LEN, SESSION_LEN, name)
        msg["session"] = session_of(body)
    elif ptype == ROLL:
        msg["session"], msg["n"] = parse_roll(body)
    elif ptype == PING:
        _expect_len(body, 0, MAX_PING, name)
        msg["data"] = _hex(body)
    elif ptype == PONG:
        _expect_len(body, PONG_HEAD_LEN, PONG_HEAD_LEN + MAX_PING, name)
        msg["session"], msg["event_floor"] = struct.unpack_from(">IH", body, 0)
        msg["data"] = _hex(body[PONG_HEAD_LEN:])
    elif ptype == HELLO:
        _expect_len(body, HELLO_BODY_LEN, HELLO_BODY_LEN, name)
        msg["protocol"] = body[0]
        msg["firmware"] = [body[1], body[2], body[3]]
        msg["capabilities"] = body[4]
        msg["max_dice"] = body[5]
        msg["device_id"] = _hex(body[6:14])
        msg["boot"], msg["session"], msg["event_floor"] = struct.unpack_from(">IIH", body, 14)
    elif ptype in (RESULT, BUTTON_ROLL):
        msg["session"], msg["dice"] = parse_dice(body)
    elif ptype == ERROR:
        _expect_len(body, 1 + SESSION_LEN, 1 + SESSION_LEN + MAX_DETAIL, name)
        msg["code"] = body[0]
        msg["session"] = session_of(body[1:])
        detail = body[1 + SESSION_LEN :]
        for c in detail:
            if not 0x20 <= c < 0x7F:
                raise FrameError(BAD_VALUE, detail="non-ASCII detail")
        msg["detail"] = str(detail, "ascii")
    else:  # STATUS
        _expect_len(body, STATUS_BODY_LEN, STATUS_BODY_LEN, name)
        msg["reset_cause"], msg["uptime_s"] = struct.unpack_from(">BI", body, 0)
        for i, counter in enumerate(STATUS_COUNTERS):
            (msg[counter],) = struct.unpack_from(">I", body, 5 + 4 * i)


def packet_to_message(packet):
    """Interpret a Packet as a message dict {"type": NAME, "seq": int, ...fields}; raises FrameError.

    Field names and encodings are those of docs/dice-protocol.golden.json (bytes as lowercase hex strings).
    """
    ptype = packet.type
    name = TYPE_NAMES.get(ptype)
    if name is None:
        raise FrameError(UNKNOWN_TYPE, packet.seq, ptype, f"type 0x{ptype:02X}", VERSION)
    msg = {"type": name, "seq": packet.seq}
    try:
        _body_to_message(ptype, name, packet.body, msg)
    except FrameError as exc:  # the header was trusted: say whose message it was
        exc.seq, exc.ptype, exc.version = packet.seq, ptype, VERSION
        raise
    return msg


def message_to_packet(msg):
    """Inverse of packet_to_message; raises ValueError/KeyError on a bad dict."""
    ptype = TYPE_CODES[msg["type"]]
    seq = msg["seq"]
    if ptype in (HELLO_REQ, STATUS_REQ):
        body = b""
    elif ptype == ACK:
        body = session_bytes(msg["session"])
    elif ptype == ROLL:
        body = session_bytes(msg["session"]) + bytes((msg["n"],))
    elif ptype == PING:
        body = _unhex(msg.get("data", ""))
    elif ptype == PONG:
        body = pong_body(msg["session"], msg["event_floor"], _unhex(msg.get("data", "")))
    elif ptype == HELLO:
        body = hello_body(msg["firmware"], msg["capabilities"], msg["max_dice"], _unhex(msg["device_id"]),
                          msg["boot"], msg["session"], msg["event_floor"], msg["protocol"])
    elif ptype in (RESULT, BUTTON_ROLL):
        body = dice_body(msg["session"], msg["dice"])
    elif ptype == ERROR:
        body = error_body(msg["code"], msg.get("detail", ""), msg["session"])
    else:  # STATUS
        body = status_body(msg["reset_cause"], msg["uptime_s"], msg)
    return Packet(ptype, seq, body)


def encode_message(msg):
    """A message dict -> its complete on-wire frame (COBS + 0x00)."""
    packet = message_to_packet(msg)
    return encode_frame(packet.type, packet.seq, packet.body)


def decode_message(frame):
    """One complete frame -> message dict; raises FrameError for anything that must be rejected."""
    return packet_to_message(decode_frame(frame))


def hexlify(data):
    return _hex(data)


def unhexlify(text):
    return _unhex(text)

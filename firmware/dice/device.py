"""The dice roller's core state machine (docs/dice-protocol.md), independent of any hardware.

Everything physical is a parameter, so the same code runs on the board (firmware/main.py), in the simulator
(firmware/sim.py), under the unix MicroPython (firmware/unix.py) and in tests with fakes:

- stream: read() -> bytes or None without blocking; write(data) sends all of data.
- random_bytes: n -> n uniformly random bytes (os.urandom on the RP2040).
- clock: ticks_ms(), ticks_diff(a, b), sleep_ms(ms) — MicroPython's `time` module itself fits.
- button: a pin with value(), or None. views: objects with show(dice, source) and tick(now_ms), each with an
  optional `capability` bit. watchdog: an object with feed(), or None.

Exactly once (docs/dice-protocol.md §3): each HELLO_REQ opens a session with a random id, and every ROLL
names its session. A session rolls a seq only if it is past the last seq it answered; anything at or below is
answered from the session's record (the same bytes) or refused, never rolled. Only the newest session rolls;
older ones still answer from their records. Memory is bounded: SESSIONS sessions of RECORDS answers each.
"""

from . import FIRMWARE_VERSION
from . import protocol as p
from .button import Debouncer
from .rng import Dice

STALE_MS = 200
RESEND_MS = 300
MAX_SENDS = 10
EVENT_QUEUE = 8
SESSIONS = 4
RECORDS = 4  # answers kept per session; the newest is always among them
WINDOW = 0x8000  # a session rolls seqs 1..WINDOW-1 past its HELLO_REQ's seq, each once, in increasing order
DEBOUNCE_MS = 30


class Session:
    """One host connection: its id, its HELLO_REQ's seq (the window's base), its last answered ROLL seq, and
    the button event floor when it opened (every event from there on is the session's to deliver)."""

    __slots__ = ("floor", "hello_seq", "id", "last", "records")

    def __init__(self, sid, hello_seq, floor):
        self.id = sid
        self.hello_seq = hello_seq
        self.last = hello_seq
        self.floor = floor
        self.records = []  # [(seq, request body, answer frame)], oldest first

    def ahead(self, seq):
        """True for a seq past the last answered one, within the window: never seen by this session."""
        offset = (seq - self.hello_seq) & 0xFFFF
        return (self.last - self.hello_seq) & 0xFFFF < offset < WINDOW

    def record(self, seq, body):
        for rseq, rbody, answer in self.records:
            if rseq == seq and rbody == body:
                return answer
        return None

    def keep(self, seq, body, answer):
        self.last = seq
        self.records.append((seq, body, answer))
        if len(self.records) > RECORDS:
            self.records.pop(0)


class Device:
    def __init__(
        self,
        stream,
        random_bytes,
        clock,
        *,
        button=None,
        views=(),
        watchdog=None,
        device_id=b"\x00" * 8,
        reset_cause=0,
        on_event=None,
        button_active_low=True,
    ):
        self._stream = stream
        self._clock = clock
        self._dice = Dice(random_bytes)
        self._views = list(views)
        self._watchdog = watchdog
        self.device_id = bytes(device_id)
        self.reset_cause = reset_cause
        self._on_event = on_event
        self._button = None
        if button is not None:
            self._button = Debouncer(button, clock, DEBOUNCE_MS, button_active_low)
        caps = p.CAP_STATUS
        if button is not None:
            caps |= p.CAP_BUTTON
        for view in self._views:
            caps |= getattr(view, "capability", 0)
        self.capabilities = caps
        self.max_dice = p.MAX_DICE
        self._deframer = p.Deframer()
        self.counters = {}
        for name in p.STATUS_COUNTERS:
            self.counters[name] = 0
        self.boot_id = self._dice.u32()
        self.sessions = []  # Session, oldest first; the last one is current
        self._events = []  # [[seq, dice, sends, last_sent_ms]], oldest first
        self._event_seq = self._dice.u16()
        self.button_dice = 1
        self.last_roll = None
        now = clock.ticks_ms()
        self._last_rx = now
        self._last_step = now
        self._uptime_ms = 0

    @property
    def session(self):
        """The current session (the only one that rolls), or None before the first HELLO_REQ since boot."""
        return self.sessions[-1] if self.sessions else None

    @property
    def event_floor(self):
        """Every button event below this seq has been ACKed or dropped."""
        return self._events[0][0] if self._events else self._event_seq

    # ---- main loop

    def step(self):
        """One pass of the main loop; feeds the watchdog only after everything in it has completed."""
        clock = self._clock
        now = clock.ticks_ms()
        self._uptime_ms += max(0, clock.ticks_diff(now, self._last_step))
        self._last_step = now
        if self._deframer.pending() and clock.ticks_diff(now, self._last_rx) >= STALE_MS:
            self._deframer.reset()
            self.counters["bad_framing"] += 1
        data = self._stream.read()
        if data:
            self._last_rx = now
            for item in self._deframer.feed(data):
                self._handle(item, now)
        if self._button is not None and self._button.poll(now):
            self._button_roll(now)
        self._service_events(now)
        for view in self._views:
            view.tick(now)
        if self._watchdog is not None:
            self._watchdog.feed()

    def run(self, idle_ms=1, should_stop=None):
        """Loop forever (on the board) or until should_stop() is true."""
        while should_stop is None or not should_stop():
            self.step()
            self._clock.sleep_ms(idle_ms)

    # ---- input

    def _handle(self, item, now):
        if isinstance(item, p.FrameError):
            self._rejected(item)
            return
        self.counters["frames_ok"] += 1
        ptype = item.type
        if not p.is_host_type(ptype):
            self.counters["ignored"] += 1
            return
        if ptype == p.ROLL:
            self._roll(item)
        elif ptype == p.HELLO_REQ:
            if self._length(item, 0):
                self._hello(item.seq)
        elif ptype == p.PING:
            if len(item.body) > p.MAX_PING:
                self._error(item.seq, p.E_BAD_LENGTH, f"PING len {len(item.body)}")
            else:
                sid = self.session.id if self.sessions else p.NO_SESSION_ID
                self._send(p.encode_frame(p.PONG, item.seq, p.pong_body(sid, self.event_floor, item.body)))
        elif ptype == p.ACK:
            if self._length(item, p.SESSION_LEN):
                self._ack(item.seq, p.session_of(item.body))
        elif ptype == p.STATUS_REQ:
            if self._length(item, 0):
                body = p.status_body(self.reset_cause, self._uptime_ms // 1000, self.counters)
                self._send(p.encode_frame(p.STATUS, item.seq, body))
        else:
            self._error(item.seq, p.E_UNKNOWN_TYPE, f"type 0x{ptype:02X}")

    def _rejected(self, error):
        kind = error.kind
        if kind == p.BAD_VERSION:
            self.counters["bad_version"] += 1
            if error.ptype is not None and p.is_host_type(error.ptype):
                self._bad_version(error)
        elif kind == p.BAD_CRC:
            self.counters["bad_crc"] += 1
        else:
            self.counters["bad_framing"] += 1

    def _bad_version(self, error):
        detail = f"version {error.version}; speaks {p.VERSION}"
        self.counters["errors_sent"] += 1
        self._notify("error", error.seq, p.E_BAD_VERSION)
        if error.legacy:  # a v1 host can read only v1 frames: tell it in its own format
            self._send(p.legacy_error_frame(error.seq, p.E_BAD_VERSION, f"protocol {p.VERSION}"))
        else:
            self._send(p.encode_frame(p.ERROR, error.seq, p.error_body(p.E_BAD_VERSION, detail)))

    def _length(self, packet, size):
        if len(packet.body) != size:
            name = p.TYPE_NAMES.get(packet.type, "?")
            self._error(packet.seq, p.E_BAD_LENGTH, f"{name} len {len(packet.body)}")
            return False
        return True

    def _hello(self, seq):
        for session in self.sessions:
            if session.hello_seq == seq:  # a retried or replayed HELLO_REQ: the same answer, no new session
                self._notify("hello", seq, "again", session.id)
                self._send(self._hello_frame(seq, session))
                return
        known = [s.id for s in self.sessions]
        try:
            sid = self._dice.u32()
            while sid == p.NO_SESSION_ID or sid in known:
                sid = self._dice.u32()
        except OSError:
            self._error(seq, p.E_INTERNAL, "rng")
            return
        session = Session(sid, seq, self.event_floor)
        self.sessions.append(session)
        if len(self.sessions) > SESSIONS:
            self.sessions.pop(0)
        self._notify("hello", seq, "new", sid)
        self._send(self._hello_frame(seq, session))

    def _hello_frame(self, seq, session):
        # The floor as the session opened, also in a repeated HELLO: a host that learns its session late still
        # counts every event made in it since, delivered or dropped.
        body = p.hello_body(FIRMWARE_VERSION, self.capabilities, self.max_dice, self.device_id, self.boot_id,
                            session.id, session.floor)
        return p.encode_frame(p.HELLO, seq, body)

    def _find(self, sid):
        for session in self.sessions:
            if session.id == sid:
                return session
        return None

    def _roll(self, packet):
        seq = packet.seq
        try:
            sid, n = p.parse_roll(packet.body)
        except p.FrameError as exc:
            code = p.E_BAD_COUNT if exc.kind == p.BAD_COUNT else p.E_BAD_LENGTH
            sid = p.session_of(packet.body) if code == p.E_BAD_COUNT else p.NO_SESSION_ID
            self._error(seq, code, exc.detail, sid)
            return
        session = self._find(sid)
        if session is None:  # restarted since that session opened, or it is long gone: nothing rolled here
            self._refuse(seq, p.E_NO_SESSION, "send HELLO_REQ", sid)
            return
        if not session.ahead(seq):
            answer = session.record(seq, packet.body)
            if answer is None:
                self._refuse(seq, p.E_STALE, "seq already answered", sid)
            else:
                self.counters["duplicates"] += 1
                self._notify("duplicate", seq, None, sid)
                self._send(answer)
            return
        if session is not self.sessions[-1]:
            self._refuse(seq, p.E_SESSION_CLOSED, "session closed", sid)
            return
        try:
            dice = self._dice.roll(n)
        except OSError:
            self.counters["errors_sent"] += 1
            self._notify("error", seq, p.E_INTERNAL, sid)
            answer = p.encode_frame(p.ERROR, seq, p.error_body(p.E_INTERNAL, "rng", sid))
            session.keep(seq, packet.body, answer)  # a repeat gets this again: the seq is never rolled
            self._send(answer)
            return
        answer = p.encode_frame(p.RESULT, seq, p.dice_body(sid, dice))
        session.keep(seq, packet.body, answer)
        self.counters["rolls"] += 1
        self.button_dice = n
        # Observers (the simulator's log) learn of the roll before the host can.
        self._notify("roll", seq, dice, sid)
        self._send(answer)
        self._show(dice, "host")

    def _ack(self, seq, sid):
        if self._events and self._events[0][0] == seq and self._find(sid) is not None:
            self._events.pop(0)
            self._notify("acked", seq, None, sid)
            return
        self.counters["ignored"] += 1

    # ---- button

    def _button_roll(self, now):
        self.counters["button_presses"] += 1
        try:
            dice = self._dice.roll(self.button_dice)
        except OSError:
            return
        self._show(dice, "button")
        if not self.sessions:  # no host has greeted this boot: shown only
            self._notify("button", None, dice)
            return
        seq = self._event_seq
        self._event_seq = (seq + 1) & 0xFFFF
        self._notify("button", seq, dice)
        if len(self._events) >= EVENT_QUEUE:  # its seq is used up, so the host sees the gap
            self.counters["events_dropped"] += 1
            self._notify("dropped", seq, None)
            return
        self._events.append([seq, dice, 0, now])

    def _service_events(self, now):
        if not self.sessions or not self._events:
            return
        event = self._events[0]
        if event[2] and self._clock.ticks_diff(now, event[3]) < RESEND_MS:
            return
        if event[2] >= MAX_SENDS:
            self._events.pop(0)
            self.counters["events_dropped"] += 1
            self._notify("unacked", event[0], None)
            return
        if event[2]:
            self.counters["resends"] += 1
        event[2] += 1
        event[3] = now
        # Built at each send: an event made before a new HELLO_REQ goes to the session now current.
        self._send(p.encode_frame(p.BUTTON_ROLL, event[0], p.dice_body(self.sessions[-1].id, event[1])))

    # ---- output

    def _refuse(self, seq, code, detail, sid):
        self.counters["refused"] += 1
        self._error(seq, code, detail, sid)

    def _error(self, seq, code, detail, sid=p.NO_SESSION_ID):
        self.counters["errors_sent"] += 1
        self._notify("error", seq, code, sid)
        self._send(p.encode_frame(p.ERROR, seq, p.error_body(code, detail, sid)))

    def _send(self, frame):
        self._stream.write(frame)

    def _show(self, dice, source):
        self.last_roll = (source, dice)
        for view in self._views:
            view.show(dice, source)

    def _notify(self, kind, seq, value, session=None):
        if self._on_event is not None:
            self._on_event(kind, seq, value, session)

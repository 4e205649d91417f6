"""The dice roller's core state machine (docs/dice-protocol.md), independent of any hardware.

Everything physical is a parameter, so the same code runs on the board (firmware/main.py), in the simulator
(firmware/sim.py) and in tests with fakes:

- stream: read() -> bytes or None without blocking; write(data) sends all of data.
- random_bytes: n -> n uniformly random bytes (os.urandom on the RP2040).
- clock: ticks_ms(), ticks_diff(a, b), sleep_ms(ms) — MicroPython's `time` module itself fits.
- button: a pin with value(), or None. views: objects with show(dice, source) and tick(now_ms), each with an
  optional `capability` bit. watchdog: an object with feed(), or None.
"""

from . import FIRMWARE_VERSION
from . import protocol as p
from .button import Debouncer
from .rng import Dice

STALE_MS = 200
RESEND_MS = 300
MAX_SENDS = 10
EVENT_QUEUE = 4
CACHE_SIZE = 16
DEBOUNCE_MS = 30


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
        self.session = False
        self._cache = []  # [(seq, request body, response frame)], oldest first
        self._events = []  # [[seq, frame, sends, last_sent_ms]], oldest first
        self._event_seq = self._dice.u16()
        self.button_dice = 1
        self.last_roll = None
        now = clock.ticks_ms()
        self._last_rx = now
        self._last_step = now
        self._uptime_ms = 0

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
            kind = item.kind
            if kind == p.BAD_VERSION:
                self.counters["bad_version"] += 1
                if item.ptype is not None and p.is_host_type(item.ptype):
                    self._error(item.seq, p.E_BAD_VERSION, item.detail)
            elif kind == p.BAD_CRC:
                self.counters["bad_crc"] += 1
            else:
                self.counters["bad_framing"] += 1
            return
        self.counters["frames_ok"] += 1
        ptype = item.type
        if not p.is_host_type(ptype):
            self.counters["ignored"] += 1
            return
        if ptype == p.ROLL:
            self._roll(item)
        elif ptype == p.HELLO_REQ:
            if self._empty(item):
                self.session = True
                self._cache = []
                body = p.hello_body(FIRMWARE_VERSION, self.capabilities, self.max_dice, self.device_id)
                self._notify("hello", item.seq, None)
                self._send(p.encode_frame(p.HELLO, item.seq, body))
        elif ptype == p.PING:
            if len(item.body) > p.MAX_PING:
                self._error(item.seq, p.E_BAD_LENGTH, f"PING len {len(item.body)}")
            else:
                self._send(p.encode_frame(p.PONG, item.seq, item.body))
        elif ptype == p.ACK:
            if self._empty(item):
                self._ack(item.seq, now)
        elif ptype == p.STATUS_REQ:
            if self._empty(item):
                body = p.status_body(self.reset_cause, self._uptime_ms // 1000, self.counters)
                self._send(p.encode_frame(p.STATUS, item.seq, body))
        else:
            self._error(item.seq, p.E_UNKNOWN_TYPE, f"type 0x{ptype:02X}")

    def _empty(self, packet):
        if packet.body:
            name = p.TYPE_NAMES.get(packet.type, "?")
            self._error(packet.seq, p.E_BAD_LENGTH, f"{name} len {len(packet.body)}")
            return False
        return True

    def _roll(self, packet):
        seq = packet.seq
        for cached_seq, body, response in self._cache:
            if cached_seq == seq and body == packet.body:
                self.counters["duplicates"] += 1
                self._notify("duplicate", seq, None)
                self._send(response)
                return
        if not self.session:
            self._error(seq, p.E_NO_SESSION, "send HELLO_REQ")
            return
        try:
            n = p.parse_roll(packet.body)
        except p.FrameError as exc:
            code = p.E_BAD_COUNT if exc.kind == p.BAD_COUNT else p.E_BAD_LENGTH
            self._error(seq, code, exc.detail)
            return
        if n > self.max_dice:
            self._error(seq, p.E_BAD_COUNT, f"n={n}")
            return
        try:
            dice = self._dice.roll(n)
        except OSError:
            self._error(seq, p.E_INTERNAL, "rng")
            return
        response = p.encode_frame(p.RESULT, seq, p.dice_body(dice))
        self._cache = [entry for entry in self._cache if entry[0] != seq]
        self._cache.append((seq, packet.body, response))
        if len(self._cache) > CACHE_SIZE:
            self._cache = self._cache[-CACHE_SIZE:]
        self.counters["rolls"] += 1
        self.button_dice = n
        # Observers (the simulator's log) learn of the roll before the host can.
        self._notify("roll", seq, dice)
        self._send(response)
        self._show(dice, "host")

    def _ack(self, seq, now):
        for i, event in enumerate(self._events):
            if event[0] == seq:
                self._events = self._events[:i] + self._events[i + 1 :]
                self._notify("acked", seq, None)
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
        if not self.session:
            self._notify("button", None, dice)
            return
        seq = self._event_seq
        self._event_seq = (seq + 1) & 0xFFFF
        self._notify("button", seq, dice)
        if len(self._events) >= EVENT_QUEUE:
            self.counters["events_dropped"] += 1
            return
        self._events.append([seq, p.encode_frame(p.BUTTON_ROLL, seq, p.dice_body(dice)), 0, now])

    def _service_events(self, now):
        if not self.session or not self._events:
            return
        event = self._events[0]
        if event[2] and self._clock.ticks_diff(now, event[3]) < RESEND_MS:
            return
        if event[2] >= MAX_SENDS:
            self._events = self._events[1:]
            self.counters["events_dropped"] += 1
            self._notify("unacked", event[0], None)
            return
        if event[2]:
            self.counters["resends"] += 1
        event[2] += 1
        event[3] = now
        self._send(event[1])

    # ---- output

    def _error(self, seq, code, detail):
        self.counters["errors_sent"] += 1
        self._notify("error", seq, code)
        self._send(p.encode_frame(p.ERROR, seq, p.error_body(code, detail)))

    def _send(self, frame):
        self._stream.write(frame)

    def _show(self, dice, source):
        self.last_roll = (source, dice)
        for view in self._views:
            view.show(dice, source)

    def _notify(self, kind, seq, value):
        if self._on_event is not None:
            self._on_event(kind, seq, value)

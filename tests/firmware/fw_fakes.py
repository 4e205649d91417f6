"""Fakes for the firmware core, usable under CPython (pytest) and MicroPython (mp_selftest.py).

No typing, dataclasses or CPython-only modules here: the real `micropython` binary imports this file.
"""

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps here on most ports
_HALF = TICKS_PERIOD // 2


class FakeClock:
    """ticks_ms/ticks_diff with MicroPython's wrap-around semantics; time moves only when told."""

    def __init__(self, start=0):
        self.now = start

    def ticks_ms(self):
        return self.now & (TICKS_PERIOD - 1)

    def ticks_diff(self, a, b):
        return ((a - b + _HALF) & (TICKS_PERIOD - 1)) - _HALF

    def sleep_ms(self, ms):
        self.now += ms

    def advance(self, ms):
        self.now += ms


class FakeStream:
    """Bytes queued by the test come out of read(); everything the device writes is kept."""

    def __init__(self):
        self.inbox = bytearray()
        self.written = []
        self.chunk = 0  # 0: read() returns everything pending; n: at most n bytes per read
        self.fail = None  # an exception instance to raise from read()

    def feed(self, data):
        self.inbox.extend(data)

    def read(self):
        if self.fail is not None:
            raise self.fail
        if not self.inbox:
            return None
        n = len(self.inbox) if not self.chunk else min(self.chunk, len(self.inbox))
        data = bytes(self.inbox[:n])
        self.inbox = self.inbox[n:]
        return data

    def write(self, data):
        self.written.append(bytes(data))

    def take(self):
        out = self.written
        self.written = []
        return out


class FakePin:
    def __init__(self, level=1):
        self.level = level
        self.history = []

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v
        self.history.append(v)
        return None


class FakeWatchdog:
    def __init__(self):
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class SeededBytes:
    """A deterministic byte source (xorshift32, top byte of each step); records how much was drawn."""

    def __init__(self, seed=1):
        self.state = (seed & 0xFFFFFFFF) or 1
        self.drawn = 0
        self.fail = False

    def __call__(self, n):
        if self.fail:
            raise OSError("random source failed")
        out = bytearray(n)
        x = self.state
        for i in range(n):
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            out[i] = x >> 24
        self.state = x
        self.drawn += n
        return bytes(out)


class ScriptedBytes:
    """Returns the given bytes in order (then repeats them): for exact dice in tests."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0
        self.drawn = 0

    def __call__(self, n):
        out = bytearray(n)
        for i in range(n):
            out[i] = self.data[self.pos % len(self.data)]
            self.pos += 1
        self.drawn += n
        return bytes(out)


class RecordingView:
    capability = 0x04

    def __init__(self):
        self.shown = []
        self.ticks = 0

    def show(self, dice, source):
        self.shown.append((source, list(dice)))

    def tick(self, now):
        self.ticks += 1


class FakeFrameBuffer:
    def __init__(self):
        self.texts = []
        self.shows = 0

    def fill(self, c):
        self.texts = []

    def text(self, s, x, y, c=1):
        self.texts.append((s, x, y))

    def show(self):
        self.shows += 1

"""The simulator's faulty cable (CPython only): a `Wire` per direction between the host's pty and the
device.

A wire cuts the byte stream into frames at each 0x00 and, frame by frame, drops, corrupts (byte by byte),
delays, duplicates and replays them, as a relay between driver and device would. Delays and replays reorder
frames; a replay sends again a frame that passed earlier (in this direction), at a random later time.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque

STRAY_MS = 50  # bytes with no delimiter after them are passed on (corrupted) after this long
HISTORY = 32  # frames a replay may pick from
DUPLICATE_GAP_MS = 20  # a duplicate follows its original within this long


def probability(name: str, value: float) -> float:
    if not (isinstance(value, int | float) and math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} probability must be within 0..1, got {value!r}")
    return float(value)


def milliseconds(name: str, value: float) -> float:
    if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number of milliseconds >= 0, got {value!r}")
    return float(value)


class Faults:
    """Fault settings. Probabilities are per frame, except `corrupt`, per byte, and `reset`, per roll the
    device makes (it rolls, then reboots before its answer leaves). `drop`, `delay_ms`, `late`, `duplicate`
    and `replay` apply in both directions."""

    def __init__(
        self,
        drop: float = 0.0,
        corrupt: float = 0.0,
        delay_ms: float = 0,
        *,
        duplicate: float = 0.0,
        replay: float = 0.0,
        late: float = 0.0,
        late_ms: float = 400,
        reset: float = 0.0,
    ) -> None:
        self.drop = probability("drop", drop)
        self.corrupt = probability("corrupt", corrupt)
        self.delay_ms = milliseconds("delay", delay_ms)
        self.duplicate = probability("duplicate", duplicate)
        self.replay = probability("replay", replay)
        self.late = probability("late", late)
        self.late_ms = milliseconds("late delay", late_ms)
        self.reset = probability("reset", reset)

    @property
    def frames_faulty(self) -> bool:
        return any((self.drop, self.delay_ms, self.duplicate, self.replay, self.late))


class Wire:
    """One direction. `push` bytes as they are written; `due` returns, in release order, the chunks whose time
    has come (whole frames with their delimiter, or stray bytes)."""

    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self._rng = rng
        self._buffer = bytearray()
        self._buffer_since = 0.0
        self._queue: list[tuple[float, int, bytes]] = []
        self._order = 0
        self._history: deque[bytes] = deque(maxlen=HISTORY)
        self.frames = 0
        self.dropped = 0
        self.corrupted = 0  # bytes
        self.delayed = 0
        self.duplicated = 0
        self.replayed = 0

    def push(self, data: bytes, now_ms: float) -> None:
        if not self._buffer:
            self._buffer_since = now_ms
        self._buffer += data
        while True:
            end = self._buffer.find(0)
            if end < 0:
                return
            frame = bytes(self._buffer[: end + 1])
            del self._buffer[: end + 1]
            self._buffer_since = now_ms
            if frame == b"\x00":
                self._schedule(now_ms, frame)  # a lone delimiter (a host's flush) passes as it is
            else:
                self._frame(frame, now_ms)

    def due(self, now_ms: float) -> list[bytes]:
        if self._buffer and now_ms - self._buffer_since >= STRAY_MS:
            self._schedule(now_ms, self._corrupt(bytes(self._buffer)))
            self._buffer.clear()
        out = []
        while self._queue and self._queue[0][0] <= now_ms:
            out.append(heapq.heappop(self._queue)[2])
        return out

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in
                ("frames", "dropped", "corrupted", "delayed", "duplicated", "replayed")}

    def next_due(self) -> float | None:
        if self._buffer:
            return self._buffer_since + STRAY_MS
        return self._queue[0][0] if self._queue else None

    def _frame(self, frame: bytes, now: float) -> None:
        self.frames += 1
        f, rng = self.faults, self._rng
        if f.replay and self._history and rng.random() < f.replay:
            self.replayed += 1
            self._schedule(now + rng.uniform(0, f.late_ms), self._corrupt(rng.choice(self._history)))
        self._history.append(frame)
        if f.drop and rng.random() < f.drop:
            self.dropped += 1
            return
        at = now + f.delay_ms
        if f.late and rng.random() < f.late:
            self.delayed += 1
            at += rng.uniform(0, f.late_ms)
        self._schedule(at, self._corrupt(frame))
        if f.duplicate and rng.random() < f.duplicate:
            self.duplicated += 1
            self._schedule(at + rng.uniform(0, DUPLICATE_GAP_MS), self._corrupt(frame))

    def _corrupt(self, data: bytes) -> bytes:
        p = self.faults.corrupt
        if p <= 0:
            return data
        out = bytearray(data)
        for i in range(len(out)):
            if self._rng.random() < p:
                out[i] ^= self._rng.randrange(1, 256)
                self.corrupted += 1
        return bytes(out)

    def _schedule(self, at: float, data: bytes) -> None:
        self._order += 1
        heapq.heappush(self._queue, (at, self._order, data))

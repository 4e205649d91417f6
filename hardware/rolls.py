"""Rolls recorded with where they came from, and the rollers that work without a device.

Every roll the app uses is a `Roll`: the dice, their `RollSource`, and for a device roll the device id, the
sequence number of the frame that carried it and the session it belonged to, so a disputed roll can be traced
to one frame of one roller.
`DiceRoller` (the USB device), `ScreenRoller`, `TypedRoller` and `SimulatedRoller` share one surface:
`Roller`.
"""

from __future__ import annotations

import enum
import random
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from hardware.errors import RollInputError

MIN_DICE, MAX_DICE = 1, 10  # the protocol's limits; the app never rolls more


class RollSource(enum.Enum):
    """Who produced a roll."""

    DEVICE = "device"  # the USB dice roller (device id + sequence number recorded)
    SCREEN = "screen"  # rolled on the tablet with the OS's cryptographic source
    TYPED = "typed"  # physical dice rolled at the table and typed in
    CAMERA = "camera"  # physical dice read by the camera
    SIMULATION = "simulation"  # a seeded pseudo-random source (demo, tests, playouts)

    def __repr__(self) -> str:
        return f"RollSource.{self.name}"


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll of 1..10 six-sided dice. `timestamp` is seconds since the Unix epoch (UTC)."""

    dice: tuple[int, ...]
    source: RollSource
    timestamp: float
    device_id: str | None = None  # hex, as the device reported it in HELLO
    seq: int | None = None
    session: int | None = None  # the device session of that seq (None: a button roll, or an older record)

    def __post_init__(self) -> None:
        if not isinstance(self.dice, tuple) or not MIN_DICE <= len(self.dice) <= MAX_DICE:
            raise ValueError(f"dice {self.dice!r}: a roll is a tuple of {MIN_DICE}..{MAX_DICE} dice")
        if any(type(d) is not int or not 1 <= d <= 6 for d in self.dice):
            raise ValueError(f"dice {self.dice!r} are not all 1..6")
        is_device = self.source is RollSource.DEVICE
        if is_device != (self.device_id is not None) or is_device != (self.seq is not None):
            raise ValueError(
                f"{self.source!r} roll with device_id={self.device_id!r}, seq={self.seq!r}: "
                "exactly the device rolls carry a device id and a sequence number"
            )
        if self.seq is not None and not 0 <= self.seq <= 0xFFFF:
            raise ValueError(f"seq {self.seq!r} is not a u16")
        if self.session is not None and (not is_device or type(self.session) is not int
                                         or not 0 <= self.session <= 0xFFFFFFFF):
            raise ValueError(f"session {self.session!r}: only a device roll has one, a u32")

    @property
    def total(self) -> int:
        return sum(self.dice)

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"dice": list(self.dice), "source": self.source.value}
        obj["timestamp"] = self.timestamp
        if self.source is RollSource.DEVICE:
            obj["device_id"] = self.device_id
            obj["seq"] = self.seq
            if self.session is not None:
                obj["session"] = self.session
        return obj

    @classmethod
    def from_json(cls, obj: Any) -> Roll:
        if not isinstance(obj, dict):
            raise ValueError(f"roll {obj!r} is not an object")
        try:
            dice = obj["dice"]
            source = RollSource(obj["source"])
            timestamp = obj["timestamp"]
        except (KeyError, ValueError) as exc:
            raise ValueError(f"roll {obj!r}: {exc}") from None
        bad_time = isinstance(timestamp, bool) or not isinstance(timestamp, int | float)
        if not isinstance(dice, list) or bad_time:
            raise ValueError(f"roll {obj!r}: dice must be a list and timestamp a number")
        return cls(
            tuple(dice), source, float(timestamp), obj.get("device_id"), obj.get("seq"), obj.get("session")
        )


@runtime_checkable
class Roller(Protocol):
    """Anything that rolls dice for the app: the device, the screen, typed-in dice, a seeded simulation."""

    def roll(self, n: int, timeout: float | None = None) -> Roll:
        """Roll `n` dice (1..10); `timeout` bounds the wait (ignored where there is nothing to wait for)."""
        ...


def _check_count(n: int) -> None:
    if type(n) is not int or not MIN_DICE <= n <= MAX_DICE:
        raise ValueError(f"cannot roll {n!r} dice; a roll has {MIN_DICE}..{MAX_DICE}")


class ScreenRoller:
    """Rolls on the tablet with `secrets` (the OS's cryptographic source), for tables without a device."""

    def __init__(
        self, randbelow: Callable[[int], int] = secrets.randbelow, clock: Callable[[], float] = time.time
    ) -> None:
        self._randbelow = randbelow
        self._clock = clock

    def roll(self, n: int, timeout: float | None = None) -> Roll:
        _check_count(n)
        return Roll(tuple(self._randbelow(6) + 1 for _ in range(n)), RollSource.SCREEN, self._clock())


class SimulatedRoller:
    """A seeded, reproducible roller for demos, tests and playouts. Never for a real game's disputed roll."""

    def __init__(self, rng: random.Random, clock: Callable[[], float] = time.time) -> None:
        self._rng = rng
        self._clock = clock

    def roll(self, n: int, timeout: float | None = None) -> Roll:
        _check_count(n)
        return Roll(tuple(self._rng.randint(1, 6) for _ in range(n)), RollSource.SIMULATION, self._clock())


_SEPARATORS = re.compile(r"[\s,;+/]+")


def typed_roll(text: str, n: int | None = None, clock: Callable[[], float] = time.time) -> Roll:
    """Physical dice typed in: "3 5", "3,5", "35" or "3+5" → dice (3, 5). With `n`, exactly n dice.

    `RollInputError` quotes the text for anything else (a 7, a letter, too many or too few dice).
    """
    stripped = text.strip()
    if not stripped:
        raise RollInputError(f"no dice in {text!r}; type each die's value 1..6, e.g. '3 5'")
    parts = [p for p in _SEPARATORS.split(stripped) if p]
    if len(parts) == 1 and parts[0].isdigit() and len(parts[0]) > 1:
        parts = list(parts[0])  # "35": one digit per die
    dice: list[int] = []
    for part in parts:
        if not (part.isascii() and part.isdigit()) or not 1 <= int(part) <= 6:
            raise RollInputError(f"{part!r} in {text!r} is not a die value 1..6")
        dice.append(int(part))
    if n is not None and len(dice) != n:
        raise RollInputError(f"{text!r} has {len(dice)} dice, expected {n}")
    if not MIN_DICE <= len(dice) <= MAX_DICE:
        raise RollInputError(f"{text!r} has {len(dice)} dice; a roll has {MIN_DICE}..{MAX_DICE}")
    return Roll(tuple(dice), RollSource.TYPED, clock())


class TypedRoller:
    """Asks the players to roll real dice and type them: `ask(n)` returns their text (the UI supplies it)."""

    def __init__(self, ask: Callable[[int], str], clock: Callable[[], float] = time.time) -> None:
        self._ask = ask
        self._clock = clock

    def roll(self, n: int, timeout: float | None = None) -> Roll:
        _check_count(n)
        return typed_roll(self._ask(n), n, self._clock)

"""What a `DiceRoller` tells the app without being asked: connection changes, button rolls, and button rolls
the device had to drop. Also `EventWindow`, the pure bookkeeping that delivers each button roll once and finds
the ones that never arrived (docs/dice-protocol.md §5).
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass

from hardware.protocol import SEQ_MODULUS, Capability, Hello
from hardware.rolls import Roll

_HALF = SEQ_MODULUS // 2


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
    DISCONNECTED = "disconnected"  # lost (unplugged, hung); reconnecting in the background if enabled
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
    """Someone pressed the roller's button; `roll` is what it rolled (reported once per device event)."""

    roll: Roll

    @property
    def dice(self) -> tuple[int, ...]:
        return self.roll.dice

    @property
    def seq(self) -> int | None:
        return self.roll.seq


@dataclass(frozen=True, slots=True)
class ButtonRollsDroppedEvent:
    """`count` button rolls were made (and shown) on the device but never reached the app: their events were
    dropped (the device's queue was full, or every re-send went unacknowledged). Players should roll again."""

    count: int
    device_id: str


DiceEvent = ConnectionEvent | ButtonRollEvent | ButtonRollsDroppedEvent


class EventWindow:
    """One device boot's button events as the host sees them.

    The device numbers its events consecutively and sends them one at a time, oldest first, each until it is
    ACKed or dropped. So an event `seq` at or past `expected` is new, and every seq between `expected` and it
    was dropped; anything below `expected` is a repeat (our ACK was lost) or a replay, never delivered again.
    A `floor` (HELLO, PONG) says every event below it is settled: the ones below it never seen were dropped.
    """

    __slots__ = ("expected", "recent")

    def __init__(self, floor: int) -> None:
        self.expected = floor
        self.recent: deque[int] = deque(maxlen=64)

    def receive(self, seq: int) -> tuple[bool, int]:
        """(deliver this event?, how many events before it were dropped)."""
        ahead = (seq - self.expected) % SEQ_MODULUS
        if ahead >= _HALF:
            return False, 0
        self.expected = (seq + 1) % SEQ_MODULUS
        self.recent.append(seq)
        return True, ahead

    def seen(self, seq: int) -> bool:
        return seq in self.recent

    def advance(self, floor: int) -> int:
        """Events dropped below `floor` that were never received."""
        ahead = (floor - self.expected) % SEQ_MODULUS
        if ahead == 0 or ahead >= _HALF:
            return 0
        self.expected = floor
        return ahead

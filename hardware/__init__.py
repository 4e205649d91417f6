"""Host driver for the USB dice roller (docs/dice-protocol.md), and the rollers that work without one.

Layers: `hardware.protocol` (pure: COBS, CRC, messages, stream decoder) → `hardware.transport` (a pyserial
port and its reader thread) → `hardware.client.DiceRoller` (thread-safe requests, retries, events, reconnect);
`hardware.discovery` finds rollers by USB id; `hardware.rolls` holds `Roll`, `RollSource` and the device-less
rollers. Imports nothing of ours but itself (pyserial only).
"""

from hardware.client import (
    ButtonRollEvent,
    ConnectionEvent,
    ConnectionState,
    DeviceInfo,
    DiceEvent,
    DiceRoller,
    LinkStats,
)
from hardware.discovery import discover, find_roller
from hardware.errors import (
    DeviceDisconnectedError,
    DeviceNotFoundError,
    DeviceRefusedError,
    DeviceRestartedError,
    DeviceTimeoutError,
    HardwareError,
    ProtocolError,
    Rejection,
    RollInputError,
)
from hardware.rolls import Roll, Roller, RollSource, ScreenRoller, SimulatedRoller, TypedRoller, typed_roll

__all__ = [
    "ButtonRollEvent",
    "ConnectionEvent",
    "ConnectionState",
    "DeviceDisconnectedError",
    "DeviceInfo",
    "DeviceNotFoundError",
    "DeviceRefusedError",
    "DeviceRestartedError",
    "DeviceTimeoutError",
    "DiceEvent",
    "DiceRoller",
    "HardwareError",
    "LinkStats",
    "ProtocolError",
    "Rejection",
    "Roll",
    "RollInputError",
    "RollSource",
    "Roller",
    "ScreenRoller",
    "SimulatedRoller",
    "TypedRoller",
    "discover",
    "find_roller",
    "typed_roll",
]

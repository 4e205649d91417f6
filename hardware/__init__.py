"""Host driver for the USB dice roller (docs/dice-protocol.md), and the rollers that work without one.

Layers: `hardware.protocol` (pure: COBS, CRC, messages, stream decoder) → `hardware.transport` (a pyserial
port and its reader thread) → `hardware.client.DiceRoller` (thread-safe requests, sessions, retries with
back-off, keepalive, reconnect), whose events are `hardware.events`; `hardware.discovery` finds rollers by USB
id; `hardware.rolls` holds `Roll`, `RollSource` and the device-less rollers. Imports nothing of ours but
itself (pyserial only).
"""

import logging

from hardware.client import DiceRoller, LinkStats
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
    VersionMismatchError,
)
from hardware.events import (
    ButtonRollEvent,
    ButtonRollsDroppedEvent,
    ConnectionEvent,
    ConnectionState,
    DeviceInfo,
    DiceEvent,
)
from hardware.rolls import Roll, Roller, RollSource, ScreenRoller, SimulatedRoller, TypedRoller, typed_roll

__all__ = [
    "ButtonRollEvent",
    "ButtonRollsDroppedEvent",
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
    "VersionMismatchError",
    "discover",
    "find_roller",
    "typed_roll",
]

# A library's log records are the application's to show: none reach stderr unless it configures logging.
logging.getLogger(__name__).addHandler(logging.NullHandler())

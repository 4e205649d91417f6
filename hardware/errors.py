"""The dice-roller driver's error taxonomy. Every message quotes the port, bytes or text it refuses.

Device errors are `OSError`s (like pyserial's `SerialException`), so code that already handles I/O failures
handles an unplugged roller too. A mistyped physical roll is not an I/O failure: it is a `ValueError`.
"""

from __future__ import annotations

import enum


class Rejection(enum.Enum):
    """Why a frame was refused: the names of docs/dice-protocol.md section 2 and of the golden file."""

    TOO_LONG = "too_long"
    BAD_COBS = "bad_cobs"
    TRUNCATED = "truncated"
    BAD_CRC = "bad_crc"
    BAD_VERSION = "bad_version"
    LENGTH_MISMATCH = "length_mismatch"
    UNKNOWN_TYPE = "unknown_type"
    BAD_LENGTH = "bad_length"
    BAD_COUNT = "bad_count"
    BAD_VALUE = "bad_value"
    STALE = "stale"  # a partial frame abandoned after the inter-byte timeout

    def __repr__(self) -> str:
        return f"Rejection.{self.name}"


class HardwareError(OSError):
    """Base of every error the dice-roller driver raises on purpose.

    `device_may_have_rolled` is True on an error from `DiceRoller.roll` raised after the ROLL request left for
    the device (a timeout, a disconnect mid-request, a restart mid-roll): the device may have rolled and shown
    dice that the host never accepted. It is False when the device certainly rolled nothing for the call.
    """

    device_may_have_rolled: bool = False


class ProtocolError(HardwareError):
    """Bytes that are not a valid frame or message of docs/dice-protocol.md, or a reply that breaks it.

    `rejection` names the failed check when the error is about one frame's bytes. When the frame's CRC matched
    (its header can be believed) `version`, `message_type` and `seq` are the header's; `legacy` is True for a
    well-formed packet of protocol version 1.
    """

    def __init__(self, message: str, rejection: Rejection | None = None) -> None:
        super().__init__(message)
        self.rejection = rejection
        self.version: int | None = None
        self.message_type: int | None = None
        self.seq: int | None = None
        self.legacy = False


class VersionMismatchError(ProtocolError):
    """The device speaks another protocol version than this driver; the message names both."""

    def __init__(self, message: str, device_version: int, driver_version: int) -> None:
        super().__init__(message)
        self.device_version = device_version
        self.driver_version = driver_version


class DeviceRefusedError(ProtocolError):
    """The device answered a request with an ERROR frame; `code` is its `ErrorCode` (or the raw int)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class DeviceRestartedError(DeviceRefusedError):
    """The device answered a sent ROLL with NO_SESSION: it restarted (or forgot the session) since the
    HELLO, so a send that reached it before may have rolled and shown dice, and no result was accepted. The
    client has already shaken hands again; the app should tell the players and roll again (a new roll, not a
    retry)."""

    device_may_have_rolled = True


class DeviceTimeoutError(HardwareError, TimeoutError):
    """The device did not answer within the overall timeout (after every retry)."""


class DeviceNotFoundError(HardwareError):
    """No port could be opened at the given URL, or no port answered the HELLO handshake."""


class DeviceDisconnectedError(HardwareError, ConnectionError):
    """The roller went away (unplugged, port closed) before a request completed, or is not connected."""


class RollInputError(ValueError):
    """A roll typed in by hand (physical dice) is not a valid roll; the message quotes the text."""

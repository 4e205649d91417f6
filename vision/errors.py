"""The vision package's error taxonomy. Every message quotes the input it refuses.

Other vision modules may append classes here (see /tmp/issues/OWNERS.md); keep the base `VisionError`.
"""

from __future__ import annotations

from enum import Enum


class VisionError(Exception):
    """Base of every error the vision package raises on purpose."""


class TagRejection(Enum):
    """Why a decoded QR code is not one of our stickers."""

    NOT_OURS = "not-ours"  # a phone number, a URL, another game's code
    MALFORMED = "malformed"  # our namespace, but the rest does not parse
    NEWER_VERSION = "newer-version"  # printed by a newer Seneschal than this one
    UNKNOWN_ID = "unknown-id"  # well formed, but the box catalogue has no such component


class UnknownTagError(VisionError, ValueError):
    """A QR payload that is not one of our stickers. Callers log `reason` and ignore the code."""

    def __init__(self, text: str, reason: TagRejection, detail: str) -> None:
        self.text = text
        self.reason = reason
        self.detail = detail
        super().__init__(f"QR code {text!r} ignored ({reason.value}): {detail}")


class CalibrationError(VisionError, ValueError):
    """A colour calibration cannot be made, read or used."""


class DecoderUnavailableError(VisionError, RuntimeError):
    """The requested QR decoding backend cannot be loaded on this machine."""


class FrameError(VisionError, ValueError):
    """A frame is not an image we can read (wrong shape, dtype or size)."""


class DiceModelError(VisionError, OSError):
    """A dice network's file is missing or unreadable (a broken install), or no runtime can run it."""

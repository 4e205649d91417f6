"""Finding rollers: list serial ports by USB vendor/product id, then confirm each with a HELLO handshake.

A port is a roller only if it answers HELLO in protocol version 2; a USB id alone is not enough (every
MicroPython board on a Pico shares one), so `discover` never reports a board running something else. A roller
that speaks another protocol version is not one `find_roller` can use, but it says so, naming both versions,
rather than "no dice roller found".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hardware.client import DeviceInfo, DiceRoller
from hardware.errors import DeviceNotFoundError, HardwareError, VersionMismatchError

log = logging.getLogger(__name__)

# (vendor id, product id): Raspberry Pi RP2040 boards running MicroPython's USB CDC (docs/dice-protocol.md).
DEFAULT_USB_IDS: tuple[tuple[int, int], ...] = ((0x2E8A, 0x0005),)


@dataclass(frozen=True, slots=True)
class PortCandidate:
    """A serial port whose USB id matches; `description` and `serial_number` are as the OS reports them."""

    device: str
    vid: int
    pid: int
    serial_number: str | None = None
    description: str = ""


def _system_ports() -> list[Any]:
    from serial.tools import list_ports

    return list(list_ports.comports())


def candidate_ports(
    usb_ids: Iterable[tuple[int, int]] = DEFAULT_USB_IDS,
    comports: Callable[[], Sequence[Any]] = _system_ports,
) -> list[PortCandidate]:
    """Ports whose USB vendor/product id is in `usb_ids`, sorted by device name."""
    wanted = set(usb_ids)
    found = [
        PortCandidate(
            p.device, p.vid, p.pid, getattr(p, "serial_number", None), getattr(p, "description", "") or ""
        )
        for p in comports()
        if getattr(p, "vid", None) is not None and (p.vid, p.pid) in wanted
    ]
    return sorted(found, key=lambda c: c.device)


def discover(
    usb_ids: Iterable[tuple[int, int]] = DEFAULT_USB_IDS,
    timeout: float = 2.0,
    comports: Callable[[], Sequence[Any]] = _system_ports,
    make_roller: Callable[[str], DiceRoller] | None = None,
) -> list[DeviceInfo]:
    """Every matching port that answers HELLO, with what it said. Ports that do not answer are skipped."""
    return _survey(usb_ids, timeout, comports, make_roller)[0]


def _survey(
    usb_ids: Iterable[tuple[int, int]],
    timeout: float,
    comports: Callable[[], Sequence[Any]],
    make_roller: Callable[[str], DiceRoller] | None,
) -> tuple[list[DeviceInfo], list[VersionMismatchError]]:
    """The rollers found, and the ones that speak another protocol version."""
    if make_roller is None:
        make_roller = _probe_roller
    found: list[DeviceInfo] = []
    mismatched: list[VersionMismatchError] = []
    for candidate in candidate_ports(usb_ids, comports):
        roller = make_roller(candidate.device)
        try:
            found.append(roller.open(timeout))
        except VersionMismatchError as exc:
            mismatched.append(exc)
        except HardwareError as exc:
            log.info("%s (%s) is not a dice roller: %s", candidate.device, candidate.description, exc)
        finally:
            roller.close()
    return found, mismatched


def find_roller(
    usb_ids: Iterable[tuple[int, int]] = DEFAULT_USB_IDS,
    timeout: float = 2.0,
    comports: Callable[[], Sequence[Any]] = _system_ports,
    make_roller: Callable[[str], DiceRoller] | None = None,
) -> str:
    """The port of the first roller found; `VersionMismatchError` when the only rollers speak another protocol
    version; `DeviceNotFoundError` naming the ports tried when there is none."""
    ids = list(usb_ids)
    found, mismatched = _survey(ids, timeout, comports, make_roller)
    if found:
        return found[0].port
    if mismatched:
        raise mismatched[0]
    tried = [c.device for c in candidate_ports(ids, comports)]
    wanted = ", ".join(f"{vid:04x}:{pid:04x}" for vid, pid in ids)
    raise DeviceNotFoundError(
        f"no dice roller found: no port with USB id {wanted} answered HELLO (tried {tried or 'none'})"
    )


def _probe_roller(port: str) -> DiceRoller:
    return DiceRoller(port, reconnect=False, keepalive=None)

"""Discovery: ports listed by USB vendor/product id (pyserial's list_ports), each confirmed with HELLO."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hardware import DeviceNotFoundError, DiceRoller
from hardware.discovery import DEFAULT_USB_IDS, PortCandidate, candidate_ports, discover, find_roller
from tests.hardware.fakes import simulator

PICO = DEFAULT_USB_IDS[0]


@dataclass
class FakePortInfo:
    """The fields of pyserial's ListPortInfo that discovery reads."""

    device: str
    vid: int | None
    pid: int | None
    serial_number: str | None = None
    description: str = ""


def test_candidates_are_filtered_by_usb_id_and_sorted() -> None:
    ports = [FakePortInfo("/dev/ttyACM1", *PICO, "E661", "Board in FS mode"),
             FakePortInfo("/dev/ttyS0", None, None),
             FakePortInfo("/dev/ttyUSB0", 0x0403, 0x6001, description="FT232R"),
             FakePortInfo("/dev/ttyACM0", *PICO)]
    found = candidate_ports(comports=lambda: ports)
    assert found == [PortCandidate("/dev/ttyACM0", *PICO), PortCandidate("/dev/ttyACM1", *PICO, "E661",
                                                                          "Board in FS mode")]
    assert candidate_ports([(0x0403, 0x6001)], comports=lambda: ports)[0].device == "/dev/ttyUSB0"


def test_only_ports_that_answer_hello_are_rollers(tmp_path: Path) -> None:
    with simulator("--device-id", "0102030405060708") as sim:
        ports = [FakePortInfo("loop://", *PICO), FakePortInfo(sim.port, *PICO)]

        def probe(port: str) -> DiceRoller:
            return DiceRoller(port, reconnect=False, keepalive=None)

        found = discover(timeout=0.5, comports=lambda: ports, make_roller=probe)
        assert [(i.port, i.device_id) for i in found] == [(sim.port, "0102030405060708")]
        assert find_roller(timeout=0.5, comports=lambda: ports, make_roller=probe) == sim.port


def test_no_roller_is_device_not_found_naming_the_ports_tried() -> None:
    ports = [FakePortInfo("loop://", *PICO)]
    with pytest.raises(DeviceNotFoundError, match=r"2e8a:0005.*loop://"):
        find_roller(timeout=0.2, comports=lambda: ports)
    with pytest.raises(DeviceNotFoundError, match="tried none"):
        find_roller(timeout=0.2, comports=lambda: [])


def test_a_roller_of_another_protocol_version_is_named_not_just_not_found() -> None:
    from hardware import VersionMismatchError

    class OldRoller(DiceRoller):
        def open(self, timeout: float | None = None) -> Any:
            raise VersionMismatchError("roller on 'x' speaks protocol version 1; we speak 2", 1, 2)

    ports = [FakePortInfo("/dev/ttyACM7", *PICO)]
    with pytest.raises(VersionMismatchError, match="version 1"):
        find_roller(timeout=0.2, comports=lambda: ports, make_roller=lambda p: OldRoller(p, keepalive=None))
    assert discover(timeout=0.2, comports=lambda: ports,
                    make_roller=lambda p: OldRoller(p, keepalive=None)) == []


def test_the_system_port_list_can_be_read() -> None:
    assert isinstance(candidate_ports(), list)

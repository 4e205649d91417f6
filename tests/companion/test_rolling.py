"""The app's rollers: the simulated device as a subprocess, the on-screen fallback, and rolls that still
happen (on screen, saying so) when the device goes away mid-game."""

from __future__ import annotations

from typing import Any

import pytest

from companion import rolling
from companion.rolling import DeviceRollerAdapter, ScreenRollerAdapter, start_simulated_roller
from companion.services import RollerStatus


def test_simulated_roller_runs_the_firmware_in_a_subprocess() -> None:
    roller, why = start_simulated_roller(seed=3)
    try:
        assert why == "" and roller.status is RollerStatus.SIMULATED
        assert "simulated roller" in roller.status_text
        result = roller.roll(2)
        assert len(result.values) == 2 and all(1 <= v <= 6 for v in result.values)
        assert result.source.startswith("device ") and "#" in result.source
        proc = roller.sim.proc
    finally:
        roller.close()
    assert proc.poll() is not None  # the simulator process is gone with the app


def test_a_simulator_that_cannot_start_falls_back_to_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def __init__(self, seed: Any = None) -> None:
            raise RuntimeError("no pty here")

    monkeypatch.setattr(rolling, "SimulatorProcess", Broken)
    roller, why = start_simulated_roller()
    assert isinstance(roller, ScreenRollerAdapter) and "no pty here" in why
    assert roller.status is RollerStatus.NONE and "rolling on screen" in roller.status_text
    assert roller.roll(3).source == "screen"


def test_an_unplugged_roller_still_rolls_on_screen_and_says_so() -> None:
    from hardware.errors import DeviceDisconnectedError

    adapter = DeviceRollerAdapter("loop://")

    def unplugged(n: int, timeout: float | None = None) -> Any:
        raise DeviceDisconnectedError("the roller was unplugged")

    adapter._roller.roll = unplugged  # type: ignore[method-assign]
    result = adapter.roll(2)
    assert len(result.values) == 2 and result.source.startswith("screen (roller:")
    assert adapter.status is RollerStatus.RECONNECTING and "unplugged" in adapter.status_text
    adapter.close()

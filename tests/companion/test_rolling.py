"""The app's rollers: the simulated device as a subprocess, the on-screen fallback, and rolls that still
happen (on screen, saying so) when the device goes away mid-game."""

from __future__ import annotations

from typing import Any

import pytest

from companion import rolling
from companion.errors import RollNotTakenError
from companion.rolling import DeviceRollerAdapter, ScreenRollerAdapter, start_simulated_roller
from companion.services import ManualClock, RollerStatus, RollResult


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
        def __init__(self, seed: Any = None, **_kw: Any) -> None:
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
    assert adapter.status is not RollerStatus.CONNECTED and "unplugged" in adapter.status_text
    adapter.close()


def _raising(exc: Exception) -> Any:
    def roll(n: int, timeout: float | None = None) -> Any:
        raise exc

    return roll


def test_a_roll_the_device_may_have_made_is_never_replaced_by_a_screen_roll() -> None:
    from hardware.errors import DeviceRestartedError, DeviceTimeoutError, HardwareError

    adapter = DeviceRollerAdapter("loop://")
    clock = ManualClock()
    changes: list[int] = []
    adapter.listen(clock, on_status=lambda: changes.append(1))
    clock.advance()
    changes.clear()
    timeout = DeviceTimeoutError("no RESULT")
    timeout.device_may_have_rolled = True  # the ROLL left: the display may show dice
    for exc in (DeviceRestartedError("restarted during ROLL", 4), timeout):
        adapter._roller.roll = _raising(exc)  # type: ignore[method-assign]
        with pytest.raises(RollNotTakenError) as err:
            adapter.roll(3)
        assert "roll again" in str(err.value) and "do not count" in str(err.value)
        assert "roll not taken" in adapter.status_text
    clock.advance()
    assert changes == [1, 1]  # the status line is told on the UI thread
    # The driver's guard (a roll from its own callback thread) is a bug, not an unplug: never a screen roll.
    adapter._roller.roll = _raising(HardwareError("DiceRoller.roll() called from the event callback"))  # type: ignore[method-assign]
    with pytest.raises(HardwareError):
        adapter.roll(1)
    adapter.close()


def test_button_rolls_and_connection_changes_reach_the_ui_thread() -> None:
    from hardware.client import ButtonRollEvent, ConnectionEvent, ConnectionState
    from hardware.rolls import Roll, RollSource

    adapter = DeviceRollerAdapter("loop://")
    press = ButtonRollEvent(Roll((2, 5), RollSource.DEVICE, 0.0, device_id="00aa", seq=3))
    adapter._event(press)  # before anyone listens: kept, not lost
    clock = ManualClock()
    got: list[RollResult] = []
    statuses: list[str] = []
    adapter.listen(clock, on_button=got.append, on_status=lambda: statuses.append(adapter.status_text))
    adapter._event(ConnectionEvent(ConnectionState.DISCONNECTED, None, "the cable was pulled"))
    assert got == [] and statuses == []  # nothing runs on the driver's thread
    clock.advance()
    assert got == [RollResult((2, 5), "device 00aa button #3")]
    assert statuses and "the cable was pulled" in statuses[-1]
    adapter.close()
    assert adapter.status is RollerStatus.CLOSED and "closed" in adapter.status_text


def test_a_device_restart_mid_roll_says_roll_again_with_the_real_simulator() -> None:
    """The simulator reboots while sending the RESULT (it rolled and showed dice): the app must not roll on
    screen in its place; the next roll works at once."""
    roller, why = start_simulated_roller(seed=5, extra=("--reset-after", "2"))
    try:
        assert why == ""
        outcomes = []
        for _ in range(3):
            try:
                outcomes.append(roller.roll(3).source)
            except RollNotTakenError:
                outcomes.append("not taken")
        assert "not taken" in outcomes, outcomes
        assert not any(o.startswith("screen") for o in outcomes), outcomes
        assert outcomes[-1].startswith("device "), outcomes  # rolling again works at once
    finally:
        roller.close()


def test_the_simulators_button_rolls_arrive_through_the_clock() -> None:
    import time

    roller, why = start_simulated_roller(seed=5, extra=("--button-every", "0.2"))
    try:
        assert why == ""
        clock = ManualClock()
        got: list[RollResult] = []
        roller.listen(clock, on_button=got.append)
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
            clock.advance()
        assert got and " button #" in got[0].source and got[0].source.startswith("device ")
    finally:
        roller.close()


def test_button_rolls_the_device_dropped_are_counted_on_the_ui_thread_and_said_in_each_language() -> None:
    from companion.i18n import Translator
    from companion.presenters.dice import DicePresenter
    from hardware.events import ButtonRollsDroppedEvent

    adapter = DeviceRollerAdapter("loop://")
    clock = ManualClock()
    dice = DicePresenter(adapter, clock, threaded=False, tr=Translator("nl"))
    adapter.listen(clock, on_dropped=dice.button_rolls_dropped)
    adapter._event(ButtonRollsDroppedEvent(2, "00aa"))
    assert dice.error == ""  # nothing runs on the driver's thread
    clock.advance()
    assert "2" in dice.error and "opnieuw" in dice.error
    english = DicePresenter(adapter, clock, threaded=False)
    english.button_rolls_dropped(1)
    assert english.error == "Button rolls that never reached the tablet: 1. Roll those again."
    adapter.close()

"""Rolls and their sources; the rollers that work without a device."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from hardware import (
    DiceRoller,
    Roll,
    Roller,
    RollInputError,
    RollSource,
    ScreenRoller,
    SimulatedRoller,
    TypedRoller,
    typed_roll,
)


def counting(values: list[int]) -> Iterator[int]:
    yield from values


def test_every_roller_has_the_same_surface() -> None:
    rollers = [ScreenRoller(), SimulatedRoller(random.Random(1)), TypedRoller(lambda n: "6" * n),
               DiceRoller("loop://", keepalive=None)]
    assert all(isinstance(r, Roller) for r in rollers)


def test_screen_roller_uses_its_random_source_and_records_the_source() -> None:
    draws = counting([0, 5, 2])
    roller = ScreenRoller(randbelow=lambda k: next(draws) if k == 6 else -1, clock=lambda: 12.5)
    assert roller.roll(3) == Roll((1, 6, 3), RollSource.SCREEN, 12.5)


def test_screen_roller_with_secrets_stays_in_range() -> None:
    dice = [d for _ in range(200) for d in ScreenRoller().roll(10).dice]
    assert set(dice) == {1, 2, 3, 4, 5, 6}


def test_simulated_roller_is_reproducible() -> None:
    a = SimulatedRoller(random.Random(42), clock=lambda: 0.0)
    b = SimulatedRoller(random.Random(42), clock=lambda: 0.0)
    assert [a.roll(2) for _ in range(5)] == [b.roll(2) for _ in range(5)]
    assert a.roll(1).source is RollSource.SIMULATION


@pytest.mark.parametrize("n", [0, 11, -1, 2.0, True])
def test_rollers_refuse_impossible_counts(n: object) -> None:
    for roller in (ScreenRoller(), SimulatedRoller(random.Random(1))):
        with pytest.raises(ValueError, match="cannot roll"):
            roller.roll(n)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "dice"),
    [("3 5", (3, 5)), ("3,5", (3, 5)), ("35", (3, 5)), (" 3 + 5 ", (3, 5)), ("6", (6,)), ("1;2/3", (1, 2, 3)),
     ("1 2 3 4 5 6 6 5 4 3", (1, 2, 3, 4, 5, 6, 6, 5, 4, 3))],
)
def test_typed_roll_reads_what_players_type(text: str, dice: tuple[int, ...]) -> None:
    assert typed_roll(text, clock=lambda: 1.0) == Roll(dice, RollSource.TYPED, 1.0)


@pytest.mark.parametrize(
    ("text", "n", "match"),
    [("", None, "no dice"), ("3 7", None, "'7'"), ("3 x", None, "'x'"), ("0", None, "'0'"),
     ("3 5", 3, "expected 3"),
     ("12345612345", None, "11 dice"), ("3.5", None, "'3.5'"), ("٣ 5", None, "'٣'"), ("-3", None, "'-3'")],
)
def test_typed_roll_refuses_bad_input_quoting_it(text: str, n: int | None, match: str) -> None:
    with pytest.raises(RollInputError, match=match) as caught:
        typed_roll(text, n)
    assert repr(text) in str(caught.value) or text == ""


def test_typed_roller_asks_for_the_right_number_of_dice() -> None:
    asked: list[int] = []

    def ask(n: int) -> str:
        asked.append(n)
        return "2 2"

    assert TypedRoller(ask, clock=lambda: 3.0).roll(2) == Roll((2, 2), RollSource.TYPED, 3.0)
    with pytest.raises(RollInputError):
        TypedRoller(ask).roll(3)
    assert asked == [2, 3]


def test_roll_json_round_trip_and_repr() -> None:
    rolls = [Roll((3, 5), RollSource.DEVICE, 1.5, device_id="e6614103e7452d2f", seq=4661),
             Roll((6,), RollSource.CAMERA, 2.0), Roll((1, 1), RollSource.TYPED, 3)]
    for roll in rolls:
        assert Roll.from_json(json.loads(json.dumps(roll.to_json()))) == roll
        assert eval(repr(roll)) == roll  # reprs paste back
    assert rolls[0].total == 8


@pytest.mark.parametrize(
    "args",
    [
        ((7,), RollSource.SCREEN, 0),
        ((), RollSource.SCREEN, 0),
        ([1], RollSource.SCREEN, 0),
        ((True,), RollSource.SCREEN, 0),
        ((1,), RollSource.DEVICE, 0),
        ((1,), RollSource.SCREEN, 0, "x", 1),
        ((1,), RollSource.DEVICE, 0, "x", 70000),
    ],
)
def test_roll_refuses_inconsistent_values(args: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError):
        Roll(*args)


@pytest.mark.parametrize("obj", [[], {"dice": [1]}, {"dice": [1], "source": "dice", "timestamp": 0},
                                 {"dice": [1], "source": "screen", "timestamp": "now"}])
def test_roll_from_json_refuses_malformed_objects(obj: object) -> None:
    with pytest.raises(ValueError, match="roll"):
        Roll.from_json(obj)

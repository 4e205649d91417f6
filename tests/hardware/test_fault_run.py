"""The fault run: rolls through the simulated device with 1% of bytes corrupted (both directions) and 2%
of the device's frames dropped. Every result the host accepts must be exactly what the device rolled for that
seq, and no request may be rolled twice. `python bench/dice.py` runs the same and prints its figures.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from hardware import DiceRoller, Roll
from tests.hardware.fakes import simulator

ROLLS = 10_000


def test_every_accepted_roll_is_what_the_device_rolled_under_faults(tmp_path: Path) -> None:
    accepted: list[Roll] = []
    options = ("--seed", "2026", "--corrupt", "0.01", "--drop", "0.02")
    with simulator(*options, log=tmp_path / "sim.jsonl") as sim:
        # A pty answers in well under a millisecond, so resending after 5 ms (not a USB board's 250 ms) keeps
        # 10,000 rolls quick, and late answers arrive as duplicates, which the run then exercises too. The
        # overall timeout is generous so that no roll fails for lack of attempts.
        roller = DiceRoller(sim.port, keepalive=None, attempt_timeout=0.005, hello_timeout=5.0)
        roller.open()
        for i in range(ROLLS):
            accepted.append(roller.roll(1 + i % 10, timeout=10.0))
        stats = roller.stats
        roller.close()
        events = sim.events()

    rolled: dict[int, list[tuple[int, ...]]] = defaultdict(list)
    for event in events:
        if event["kind"] == "roll":
            rolled[event["seq"]].append(tuple(event["value"]))
    # No request rolled twice: a retried seq is always answered from the device's cache.
    assert all(len(dice) == 1 for dice in rolled.values())
    # Every accepted result is the device's roll for that seq, with the count asked for.
    for i, roll in enumerate(accepted):
        assert roll.seq is not None and rolled[roll.seq] == [roll.dice]
        assert len(roll.dice) == 1 + i % 10
    assert len({roll.seq for roll in accepted}) == ROLLS
    # The faults really happened, were caught by the framing/CRC layer, and were survived by resending.
    assert stats.frames_dropped > 100 and stats.resends > 100
    assert sum(event["kind"] == "duplicate" for event in events) > 0
    assert stats.conflicting_replies == 0

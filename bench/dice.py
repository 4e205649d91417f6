"""Dice roller benchmark: round-trip time of a 2-dice roll through the simulated device over a pty, and the
full 10,000-roll fault run (1% of bytes corrupted both ways, 2% of device frames dropped).

    python bench/dice.py                       # both
    python bench/dice.py --rolls 20000 --fault-rolls 0

The device is the firmware's own code run by `python -m firmware.sim` in a subprocess (exactly as the app
would see a board), talked to through hardware.DiceRoller. Aim: p99 under 5 ms. Prints its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hardware import DiceRoller, HardwareError  # noqa: E402

# The simulator answers in well under a millisecond, so the fault run can resend after 5 ms instead of the
# 250 ms a USB board needs; late answers then arrive as harmless duplicates, which the run also exercises.
ATTEMPT_TIMEOUT = 0.005


@contextmanager
def simulator(*options: str) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware.sim", *options],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("PORT "):
            raise SystemExit(f"firmware.sim printed {line!r} instead of 'PORT <path>'")
        yield line.split(maxsplit=1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=5)
        if process.stdout is not None:
            process.stdout.close()


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))]


def round_trip(rolls: int) -> None:
    with simulator("--seed", "1") as port, DiceRoller(port, keepalive=None) as roller:
        for _ in range(200):  # warm up
            roller.roll(2)
        times = []
        for _ in range(rolls):
            start = time.perf_counter()
            roller.roll(2)
            times.append(time.perf_counter() - start)
        stats = roller.stats
    times.sort()
    ms = [t * 1000 for t in times]
    print(f"2-dice roll round trip through firmware.sim over a pty ({rolls} rolls, {sys.platform}):")
    print(f"  p50 {percentile(ms, 0.50):.3f} ms   p90 {percentile(ms, 0.90):.3f} ms   "
          f"p99 {percentile(ms, 0.99):.3f} ms   max {ms[-1]:.3f} ms   mean {statistics.fmean(ms):.3f} ms")
    print(f"  aim p99 < 5 ms: {'met' if percentile(ms, 0.99) < 5 else 'NOT met'}; resends {stats.resends}")


def fault_run(rolls: int, corrupt: float, drop: float) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "sim.jsonl"
        options = ("--seed", "2026", "--corrupt", str(corrupt), "--drop", str(drop), "--log", str(log))
        accepted: list[tuple[int, tuple[int, ...], int]] = []
        failed: list[str] = []
        start = time.perf_counter()
        with simulator(*options) as port:
            roller = DiceRoller(port, keepalive=None, attempt_timeout=ATTEMPT_TIMEOUT, hello_timeout=5.0)
            roller.open()
            for i in range(rolls):
                n = 1 + i % 10
                try:
                    roll = roller.roll(n, timeout=10.0)
                except HardwareError as exc:
                    failed.append(str(exc))
                    continue
                assert roll.seq is not None
                accepted.append((roll.seq, roll.dice, n))
            stats = roller.stats
            roller.close()
        elapsed = time.perf_counter() - start
        events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]
    rolled: dict[int, list[tuple[int, ...]]] = defaultdict(list)
    for event in events:
        if event["kind"] == "roll":
            rolled[event["seq"]].append(tuple(event["value"]))
    rerolled = sum(len(d) > 1 for d in rolled.values())
    wrong = sum(rolled[seq] != [dice] or len(dice) != n for seq, dice, n in accepted)
    duplicates = sum(e["kind"] == "duplicate" for e in events)
    print(f"fault run: {rolls} rolls of 1..10 dice, {corrupt:.0%} of bytes corrupted both ways, "
          f"{drop:.0%} of device frames dropped ({elapsed:.1f} s):")
    print(f"  accepted {len(accepted)}, failed {len(failed)}, wrong results {wrong}, "
          f"requests rolled twice {rerolled}, conflicting duplicate answers {stats.conflicting_replies}")
    print(f"  host: resends {stats.resends}, frames dropped by the decoder {stats.frames_dropped}, "
          f"stale replies ignored {stats.stale_replies}; device: answers from its cache {duplicates}")
    for message in failed[:5]:
        print(f"  failure: {message}")
    return 1 if wrong or rerolled or stats.conflicting_replies else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rolls", type=int, default=5000, help="round-trip rolls to time (0: skip)")
    parser.add_argument("--fault-rolls", type=int, default=10_000, help="rolls in the fault run (0: skip)")
    parser.add_argument("--corrupt", type=float, default=0.01)
    parser.add_argument("--drop", type=float, default=0.02)
    args = parser.parse_args(argv)
    if args.rolls > 0:
        round_trip(args.rolls)
    if args.fault_rolls > 0:
        return fault_run(args.fault_rolls, args.corrupt, args.drop)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

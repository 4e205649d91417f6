"""Engine benchmark (not a test): complete random games per second, and the time of one check + apply.

    python bench/engine.py [--games 200] [--players 4] [--seed 1] [--playouts 1000]

Aims (issue 25): at least 200 complete random 4-player games per second on one core (300 wanted), 1000
random playouts from a mid-game position in under 3 s (what a move hint needs), and under 0.2 ms for one
`check` + `apply` at the 99th percentile. CPU time is printed beside wall time: on a shared machine it is the
figure to compare. Also times `reconcile` on readings one legal move away.

What the bench keeps (every game, every playout: later figures replay them) is moved out of the cyclic
collector's reach as it is made, as the app freezes its start-up heap: otherwise each collection walks all
the games kept so far, a cost of this bench's bookkeeping that grows with `--games`, not of playing. The
games' own garbage is collected as usual (the engine makes no reference cycles: tests/engine/test_speed.py).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.playout import play_on, random_config, random_playout
from engine.reading import TableReading
from engine.reconcile import reconcile
from engine.rules import apply, check
from engine.setup import new_game
from engine.state import GameState

T = TypeVar("T")


def _kept(result: T) -> T:
    """A result this bench keeps, frozen out of the collector's reach (see the module docstring)."""
    gc.freeze()
    return result


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def _reading(state: GameState) -> TableReading:
    locations = [*state.data.territories, *state.data.castle_owner]
    return TableReading(knights={loc: dict(state.knights_at(loc)) for loc in locations})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=1000, help="playouts from a mid-game position")
    args = parser.parse_args(argv)

    gc.collect()
    gc.freeze()  # the start-up heap
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    c0 = time.process_time()
    playouts = [_kept(random_playout(rng, players=args.players)) for _ in range(args.games)]
    elapsed = time.perf_counter() - t0
    cpu_elapsed = time.process_time() - c0
    finished = sum(p.finished for p in playouts)
    actions = sum(len(p.actions) for p in playouts)
    print(f"random {args.players}-player games: {args.games} in {elapsed:.2f} s = "
          f"{args.games / elapsed:.1f} games/s ({finished} won, {actions / args.games:.0f} actions/game, "
          f"{actions / elapsed:,.0f} actions/s unchecked); by CPU time "
          f"{args.games / cpu_elapsed:.1f} games/s")

    # Setting up (the default board shuffled, validated and turned into the rules' lookups, then the deal):
    # part of every game above, timed alone.
    configs = [random_config(random.Random(args.seed + i), args.players) for i in range(200)]
    c0 = time.process_time()
    for config in configs:
        new_game(config)
    setup_ms = (time.process_time() - c0) / len(configs) * 1000
    print(f"new_game (default {args.players}-player board included), CPU time: {setup_ms:.3f} ms = "
          f"{setup_ms / (cpu_elapsed / args.games * 1000):.1%} of a random game")

    # A move hint's search: many random playouts from one position halfway through a game (of median length).
    game = sorted(playouts, key=lambda p: len(p.actions))[len(playouts) // 2]
    middle = game.initial
    for action in game.actions[: len(game.actions) // 2]:
        middle, _ = apply(middle, action)
    prng = random.Random(args.seed)
    t0 = time.perf_counter()
    c0 = time.process_time()
    ends = [_kept(play_on(middle, prng)) for _ in range(args.playouts)]
    wall, cpu_s = time.perf_counter() - t0, time.process_time() - c0
    steps = sum(len(p.actions) for p in ends) / max(1, len(ends))
    print(f"{args.playouts} playouts from mid-game (turn {middle.turn}, {steps:.0f} actions each): "
          f"{wall:.2f} s, CPU time {cpu_s:.2f} s")

    # One check + apply per action, replaying the same games through the referee.
    # Wall time, and this thread's CPU time (which a loaded machine's preemptions do not inflate).
    times: list[float] = []
    cpu: list[float] = []
    for p in playouts[: max(1, args.games // 4)]:
        state = p.initial
        for action in p.actions:
            t = time.perf_counter_ns()
            c = time.thread_time_ns()
            verdict = check(state, action)
            state, _events = apply(state, action)
            cpu.append((time.thread_time_ns() - c) / 1e6)
            times.append((time.perf_counter_ns() - t) / 1e6)
            if not verdict.ok:
                print(f"unexpected refusal while replaying: {verdict}", file=sys.stderr)
                return 1
    print(f"check + apply: {len(times):,} actions, median {statistics.median(times):.4f} ms, "
          f"p95 {_percentile(times, 95):.4f} ms, p99 {_percentile(times, 99):.4f} ms, "
          f"max {max(times):.3f} ms")
    print(f"check + apply, CPU time: median {statistics.median(cpu):.4f} ms, "
          f"p95 {_percentile(cpu, 95):.4f} ms, p99 {_percentile(cpu, 99):.4f} ms")

    # Reconciliation of a reading one move ahead of the game (the camera's usual case).
    rec: list[float] = []
    explained = 0
    for p in playouts[:10]:
        state = p.initial
        for action in p.actions[:200]:
            after, _ = apply(state, action)
            if not state.pending and not after.pending:
                reading = _reading(after)
                t = time.perf_counter_ns()
                result = reconcile(state, reading)
                rec.append((time.perf_counter_ns() - t) / 1e6)
                explained += bool(result.actions) or result.matches
            state = after
    if rec:
        print(f"reconcile (reading one move ahead): {len(rec)} readings, {explained / len(rec):.1%} "
              "explained, "
              f"median {statistics.median(rec):.3f} ms, p99 {_percentile(rec, 99):.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

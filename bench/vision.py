"""Benchmark the table reader on seeded synthetic frames: speed and exactness per difficulty, size, decoder;
then camera streams (a table at rest, moves made under a hand) read frame after frame.

    python bench/vision.py            # 3 difficulties x 2 sizes x 36 frames = 216 frames, both decoders,
                                      # then 2 streams of 129 frames per easy/medium and size
    python bench/vision.py --quick    # 3 x 2 x 4 frames, a smoke run (streams as --streams says)

Single frames. Each is a different random table (`vision.synth.random_spec(difficulty, seed)`). A fresh
`TableReader` (hold 1, `incremental=False`: every frame read whole) first sees the same table at set-up (tiles
laid, no knights yet, no hands, another frame's light; untimed), as the app always has, then the frame
(timed). Printed per (difficulty, size, decoder): p50 / p95 milliseconds per frame on 2 threads, and
the p50 of the map reading within it; the share of frames whose map is exactly right (every tile on its hex,
named, up to the lattice's shift and turn) read from the frame alone (`map alone`: a tile whose two codes dice
hide cannot be named) and as the reader has it after set-up (`map ok`: such a tile keeps its id); the share of
knight locations (territories and castles) read exactly right, counting a location the reader calls unsure as
wrong and leaving out locations under a rendered hand (reported apart: how many of those were flagged
occluded); and how many locations were read wrong *without* being called unsure (`silent`: at the table, a
wrong count nobody is asked to confirm).

Streams. A table with its light, glare and table top fixed (`SceneSpec.steady_seed`: only sensor noise
changes between frames), read by one `TableReader` (hold 5) frame after frame: still frames, then per move a
few frames with a hand over the table while one location's knights change, and still frames again. Printed:
p50 / p95 ms per frame, the share of frames read whole, read at the changed locations only, or not read (the
table looked as before: `vision.pipeline.Reread`), the share of checks (the end of every still spell) whose
stable reading is exactly the table, and how many frames' stable reading showed some location as neither
before nor after the move under way ("half-made"; must be 0).

The map reader stops refining a frame after its budget (150 ms with zxing), so on a loaded machine hard
frames lose tiles; `SENESCHAL_REFINE_BUDGET_MS=inf python bench/vision.py` measures accuracy without it.
The dice finder runs in OpenVINO and the value networks in ONNX Runtime when installed (`vision.networks`;
`SENESCHAL_DNN=openvino`, `=onnxruntime` or `=opencv` puts all in one). OpenVINO prepares itself for every
new size of the finder's input (views are padded to multiples of 128 px, so views come in few sizes); here a
table's set-up frame, read first and untimed, gives the finder a view of the same size as the timed frame's,
as in the app.

Speed depends on the moment on a shared machine (this one's swings more than 2x from hour to hour): the first
and last lines print the dice finder's time on a fixed view (`machine_speed_ms`), to compare runs by.

Aims (issue 4): 1080p p50 < 40 ms; map right >= 99.5% and knights right >= 99.9% on easy and medium.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# `python bench/vision.py` puts bench/ first on sys.path, where this file would shadow the `vision` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from engine.colours import Colour  # noqa: E402
from vision import networks  # noqa: E402
from vision.dice import finder_model, network_maps, value_models  # noqa: E402
from vision.mapreader import REFINE_BUDGET_MS, read_map  # noqa: E402
from vision.pipeline import Reread, TableReader, align_tiles  # noqa: E402
from vision.qr import Backend  # noqa: E402
from vision.synth import (  # noqa: E402
    RES_4K,
    RES_1080P,
    Difficulty,
    GroundTruth,
    SceneSpec,
    TrueDie,
    random_spec,
    render_scene,
)

SIZES = {"1080p": RES_1080P, "4k": RES_4K}


@dataclass
class Tally:
    ms: list[float] = field(default_factory=list)
    map_ms: list[float] = field(default_factory=list)
    frames: int = 0
    map_right: int = 0
    map_alone_right: int = 0
    locations: int = 0
    knights_right: int = 0
    silent: int = 0  # locations read wrong and not flagged unsure: what a player would not be asked about
    occluded: int = 0
    occluded_flagged: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.ms += other.ms
        self.map_ms += other.map_ms
        self.frames += other.frames
        self.map_right += other.map_right
        self.map_alone_right += other.map_alone_right
        self.locations += other.locations
        self.knights_right += other.knights_right
        self.silent += other.silent
        self.occluded += other.occluded
        self.occluded_flagged += other.occluded_flagged
        self.errors += other.errors


def truth_dice(truth: GroundTruth) -> Callable[..., list[TrueDie]]:
    """`--dice truth`: the renderer's dice (whole-die boxes, as `vision.dice` reports; hidden ones left out),
    to measure everything after the dice finder (map, assignment to tiles, colour, sums) on its own."""

    def read(image: Any, region: Any = None, calibration: Any = None) -> list[TrueDie]:
        return [TrueDie(tuple(int(v) for v in d.box), d.value) for d in truth.dice if not d.hidden]

    return read


def score(  # noqa: PLR0917
    reader: TableReader,
    backend: Backend,
    setup: np.ndarray,
    image: np.ndarray,
    truth: GroundTruth,
    tally: Tally,
    label: str,
) -> None:
    """`reader` sees the table at set-up (tiles laid, no knights yet, other light: untimed), then the frame
    (timed), as the app does; the map is also read from the frame alone."""
    alone = read_map(image, backend=backend)
    if align_tiles(dict(alone.tiles), truth.tiles) == truth.tiles:
        tally.map_alone_right += 1
    reader.read(setup)
    t0 = time.perf_counter()
    result = reader.read(image)
    tally.ms.append((time.perf_counter() - t0) * 1000.0)
    tally.map_ms.append(result.timings_ms.get("map", float("nan")))
    tally.frames += 1
    raw = result.raw
    # A tile whose codes are hidden in this frame keeps its id from set-up: the stable map holds it.
    tiles = align_tiles(dict(result.reading.tiles), truth.tiles)
    if tiles == truth.tiles:
        tally.map_right += 1
    elif len(tally.errors) < 12:
        missing = sorted(set(truth.tiles.values()) - set(tiles.values()))
        wrong = sorted(t for h, t in tiles.items() if truth.tiles.get(h) != t)
        status = result.status.value
        tally.errors.append(f"{label}: map wrong (status {status}): missing {missing}, misplaced {wrong}")
    for loc in sorted(t for t in truth.tiles.values() if t[0] in "TK"):
        if loc in truth.occluded:
            tally.occluded += 1
            if raw is not None and loc in raw.unsure:
                tally.occluded_flagged += 1
            continue
        tally.locations += 1
        seen = dict(raw.knights_at(loc)) if raw is not None else {}
        want = truth.knights.get(loc, {})
        if raw is not None and seen == want and loc not in raw.unsure:
            tally.knights_right += 1
        else:
            flagged = raw is not None and loc in raw.unsure
            # a location the reading has on its map, with a count nobody is asked to confirm
            tally.silent += raw is not None and not flagged and loc in raw.tiles.values()
            if len(tally.errors) < 12:
                why = "unsure" if flagged else f"read {seen}"
                tally.errors.append(f"{label}: {loc} {why}, truth {want}")


@dataclass
class StreamTally:
    ms: list[float] = field(default_factory=list)
    reread: Counter[Reread] = field(default_factory=Counter)
    checks: int = 0
    checks_right: int = 0
    half_made: int = 0  # frames whose stable reading showed a location neither as before nor as after a move
    errors: list[str] = field(default_factory=list)


def stream_states(spec: SceneSpec, seed: int, moves: int) -> list[dict[str, dict[Colour, int]]]:
    """The knights after each of `moves` moves: one territory's die turned to another value, or a castle's
    garrison grown or shrunk by a few knights (seeded)."""
    rng = np.random.default_rng(seed)
    knights = {k: dict(v) for k, v in spec.knights.items()}
    out = [knights]
    for _ in range(moves):
        knights = {k: dict(v) for k, v in knights.items()}
        loc = sorted(knights)[int(rng.integers(0, len(knights)))]
        colour = sorted(knights[loc], key=lambda c: c.value)[0]
        n = knights[loc][colour]
        most = 6 if loc.startswith("T") else 20
        knights[loc][colour] = int(rng.choice([v for v in range(1, most + 1) if v != n]))
        out.append(knights)
    return out


def run_stream(
    diff: Difficulty, size: str, seed: int, tally: StreamTally, *, moves: int, still: int, hand: int
) -> None:
    """A camera on a table at rest: `still` frames, then per move `hand` frames with a hand over the table
    while the move is made, and `still` frames again; light, glare and table stay put (`steady_seed`), only
    sensor noise changes. Checks the stable reading at the end of every still spell, and that no frame's
    stable reading shows a location as neither before nor after the move under way."""
    spec = random_spec(diff, seed, resolution=SIZES[size]).with_(steady_seed=seed, layout_seed=seed)
    states = stream_states(spec, seed, moves)
    reader = TableReader()
    frame = 0
    for m, knights in enumerate(states):
        before = states[m - 1] if m else knights
        plan = ([spec.with_(knights=before, occluders=1)] * hand if m else []) + [
            spec.with_(knights=knights, occluders=0)
        ] * still
        for k, scene in enumerate(plan):
            image, truth = render_scene(scene, seed * 1000 + frame)
            frame += 1
            t0 = time.perf_counter()
            result = reader.read(image)
            tally.ms.append((time.perf_counter() - t0) * 1000.0)
            tally.reread[result.reread] += 1
            stable = result.reading
            for loc in sorted(t for t in truth.tiles.values() if m and t[0] in "TK"):
                got = dict(stable.knights_at(loc))
                if got not in (before.get(loc, {}), knights.get(loc, {})):
                    tally.half_made += 1
                    if len(tally.errors) < 8:
                        tally.errors.append(f"{diff.value}/{size} seed {seed} frame {frame}: {loc} {got}")
                    break
            if k == len(plan) - 1:
                tally.checks += 1
                tiles = align_tiles(dict(stable.tiles), truth.tiles)
                wrong = sorted(
                    loc for loc in truth.tiles.values()
                    if loc[0] in "TK" and dict(stable.knights_at(loc)) != truth.knights.get(loc, {})
                )
                if tiles == truth.tiles and not wrong:
                    tally.checks_right += 1
                elif len(tally.errors) < 8:
                    tally.errors.append(
                        f"{diff.value}/{size} seed {seed} after move {m}: wrong {wrong}, "
                        f"map ok {tiles == truth.tiles}"
                    )


def stream_row(name: str, t: StreamTally) -> str:
    p50 = statistics.median(t.ms) if t.ms else float("nan")
    p95 = float(np.percentile(t.ms, 95)) if t.ms else float("nan")
    n = max(1, sum(t.reread.values()))
    kinds = " ".join(f"{100.0 * t.reread[r] / n:5.1f}%" for r in Reread)
    return (f"{name:<20} {len(t.ms):>6} {p50:>8.1f} {p95:>8.1f} {kinds}  {pct(t.checks_right, t.checks):>9} "
            f"{t.checks:>6} {t.half_made:>9}")


def pct(n: int, d: int) -> str:
    return "   n/a" if d == 0 else f"{100.0 * n / d:6.2f}%"


def row(name: str, t: Tally) -> str:
    p50 = statistics.median(t.ms) if t.ms else float("nan")
    p95 = float(np.percentile(t.ms, 95)) if t.ms else float("nan")
    map50 = statistics.median(t.map_ms) if t.map_ms else float("nan")
    return (f"{name:<28} {t.frames:>6} {p50:>8.1f} {p95:>8.1f} {map50:>8.1f} "
            f"{pct(t.map_alone_right, t.frames):>9} {pct(t.map_right, t.frames):>9} "
            f"{pct(t.knights_right, t.locations):>9} {t.silent:>6} {t.locations:>6} "
            f"{t.occluded_flagged:>4}/{t.occluded:<4}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="4 frames per difficulty and size")
    p.add_argument("--frames", type=int, default=36, help="frames per difficulty and size (default 36)")
    p.add_argument("--sizes", default="1080p,4k", help="comma-separated: 1080p,4k")
    p.add_argument("--difficulties", default="easy,medium,hard", help="comma-separated: easy,medium,hard")
    p.add_argument("--decoders", default="zxing,pyzbar", help="comma-separated: zxing,pyzbar")
    p.add_argument("--threads", type=int, default=2, help="OpenCV's and the networks' threads (2 cores)")
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--errors", action="store_true", help="print the first misreadings per group")
    p.add_argument("--dice", choices=("network", "truth"), default="network",
                   help="dice finder: vision.dice (default) or the renderer's truth (isolates the rest)")
    p.add_argument("--streams", type=int, default=2, help="camera streams per difficulty and size (0: none)")
    p.add_argument("--moves", type=int, default=3, help="moves per stream")
    p.add_argument("--still", type=int, default=30, help="still frames after each move")
    p.add_argument("--hand", type=int, default=3, help="frames with a hand over the table per move")
    args = p.parse_args(argv)
    n = 4 if args.quick else args.frames
    cv2.setNumThreads(args.threads)
    sizes = [s.strip().lower() for s in args.sizes.split(",") if s.strip()]
    decoders = [d.strip().lower() for d in args.decoders.split(",") if d.strip()]
    for s in sizes:
        if s not in SIZES:
            p.error(f"unknown size {s!r} (1080p, 4k)")
    backends = {"zxing": Backend.ZXING, "pyzbar": Backend.PYZBAR}
    for d in decoders:
        if d not in backends:
            p.error(f"unknown decoder {d!r} (zxing, pyzbar)")

    chosen = [Difficulty(d.strip().lower()) for d in args.difficulties.split(",") if d.strip()]
    print(f"bench/vision.py: {len(chosen) * len(sizes) * n} frames ({n} per difficulty and size), "
          f"{args.threads} threads, seeds {args.seed}..{args.seed + n - 1}, dice finder: {args.dice}"
          + (f" ({networks.runtime(networks.Job.VIEW).value}: {finder_model().name}; "
             f"{networks.runtime(networks.Job.CROPS).value}: {', '.join(m.name for m in value_models())})"
             if args.dice == "network" else "")
          + f", map refine budget zxing {REFINE_BUDGET_MS[Backend.ZXING]:g} ms")
    frames: dict[tuple[Difficulty, str], list[tuple[np.ndarray, GroundTruth, np.ndarray]]] = {}
    t0 = time.perf_counter()
    for diff in chosen:
        for size in sizes:
            frames[diff, size] = []
            for i in range(n):
                spec = random_spec(diff, args.seed + i, resolution=SIZES[size])
                image, truth = render_scene(spec, args.seed + i)
                # the same table at set-up: tiles laid, no knights, no hands, another frame's light
                setup, _ = render_scene(spec.with_(knights={}, occluders=0), args.seed + i + 50_000)
                frames[diff, size].append((image, truth, setup))
    print(f"rendered in {time.perf_counter() - t0:.1f} s")
    speed_before = machine_speed_ms() if args.dice == "network" else None
    if speed_before is not None:
        print(f"machine speed: the dice finder on a fixed {REFERENCE_VIEW[1]} x {REFERENCE_VIEW[0]} px view, "
              f"best of 5: {speed_before:.1f} ms (compare runs by it)")
    print()
    header = (f"{'difficulty / size / decoder':<28} {'frames':>6} {'p50 ms':>8} {'p95 ms':>8} {'map p50':>8} "
              f"{'map alone':>9} {'map ok':>9} "
              f"{'knights':>9} {'silent':>6} {'locs':>6} {'hand flagged'}")
    print(header)
    print("-" * len(header))
    errors: list[str] = []
    for dec in decoders:
        easy_medium = Tally()
        for size in sizes:
            for diff in chosen:
                tally = Tally()
                for i, (image, truth, setup) in enumerate(frames[diff, size]):
                    dice = truth_dice(truth) if args.dice == "truth" else None
                    reader = TableReader(
                        hold_frames=1, backend=backends[dec], dice_reader=dice, incremental=False
                    )
                    label = f"{diff.value}/{size}/{dec} seed {args.seed + i}"
                    score(reader, backends[dec], setup, image, truth, tally, label)
                print(row(f"{diff.value} / {size} / {dec}", tally), flush=True)
                if diff is not Difficulty.HARD:
                    easy_medium.add(tally)
                errors += tally.errors[:4]
        print(row(f"easy+medium / all / {dec}", easy_medium))
        print()
    if args.streams:
        print_streams(args, chosen, sizes)
    if args.errors:
        print("first misreadings:")
        for e in errors:
            print("  " + e)
    if speed_before is not None:
        print(f"machine speed at the end: {machine_speed_ms():.1f} ms (at the start: {speed_before:.1f} ms)")
    return 0


REFERENCE_VIEW = (896, 1024)  # a 1080p table's view as the finder sees it (these frames' median: 802 x 889)


def machine_speed_ms() -> float:
    """The dice finder's time on a fixed view, best of 5 after a warm-up: a shared machine's speed swings
    (this one's more than 2x from hour to hour), so a run's figures say little without it."""
    view = np.random.default_rng(0).integers(0, 256, (*REFERENCE_VIEW, 3), np.uint8)
    network_maps(view)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        network_maps(view)
        times.append((time.perf_counter() - t0) * 1000.0)
    return min(times)


def print_streams(args: argparse.Namespace, chosen: list[Difficulty], sizes: list[str]) -> None:
    print(f"\ncamera streams: {args.streams} per difficulty and size, {args.moves} moves each, "
          f"{args.still} still frames after each move, {args.hand} with a hand while it is made; "
          "zxing, hold 5")
    header = (f"{'difficulty / size':<20} {'frames':>6} {'p50 ms':>8} {'p95 ms':>8} "
              f"{'whole':>6} {'chang':>6} {'none':>6}  {'stable ok':>9} {'checks':>6} {'half-made':>9}")
    print(header)
    print("-" * len(header))
    errors: list[str] = []
    for size in sizes:
        for diff in chosen:
            if diff is Difficulty.HARD:
                continue
            tally = StreamTally()
            for i in range(args.streams):
                run_stream(
                    diff, size, args.seed + 500 + i, tally, moves=args.moves, still=args.still, hand=args.hand
                )
            print(stream_row(f"{diff.value} / {size}", tally), flush=True)
            errors += tally.errors[:4]
    if args.errors and errors:
        print("stream misreadings:")
        for e in errors:
            print("  " + e)


if __name__ == "__main__":
    sys.exit(main())

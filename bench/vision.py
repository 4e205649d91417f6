"""Benchmark the table reader on seeded synthetic frames: speed and exactness per difficulty, size, decoder.

    python bench/vision.py            # 3 difficulties x 2 sizes x 36 frames = 216 frames, both decoders
    python bench/vision.py --quick    # 3 x 2 x 4 frames, a smoke run

Each frame is a different random table (`vision.synth.random_spec(difficulty, seed)`), read by a fresh
`TableReader` with a hold of 1 (single frames: the figures are per-frame accuracy, before any stabilisation).
Printed per (difficulty, size, decoder): p50 / p95 milliseconds per frame on 2 OpenCV threads (and the p50 of
the map reading alone, `read_map`, which is most of it); the share of
frames whose map is exactly right (every tile on its hex, up to the lattice's shift and turn); the share of
knight locations (territories and castles) read exactly right, counting a location the reader calls unsure
as wrong and leaving out locations under a rendered hand (reported apart: how many of those were flagged
occluded). Aims (issue 4): 1080p p50 < 40 ms; map right >= 99.5% and knights right >= 99.9% on easy and
medium.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# `python bench/vision.py` puts bench/ first on sys.path, where this file would shadow the `vision` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.pipeline import TableReader, align_tiles  # noqa: E402
from vision.qr import Backend  # noqa: E402
from vision.synth import RES_4K, RES_1080P, Difficulty, GroundTruth, TrueDie, random_spec, render_scene  # noqa: E402

SIZES = {"1080p": RES_1080P, "4k": RES_4K}


@dataclass
class Tally:
    ms: list[float] = field(default_factory=list)
    map_ms: list[float] = field(default_factory=list)
    frames: int = 0
    map_right: int = 0
    locations: int = 0
    knights_right: int = 0
    occluded: int = 0
    occluded_flagged: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.ms += other.ms
        self.map_ms += other.map_ms
        self.frames += other.frames
        self.map_right += other.map_right
        self.locations += other.locations
        self.knights_right += other.knights_right
        self.occluded += other.occluded
        self.occluded_flagged += other.occluded_flagged
        self.errors += other.errors


def truth_dice(truth: GroundTruth) -> Callable[..., list[TrueDie]]:
    """`--dice truth`: the renderer's dice (whole-die boxes, as `vision.dice` reports; hidden ones left out),
    to measure everything after the dice finder (map, assignment to tiles, colour, sums) on its own."""

    def read(image: Any, region: Any = None, calibration: Any = None) -> list[TrueDie]:
        return [TrueDie(tuple(int(v) for v in d.box), d.value) for d in truth.dice if not d.hidden]

    return read


def score(reader: TableReader, image: np.ndarray, truth: GroundTruth, tally: Tally, label: str) -> None:
    t0 = time.perf_counter()
    result = reader.read(image)
    tally.ms.append((time.perf_counter() - t0) * 1000.0)
    tally.map_ms.append(result.timings_ms.get("map", float("nan")))
    tally.frames += 1
    raw = result.raw
    tiles = align_tiles(dict(raw.tiles), truth.tiles) if raw is not None else {}
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
        elif len(tally.errors) < 12:
            why = "unsure" if raw is not None and loc in raw.unsure else f"read {seen}"
            tally.errors.append(f"{label}: {loc} {why}, truth {want}")


def pct(n: int, d: int) -> str:
    return "   n/a" if d == 0 else f"{100.0 * n / d:6.2f}%"


def row(name: str, t: Tally) -> str:
    p50 = statistics.median(t.ms) if t.ms else float("nan")
    p95 = float(np.percentile(t.ms, 95)) if t.ms else float("nan")
    map50 = statistics.median(t.map_ms) if t.map_ms else float("nan")
    return (f"{name:<28} {t.frames:>6} {p50:>8.1f} {p95:>8.1f} {map50:>8.1f} {pct(t.map_right, t.frames):>9} "
            f"{pct(t.knights_right, t.locations):>9} {t.locations:>6} "
            f"{t.occluded_flagged:>4}/{t.occluded:<4}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="4 frames per difficulty and size")
    p.add_argument("--frames", type=int, default=36, help="frames per difficulty and size (default 36)")
    p.add_argument("--sizes", default="1080p,4k", help="comma-separated: 1080p,4k")
    p.add_argument("--difficulties", default="easy,medium,hard", help="comma-separated: easy,medium,hard")
    p.add_argument("--decoders", default="zxing,pyzbar", help="comma-separated: zxing,pyzbar")
    p.add_argument("--threads", type=int, default=2, help="OpenCV threads (CI has 2 cores)")
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--errors", action="store_true", help="print the first misreadings per group")
    p.add_argument("--dice", choices=("network", "truth"), default="network",
                   help="dice finder: vision.dice (default) or the renderer's truth (isolates the rest)")
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
          f"{args.threads} OpenCV threads, seeds {args.seed}..{args.seed + n - 1}, dice finder: {args.dice}")
    frames: dict[tuple[Difficulty, str], list[tuple[np.ndarray, GroundTruth]]] = {}
    t0 = time.perf_counter()
    for diff in chosen:
        for size in sizes:
            frames[diff, size] = [
                render_scene(random_spec(diff, args.seed + i, resolution=SIZES[size]), args.seed + i)
                for i in range(n)
            ]
    print(f"rendered in {time.perf_counter() - t0:.1f} s\n")
    header = (f"{'difficulty / size / decoder':<28} {'frames':>6} {'p50 ms':>8} {'p95 ms':>8} {'map p50':>8} "
              f"{'map ok':>9} "
              f"{'knights':>9} {'locs':>6} {'hand flagged'}")
    print(header)
    print("-" * len(header))
    errors: list[str] = []
    for dec in decoders:
        easy_medium = Tally()
        for size in sizes:
            for diff in chosen:
                tally = Tally()
                for i, (image, truth) in enumerate(frames[diff, size]):
                    dice = truth_dice(truth) if args.dice == "truth" else None
                    reader = TableReader(hold_frames=1, backend=backends[dec], dice_reader=dice)
                    score(reader, image, truth, tally, f"{diff.value}/{size}/{dec} seed {args.seed + i}")
                print(row(f"{diff.value} / {size} / {dec}", tally), flush=True)
                if diff is not Difficulty.HARD:
                    easy_medium.add(tally)
                errors += tally.errors[:4]
        print(row(f"easy+medium / all / {dec}", easy_medium))
        print()
    if args.errors:
        print("first misreadings:")
        for e in errors:
            print("  " + e)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark the map side on seeded synthetic tables: the map and the cards by camera angle, read alone, after
set-up, and tracked over the confirmed map; how a blurred frame is told from a sharp one; what a frame costs.

    python bench/maptrack.py                 # tilts 0..60, 12 tables each; blur on 60 held-out tables
    python bench/maptrack.py --quick         # 3 tables per tilt, 12 for blur

Map and cards, per camera tilt (1080p, `random_spec(MEDIUM)` tables of 2-4 players, tilt forced). A table is
seen at set-up (no knights, another frame's light), then in play (knights on it). Printed:
- `alone`: the play frame's map read by itself (`read_map`), exactly right (every tile on its hex, up to the
  numbering);
- `set-up`: a `TableReader` that saw the set-up frame reads the play frame (no map confirmed): its stable
  map exactly right;
- `tracked`: the same after `confirm_map(the true layout)` (the owner's confirmation in the app): the stable
  map exactly right, the share of tiles found in the frame (a code of theirs found), and the share whose
  outline lies within a tenth of a tile of the true one (what the knights are counted over);
- cards: the share of face-up cards the play frame reads face up, alone (`read_map`), after set-up, tracked;
- p50 ms of the play frame, read whole, not tracked and tracked (2 threads; the machine's speed is printed).

Blur, on tables never used to choose the threshold (seeds from 500000; `vision.blur` was tuned on seeds
9000..9099): each table sharp (sigma 0.3-1.2 px), a little soft (1.3-1.9, no aim), out of focus (2-3) and
moving (a 5-9 px smear at any angle, over sigma 0.3-1.0), at 1080p and 4K (blur in the frame's own pixels
scaled by its width), tilts 0-50; each frame read alone by a fresh `TableReader`, and tracked. Printed: the
share called blurred per kind (false alarms for sharp, misses for out of focus and moving).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, this folder is sys.path[0] and its vision.py would shadow the vision package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench.vision import machine_speed_ms  # noqa: E402
from vision.mapreader import read_map, same_layout  # noqa: E402
from vision.pipeline import TableReader, align_tiles  # noqa: E402
from vision.sources import Status  # noqa: E402
from vision.synth import RES_4K, RES_1080P, Difficulty, GroundTruth, SceneSpec, random_spec, render_scene  # noqa: E402
from vision.tags import TILE_SIZE_MM  # noqa: E402

TILTS = (0.0, 20.0, 35.0, 45.0, 50.0, 55.0, 60.0)


@dataclass
class Row:
    tables: int = 0
    alone: int = 0
    setup: int = 0
    tracked: int = 0
    tiles: int = 0
    found: int = 0
    placed: int = 0
    cards: int = 0
    cards_alone: int = 0
    cards_setup: int = 0
    cards_tracked: int = 0
    ms_setup: list[float] = field(default_factory=list)
    ms_tracked: list[float] = field(default_factory=list)


def face_up(truth: GroundTruth) -> set[str]:
    return {a for a, up in truth.artefacts.items() if up}


def timed(reader: TableReader, image: np.ndarray) -> tuple[object, float]:
    t0 = time.perf_counter()
    result = reader.read(image)
    return result, (time.perf_counter() - t0) * 1000.0


def one_table(tilt: float, seed: int, row: Row) -> None:
    spec = random_spec(Difficulty.MEDIUM, seed).with_(tilt_deg=tilt)
    setup, _ = render_scene(spec.with_(knights={}), seed + 50_000)
    image, truth = render_scene(spec, seed)
    up = face_up(truth)
    row.tables += 1
    row.cards += len(up)
    alone = read_map(image)
    row.alone += same_layout(alone.tiles, truth.tiles)
    row.cards_alone += len(up & set(alone.cards))

    plain = TableReader(hold_frames=1, incremental=False)
    plain.read(setup)
    result, ms = timed(plain, image)
    row.ms_setup.append(ms)
    row.setup += align_tiles(dict(plain.stable.tiles), truth.tiles) == truth.tiles
    raw = result.raw  # type: ignore[attr-defined]
    row.cards_setup += len(up & {a for a, s in (raw.artefacts.items() if raw else ()) if s})

    tracked = TableReader(hold_frames=1, incremental=False)
    tracked.read(setup)
    tracked.confirm_map(truth.tiles)
    tracked.read(setup)  # the frame after the confirmation starts the tracking (as the app's next frame)
    result, ms = timed(tracked, image)
    row.ms_tracked.append(ms)
    row.tracked += dict(tracked.stable.tiles) == truth.tiles
    raw = result.raw  # type: ignore[attr-defined]
    row.cards_tracked += len(up & {a for a, s in (raw.artefacts.items() if raw else ()) if s})
    view = result.map  # type: ignore[attr-defined]
    row.tiles += len(truth.tiles)
    if view is not None:
        row.found += len(set(view.tiles.values()) & set(truth.tiles.values()))
        size_px = TILE_SIZE_MM * truth.px_per_mm
        for tid, poly in truth.tile_polygons.items():
            got = view.polygons.get(tid)
            if got is not None and math.dist(got.mean(axis=0), poly.mean(axis=0)) < 0.1 * size_px:
                row.placed += 1


def pct(n: int, d: int) -> str:
    return "   n/a" if d == 0 else f"{100.0 * n / d:6.1f}%"


def map_rows(tilts: list[float], n: int, seed: int) -> None:
    print("map and cards by tilt, 1080p, medium tables (2-4 players)")
    head = (f"{'tilt':>5} {'tables':>6} {'alone':>7} {'set-up':>7} {'tracked':>7} {'found':>7} {'placed':>7} "
            f"{'cards':>5} {'alone':>7} {'set-up':>7} {'tracked':>7} {'ms set-up':>9} {'ms tracked':>10}")
    print(head)
    print("-" * len(head))
    for tilt in tilts:
        row = Row()
        for i in range(n):
            one_table(tilt, seed + i, row)
        maps = [pct(k, row.tables) for k in (row.alone, row.setup, row.tracked)]
        maps += [pct(k, row.tiles) for k in (row.found, row.placed)]
        cards = [pct(k, row.cards) for k in (row.cards_alone, row.cards_setup, row.cards_tracked)]
        ms = f"{statistics.median(row.ms_setup):>9.1f} {statistics.median(row.ms_tracked):>10.1f}"
        print(f"{tilt:5.0f} {row.tables:>6} " + " ".join(f"{m:>7}" for m in maps) + f" {row.cards:>5} "
              + " ".join(f"{c:>7}" for c in cards) + f" {ms}", flush=True)


def smeared(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    k = np.zeros((61, 61), np.float32)
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    start = (round((30 - dx) * 16), round((30 - dy) * 16))
    cv2.line(k, start, (round((30 + dx) * 16), round((30 + dy) * 16)), 1.0, 1, cv2.LINE_AA, shift=4)
    return np.asarray(cv2.filter2D(image, -1, k / k.sum()), np.uint8)


KINDS = ("sharp", "soft", "defocus", "motion")


def blurred_frame(spec: SceneSpec, kind: str, seed: int, rng: np.random.Generator) -> np.ndarray:
    scale = spec.resolution[0] / RES_1080P[0]
    motion = 0.0
    if kind == "sharp":
        sigma = float(rng.uniform(0.3, 1.2))
    elif kind == "soft":
        sigma = float(rng.uniform(1.3, 1.9))
    elif kind == "defocus":
        sigma = float(rng.uniform(2.0, 3.0))
    else:
        sigma, motion = float(rng.uniform(0.3, 1.0)), float(rng.uniform(5.0, 9.0))
    # the renderer blurs a 4K frame by sigma * sqrt(2): ask it for the same blur in angle as at 1080p
    image, _ = render_scene(spec.with_(blur_sigma=sigma * math.sqrt(scale)), seed)
    if motion:
        image = smeared(image, motion * scale, float(rng.uniform(0.0, math.pi)))
    return image


def blur_rows(n: int, seed: int, sizes: list[str]) -> None:
    print("\nblur: share of frames called blurred (held-out tables; sharp = false alarms, out of focus and "
          "moving = detections)")
    head = f"{'size':<6} {'read':<8} " + " ".join(f"{k:>9}" for k in KINDS) + f" {'frames':>7}"
    print(head)
    print("-" * len(head))
    for size in sizes:
        res = RES_4K if size == "4k" else RES_1080P
        counts = {(mode, k): [0, 0] for mode in ("alone", "tracked") for k in KINDS}
        for i in range(n):
            s = seed + i
            rng = np.random.default_rng(s)
            diff = (Difficulty.EASY, Difficulty.MEDIUM, Difficulty.HARD)[i % 3]
            spec = random_spec(diff, s, resolution=res).with_(tilt_deg=float(rng.uniform(0.0, 50.0)))
            tracked = TableReader(hold_frames=1, incremental=False)
            setup, truth = render_scene(spec.with_(knights={}, occluders=0, blur_sigma=0.5), s + 50_000)
            tracked.read(setup)
            tracked.confirm_map(truth.tiles)
            tracked.read(setup)
            for kind in KINDS:
                image = blurred_frame(spec, kind, s, rng)
                alone = TableReader(hold_frames=1, incremental=False).read(image)
                for mode, result in (("alone", alone), ("tracked", tracked.read(image))):
                    counts[mode, kind][0] += result.status is Status.BLURRED
                    counts[mode, kind][1] += 1
        for mode in ("alone", "tracked"):
            cells = " ".join(f"{pct(*counts[mode, k]):>9}" for k in KINDS)
            print(f"{size:<6} {mode:<8} {cells} {n:>7}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="3 tables per tilt, 12 for blur")
    p.add_argument("--tables", type=int, default=12, help="tables per tilt")
    p.add_argument("--blur-tables", type=int, default=60, help="tables for the blur rows, per size")
    p.add_argument("--tilts", default=",".join(f"{t:g}" for t in TILTS))
    p.add_argument("--sizes", default="1080p,4k", help="blur rows' frame sizes")
    p.add_argument("--seed", type=int, default=3000)
    p.add_argument("--no-map", action="store_true")
    p.add_argument("--no-blur", action="store_true")
    args = p.parse_args(argv)
    cv2.setNumThreads(2)
    n = 3 if args.quick else args.tables
    blur_n = 12 if args.quick else args.blur_tables
    print(f"bench/maptrack.py: machine speed (the dice finder on a fixed view): {machine_speed_ms():.1f} ms")
    if not args.no_map:
        map_rows([float(t) for t in args.tilts.split(",")], n, args.seed)
    if not args.no_blur:
        blur_rows(blur_n, 500_000, [s.strip() for s in args.sizes.split(",") if s.strip()])
    print(f"machine speed at the end: {machine_speed_ms():.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

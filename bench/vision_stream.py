"""The realism benchmark's tables as a camera stream: the stable reading the app shows, and the time of a
frame of a stream (`bench/realtable/stream.py`; docs/realism-bench.md, "Streams").

    python bench/vision_stream.py              # the full run (about 30 minutes on 2 cores)
    python bench/vision_stream.py --quick      # a few minutes: every group, fewer scenes

Per group (the realism benchmark's 1080p groups of clean and realistic tables, `bench/vision_real.py`, the
same scenes) and phase (the table at rest; after a territory's knights were lifted off) it prints what the
stable reading said after `--reads` frames: knights right, flagged, silently wrong, as `bench/vision_real.py`
counts them; and the time of each frame read in the stream (p50 / p95), with the frames the stable reading
took to show the move (a loss: rule 4 of `vision.stability` holds it three times `hold_frames`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this folder is sys.path[0] and its vision.py would shadow the vision package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from bench.realtable.protocol import Tally  # noqa: E402
from bench.realtable.report import HEADER, misses_text, row  # noqa: E402
from bench.realtable.scene import RES_1080P, Level  # noqa: E402
from bench.realtable.stream import PHASES, run_stream  # noqa: E402
from bench.realtable.tables import make_scene  # noqa: E402
from bench.vision_real import Group, finished, groups, machine_speed_ms  # noqa: E402


def streamed(quick: bool) -> list[Group]:
    """The realism benchmark's 1080p groups of clean and realistic tables."""
    return [
        g for g in groups(quick) if g.level in (Level.CLEAN, Level.REALISTIC) and g.resolution == RES_1080P
    ]


def shown_text(to_show: list[int | None], reads: int) -> str:
    shown = [n for n in to_show if n is not None]
    if not to_show:
        return "no moves"
    median = f", median {statistics.median(shown):g} frames" if shown else ""
    return f"moves shown {len(shown)}/{len(to_show)} within {reads} frames{median} (of those right at rest)"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="every group with an eighth of its scenes")
    p.add_argument("--frames", type=int, default=2, help="game frames per scene, each a stream (default 2)")
    p.add_argument("--reads", type=int, default=24, help="frames read per stream and phase (default 24)")
    p.add_argument("--errors", type=int, nargs="?", const=50, default=0, metavar="N",
                   help="list up to N misread locations per group and phase (default 50)")
    p.add_argument("--threads", type=int, default=2, help="OpenCV's threads (2 cores)")
    args = p.parse_args(argv)
    if args.frames < 1 or args.reads < 1:
        p.error(f"--frames and --reads take a whole number of 1 or more, got {args.frames} and {args.reads}")
    cv2.setNumThreads(args.threads)
    chosen = streamed(args.quick)
    print(
        f"bench/vision_stream.py: {len(chosen)} groups, {sum(g.scenes for g in chosen)} scenes, "
        f"{args.frames} game frames each, {args.reads} frames read per stream and phase (hold 5, zxing)"
    )
    t_start = time.perf_counter()
    speed = machine_speed_ms()
    print(f"machine speed (bench/vision_real.py's yardstick): {speed:.1f} ms\n")
    print(HEADER.replace("mode          ", "phase         "))
    print("-" * len(HEADER))
    misses = []
    for g in chosen:
        tallies = {phase: Tally() for phase in PHASES}
        to_show: list[int | None] = []
        for s in range(g.scenes):
            scene = make_scene(g.level, g.seed + s, g.family, g.resolution, tilt=g.tilt)
            run = run_stream(scene, min(args.frames, g.frames), args.reads, g.name)
            for phase, t in run.tallies.items():
                tallies[phase].add(t)
            to_show += run.to_show
            misses += run.misses
        for phase, t in tallies.items():
            print(row(g.name, phase, t), flush=True)
        flagged = ", ".join(f"{d} {n}" for d, n in (tallies[PHASES[0]].flagged_for.most_common()))
        print(f"{'':<34} {shown_text(to_show, args.reads)}; at rest flagged for: {flagged or 'nothing'}",
              flush=True)
    if args.errors:
        print("\nmisreadings of the stable reading (truth vs read; FLAGGED: asked, silent: stated wrong):")
        for line in misses_text(misses, args.errors):
            print("  " + line)
    print(finished(t_start, speed))
    return 0


if __name__ == "__main__":
    sys.exit(main())

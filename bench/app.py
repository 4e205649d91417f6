"""App benchmark (prints figures; not a test).

1. Cold start to an interactive table screen: a fresh Python process that imports Kivy and the app, opens the
   game database, starts a game, builds every screen and draws the first frame of the table. Measured from
   process launch by the parent (aim < 2.5 s).
2. UI frame time while the synthetic camera runs: the demo's synthetic camera renders a pretend table that
   changes every second, vision reads it in worker threads, readings go through reconciliation and
   are confirmed; meanwhile the window's frames are timed (aim 60 fps, no frame over 50 ms).

    python bench/app.py [--seconds 10] [--size 1280x800]

Diagnostics (environment variables): BENCH_PROFILE=1 profiles each frame over 300 ms; BENCH_TEXT=1 names each
text render over 50 ms; BENCH_NO_CAMERA=1 makes the same moves with no camera process (all tapped).
Offscreen here means Mesa's software renderer on a shared 2-core machine: the load average is printed with the
figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this folder is sys.path[0] and its engine.py would shadow the engine package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))


def child(seconds: float, size: str) -> None:
    t0 = time.perf_counter()
    if os.environ.get("BENCH_SWITCH"):
        sys.setswitchinterval(float(os.environ["BENCH_SWITCH"]))
    os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    os.environ.setdefault("KIVY_IMAGE", "tex,dds,sdl2")  # as the app does (companion.demo)
    from kivy.config import Config

    w, h = size.split("x")
    Config.set("graphics", "width", w)
    Config.set("graphics", "height", h)
    if os.environ.get("BENCH_TEXT"):
        from kivy.core.text import LabelBase

        real = LabelBase._render_real

        def timed(self: Any) -> Any:
            t = time.perf_counter()
            out = real(self)
            d = time.perf_counter() - t
            if d > 0.05:
                size = self.options.get("font_size")
                print(
                    f"slow text {d * 1000:.0f} ms: {str(self.text)[:60]!r} size={size} "
                    f"text_size={self.text_size} markup={type(self).__name__}",
                    flush=True,
                )
            return out

        LabelBase._render_real = timed
    import tempfile

    from kivy.app import App
    from kivy.base import EventLoop
    from kivy.core.window import Window

    from companion.app import AppServices, SeneschalApp
    from companion.pipeline import demo_config, scene_spec
    from companion.rolling import ScreenRollerAdapter
    from companion.session import EngineFactory, EngineSession
    from companion.storage import SqliteStorage

    tmp = tempfile.mkdtemp()
    storage = SqliteStorage(Path(tmp) / "bench.sqlite3")
    session = EngineSession.create(demo_config(7), storage, knowledge="full")
    from companion.feedproc import ProcessFeed
    from companion.pipeline import vision_available

    why = vision_available()
    camera_note = (
        "vision pipeline in its own process"
        if not why
        else f"synthetic camera with ground-truth readings in its own process ({why})"
    )
    feed: ProcessFeed | None = ProcessFeed(
        ("synthetic", scene_spec(session.state, session.board)), ("vision", 2) if not why else ("truth", 0)
    )
    table: Any = feed
    if os.environ.get("BENCH_NO_CAMERA"):  # diagnostic: the same moves, all tapped, no camera process
        feed = None
    propose_ms: list[int] = []
    real_propose = session.propose

    def timed_propose(reading: Any) -> Any:
        t = time.perf_counter()
        try:
            return real_propose(reading)
        finally:
            propose_ms.append(round((time.perf_counter() - t) * 1000))

    session.propose = timed_propose  # type: ignore[method-assign]
    services = AppServices(
        storage=storage,
        factory=EngineFactory(storage, knowledge="full"),
        roller=ScreenRollerAdapter(),
        feed=feed,
        auto_confirm=0.2,
    )
    app = SeneschalApp(services)
    App._running_app = app
    EventLoop.ensure_window()
    root = app.build()
    Window.add_widget(root)
    app.root = root
    app.attach(session)
    EventLoop.idle()
    ready = time.perf_counter() - t0
    print(f"READY {ready:.3f}", flush=True)

    # frame timing while the camera works and moves are confirmed
    import random

    from engine.playout import choose
    from engine.rules import apply

    rng = random.Random(7)
    import gc

    gc_pauses: list[tuple[int, float]] = []
    gc_start = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_start[0] = time.perf_counter()
        else:
            gc_pauses.append((info["generation"], (time.perf_counter() - gc_start[0]) * 1000))

    gc.callbacks.append(on_gc)
    frames: list[float] = []
    last = time.perf_counter()
    next_move = last + 1.0
    end = last + seconds
    moves = 0
    move_frames: list[int] = []
    tapped: list[tuple[str, int]] = []
    camera_latency: list[tuple[str, int]] = []
    waiting: tuple[int, float, str] | None = None
    idle_slow: list[tuple[int, int]] = []
    import cProfile
    import pstats

    prof = cProfile.Profile() if os.environ.get("BENCH_PROFILE") else None
    while time.perf_counter() < end:
        t_idle = time.perf_counter()
        if prof is not None:
            prof = cProfile.Profile()
            prof.enable()
        EventLoop.idle()
        if prof is not None:
            prof.disable()
        now = time.perf_counter()
        if prof is not None and now - t_idle > 0.3:
            print(f"--- slow frame {round((now - t_idle) * 1000)} ms")
            pstats.Stats(prof).sort_stats("tottime").print_stats(12)
        if now - t_idle > 0.1:
            idle_slow.append((len(frames) - 4, round((now - t_idle) * 1000)))
        frames.append(now - last)
        last = now
        if waiting is not None:  # a move made on the pretend table: wait for the camera and the confirm
            before, since, kind = waiting
            if len(session.actions) > before:
                camera_latency.append((kind, round((now - since) * 1000)))
                waiting = None
                next_move = now + 0.5
            elif now - since > 10:
                camera_latency.append((kind, -1))  # not seen in 10 s
                waiting = None
            continue
        if now >= next_move and session.state.winner is None:
            next_move = now + 0.5
            move_frames.append(len(frames) - 5)
            action = choose(session.state, rng)
            expected, _ = apply(session.state, action)
            camera_move = action.TYPE in ("advance", "redistribute", "end_turn", "play_call_to_arms")
            if feed is not None and camera_move:
                table.set_table(scene_spec(expected, session.board))
                waiting = (len(session.actions), now, action.TYPE)
            else:
                t_move = time.perf_counter()
                session.apply(action)
                app.after_move()
                table.set_table(scene_spec(session.state, session.board))
                tapped.append((action.TYPE, round((time.perf_counter() - t_move) * 1000)))
            moves += 1
    if feed is not None:
        feed.stop()
    frames = frames[5:]  # the first frames include texture uploads of every label
    slow = sorted(((round(f * 1000), i) for i, f in enumerate(frames) if f > 0.05), reverse=True)
    print(f"slowest frames (ms, index): {slow[:8]}; moves made at frames {move_frames}")
    print(f"tapped moves (type, ms to apply, store and update every presenter): {tapped}")
    print(f"slow EventLoop.idle calls (frame, ms): {idle_slow}")
    print(f"reconciliation (worker thread) ms per reading: {propose_ms}")
    print(f"camera moves (type, ms from table change to confirmed move; -1 = not seen): {camera_latency}")
    worst_gc = sorted(gc_pauses, key=lambda g: -g[1])[:3]
    print(
        f"garbage collections: {len(gc_pauses)}, longest (generation, ms): "
        f"{[(g, round(ms)) for g, ms in worst_gc]}"
    )
    frames_ms = sorted(f * 1000 for f in frames)
    p99 = frames_ms[int(len(frames_ms) * 0.99) - 1]
    print(f"camera: {camera_note}; machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"frames: {len(frames_ms)} in {seconds:.0f} s = {len(frames_ms) / seconds:.1f} fps; "
        f"median {statistics.median(frames_ms):.1f} ms, p99 {p99:.1f} ms, max {frames_ms[-1]:.1f} ms, "
        f"frames over 50 ms: {sum(1 for f in frames_ms if f > 50)}"
    )
    print(
        f"moves attempted {moves}, applied {len(session.actions)}, camera readings posted "
        f"{getattr(feed, 'readings_posted', 0)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.seconds, args.size)
        return
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = []
    out = ""
    for i in range(3):
        start = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--child",
                "--seconds",
                str(args.seconds if i == 2 else 0.5),
                "--size",
                args.size,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("READY"):
                runs.append((time.perf_counter() - start, float(line.split()[1])))
            elif i == 2:
                out += line
        proc.wait()
    walls = [r[0] for r in runs]
    print(
        f"cold start to interactive table screen ({args.size}): "
        f"{', '.join(f'{w:.2f}' for w in walls)} s (process launch → first table frame; in-process part "
        f"{runs[-1][1]:.2f} s); aim < 2.5 s"
    )
    print(out.rstrip())


if __name__ == "__main__":
    main()

"""A camera stream at a table at rest, then a move: what the players see on the app's screen is the stable
reading (`vision.stability`) of a stream, not one frame's. Per game frame (no hand over the table):

1. a reader started as after set-up (`protocol._started`) reads `reads` frames of the table at rest, two
   exposures in turn (the same table, the sensor's noise and the JPEG differing, as a camera's frames do);
   its stable reading is then scored against the truth (`protocol.score`: right, flagged, silently wrong);
2. a territory's knights are lifted off the table (a battle's losses: the longer hold of rule 4) and the
   same reader reads `reads` frames of that, two exposures in turn; the stable reading is scored again, and
   where it showed that territory's knights surely and right at rest, the frames it took to show it empty
   are counted.
Every read is timed: the time of a frame of a stream once the table is known.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from bench.realtable.protocol import Miss, Tally, _started, app_reader, calibrate, score
from bench.realtable.render import render
from bench.realtable.scene import Frame, Scene, Truth
from bench.realtable.tables import game_frame, setup_frame
from engine.colours import Colour

REST, MOVED = "at rest", "after a move"
PHASES = (REST, MOVED)


@dataclass
class StreamRun:
    """What one scene's streams gave: a tally per phase (of stable readings, with its reads' times), and per
    move the frames until the stable reading showed it (None: not within the stream)."""

    tallies: dict[str, Tally] = field(default_factory=lambda: {p: Tally() for p in PHASES})  # reads' ms too
    misses: list[Miss] = field(default_factory=list)
    to_show: list[int | None] = field(default_factory=list)


def lifted(frame: Frame, rng: np.random.Generator) -> tuple[Frame, str] | None:
    """`frame` with one territory's knights taken off the table (chosen by `rng`), and which; None when no
    territory holds any."""
    held = sorted({d.location for d in frame.dice if d.location is not None and d.location.startswith("T")})
    if not held:
        return None
    where = held[int(rng.integers(len(held)))]
    return dataclasses.replace(frame, dice=tuple(d for d in frame.dice if d.location != where)), where


def run_stream(scene: Scene, frames: int, reads: int, group: str) -> StreamRun:
    """`frames` game frames of `scene`, each a stream at rest then after a move (module docstring)."""
    setup_img, _ = render(setup_frame(scene))
    cal = calibrate(setup_img, scene)
    out = StreamRun()
    rng = np.random.default_rng([scene.seed, 11])
    for i in range(1, frames + 1):
        frame = dataclasses.replace(game_frame(scene, i), hands=())
        move = lifted(frame, rng)
        rest = [render(dataclasses.replace(frame, seed=frame.seed + k)) for k in (0, 1)]
        if rest[0][1].blurred or move is None:
            continue
        after = [render(dataclasses.replace(move[0], seed=frame.seed + k)) for k in (2, 3)]
        reader = _started(app_reader(cal.calibration), setup_img, scene, rest[0][1])
        result = _stream(reader, [im for im, _ in rest], reads, out.tallies[REST].ms)
        _score_stable(result, rest[0][1], out.tallies[REST], out.misses, (group, REST, scene.seed, i))
        # the move is timed where the stable reading showed the territory's knights, surely and right
        timed = _shows(result.reading, move[1], rest[0][1].knights.get(move[1], {}))
        shown: list[int] = []
        images = [im for im, _ in after]
        result = _stream(reader, images, reads, out.tallies[MOVED].ms, until=(move[1], shown))
        _score_stable(result, after[0][1], out.tallies[MOVED], out.misses, (group, MOVED, scene.seed, i))
        if timed:
            out.to_show.append(shown[0] if shown else None)
    return out


def _stream(
    reader: Any, images: list[np.ndarray], reads: int, ms: list[float],
    until: tuple[str, list[int]] | None = None,
) -> Any:
    """`reads` frames of `images` in turn, each timed into `ms`; `until`: a territory and a list that gets the
    number of frames read when the stable reading first showed it empty and sure."""
    result = None
    for k in range(reads):
        t0 = time.perf_counter()
        result = reader.read(images[k % len(images)])
        ms.append((time.perf_counter() - t0) * 1000)
        if until is not None and not until[1] and _shows(result.reading, until[0], {}):
            until[1].append(k + 1)
    return result


def _shows(reading: Any, where: str, knights: dict[Colour, int]) -> bool:
    """Whether `reading` states `knights` at `where`, surely."""
    return where not in reading.unsure and dict(reading.knights_at(where)) == knights


def _score_stable(
    result: Any, truth: Truth, tally: Tally, misses: list[Miss], where: tuple[str, str, int, int]
) -> None:
    """`protocol.score` of the stable reading (what the app shows), not the last frame's."""
    score(SimpleNamespace(raw=result.reading, status=result.status), truth, tally, misses, where)

"""The realism bench's protocol: what it times besides the first frame of a game."""

from __future__ import annotations

from typing import Any

import numpy as np

from bench.realtable.protocol import BARE_FIRST, app_reader, run_scene
from bench.realtable.report import extras
from bench.realtable.scene import RES_1080P, Family, Level
from bench.realtable.tables import make_scene
from vision.tracked import LOOK_AROUND_FIRST


class _Counting:
    """The app's reader, counting the frames it reads after the map was confirmed."""

    def __init__(self, calibration: Any) -> None:
        self.reader = app_reader(calibration)
        self.confirmed_reads = 0
        self.reads_before = 0
        self.confirmed = False

    def read(self, frame: Any) -> Any:
        self.confirmed_reads += self.confirmed
        self.reads_before += not self.confirmed
        return self.reader.read(frame)

    def confirm_map(self, *args: Any, **kwargs: Any) -> None:
        self.confirmed = True
        self.reader.confirm_map(*args, **kwargs)


def test_frames_in_play_are_timed_by_a_reader_past_its_first_frames() -> None:
    readers: list[_Counting] = []

    def make(calibration: Any) -> _Counting:
        readers.append(_Counting(calibration))
        return readers[-1]

    scene = make_scene(Level.CLEAN, 500_003, Family.TRAIN, RES_1080P, tilt=None)
    run = run_scene(scene, 2, "clean", make_reader=make)
    after = run.tallies["after set-up"]
    assert len(after.ms) == 2 and len(after.play_ms) == 2
    assert not run.tallies["alone"].play_ms
    # per frame a reader for the first frame and one alone; one reader per scene in play, which reads the two
    # frames in turn past its first frames, then each once more
    playing = [r for r in readers if r.confirmed_reads > 1]
    assert len(playing) == 1 and playing[0].confirmed_reads == max(LOOK_AROUND_FIRST, 2) + 2
    assert all(r.confirmed_reads == 1 for r in readers if r.confirmed and r is not playing[0])
    assert "in play p50" in extras(after)
    # per frame, one reader read the bare map and the set-up frame before it was told the map
    assert len(run.tallies[BARE_FIRST].ms) == 2 and run.tallies[BARE_FIRST].locations > 0
    assert sum(r.reads_before == 2 for r in readers) == 2



class _Reads:
    def __init__(self) -> None:
        self.frames: list[Any] = []

    def read(self, frame: Any) -> None:
        self.frames.append(frame)


def test_a_scene_with_one_unblurred_frame_times_nothing_in_play() -> None:
    """A frame read again unchanged is hardly read at all: with fewer than two frames nothing is timed, and
    the reader reads nothing."""
    from bench.realtable.protocol import _in_play

    scene = make_scene(Level.CLEAN, 500_003, Family.TRAIN, RES_1080P, tilt=None)
    reader = _Reads()
    one = [(np.zeros((4, 4, 3), np.uint8), None)]
    assert _in_play(reader, np.zeros((4, 4, 3), np.uint8), scene, one) == []  # type: ignore[arg-type]
    assert not reader.frames

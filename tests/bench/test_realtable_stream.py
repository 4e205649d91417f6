"""The realism tables as a camera stream (`bench/realtable/stream.py`): what it lifts, scores and times."""

from __future__ import annotations

import dataclasses

import numpy as np

from bench.realtable.scene import RES_1080P, Family, Level
from bench.realtable.stream import MOVED, REST, lifted, run_stream
from bench.realtable.tables import game_frame, make_scene


def test_a_move_lifts_every_knight_off_one_territory_and_nothing_else() -> None:
    frame = game_frame(make_scene(Level.CLEAN, 20_000, Family.TRAIN, RES_1080P), 1)
    move = lifted(frame, np.random.default_rng(0))
    assert move is not None
    after, where = move
    assert where.startswith("T") and where in frame.knights() and where not in after.knights()
    assert {k: v for k, v in frame.knights().items() if k != where} == after.knights()
    assert lifted(dataclasses.replace(frame, dice=()), np.random.default_rng(0)) is None


def test_a_stream_scores_the_stable_reading_of_each_phase_and_times_every_read() -> None:
    scene = make_scene(Level.CLEAN, 20_000, Family.TRAIN, RES_1080P)
    run = run_stream(scene, frames=1, reads=6, group="test")
    for phase in (REST, MOVED):
        tally = run.tallies[phase]
        assert len(tally.ms) == 6 and tally.frames == 1
        assert tally.locations == tally.right + tally.flagged + tally.silent + tally.unread > 0
    # six frames are too few for a loss to show (rule 4 holds it three times the hold of 5)
    assert run.to_show in ([], [None])

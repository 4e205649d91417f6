"""Camera feeds: readings and statuses are posted (never applied) from the worker, and the process feed keeps
vision out of the app's process."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from companion.feeds import LiveTableSource, VisionFeed
from companion.pipeline import TruthReader, demo_config, scene_spec
from companion.services import FeedStatus
from companion.session import EngineSession
from companion.storage import SqliteStorage


def _session() -> EngineSession:
    return EngineSession.create(demo_config(7), SqliteStorage(":memory:"), knowledge="full")


def _fast_render(spec: Any, seed: int) -> tuple[Any, Any]:
    img = np.full((120, 160, 3), 90, np.uint8)
    img[::7, ::5] = 250  # not a blank frame
    truth = SimpleNamespace(
        tiles=dict(spec.tiles),
        knights={k: dict(v) for k, v in spec.knights.items()},
        artefacts=dict(spec.artefacts),
    )
    return img, truth


def _wait(cond: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


def test_vision_feed_posts_each_new_table_once() -> None:
    pytest.importorskip("vision.sources")
    s = _session()
    spec = scene_spec(s.state, s.board)
    source = LiveTableSource(spec, render=_fast_render, fps=50)
    truths: list[Any] = []

    class Reader(TruthReader):
        def read(self, image: Any, frame_index: int) -> Any:
            self.truth = _fast_render(source.spec, 0)[1]
            truths.append(frame_index)
            return super().read(image, frame_index)

    feed = VisionFeed(source, Reader(), annotate=False)
    readings: list[Any] = []
    statuses: list[FeedStatus] = []
    feed.start(readings.append, lambda st, _t: statuses.append(st))
    try:
        assert _wait(lambda: len(readings) >= 1 and len(truths) > 5, 10)
        assert len(readings) == 1  # the same table read again and again is posted once
        knights = {k: dict(v) for k, v in spec.knights.items()}
        first = next(iter(knights))
        colour = next(iter(knights[first]))
        knights[first][colour] += 1
        source.set_table(spec.with_(knights=knights))
        assert _wait(lambda: len(readings) == 2, 10)
        assert dict(readings[1].knights[first])[colour] == knights[first][colour]
        assert FeedStatus.STARTING in statuses
    finally:
        feed.stop()
    assert feed.status is FeedStatus.OFF


def test_process_feed_reads_the_pretend_table_in_a_child_process() -> None:
    pytest.importorskip("vision.synth")
    from companion.feedproc import ProcessFeed

    s = _session()
    spec = scene_spec(s.state, s.board, resolution=(960, 540))
    feed = ProcessFeed(("synthetic", spec), ("truth", 0))
    readings: list[Any] = []
    feed.start(readings.append, lambda _st, _t: None)
    try:
        assert _wait(lambda: bool(readings), 60), feed.status_text
        assert {k: dict(v) for k, v in readings[0].knights.items()} == {
            k: dict(v) for k, v in spec.knights.items()
        }
        assert _wait(lambda: feed.latest_preview() is not None, 10)
    finally:
        feed.stop()
    assert feed.status is FeedStatus.OFF

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
from companion.services import ConfirmedMap, FeedStatus
from companion.session import EngineSession
from companion.storage import SqliteStorage
from engine.colours import Colour


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
        assert _wait(lambda: feed.latest_preview() is not None, 10)  # asked for: previews come
        knights = {k: dict(v) for k, v in spec.knights.items()}
        first = next(iter(knights))
        knights[first][next(iter(knights[first]))] += 1
        n = feed.set_table(spec.with_(knights=knights))
        assert _wait(lambda: feed.table_shown is not None and feed.table_shown[0] == n, 20)
        assert feed.table_shown is not None and feed.table_shown[1] <= time.monotonic()
        assert _wait(lambda: len(readings) == 2, 20)  # the camera saw the new table
    finally:
        feed.stop()
    assert feed.status is FeedStatus.OFF


def test_the_pretend_camera_renders_each_table_once_when_it_is_set() -> None:
    pytest.importorskip("vision.sources")
    s = _session()
    spec = scene_spec(s.state, s.board)
    renders: list[int] = []

    def render(sp: Any, seed: int) -> tuple[Any, Any]:
        renders.append(seed)
        return _fast_render(sp, seed)

    source = LiveTableSource(spec, render=render, fps=1000)
    source.open()
    first = source.read()
    assert source.read().image is first.image and len(renders) == 1  # a still table: the same picture
    before = time.monotonic()
    source.set_table(spec.with_(artefacts={}))
    assert len(renders) == 2 and source.shown_at is not None and source.shown_at >= before
    assert source.read().image is not first.image and len(renders) == 2  # drawn when set, not when read


class _Update:
    def __init__(self, status: Any, message: str) -> None:
        self.status, self.message, self.result, self.fresh = status, message, None, False


def test_a_status_whose_text_alone_changes_is_posted_now_and_then() -> None:
    from vision.sources import Status

    feed = VisionFeed(object(), object())
    posted: list[tuple[FeedStatus, str]] = []
    feed._on_status = lambda st, text: posted.append((st, text))
    for i in range(30):  # a second of frames, each with its own number
        feed._update(_Update(Status.OK, f"frame {i}"))
    assert posted == [(FeedStatus.RUNNING, "frame 0")]
    assert feed.status_text == "frame 29"  # asked, the status is always the latest
    feed._update(_Update(Status.NO_SIGNAL, "lens cap"))  # a new status: at once
    assert posted[-1] == (FeedStatus.LOST, "lens cap")


def test_previews_are_drawn_when_asked_not_for_every_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("vision.annotate")
    drawn: list[int] = []
    monkeypatch.setattr("vision.annotate.annotate", lambda image, result: drawn.append(1) or image + 1)
    from vision.sources import Frame

    class Reader:
        def read(self, image: Any, index: int) -> Any:
            return SimpleNamespace(reading=None)

    feed = VisionFeed(object(), Reader())
    image = np.zeros((8, 8, 3), np.uint8)
    for i in range(5):
        feed._process(Frame(image, i, 0.0))
    assert drawn == []
    assert feed.latest_preview() is not None and feed.latest_preview() is not None
    assert drawn == [1]  # once per frame, however often asked


def test_a_blurred_frame_is_said_in_the_camera_status_and_the_map_confirmed_reaches_the_reader() -> None:
    from engine.hexgrid import Hex
    from engine.reading import TableReading
    from vision.sources import Frame, Status

    confirmed: list[Any] = []

    class Reader:
        def confirm_map(self, tiles: Any, players: Any, castles: Any) -> None:
            confirmed.append((dict(tiles), tuple(players), dict(castles)))

        def read(self, image: Any, index: int) -> Any:
            blurred = "the picture is blurred"
            return SimpleNamespace(reading=TableReading(), status=Status.BLURRED, message=blurred)

    feed = VisionFeed(object(), Reader(), annotate=False)
    posted: list[tuple[FeedStatus, str]] = []
    feed._on_status = lambda st, text: posted.append((st, text))
    game = ConfirmedMap({(0, 0): "T01", (1, -1): "K2"}, (Colour.BLUE, Colour.RED), {"K2": Colour.BLUE})
    feed.confirm_map(game)
    assert confirmed == []  # passed on by the camera's own thread, before its next frame
    result = feed._process(Frame(np.zeros((8, 8, 3), np.uint8), 0, 0.0))
    placed = {Hex(0, 0): "T01", Hex(1, -1): "K2"}
    assert confirmed == [(placed, (Colour.BLUE, Colour.RED), {"K2": Colour.BLUE})]
    update = SimpleNamespace(status=Status.OK, message="frame 0", result=result, fresh=True)
    feed._update(update)
    assert posted == [(FeedStatus.RUNNING, "the picture is blurred")]


def test_the_map_and_players_reach_the_camera_process_by_colour_name() -> None:
    from companion.feedproc import ProcessFeed, _castles, _colours

    sent: list[Any] = []
    feed = ProcessFeed(("synthetic", None))
    feed._conn = SimpleNamespace(send=sent.append)
    game = ConfirmedMap({(1, -1): "K2", (0, 0): "T01"}, (Colour.BLUE, Colour.RED), {"K2": Colour.BLUE})
    feed.confirm_map(game)
    assert sent == [("map", [[0, 0, "T01"], [1, -1, "K2"]], ["blue", "red"], {"K2": "blue"})]
    assert _colours(sent[0][2]) == [Colour.BLUE, Colour.RED]
    assert _castles(sent[0]) == {"K2": Colour.BLUE}
    assert _castles(("map", [], [], {"K1": "mauve", "K2": "red"})) == {"K2": Colour.RED}  # mauve: not judged
    assert _castles(("map", [], [])) == {}  # an older message: no castle judged
    assert _colours(["blue", "mauve", 3]) == [Colour.BLUE]  # a name no colour has: that player is asked about
    assert _colours(None) == []


def test_a_real_camera_without_a_saved_calibration_names_no_die_by_the_synthetic_dice() -> None:
    from companion.calibrate import missing_colours
    from companion.feedproc import reader_calibration
    from vision.calibration import default_calibration

    assert reader_calibration("synthetic", None) is None  # the demo's camera: its own dice's colours
    unmeasured = reader_calibration("open", None)
    assert unmeasured.measured == () and missing_colours(unmeasured, [Colour.RED]) == [Colour.RED]
    saved = reader_calibration("open", default_calibration([Colour.RED]).to_json())
    assert saved.measured == (Colour.RED,)
    assert missing_colours(saved, [Colour.RED, Colour.BLUE]) == [Colour.BLUE]

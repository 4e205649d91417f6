"""The app's `ReadingFeed` over vision: a camera source read in vision's worker threads (latest frame wins),
the table reader, and the stable readings posted on (the UI layer marshals them through its clock).

`LiveTableSource` is the demo's synthetic camera: it renders whatever the "physical table" currently holds
(`set_table`), so the demo driver moves knights on a pretend table and the camera sees them move.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from companion.services import ConfirmedMap, FeedStatus

_STATUS = {
    "starting": FeedStatus.STARTING,
    "ok": FeedStatus.RUNNING,
    "no signal": FeedStatus.LOST,
    "camera lost": FeedStatus.LOST,
    "corrupted frame": FeedStatus.RUNNING,
    "no tags": FeedStatus.NO_MAP,
    "blurred": FeedStatus.RUNNING,  # a frame too smeared to read: the last reading stands
    "half a board": FeedStatus.RUNNING,
    "ended": FeedStatus.OFF,
    "error": FeedStatus.LOST,
}


class LiveTableSource:
    """A synthetic camera pointed at a pretend table, delivering frames at `fps` like a real camera.

    `set_table` renders the new table at once (the renderer is seeded, so one picture per table is what a
    still camera would give) and notes when it was ready: `shown_at` is the instant a real camera would first
    have seen the table without the hand, the start of the time the app takes to confirm the move."""

    live = True

    def __init__(
        self, spec: Any, render: Callable[[Any, int], tuple[Any, Any]] | None = None, fps: float = 30.0
    ) -> None:
        self.name = "synthetic camera"
        self.fps: float | None = fps
        self._render = render
        self._lock = threading.Lock()
        self._render_lock = threading.Lock()
        self._spec = spec
        self._version = 0
        self._image: tuple[int, Any] | None = None  # (version, picture)
        self._index = 0
        self._next = 0.0
        self.shown_at: float | None = None  # time.monotonic() when the current table's picture was ready

    @property
    def spec(self) -> Any:
        with self._lock:
            return self._spec

    def set_table(self, spec: Any) -> None:
        with self._lock:
            self._spec = spec
            self._version += 1
            version = self._version
        if self._render is not None:
            self._picture(spec, version)

    def _picture(self, spec: Any, version: int) -> Any:
        """The picture of table `version` (or a newer one), rendered once."""
        with self._render_lock:
            with self._lock:
                cached = self._image
            if cached is not None and cached[0] >= version:
                return cached[1]
            assert self._render is not None
            image, _truth = self._render(spec, 500 + version)
            with self._lock:
                self._image = (version, image)
                self.shown_at = time.monotonic()
            return image

    def open(self) -> None:
        if self._render is None:
            from vision.synth import render_scene

            self._render = render_scene

    def read(self) -> Any:
        from vision.sources import Frame

        delay = self._next - time.monotonic()
        if delay > 0 and self.fps:
            time.sleep(delay)
        self._next = time.monotonic() + (1.0 / self.fps if self.fps else 0.0)
        with self._lock:
            spec, version, cached = self._spec, self._version, self._image
        image = cached[1] if cached is not None and cached[0] == version else self._picture(spec, version)
        self._index += 1
        return Frame(image, self._index, time.monotonic(), self.name)

    def close(self) -> None:
        pass


STATUS_TEXT_EVERY = 2.0  # seconds: a status whose text alone changes ("frame 812") is posted this often


class VisionFeed:
    """`ReadingFeed`: source → vision TableReader in `vision.sources.CameraWorker`; posts each new stable
    reading and every status change. The preview (`annotate`: with the reading drawn on it) is made when it
    is asked for, not for every frame: drawing a 1080p frame is time the reading would otherwise wait for."""

    def __init__(self, source: Any, reader: Any, annotate: bool = True) -> None:
        self.source = source
        self.reader = reader
        self.annotate = annotate
        self._worker: Any = None
        self._status = FeedStatus.OFF
        self._text = "camera off"
        self._last_key: Any = None
        self._preview: tuple[Any, Any] | None = None  # (the frame it was made from, the preview)
        self._last: tuple[Any, Any] | None = None  # (raw frame, the reader's result for it)
        self._text_sent, self._text_posted = "", 0.0
        self._on_reading: Callable[[Any], None] | None = None
        self._on_status: Callable[[FeedStatus, str], None] | None = None
        # a map and its game's players confirmed, for the worker to pass on
        self._map: ConfirmedMap | None = None
        self.readings_posted = 0

    @property
    def status(self) -> FeedStatus:
        return self._status

    @property
    def status_text(self) -> str:
        return self._text

    def start(self, on_reading: Callable[[Any], None], on_status: Callable[[FeedStatus, str], None]) -> None:
        from vision.sources import CameraWorker

        self._on_reading, self._on_status = on_reading, on_status
        self._last_key = None
        self._worker = CameraWorker(self.source, self._process, on_update=self._update)
        self._status, self._text = FeedStatus.STARTING, f"opening {getattr(self.source, 'name', 'camera')}"
        on_status(self._status, self._text)
        self._worker.start()

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        self._status, self._text = FeedStatus.OFF, "camera off"

    def latest_preview(self) -> Any:
        """The newest frame, annotated with what was read in it (None before the first frame)."""
        last = self._last
        if last is None:
            return None
        image, result = last
        if self._preview is not None and self._preview[0] is image:
            return self._preview[1]
        preview = image
        if self.annotate:
            try:
                from vision.annotate import annotate

                preview = annotate(image, result)
            except Exception:  # a drawing problem must never stop the camera: the plain frame instead
                preview = image
        self._preview = (image, preview)
        return preview

    def confirm_map(self, game: ConfirmedMap) -> None:
        """The game's map: passed to the reader before the next frame (in the worker, so the caller never
        waits for a frame), when the reader takes one (`vision.pipeline.TableReader`)."""
        self._map = game

    def latest(self) -> tuple[Any, Any] | None:
        """The last raw frame and the reader's result for it (for measuring dice colours at box setup)."""
        return self._last

    def _process(self, frame: Any) -> Any:
        confirmed, self._map = self._map, None
        if confirmed is not None:
            self._confirm(confirmed)
        result = self.reader.read(frame.image, frame.index)
        self._last = (frame.image, result)
        return result

    def _confirm(self, game: ConfirmedMap) -> None:
        from engine.hexgrid import Hex
        from vision.pipeline import ConfirmsMap
        from vision.tracking import MapConflictError

        if isinstance(self.reader, ConfirmsMap):
            try:
                tiles = {Hex(q, r): t for (q, r), t in game.tiles.items()}
                self.reader.confirm_map(tiles, game.players, game.castles)
            except MapConflictError as exc:  # a map naming a tile twice: told, never the end of the camera
                if self._on_status is not None:
                    self._on_status(self._status, str(exc))

    def _update(self, update: Any) -> None:
        status = _STATUS.get(getattr(update.status, "value", ""), FeedStatus.RUNNING)
        text = str(update.message)
        read = getattr(update.result, "status", None) if update.fresh else None
        if status is FeedStatus.RUNNING and read is not None:  # what the reader made of the frame
            status = _STATUS.get(getattr(read, "value", ""), FeedStatus.RUNNING)
            text = str(getattr(update.result, "message", "")) or text
        now = time.monotonic()
        post = status is not self._status or (
            text != self._text_sent and now - self._text_posted >= STATUS_TEXT_EVERY
        )
        self._status, self._text = status, text
        if post:
            self._text_sent, self._text_posted = text, now
            if self._on_status is not None:
                self._on_status(status, text)
        result = update.result
        if result is None or not update.fresh:
            return
        reading = result.reading
        key = (
            tuple(
                sorted(
                    (k, tuple(sorted((c.value, n) for c, n in v.items()))) for k, v in reading.knights.items()
                )
            ),
            tuple(sorted(reading.artefacts.items())),
        )
        if key != self._last_key and reading.tiles:
            self._last_key = key
            self.readings_posted += 1
            if self._on_reading is not None:
                self._on_reading(reading)

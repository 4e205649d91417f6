"""The camera and vision in their own PROCESS, so the window never competes with them for the interpreter
(frame decoding, rendering and dice reading are CPU-heavy; in the app's process they would take the GIL from
the UI thread between its drawing calls).

Parent → child: ("table", SceneSpec) for the demo's pretend table, ("stop",).
Child → parent: ("status", value, text), ("reading", TableReading JSON), ("preview", JPEG bytes) at most
twice a second, downscaled.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.services import FeedStatus

PREVIEW_WIDTH = 960
PREVIEW_EVERY = 0.5  # seconds


def _child(conn: Any, source: tuple[str, Any], reader: tuple[str, int]) -> None:
    """Runs in the child process: source → reader (vision.sources.CameraWorker threads) → pipe."""
    import os

    import cv2

    with contextlib.suppress(OSError, AttributeError):
        os.nice(5)  # the window comes first: readings may wait a frame, taps may not

    from companion.feeds import LiveTableSource, VisionFeed
    from companion.pipeline import TruthReader, vision_reader

    kind, arg = source
    live: LiveTableSource | None = None
    if kind == "synthetic":
        live = LiveTableSource(arg)
        src: Any = live
    else:
        from vision.sources import open_source

        src = open_source(arg)
    if reader[0] == "truth":
        assert live is not None, "ground-truth readings need the synthetic camera"
        table = live

        class _Truth(TruthReader):
            def read(self, image: Any, frame_index: int) -> Any:
                from vision.synth import render_scene

                _img, self.truth = render_scene(table.spec, 500)
                return super().read(image, frame_index)

        rdr: Any = _Truth()
    else:
        rdr = vision_reader(reader[1])
    feed = VisionFeed(src, rdr)
    lock = threading.Lock()
    last_preview = [0.0]

    def send(msg: tuple[Any, ...]) -> None:
        with lock, contextlib.suppress(BrokenPipeError, OSError):
            conn.send(msg)

    def on_reading(reading: Any) -> None:
        send(("reading", reading.to_json()))
        frame = feed.latest_preview()
        if frame is not None and time.monotonic() - last_preview[0] > PREVIEW_EVERY:
            last_preview[0] = time.monotonic()
            h, w = frame.shape[:2]
            scale = min(1.0, PREVIEW_WIDTH / w)
            small = cv2.resize(frame, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
            ok, jpg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
            if ok:
                send(("preview", jpg.tobytes()))

    feed.start(on_reading, lambda status, text: send(("status", status.value, text)))
    try:
        while True:
            msg = conn.recv()
            if msg[0] == "stop":
                break
            if msg[0] == "table" and live is not None:
                live.set_table(msg[1])
    except (EOFError, OSError):
        pass  # the app went away
    finally:
        feed.stop()


class ProcessFeed:
    """`ReadingFeed` whose camera and vision run in a child process (spawned: no Kivy in it)."""

    def __init__(self, source: tuple[str, Any], reader: tuple[str, int] = ("vision", 2)) -> None:
        self.source = source
        self.reader = reader
        self._proc: Any = None
        self._conn: Any = None
        self._thread: threading.Thread | None = None
        self._status = FeedStatus.OFF
        self._text = "camera off"
        self._jpeg: bytes | None = None
        self._preview: Any = None
        self._send_lock = threading.Lock()
        self._stopping = False
        self.readings_posted = 0

    @property
    def status(self) -> FeedStatus:
        return self._status

    @property
    def status_text(self) -> str:
        return self._text

    def start(self, on_reading: Callable[[Any], None], on_status: Callable[[FeedStatus, str], None]) -> None:
        self._stopping = False
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self._conn = parent
        self._proc = ctx.Process(
            target=_child, args=(child, self.source, self.reader), daemon=True, name="seneschal-camera"
        )
        self._proc.start()
        child.close()
        self._status, self._text = FeedStatus.STARTING, "starting the camera process"
        on_status(self._status, self._text)
        self._thread = threading.Thread(
            target=self._listen,
            args=(parent, on_reading, on_status),
            name="seneschal-camera-pipe",
            daemon=True,
        )
        self._thread.start()

    def _listen(
        self, conn: Any, on_reading: Callable[[Any], None], on_status: Callable[[FeedStatus, str], None]
    ) -> None:
        from engine.reading import TableReading

        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                if not self._stopping:
                    self._status, self._text = FeedStatus.LOST, "the camera process stopped"
                    on_status(self._status, self._text)
                return
            if self._stopping:
                return  # stop() was asked: nothing more is reported
            if msg[0] == "reading":
                self.readings_posted += 1
                on_reading(TableReading.from_json(msg[1]))
            elif msg[0] == "status":
                self._status, self._text = FeedStatus(msg[1]), str(msg[2])
                on_status(self._status, self._text)
            elif msg[0] == "preview":
                self._jpeg = msg[1]

    def set_table(self, spec: Any) -> None:
        """The demo's pretend table changed (the synthetic camera in the child renders it)."""
        if self._conn is not None:
            with self._send_lock, contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send(("table", spec))

    def latest_preview(self) -> Any:
        jpeg = self._jpeg
        if jpeg is None:
            return self._preview
        import cv2
        import numpy as np

        self._jpeg = None
        self._preview = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        return self._preview

    def stop(self) -> None:
        self._stopping = True
        self._status, self._text = FeedStatus.OFF, "camera off"
        if self._conn is not None:
            with self._send_lock, contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send(("stop",))
        if self._proc is not None:
            self._proc.join(timeout=3)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join(timeout=2)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None

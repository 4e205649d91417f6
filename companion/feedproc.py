"""The camera and vision in their own PROCESS, so the window never competes with them for the interpreter
(frame decoding, rendering and dice reading are CPU-heavy; in the app's process they would take the GIL from
the UI thread between its drawing calls).

Parent → child: ("table", SceneSpec) for the demo's pretend table, ("sample", {castle id: colour}) to measure
the dice on the castles (box setup), ("calibration", JSON) to use new dice colours, ("map", [[q, r, tile id],
...]) the map the owner confirmed, ("preview",) while someone looks at the preview, ("stop",).
Child → parent: ("status", value, text), ("reading", TableReading JSON), ("preview", JPEG bytes) downscaled,
twice a second for `PREVIEW_FOR` seconds after each ("preview",), ("samples", {colour: DieSample JSON},
[notes]) in answer to "sample", ("shown", n, time.monotonic()) when the n-th pretend table's picture is ready.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import threading
import time
from collections.abc import Callable, Mapping
from multiprocessing import resource_tracker
from typing import Any

from companion.lifetime import ctrl_c_held_from_children
from companion.services import ConfirmedMap, FeedStatus
from engine.colours import Colour

PREVIEW_WIDTH = 960
PREVIEW_EVERY = 0.5  # seconds
PREVIEW_FOR = 2.5  # seconds of previews after each request (the camera screen asks twice a second)


def reader_calibration(source: str, calibration: dict[str, Any] | None) -> Any:
    """The dice colours the camera's reader names players by: the box's saved calibration; without one, the
    synthetic camera's own colours for the synthetic camera, and for a real camera none (every die asked,
    `vision.calibration.unmeasured_calibration`: the synthetic dice's colours would name real dice wrong)."""
    from vision.calibration import ColourCalibration, unmeasured_calibration

    if calibration is not None:
        return ColourCalibration.from_json(calibration)
    return None if source == "synthetic" else unmeasured_calibration()


def _colours(names: object) -> list[Colour]:
    """The players' colours sent as names; a name no colour has is left out (the camera then asks about that
    player's dice as about any unmeasured player's)."""
    known = {c.value: c for c in Colour}
    return [known[n] for n in names if n in known] if isinstance(names, list) else []


def _castles(msg: tuple[Any, ...]) -> dict[str, Colour]:
    """Each castle's owner, sent as {castle id: colour name} after the players; a name no colour has is left
    out (that castle is then not judged), and an older message without owners judges none."""
    known = {c.value: c for c in Colour}
    owners = msg[3] if len(msg) > 3 and isinstance(msg[3], dict) else {}
    return {str(k): known[v] for k, v in owners.items() if v in known}


def _measure(feed: Any, castles: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Box setup: the dice on each castle in the last frame the reader saw, as that castle's colour."""
    from companion.calibrate import samples_on_castles
    from engine.colours import Colour

    last = feed.latest()
    if last is None:
        return {}, ["the camera has not sent a picture yet"]
    image, result = last
    samples, notes = samples_on_castles(image, result, {k: Colour(v) for k, v in castles.items()})
    return {c.value: s.to_json() for c, s in samples.items()}, notes


def _child(
    conn: Any, source: tuple[str, Any], reader: tuple[str, int], calibration: dict[str, Any] | None = None
) -> None:
    """Runs in the child process: source → reader (vision.sources.CameraWorker threads) → pipe."""
    import os

    import cv2

    from companion.lifetime import die_with_parent, ignore_ctrl_c

    parent = mp.parent_process()
    die_with_parent(parent.pid if parent is not None else None)  # a killed app leaves no camera behind
    ignore_ctrl_c()
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
        rdr = vision_reader(reader[1], reader_calibration(kind, calibration))
    feed = VisionFeed(src, rdr)
    lock = threading.Lock()
    wanted = [0.0]  # previews are made until this time.monotonic()
    stopped = threading.Event()

    def send(msg: tuple[Any, ...]) -> None:
        with lock, contextlib.suppress(BrokenPipeError, OSError):
            conn.send(msg)

    def on_reading(reading: Any) -> None:
        send(("reading", reading.to_json()))

    def previews() -> None:
        """Annotating and encoding a frame costs tens of ms: done only while someone looks."""
        sent: Any = None
        while not stopped.wait(PREVIEW_EVERY):
            if time.monotonic() > wanted[0]:
                continue
            frame = feed.latest_preview()
            if frame is None or frame is sent:
                continue
            sent = frame
            h, w = frame.shape[:2]
            scale = min(1.0, PREVIEW_WIDTH / w)
            small = cv2.resize(frame, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
            ok, jpg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
            if ok:
                send(("preview", jpg.tobytes()))

    feed.start(on_reading, lambda status, text: send(("status", status.value, text)))
    threading.Thread(target=previews, name="seneschal-previews", daemon=True).start()
    tables = 0
    try:
        while True:
            msg = conn.recv()
            if msg[0] == "stop":
                break
            if msg[0] == "table" and live is not None:
                tables += 1
                live.set_table(msg[1])
                send(("shown", tables, live.shown_at))
            elif msg[0] == "preview":
                wanted[0] = time.monotonic() + PREVIEW_FOR
            elif msg[0] == "sample":
                try:
                    found, notes = _measure(feed, msg[1])
                except Exception as exc:  # told to the players, never the end of the camera
                    found, notes = {}, [f"cannot measure the dice: {exc}"]
                send(("samples", found, notes))
            elif msg[0] == "map":
                tiles = {(int(q), int(r)): str(t) for q, r, t in msg[1]}
                feed.confirm_map(ConfirmedMap(tiles, tuple(_colours(msg[2])), _castles(msg)))
            elif msg[0] == "calibration" and hasattr(rdr, "calibration"):
                from vision.calibration import ColourCalibration

                rdr.calibration = ColourCalibration.from_json(msg[1])
    except (EOFError, OSError):
        pass  # the app went away
    finally:
        stopped.set()
        feed.stop()


class ProcessFeed:
    """`ReadingFeed` whose camera and vision run in a child process (spawned: no Kivy in it)."""

    def __init__(
        self,
        source: tuple[str, Any],
        reader: tuple[str, int] = ("vision", 2),
        calibration: dict[str, Any] | None = None,
    ) -> None:
        self.source = source
        self.reader = reader
        self.calibration = calibration  # the box's dice colours (vision's JSON), None: defaults
        self._samples: Any = None
        self._sampled = threading.Event()
        self._proc: Any = None
        self._conn: Any = None
        self._thread: threading.Thread | None = None
        self._status = FeedStatus.OFF
        self._text = "camera off"
        self._jpeg: bytes | None = None
        self._preview: Any = None
        self._send_lock = threading.Lock()
        self._stopping = False
        self._asked_preview = 0.0
        self._tables = 0
        self.readings_posted = 0
        # (n, time.monotonic()): the n-th table sent with `set_table` had its picture ready at that time
        self.table_shown: tuple[int, float] | None = None

    @property
    def status(self) -> FeedStatus:
        return self._status

    @property
    def status_text(self) -> str:
        return self._text

    def start(self, on_reading: Callable[[Any], None], on_status: Callable[[FeedStatus, str], None]) -> None:
        self._stopping = False
        self._tables, self.table_shown = 0, None
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self._conn = parent
        self._proc = ctx.Process(
            target=_child,
            args=(child, self.source, self.reader, self.calibration),
            daemon=True,
            name="seneschal-camera",
        )
        # multiprocessing's resource tracker unblocks SIGINT as it starts: started first, it cannot undo
        # the hold
        resource_tracker.ensure_running()
        with ctrl_c_held_from_children():
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
            elif msg[0] == "shown":
                self.table_shown = (int(msg[1]), float(msg[2]))
            elif msg[0] == "samples":
                self._samples = (msg[1], msg[2])
                self._sampled.set()

    def sample_dice(
        self, castles: Mapping[str, Any], timeout: float = 10.0
    ) -> tuple[dict[Any, Any], list[str]]:
        """Blocking (a worker thread): the dice on each castle in the camera's latest frame, measured in the
        camera process. Returns ({Colour: DieSample}, notes for the players)."""
        from companion.calibrate import DieSample
        from engine.colours import Colour

        if self._conn is None:
            return {}, ["the camera is off"]
        self._sampled.clear()
        with self._send_lock, contextlib.suppress(BrokenPipeError, OSError):
            self._conn.send(("sample", {k: getattr(v, "value", v) for k, v in castles.items()}))
        if not self._sampled.wait(timeout):
            return {}, ["the camera did not answer: try again"]
        found, notes = self._samples
        return {Colour(c): DieSample.from_json(s) for c, s in found.items()}, list(notes)

    def set_calibration(self, doc: dict[str, Any]) -> None:
        """Use these dice colours from now on (and on the next start)."""
        self.calibration = doc
        if self._conn is not None:
            with self._send_lock, contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send(("calibration", doc))

    def confirm_map(self, game: ConfirmedMap) -> None:
        """The game's map: the camera process keeps it (`VisionFeed.confirm_map`); colours go as names."""
        if self._conn is not None:
            with self._send_lock, contextlib.suppress(BrokenPipeError, OSError):
                tiles = [[q, r, t] for (q, r), t in sorted(game.tiles.items())]
                owners = {k: c.value for k, c in sorted(game.castles.items())}
                self._conn.send(("map", tiles, [c.value for c in game.players], owners))

    def set_table(self, spec: Any) -> int:
        """The demo's pretend table changed (the synthetic camera in the child renders it). Returns n for
        `table_shown`."""
        if self._conn is not None:
            with self._send_lock, contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send(("table", spec))
                self._tables += 1
        return self._tables

    def latest_preview(self) -> Any:
        """The camera's newest annotated frame; asking keeps previews coming for `PREVIEW_FOR` seconds."""
        now = time.monotonic()
        if self._conn is not None and now - self._asked_preview > PREVIEW_EVERY:
            self._asked_preview = now
            with self._send_lock, contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send(("preview",))
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

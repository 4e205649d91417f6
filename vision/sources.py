"""Camera sources and the worker thread that reads the table from them.

Sources: a device index (`0`), a video file, a folder of images (or one image), any URL OpenCV's
`VideoCapture` opens (`rtsp://...`, `http://.../stream.mjpg`), and a synthetic camera that renders scenes
with `vision.synth`.

`CameraWorker` runs two threads. The grabber reads frames at the source's own pace into a one-frame slot;
the processor takes whatever frame is newest when it is ready. A frame still in the slot when a newer one
arrives is dropped, never queued, so a slow reading lags by at most one frame (latest-frame-wins). Offline
use (every frame of a video, in order) sets `realtime=False`: the grabber then waits for the
processor instead.

Statuses are values of `Status`. A camera that disappears makes the worker report `CAMERA_LOST` and try to
reopen it every `reconnect_delay` seconds; the last good result stays available from `latest()`. A live source
that has never opened within `open_timeout` seconds (a wrong index or an unreachable address) is given up
with `CAMERA_LOST`.
`on_update` is called from the worker's own threads (status changes from the grabber, results from the
processor): a UI hands it over to its main thread (Kivy: `Clock.schedule_once`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionError

log = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]
R = TypeVar("R")

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


class Status(Enum):
    """What the app shows about the camera and the reading."""

    STARTING = "starting"
    OK = "ok"
    NO_SIGNAL = "no signal"  # frames arrive but are black / uniform (lens cap, lights off)
    CAMERA_LOST = "camera lost"  # the device or stream stopped answering; reconnecting
    CORRUPTED_FRAME = "corrupted frame"  # a frame that cannot be decoded (skipped)
    NO_TAGS = "no tags"  # a picture, but none of our stickers in it
    BLURRED = "blurred"  # the picture is smeared (camera moving, out of focus): not read, last reading kept
    HALF_BOARD = "half a board"  # part of the known board is out of view or hidden
    ENDED = "ended"  # a file or folder has no more frames
    ERROR = "error"  # processing failed on this frame (a bug; logged with its traceback)


OPEN_TIMEOUT = 5.0  # seconds a live source may take to open for the first time before it is an error


class SourceError(VisionError):
    """A source cannot be opened (no such device or file, unreadable stream)."""


class EndOfStream(VisionError):
    """The source has no more frames (end of a video file or image folder)."""


class SourceLostError(VisionError):
    """A live source stopped delivering frames."""


class CorruptedFrameError(VisionError):
    """One frame could not be decoded; the next one may be fine."""


@dataclass(frozen=True, slots=True)
class Frame:
    image: Image
    index: int
    timestamp: float
    name: str = ""


class FrameSource(Protocol):
    """A source of BGR frames. `live` sources deliver in real time; others are read on demand."""

    name: str
    live: bool
    fps: float | None

    def open(self) -> None: ...

    def read(self) -> Frame: ...

    def close(self) -> None: ...


def check_image(image: object, what: str) -> Image:
    """Validate a decoded frame: a non-empty HxWx3 uint8 array, else `CorruptedFrameError` naming `what`."""
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise CorruptedFrameError(f"{what}: no image data")
    if image.dtype != np.uint8:
        raise CorruptedFrameError(f"{what}: pixels of type {image.dtype}, expected uint8")
    result: Image = image
    if result.ndim == 2:
        result = np.asarray(cv2.cvtColor(result, cv2.COLOR_GRAY2BGR), np.uint8)
    elif result.ndim == 3 and result.shape[2] == 4:
        result = np.asarray(cv2.cvtColor(result, cv2.COLOR_BGRA2BGR), np.uint8)
    if result.ndim != 3 or result.shape[2] != 3 or min(result.shape[:2]) < 16:
        raise CorruptedFrameError(f"{what}: unusable frame of shape {result.shape!r}")
    return result


class CaptureSource:
    """Anything OpenCV's `VideoCapture` opens: a device index, a video file, a URL."""

    def __init__(
        self, target: int | str | Path, *, max_bad_reads: int = 25, open_timeout: float | None = None
    ) -> None:
        self.target: int | str = target if isinstance(target, int) else str(target)
        self.open_timeout = OPEN_TIMEOUT if open_timeout is None else open_timeout
        is_file = isinstance(self.target, str) and "://" not in self.target
        self.live = not is_file
        self.name = f"camera {self.target}" if isinstance(self.target, int) else str(self.target)
        self.fps: float | None = None
        self.max_bad_reads = max_bad_reads
        self._cap: cv2.VideoCapture | None = None
        self._index = 0
        self._frame_count = 0
        self._bad_in_a_row = 0

    def open(self) -> None:
        self.close()
        if not self.live and not Path(str(self.target)).is_file():
            raise SourceError(f"no such video file: {self.target!r}")
        # A stream that never answers would block OpenCV's FFmpeg backend for 30 s per attempt.
        ms = max(1, round(self.open_timeout * 1000))
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
        cap = cv2.VideoCapture(self.target, cv2.CAP_ANY, params) if self.live else cv2.VideoCapture(
            self.target
        )
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.name!r} (not a camera, video or stream OpenCV can read)")
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0.5 < fps < 1000 else None
        self._frame_count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self._index = self._bad_in_a_row = 0
        self._cap = cap

    def read(self) -> Frame:
        if self._cap is None:
            raise SourceLostError(f"{self.name}: not open")
        ok, image = self._cap.read()
        if ok and image is not None:
            checked = check_image(image, f"{self.name} frame {self._index}")
            frame = Frame(checked, self._index, time.monotonic())
            self._index += 1
            self._bad_in_a_row = 0
            return frame
        if self.live:
            raise SourceLostError(f"{self.name}: no frame (camera unplugged or stream down)")
        # A file: its end, or a frame the decoder could not read. The frame count tells which; a file whose
        # frames keep failing (truncated, or a broken index) ends after `max_bad_reads` failures in a row.
        self._index += 1
        self._bad_in_a_row += 1
        if self._frame_count <= 0 or self._index >= self._frame_count:
            raise EndOfStream(f"{self.name}: end of video after {self._index} frame(s)")
        if self._bad_in_a_row >= self.max_bad_reads:
            bad = self._bad_in_a_row
            raise EndOfStream(f"{self.name}: video corrupted, {bad} unreadable frames in a row")
        raise CorruptedFrameError(f"{self.name}: frame {self._index - 1} cannot be decoded")

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class ImageFolderSource:
    """The images of a folder in name order (or one image file), one frame each."""

    live = False

    def __init__(self, path: str | Path, *, fps: float | None = None, loop: bool = False) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        self.fps = fps
        self.loop = loop
        self._files: list[Path] = []
        self._pos = 0

    def open(self) -> None:
        if self.path.is_dir():
            files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not files:
                kinds = ", ".join(sorted(IMAGE_SUFFIXES))
                raise SourceError(f"folder {self.name!r} holds no images ({kinds})")
        elif self.path.is_file():
            files = [self.path]
        else:
            raise SourceError(f"no such image or folder: {self.name!r}")
        self._files, self._pos = files, 0

    def read(self) -> Frame:
        if self._pos >= len(self._files):
            if not self.loop or not self._files:
                raise EndOfStream(f"{self.name}: no more images after {len(self._files)}")
            self._pos = 0
        path = self._files[self._pos]
        index = self._pos
        self._pos += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CorruptedFrameError(f"{str(path)!r} is not a readable image")
        return Frame(check_image(image, str(path)), index, time.monotonic(), path.name)

    def close(self) -> None:
        self._files = []


class SyntheticCamera:
    """Renders scene specs with `vision.synth.render_scene`, `frames_per_state` frames each.

    Each frame gets its own seed (`seed + index`) so noise differs between frames of one state, as on a
    camera. `truths` keeps the ground truth of every frame rendered.
    """

    live = False

    def __init__(
        self,
        states: Sequence[Any],
        *,
        frames_per_state: int = 1,
        seed: int = 0,
        fps: float | None = None,
        render: Callable[[Any, int], tuple[Image, Any]] | None = None,
        loop: bool = False,
    ) -> None:
        if frames_per_state < 1:
            raise ValueError(f"frames_per_state must be >= 1, got {frames_per_state!r}")
        self.states = list(states)
        self.frames_per_state = frames_per_state
        self.seed = seed
        self.fps = fps
        self.loop = loop
        self.name = f"synthetic camera ({len(self.states)} states)"
        self._render = render
        self._index = 0
        self.truths: dict[int, Any] = {}

    def open(self) -> None:
        if self._render is None:
            from vision.synth import render_scene

            self._render = render_scene
        if not self.states:
            raise SourceError("synthetic camera has no scene states to render")
        self._index = 0

    def read(self) -> Frame:
        total = len(self.states) * self.frames_per_state
        if self._index >= total and not self.loop:
            raise EndOfStream(f"{self.name}: all {total} frames rendered")
        if self._render is None:
            raise SourceLostError(f"{self.name}: not open")
        index = self._index
        self._index += 1
        state = self.states[(index // self.frames_per_state) % len(self.states)]
        image, truth = self._render(state, self.seed + index)
        self.truths[index] = truth
        return Frame(check_image(image, f"synthetic frame {index}"), index, time.monotonic())

    def close(self) -> None:
        pass


def open_source(spec: str | int | Path) -> FrameSource:
    """A source for a command-line style spec: `0` (device), a folder, an image, a video file, or a URL."""
    if isinstance(spec, int):
        return CaptureSource(spec)
    text = str(spec)
    if text.isdigit():
        return CaptureSource(int(text))
    if "://" in text:
        return CaptureSource(text)
    path = Path(text)
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolderSource(path)
    return CaptureSource(path)


@dataclass(frozen=True, slots=True)
class WorkerUpdate(Generic[R]):
    """What the worker last knows. `result` is the last good result (kept through camera loss)."""

    status: Status
    message: str
    result: R | None
    frame_index: int
    fresh: bool  # True when `result` comes from the frame just processed
    frames_read: int
    frames_processed: int
    frames_dropped: int


class CameraWorker(Generic[R]):
    """Reads a source in a grabber thread and processes the newest frame in a processor thread."""

    def __init__(
        self,
        source: FrameSource,
        process: Callable[[Frame], R],
        *,
        status_of: Callable[[R], Status] | None = None,
        on_update: Callable[[WorkerUpdate[R]], None] | None = None,
        realtime: bool | None = None,
        reconnect_delay: float = 1.0,
        max_corrupt_in_a_row: int = 50,
        open_timeout: float | None = None,
    ) -> None:
        self.source = source
        self.process = process
        self.status_of = status_of
        self.on_update = on_update
        # Live sources are real time by nature; files are paced at their fps only when asked.
        self.realtime = source.live if realtime is None else realtime
        self.reconnect_delay = reconnect_delay
        # A live source that never opened within this time (default OPEN_TIMEOUT) is given up: a wrong
        # index or address is not going to appear. One that opened once is reconnected for ever (unplugged).
        self.open_timeout = OPEN_TIMEOUT if open_timeout is None else open_timeout
        self.max_corrupt_in_a_row = max_corrupt_in_a_row
        self._lock = threading.Condition()
        self._slot: Frame | None = None
        self._stop = threading.Event()
        self._source_done = False
        self._threads: list[threading.Thread] = []
        self._status = Status.STARTING
        self._message = f"opening {source.name}"
        self._result: R | None = None
        self._result_index = -1
        self._fresh = False
        self.frames_read = 0
        self.frames_processed = 0
        self.frames_dropped = 0
        self.frames_corrupted = 0

    # -- control -------------------------------------------------------------------------------------------
    def start(self) -> None:
        if self._threads:
            raise RuntimeError("worker already started")
        self._threads = [
            threading.Thread(target=self._grab_loop, name=f"grab {self.source.name}", daemon=True),
            threading.Thread(target=self._process_loop, name=f"read {self.source.name}", daemon=True),
        ]
        for t in self._threads:
            t.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._lock:
            self._lock.notify_all()
        for t in self._threads:
            t.join(timeout)

    def join(self, timeout: float | None = None) -> bool:
        """Wait until a finite source is exhausted and its last frame processed; True when it finished."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self._threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)

    def __enter__(self) -> CameraWorker[R]:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- state ---------------------------------------------------------------------------------------------
    @property
    def status(self) -> Status:
        return self._status

    def latest(self) -> WorkerUpdate[R]:
        with self._lock:
            return self._update_locked()

    def _update_locked(self) -> WorkerUpdate[R]:
        return WorkerUpdate(
            status=self._status,
            message=self._message,
            result=self._result,
            frame_index=self._result_index,
            fresh=self._fresh,
            frames_read=self.frames_read,
            frames_processed=self.frames_processed,
            frames_dropped=self.frames_dropped,
        )

    def _set_status(self, status: Status, message: str) -> None:
        with self._lock:
            if status == self._status and message == self._message:
                return
            self._status, self._message, self._fresh = status, message, False
            update = self._update_locked()
        if status not in (Status.OK, Status.STARTING):
            log.info("%s: %s (%s)", self.source.name, status.value, message)
        self._emit(update)

    def _emit(self, update: WorkerUpdate[R]) -> None:
        if self.on_update is not None:
            self.on_update(update)

    # -- threads -------------------------------------------------------------------------------------------
    def _grab_loop(self) -> None:
        opened = False
        ever_opened = False
        corrupt_run = 0
        next_due = started = time.monotonic()
        try:
            while not self._stop.is_set():
                if not opened:
                    try:
                        self.source.open()
                        opened = ever_opened = True
                        next_due = time.monotonic()
                    except SourceError as exc:
                        if not self.source.live:
                            self._set_status(Status.ENDED, str(exc))
                            return
                        waited = time.monotonic() - started
                        if not ever_opened and waited >= self.open_timeout:
                            self._set_status(Status.CAMERA_LOST, f"{exc}; gave up after {waited:.0f} s")
                            return
                        retry = f"{exc}; retrying every {self.reconnect_delay:g} s"
                        self._set_status(Status.CAMERA_LOST, retry)
                        self._stop.wait(self.reconnect_delay)
                        continue
                try:
                    frame = self.source.read()
                except EndOfStream as exc:
                    self._wait_slot_empty()
                    self._set_status(Status.ENDED, str(exc))
                    return
                except SourceLostError as exc:
                    self.source.close()
                    opened = False
                    self._set_status(Status.CAMERA_LOST, f"{exc}; reconnecting")
                    self._stop.wait(self.reconnect_delay)
                    continue
                except CorruptedFrameError as exc:
                    self.frames_corrupted += 1
                    corrupt_run += 1
                    self._set_status(Status.CORRUPTED_FRAME, str(exc))
                    if corrupt_run >= self.max_corrupt_in_a_row and not self.source.live:
                        self._set_status(Status.ENDED, f"{exc}; giving up after {corrupt_run} bad frames")
                        return
                    continue
                corrupt_run = 0
                self._offer(frame)
                if self.realtime and not self.source.live and self.source.fps:
                    next_due += 1.0 / self.source.fps
                    self._stop.wait(max(0.0, next_due - time.monotonic()))
        finally:
            self.source.close()
            with self._lock:
                self._source_done = True
                self._lock.notify_all()

    def _offer(self, frame: Frame) -> None:
        with self._lock:
            if not self.realtime:
                while self._slot is not None and not self._stop.is_set():
                    self._lock.wait(0.1)
            if self._slot is not None:
                self.frames_dropped += 1
            self._slot = frame
            self.frames_read += 1
            self._lock.notify_all()

    def _wait_slot_empty(self) -> None:
        with self._lock:
            while self._slot is not None and not self._stop.is_set():
                self._lock.wait(0.1)

    def _process_loop(self) -> None:
        while True:
            with self._lock:
                while self._slot is None and not self._source_done and not self._stop.is_set():
                    self._lock.wait(0.2)
                if self._stop.is_set() or (self._slot is None and self._source_done):
                    return
                frame = self._slot
                self._slot = None
                self._lock.notify_all()
            if frame is None:
                continue
            try:
                result = self.process(frame)
            except Exception as exc:  # a reading bug must not kill the camera; logged with its traceback
                log.exception("processing frame %d of %s failed", frame.index, self.source.name)
                self._set_status(Status.ERROR, f"frame {frame.index}: {type(exc).__name__}: {exc}")
                continue
            status = self.status_of(result) if self.status_of is not None else Status.OK
            with self._lock:
                self.frames_processed += 1
                self._result, self._result_index, self._fresh = result, frame.index, True
                if self._status is not Status.ENDED:
                    self._status = status
                    self._message = f"frame {frame.index}" + ("" if frame.name == "" else f" ({frame.name})")
                update = self._update_locked()
            self._emit(update)

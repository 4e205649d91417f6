"""Camera sources and the worker: folders, videos (written here), corruption, a vanishing camera, drops."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import (
    CameraWorker,
    CaptureSource,
    CorruptedFrameError,
    EndOfStream,
    Frame,
    ImageFolderSource,
    SourceError,
    SourceLostError,
    Status,
    SyntheticCamera,
    WorkerUpdate,
    open_source,
)


def numbered(i: int, shape: tuple[int, int] = (48, 64)) -> np.ndarray:
    """A frame whose brightness encodes its number (survives video compression)."""
    return np.full((*shape, 3), 10 + 20 * i, np.uint8)


def frame_number(image: np.ndarray) -> int:
    return round((float(image.mean()) - 10) / 20)


def run(worker: CameraWorker[int], timeout: float = 20.0) -> None:
    worker.start()
    assert worker.join(timeout), "worker did not finish"


def test_image_folder_in_name_order_with_a_corrupted_image(tmp_path: Path) -> None:
    for i in range(4):
        cv2.imwrite(str(tmp_path / f"frame{i:02d}.png"), numbered(i))
    (tmp_path / "frame01b.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    (tmp_path / "notes.txt").write_text("not an image")
    statuses: list[Status] = []
    seen: list[int] = []

    def on_update(u: WorkerUpdate[int]) -> None:
        statuses.append(u.status)
        if u.fresh and u.result is not None:
            seen.append(u.result)

    worker: CameraWorker[int] = CameraWorker(
        open_source(tmp_path), lambda f: frame_number(f.image), realtime=False, on_update=on_update
    )
    run(worker)
    assert seen == [0, 1, 2, 3]
    assert Status.CORRUPTED_FRAME in statuses
    assert worker.status is Status.ENDED and worker.latest().result == 3
    assert worker.frames_dropped == 0 and worker.frames_corrupted == 1


def test_single_image_and_missing_paths(tmp_path: Path) -> None:
    path = tmp_path / "one.jpg"
    cv2.imwrite(str(path), numbered(2))
    src = open_source(path)
    src.open()
    assert frame_number(src.read().image) == 2
    with pytest.raises(EndOfStream):
        src.read()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="holds no images"):
        ImageFolderSource(empty).open()
    with pytest.raises(SourceError, match="no such"):
        open_source(tmp_path / "nope.png").open()
    with pytest.raises(SourceError, match=r"nope\.mp4"):
        open_source(tmp_path / "nope.mp4").open()


def write_video(path: Path, frames: int) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 25.0, (64, 48))
    assert writer.isOpened()
    for i in range(frames):
        writer.write(numbered(i))
    writer.release()


def test_video_file_every_frame_in_order(tmp_path: Path) -> None:
    path = tmp_path / "table.avi"
    write_video(path, 10)
    seen: list[int] = []
    worker: CameraWorker[int] = CameraWorker(
        open_source(path), lambda f: seen.append(frame_number(f.image)) or f.index, realtime=False
    )
    run(worker)
    assert seen == list(range(10))
    assert worker.status is Status.ENDED and worker.latest().result == 9


def test_corrupted_video_gives_a_status_and_keeps_the_last_good_result(tmp_path: Path) -> None:
    good = tmp_path / "good.avi"
    write_video(good, 10)
    data = good.read_bytes()
    jpegs = [i for i in range(len(data) - 1) if data[i : i + 2] == b"\xff\xd8"]
    assert len(jpegs) == 10
    smashed = bytearray(data)
    for k in (4, 5):  # two frames overwritten with zeros
        smashed[jpegs[k] : jpegs[k] + 400] = bytes(400)
    truncated = data[: jpegs[6]]  # the file ends after six frames
    for name, content in (("smashed.avi", bytes(smashed)), ("truncated.avi", truncated)):
        path = tmp_path / name
        path.write_bytes(content)
        statuses: list[Status] = []
        worker: CameraWorker[int] = CameraWorker(
            open_source(path),
            lambda f: frame_number(f.image),
            realtime=False,
            on_update=lambda u, out=statuses: out.append(u.status),  # type: ignore[misc]
        )
        run(worker)
        assert Status.CORRUPTED_FRAME in statuses, name
        assert worker.status is Status.ENDED
        update = worker.latest()
        assert update.result is not None and 3 <= update.result <= 9, name
    # Not a video at all: a clear status, no crash.
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a video" * 50)
    worker2: CameraWorker[int] = CameraWorker(open_source(junk), lambda f: 0, realtime=False)
    run(worker2)
    assert worker2.status is Status.ENDED and "cannot open" in worker2.latest().message
    assert worker2.latest().result is None


class VanishingCamera:
    """A live camera that delivers frames, is unplugged (reads fail, then reopening fails), and comes back."""

    live = True
    fps = None
    name = "fake camera"

    def __init__(self) -> None:
        self.script = ["frame"] * 3 + ["lost"] + ["refuse"] * 2 + ["frame"] * 3
        self.opens = 0
        self.step = 0
        self.gate = threading.Semaphore(0)

    def open(self) -> None:
        self.opens += 1
        if self.step < len(self.script) and self.script[self.step] == "refuse":
            self.step += 1
            raise SourceError("fake camera: no such device")

    def read(self) -> Frame:
        self.gate.acquire()  # the test lets frames through one at a time
        if self.step >= len(self.script):
            raise EndOfStream("script over")
        what = self.script[self.step]
        self.step += 1
        if what == "lost":
            raise SourceLostError("fake camera: read failed")
        return Frame(numbered(self.step), self.step, time.monotonic())

    def close(self) -> None:
        pass


def wait_for(cond: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def test_vanished_camera_reconnects_and_keeps_the_last_good_result() -> None:
    cam = VanishingCamera()
    updates: list[WorkerUpdate[int]] = []
    worker: CameraWorker[int] = CameraWorker(
        cam, lambda f: f.index, on_update=updates.append, reconnect_delay=0.01
    )
    with worker:
        for k in range(3):
            cam.gate.release()
            wait_for(lambda n=k + 1: worker.frames_processed == n)
        cam.gate.release()  # this read fails: unplugged
        wait_for(lambda: worker.status is Status.CAMERA_LOST)
        lost = worker.latest()
        assert lost.result == 3 and not lost.fresh
        wait_for(lambda: cam.opens >= 4)  # two refused reopen attempts, then success
        for k in range(3):
            cam.gate.release()
            wait_for(lambda n=k + 4: worker.frames_processed == n)
        assert worker.status is Status.OK
        cam.gate.release()  # let the grabber out of read() when stopping
    statuses = [u.status for u in updates]
    assert Status.CAMERA_LOST in statuses
    assert statuses.index(Status.CAMERA_LOST) < len(statuses) - 1
    assert [u.result for u in updates if u.fresh][-1] == 9


class FastCamera:
    """A live camera whose frames arrive when the test says so."""

    live = True
    fps = None
    name = "fast camera"

    def __init__(self) -> None:
        self.next = 0
        self.gate = threading.Semaphore(0)
        self.delivered = threading.Semaphore(0)

    def open(self) -> None:
        pass

    def read(self) -> Frame:
        self.gate.acquire()
        i = self.next
        self.next += 1
        return Frame(numbered(0), i, time.monotonic())

    def close(self) -> None:
        pass


def test_slow_processing_drops_frames_and_never_queues() -> None:
    cam = FastCamera()
    release = threading.Event()
    started = threading.Event()
    processed: list[int] = []

    def slow(frame: Frame) -> int:
        started.set()
        if frame.index == 0:
            release.wait(10)
        processed.append(frame.index)
        return frame.index

    worker: CameraWorker[int] = CameraWorker(cam, slow)
    with worker:
        cam.gate.release()
        started.wait(10)  # frame 0 is being processed (slowly)
        for _ in range(5):  # frames 1..5 arrive meanwhile
            cam.gate.release()
        wait_for(lambda: worker.frames_read == 6)
        release.set()
        wait_for(lambda: worker.frames_processed == 2)
        assert processed == [0, 5]  # the newest frame, not the next queued one
        assert worker.frames_dropped == 4
        cam.gate.release()
        wait_for(lambda: worker.frames_processed == 3)
        assert processed == [0, 5, 6]
        cam.gate.release()  # let the grabber out of read() when stopping


def test_synthetic_camera_with_a_renderer() -> None:
    def render(state: int, seed: int) -> tuple[np.ndarray, dict[str, int]]:
        return numbered(state), {"state": state, "seed": seed}

    cam = SyntheticCamera([1, 2, 3], frames_per_state=2, seed=100, render=render)
    seen: list[int] = []

    def on_update(u: WorkerUpdate[int]) -> None:
        if u.fresh and u.result is not None:
            seen.append(u.result)

    worker: CameraWorker[int] = CameraWorker(
        cam, lambda f: frame_number(f.image), realtime=False, on_update=on_update
    )
    run(worker)
    assert seen == [1, 1, 2, 2, 3, 3]
    assert cam.truths[5] == {"state": 3, "seed": 105}
    with pytest.raises(SourceError, match="no scene states"):
        SyntheticCamera([], render=render).open()


def test_bad_frames_are_refused_with_the_reason() -> None:
    from vision.sources import check_image

    with pytest.raises(CorruptedFrameError, match="no image data"):
        check_image(None, "x")
    with pytest.raises(CorruptedFrameError, match="float"):
        check_image(np.zeros((32, 32, 3), np.float32), "x")
    with pytest.raises(CorruptedFrameError, match="shape"):
        check_image(np.zeros((4, 4, 3), np.uint8), "x")
    assert check_image(np.zeros((32, 32), np.uint8), "x").shape == (32, 32, 3)
    assert isinstance(open_source("0"), CaptureSource) and open_source("rtsp://cam/stream").live


def test_synthetic_camera_renders_v1_scenes_with_their_truth() -> None:
    from engine.colours import Colour
    from engine.hexgrid import Hex
    from vision.synth import RES_1080P, SceneSpec

    tiles = {Hex(0, 0): "T01", Hex(1, 0): "K1"}
    states = [SceneSpec(tiles, {"K1": {Colour.RED: 3}}, layout_seed=1), SceneSpec(tiles, {}, layout_seed=1)]
    cam = SyntheticCamera(states, frames_per_state=2, seed=7)
    cam.open()
    frames = [cam.read() for _ in range(4)]
    with pytest.raises(EndOfStream):
        cam.read()
    assert all(f.image.shape == (RES_1080P[1], RES_1080P[0], 3) for f in frames)
    assert [cam.truths[i].knights for i in range(4)] == [{"K1": {Colour.RED: 3}}] * 2 + [{}] * 2
    assert not np.array_equal(frames[0].image, frames[1].image)  # per-frame noise, as a camera

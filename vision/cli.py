"""`seneschal vision`: read a table image, image folder or video and print the reading as JSON.

    seneschal vision IMAGE_OR_VIDEO [--show OUT.png] [--calibration FILE] [--decoder zxing|pyzbar]
                     [--hold N] [--every]
    seneschal vision dice IMAGE [--show OUT.png]          (the dice reader, `vision.dice.dice_main`)

One image is read as a still table (hold 1): the JSON has the status, the reading, this frame's dice and the
timings. A video or folder is read frame by frame, every frame in order, with the usual hysteresis (`--hold`);
`--every` prints one JSON line per frame, otherwise only the last frame's result. `--show` writes the last
frame annotated with tiles, hex coordinates, dice and counts.

Exit codes: 0 a table was read; 1 the input was read but holds no table (no signal, no tags, too blurred to
read); 2 bad input (missing or unreadable file, bad calibration, bad arguments), with the reason on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import threading
from pathlib import Path

import cv2

from vision.errors import CalibrationError, VisionError
from vision.sources import IMAGE_SUFFIXES, CameraWorker, SourceError, Status, open_source

NO_TABLE = frozenset({Status.NO_SIGNAL, Status.NO_TAGS, Status.CORRUPTED_FRAME, Status.BLURRED})


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message} (see `{self.prog} --help`)")


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="seneschal vision", description="Read the table in an image or video; print JSON.")
    p.add_argument("input", help="an image, a folder of images, a video file, a camera index or a stream URL")
    p.add_argument("--show", metavar="OUT.png", help="write the last frame annotated")
    p.add_argument("--calibration", metavar="FILE", help="player colour calibration (JSON)")
    p.add_argument("--decoder", choices=("zxing", "pyzbar"), default="zxing", help="QR decoder")
    p.add_argument("--hold", type=int, default=None, help="frames a change must hold (at least 1)")
    p.add_argument("--every", action="store_true", help="print one JSON line per frame (video, folder)")
    p.add_argument("--frames", type=int, default=None, help="stop after this many frames (cameras, streams)")
    return p


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # our own messages say what failed
    if args_list[:1] == ["dice"]:
        try:
            dice_main = importlib.import_module("vision.dice").dice_main
        except ImportError as exc:
            print(f"seneschal vision dice: the dice reader is not available ({exc})", file=sys.stderr)
            return 2
        return int(dice_main(args_list[1:]))
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
        for name in ("hold", "frames"):
            value = getattr(args, name)
            if value is not None and value < 1:
                parser.error(f"argument --{name}: at least 1 is needed, got {value}")
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        return _run(args)
    except (CalibrationError, SourceError) as exc:
        print(f"seneschal vision: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from vision.annotate import annotate
    from vision.calibration import ColourCalibration
    from vision.pipeline import FrameResult, TableReader
    from vision.qr import Backend

    if args.show and not Path(args.show).resolve().parent.is_dir():
        raise SourceError(f"cannot write {args.show!r}: its folder does not exist")
    source_text = str(args.input)
    if not source_text.strip():
        raise SourceError("no input given: an image, a folder, a video, a camera index or a stream URL")
    path = Path(source_text)
    looks_local = not source_text.isdigit() and "://" not in source_text
    if looks_local and not path.exists():
        raise SourceError(f"no such file or folder: {source_text!r}")
    calibration = ColourCalibration.load(args.calibration) if args.calibration else None
    single = looks_local and path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES
    if single and cv2.imread(str(path)) is None:
        raise SourceError(f"{source_text!r} is not a readable image")
    hold = args.hold if args.hold is not None else (1 if single else 5)
    backend = Backend.PYZBAR if args.decoder == "pyzbar" else Backend.ZXING
    reader = TableReader(calibration=calibration, hold_frames=hold, backend=backend)
    source = open_source(source_text)
    last: list[tuple[FrameResult, object]] = []
    reader_gone = threading.Event()  # `--every | head`: stop reading once nobody reads the lines

    def process(frame: object) -> FrameResult:
        from vision.sources import Frame

        assert isinstance(frame, Frame)
        result = reader(frame)
        last[:] = [(result, frame.image)]
        if args.every and not reader_gone.is_set():
            try:
                print(json.dumps(result.to_json()), flush=True)
            except BrokenPipeError:
                reader_gone.set()
        return result

    worker: CameraWorker[FrameResult] = CameraWorker(source, process, status_of=TableReader.status_of,
                                                     realtime=False if looks_local else None)
    worker.start()
    try:
        while not worker.join(0.2):
            if reader_gone.is_set() or (args.frames is not None and worker.frames_processed >= args.frames):
                break
    except KeyboardInterrupt:
        pass
    finally:
        worker.stop()
    if reader_gone.is_set():
        raise BrokenPipeError("the reader of the output went away")  # `seneschal` ends quietly
    final = worker.latest()
    if not last:
        print(f"seneschal vision: {final.message or 'no frame could be read'}", file=sys.stderr)
        return 2
    result, image = last[0]
    if not args.every:
        doc = result.to_json()
        if single and doc["frame"] is not None:
            # One still picture: its own reading is the answer (no hand can "finish a move" in it).
            doc["reading"] = doc["frame"]
        print(json.dumps(doc, indent=2))
    if args.show:
        import numpy as np

        assert isinstance(image, np.ndarray)
        out = Path(args.show)
        if not cv2.imwrite(str(out), annotate(image, result)):
            print(f"seneschal vision: cannot write {str(out)!r}", file=sys.stderr)
            return 2
    if result.status in NO_TABLE:
        print(f"seneschal vision: {result.status.value}: {result.message}", file=sys.stderr)
        return 1
    return 0


__all__ = ["VisionError", "main"]

"""Make the finder's 8-bit twin for ONNX Runtime, `vision/models/dicenet.int8.onnx`, after training:

    python -m vision.dice_model.quantize [--tables 20] [--photos 10]

The finder's weights become 8-bit integers (per output channel) and its activations 8-bit too, with scales
read off what the finder sees at work (MinMax calibration): the views the table reader hands it for
synthetic tables from the training seeds (each at set-up and with its knights, 1080p and 4K in turn) and
the first tuning photos as `vision.dice.read_dice` sizes them; never the held-out photos, never the
benchmark's seeds. The first convolution and the 1x1 head stay in floating point: they are cheap, and the
head's numbers are the centre scores and boxes themselves. Needs the `train` extra (onnx) and onnxruntime.

ONNX Runtime runs the result 1.5-2.3x as fast as the float finder on a CPU with 8-bit dot products (x86
VNNI, Arm's dot-product extension); OpenCV's DNN module keeps the float one (`vision.dice.finder_model`).
Figures: docs/dice-model.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision import dice, networks
from vision.dice_model import data

KEEP_FLOAT = ("/s1/s1.0/Conv", "/head/Conv")  # node names in dicenet.onnx (torch.onnx.export's)


@contextmanager
def _recording(views: list[npt.NDArray[np.uint8]]) -> Iterator[None]:
    """Keep a copy of every image `vision.dice.network_maps` is given while inside."""
    original = dice.network_maps

    def record(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        views.append(np.array(image))
        return original(image)

    dice.network_maps = record
    try:
        yield
    finally:
        dice.network_maps = original


def calibration_views(tables: int, photos: int, folder: Path = data.REAL_DICE) -> list[npt.NDArray[np.uint8]]:
    """The finder's inputs for `tables` synthetic tables (training seeds) and `photos` tuning photos."""
    from vision.pipeline import TableReader  # heavy, and only needed here
    from vision.synth import RES_4K, RES_1080P, Difficulty, random_spec, render_scene

    kinds = list(Difficulty)
    views: list[npt.NDArray[np.uint8]] = []
    with _recording(views):
        for i in range(tables):
            seed = data.SYNTH_SEED_BASE + i
            size = RES_4K if (i // len(kinds)) % 2 else RES_1080P
            spec = random_spec(kinds[i % len(kinds)], seed, resolution=size)
            image, _truth = render_scene(spec, seed)
            setup, _ = render_scene(spec.with_(knights={}, occluders=0), seed + 50_000)
            reader = TableReader(hold_frames=1, incremental=False)
            reader.read(setup)
            reader.read(image)
        tune, _held = data.split(list(data.labelled_photos(folder)))
        for sample in data.real_samples(sorted(tune)[:photos], folder):
            dice.read_dice(sample.image)
    return views


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def log_path(model: Path) -> Path:
    """`dicenet.int8.onnx` -> `dicenet.int8.log.json`, as the other networks' logs are named."""
    return model.with_name(model.name.removesuffix(".onnx") + ".log.json")


def _onnxruntime_version() -> str:
    import onnxruntime

    return str(onnxruntime.__version__)


def quantize(source: Path, out: Path, views: Sequence[npt.NDArray[np.uint8]]) -> None:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Views(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.left = iter(views)

        def get_next(self) -> dict[str, Any] | None:
            view = next(self.left, None)
            return None if view is None else {"image": dice.finder_input(view)}

    prepared = out.with_suffix(".pre.onnx")
    try:
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(out),
            Views(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=list(KEEP_FLOAT),
        )
    finally:
        prepared.unlink(missing_ok=True)


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=dice.MODEL)
    ap.add_argument("--out", type=Path, help="default: beside the source, .int8.onnx")
    ap.add_argument("--tables", type=int, default=20, help="synthetic tables (training seeds)")
    ap.add_argument("--photos", type=int, default=10, help="tuning photos to calibrate on")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(list(argv))
    cv2.setNumThreads(args.threads)
    # The views come from the table reader at work with the float finder (the twin may be stale or absent).
    os.environ[networks.ENV] = networks.Runtime.OPENCV.value
    out: Path = args.out or args.source.with_name(args.source.stem + ".int8.onnx")
    t0 = time.perf_counter()
    views = calibration_views(args.tables, args.photos)
    print(f"{len(views)} views of the finder's at work in {time.perf_counter() - t0:.0f} s", flush=True)
    quantize(args.source, out, views)
    about = {
        "args": {**{k: str(v) for k, v in vars(args).items()}, "source": args.source.name, "out": out.name},
        "source_sha256": source_digest(args.source),  # tests check the twin is of the shipped finder
        "views": len(views),
        "kept_float": KEEP_FLOAT,
        "onnxruntime": _onnxruntime_version(),
    }
    log_path(out).write_text(json.dumps(about, indent=1) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

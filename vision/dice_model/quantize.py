"""Make the dice networks' 8-bit twins, which OpenVINO and ONNX Runtime run, after training (`*.int8.onnx`):

    python -m vision.dice_model.quantize [--tables 20] [--photos N] [--networks above|photos]

Each network's weights become 8-bit integers (per output channel) and its activations 8-bit too, with
scales read off what it sees at work (MinMax calibration): the table reader is run with the float networks
on synthetic tables from the training seeds (each at set-up and with its knights, 1080p and 4K in turn) and
`vision.dice.read_dice` on the tuning photos that hold no die of a held-out kind, and every input each
set of networks (`vision.dice.ABOVE` reads the tables, `PHOTOS` the photos) is given is kept (never the
held-out photos or kinds, never the benchmark's seeds). Each network's first convolution
and its last layer stay in floating point: they are cheap, the first sees the image itself and the last
gives the scores (the finder's first in 8 bits was 10-15 % faster in OpenVINO but misread more dice:
docs/dice-model.md, "Tried and left"). Needs the `train` extra (onnx) and onnxruntime.

ONNX Runtime runs the finder's twin 1.5-2.3x and the value networks' 1.4-1.7x as fast as the float ones on a
CPU with 8-bit dot products (x86 VNNI, Arm's dot-product extension); OpenCV's DNN module keeps the float
ones (`vision.dice.finder_model`, `vision.dice.value_models`). Figures: docs/dice-model.md.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision import dice, networks
from vision.dice_model import data, faces

# Node names (torch.onnx.export's) that stay in floating point, per network file.
KEEP_FLOAT = {
    "dicenet.onnx": ("/s1/s1.0/Conv", "/head/Conv"),
    "dicevalue.onnx": ("/body/body.0/body.0.0/Conv", "/fc/Gemm"),
}


SETS = {"above": dice.ABOVE, "photos": dice.PHOTOS}


def kept_float(source: Path) -> tuple[str, ...]:
    """The nodes of `source` left in floating point (the value networks are alike whatever their seed or
    the pictures they were trained for)."""
    finders = {nets.finder.name for nets in SETS.values()}
    return KEEP_FLOAT["dicenet.onnx" if source.name in finders else "dicevalue.onnx"]


def twin_path(source: Path) -> Path:
    """`dicenet.onnx` -> `dicenet.int8.onnx`."""
    return source.with_name(source.stem + ".int8.onnx")


@dataclass
class Inputs:
    """What one set of networks was given at work: the finder's views, the value networks' batches of die
    crops (N x 3 x 40 x 40, as `vision.networks.blob` makes them)."""

    views: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    crops: list[npt.NDArray[np.float32]] = field(default_factory=list)


def _set_of(path: Path) -> dice.Networks:
    """The set whose value network (float original or twin) is `path`."""
    for nets in SETS.values():
        if path.name in {m.name for m in (*nets.values, *dice.value_models(nets))}:
            return nets
    raise ValueError(f"{path} is no value network of {sorted(SETS)}")


@contextmanager
def _recording(inputs: dict[dice.Networks, Inputs]) -> Iterator[None]:
    """Keep a copy of every image `vision.dice.network_maps` and every batch of crops `_value_logits` is
    given while inside, by the set of networks given it."""
    finder, value = dice.network_maps, dice._value_logits

    def record_view(
        image: npt.NDArray[np.uint8],
        padded: npt.NDArray[np.uint8] | None = None,
        nets: dice.Networks | None = None,
    ) -> npt.NDArray[np.float32]:
        inputs.setdefault(nets or dice.PHOTOS, Inputs()).views.append(np.array(image))
        return finder(image, padded, nets)

    def record_crops(path: Path, crops: Sequence[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float64]:
        inputs.setdefault(_set_of(path), Inputs()).crops.append(networks.blob(np.stack(crops)))
        return value(path, crops)

    dice.network_maps, dice._value_logits = record_view, record_crops
    try:
        yield
    finally:
        dice.network_maps, dice._value_logits = finder, value


def calibration_inputs(
    tables: int, photos: int | None, folder: Path = data.REAL_DICE
) -> dict[dice.Networks, Inputs]:
    """Each set of networks' inputs for `tables` synthetic tables (training seeds) and `photos` tuning
    photos (None: all of `calibration_photos`)."""
    from vision.pipeline import TableReader  # heavy, and only needed here
    from vision.synth import RES_4K, RES_1080P, Difficulty, random_spec, render_scene

    kinds = list(Difficulty)
    inputs: dict[dice.Networks, Inputs] = {}
    with _recording(inputs):
        for i in range(tables):
            seed = data.SYNTH_SEED_BASE + i
            size = RES_4K if (i // len(kinds)) % 2 else RES_1080P
            spec = random_spec(kinds[i % len(kinds)], seed, resolution=size)
            image, _truth = render_scene(spec, seed)
            setup, _ = render_scene(spec.with_(knights={}, occluders=0), seed + 50_000)
            reader = TableReader(hold_frames=1, incremental=False)
            reader.read(setup)
            reader.read(image)
        for sample in data.real_samples(calibration_photos(photos, folder), folder):
            dice.read_dice(sample.image)
    return inputs


def calibration_photos(count: int | None = None, folder: Path = data.REAL_DICE) -> list[str]:
    """The first `count` (None: all) tuning photos with no die of a held-out kind: a die cannot be hidden
    from a network's activations the way training hides it from its loss, so such photos are left out
    whole."""
    tune, _held = data.split(list(data.labelled_photos(folder)))
    holding = faces.held_out_dice()  # photo -> its held-out kinds' dice
    return [name for name in sorted(tune) if name not in holding][:count]


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def log_path(model: Path) -> Path:
    """`dicenet.int8.onnx` -> `dicenet.int8.log.json`, as the other networks' logs are named."""
    return model.with_name(model.name.removesuffix(".onnx") + ".log.json")


def _onnxruntime_version() -> str:
    import onnxruntime

    return str(onnxruntime.__version__)


def quantize(source: Path, out: Path, feeds: Sequence[npt.NDArray[np.float32]]) -> None:
    """`source` quantized to `out`, calibrated on `feeds` (each a batch for the network's one input)."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Feeds(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.left = iter(feeds)

        def get_next(self) -> dict[str, Any] | None:
            feed = next(self.left, None)
            return None if feed is None else {"image": feed}

    prepared = out.with_suffix(".pre.onnx")
    try:
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(out),
            Feeds(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=list(kept_float(source)),
        )
    finally:
        prepared.unlink(missing_ok=True)


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20, help="synthetic tables (training seeds)")
    ap.add_argument("--photos", type=int, help="calibration photos (default: all without held-out kinds)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", choices=("finder", "values"), help="make only this network's twin(s)")
    ap.add_argument("--networks", choices=sorted(SETS), help="make only this set's twins")
    args = ap.parse_args(list(argv))
    cv2.setNumThreads(args.threads)
    # The inputs come from the table reader at work with the float networks (twins may be stale or absent).
    os.environ[networks.ENV] = networks.Runtime.OPENCV.value
    t0 = time.perf_counter()
    seen = calibration_inputs(args.tables, args.photos)
    jobs = []
    for name, nets in SETS.items():
        if args.networks not in (None, name):
            continue
        if nets not in seen:
            print(f"the {name} networks saw nothing: no twins made", file=sys.stderr)
            return 1
        jobs += _jobs(nets, seen[nets], args.only, time.perf_counter() - t0)
    for source, feeds, count in jobs:
        out = twin_path(source)
        quantize(source, out, feeds)
        about = {
            "args": {**{k: str(v) for k, v in vars(args).items()}, "source": source.name, "out": out.name},
            "source_sha256": source_digest(source),  # tests check each twin is of the shipped network
            "calibration_inputs": count,
            "kept_float": kept_float(source),
            "onnxruntime": _onnxruntime_version(),
        }
        log_path(out).write_text(json.dumps(about, indent=1) + "\n")
        print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


def _jobs(
    nets: dice.Networks, inputs: Inputs, only: str | None, took: float
) -> list[tuple[Path, list[npt.NDArray[np.float32]], int]]:
    """(network, its calibration feeds, how many inputs) for one set."""
    # the value networks' batches regrouped in 64s: a batch of one or two dice says little about the range
    crops = np.concatenate(inputs.crops)
    batches = np.array_split(crops, max(1, len(crops) // 64))
    print(
        f"{nets.finder.name}: {len(inputs.views)} views and {len(crops)} die crops it and its value networks "
        f"saw at work ({took:.0f} s for every set)",
        flush=True,
    )
    jobs = []
    if only != "values":
        views = [networks.blob(dice.finder_input(v)) for v in inputs.views]
        jobs.append((nets.finder, views, len(views)))
    if only != "finder":
        jobs += [(path, list(batches), len(crops)) for path in nets.values]
    return jobs


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

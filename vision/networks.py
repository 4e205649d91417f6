"""Where the dice networks run: OpenVINO, ONNX Runtime or OpenCV's DNN module, as installed.

The same `.onnx` files run in all three and give the same numbers to about 1e-5 in floating point. On a CPU
OpenCV's module is the slowest (ONNX Runtime ran the float finder 1.4-2x and a batch of 20 die crops 3x as
fast, 2026-11-22), and both other runtimes run the networks' 8-bit twins (`vision.dice.finder_model`,
`value_models`; docs/dice-model.md). Which is faster depends on the job (`Job`): OpenVINO runs
the finder on a table's view 1.4-2x as fast again as ONNX Runtime once it has seen the view's size, but
costs more per call, so ONNX Runtime runs the value networks' small batches of die crops faster (0.9
against 1.4 ms a batch). So by default each job runs in the faster of the two that is installed, and in
OpenCV's module when neither is (the Android build has only it). `SENESCHAL_DNN=openvino`, `=onnxruntime`
or `=opencv` puts every network in one runtime.

A network takes a batch of BGR images as uint8 (N x H x W x 3) and sees them as N x 3 x H x W in 0..1:
OpenVINO converts them in its own graph (`_openvino_model`), the others take `blob`'s floats. OpenVINO
prepares its kernels for every new input size (40-75 ms for a 1080p table's view, then 10-20 ms a run), so
the finder's views are padded to a multiple of `size_step()` there: views then come in few sizes.

All are given as many threads as OpenCV has (`cv2.setNumThreads`), and ONNX Runtime's threads do not spin
while they wait: on a tablet the interface shares the cores with the camera's worker thread.
"""

from __future__ import annotations

import functools
import importlib
import os
import threading
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import DiceModelError

ENV = "SENESCHAL_DNN"
Array = npt.NDArray[np.float32]
Images = npt.NDArray[np.uint8]

SIZE_STEP = 16  # the finder's input is a multiple of this (its encoder halves the image four times)
# views padded this far in OpenVINO: each new size costs it a warm-up (25-45 ms, once), every padded pixel
# a share of every run (multiples of 128 made a 1080p table's view 14 % larger, of 32 4 %)
OPENVINO_SIZE_STEP = 32


class Runtime(Enum):
    OPENCV = "opencv"
    ONNXRUNTIME = "onnxruntime"
    OPENVINO = "openvino"


class Job(Enum):
    """What a network is given, which decides the runtime that does it fastest."""

    VIEW = "view"  # the finder: one large image (a table's view, a photo)
    CROPS = "crops"  # the value networks: a batch of small die crops


# the runtimes each job prefers, fastest first (OpenCV's module, always there, comes last)
PREFERRED = {
    Job.VIEW: (Runtime.OPENVINO, Runtime.ONNXRUNTIME),
    Job.CROPS: (Runtime.ONNXRUNTIME, Runtime.OPENVINO),
}


def _importer(name: str) -> Callable[[], Any]:
    @functools.cache  # a failed import is tried again each time otherwise (every network run)
    def load() -> Any:
        """The module, or None when it is not installed."""
        try:
            return importlib.import_module(name)
        except ImportError:
            return None

    return load


_onnxruntime = _importer("onnxruntime")
_openvino = _importer("openvino")


def _installed(chosen: Runtime) -> bool:
    if chosen is Runtime.ONNXRUNTIME:
        return _onnxruntime() is not None
    if chosen is Runtime.OPENVINO:
        return _openvino() is not None
    return True


def runtime(job: Job) -> Runtime:
    """The runtime `run` uses for `job`: `SENESCHAL_DNN` if set, else the first installed of those the job
    prefers (`PREFERRED`), else OpenCV's module."""
    asked = os.environ.get(ENV, "").strip().lower()
    if asked:
        try:
            chosen = Runtime(asked)
        except ValueError:
            names = ", ".join(r.value for r in Runtime)
            raise DiceModelError(f"{ENV}={asked!r} is none of the dice runtimes ({names})") from None
        if not _installed(chosen):
            raise DiceModelError(f"{ENV}={asked!r} but {asked} is not installed: pip install {asked}")
        return chosen
    for candidate in PREFERRED[job]:
        if _installed(candidate):
            return candidate
    return Runtime.OPENCV


def eight_bit(job: Job) -> bool:
    """Whether `job`'s runtime runs the networks' 8-bit twins (OpenCV's module runs the float files)."""
    return runtime(job) is not Runtime.OPENCV


def size_step() -> int:
    """The finder's input sides are padded to a multiple of this in its runtime."""
    return OPENVINO_SIZE_STEP if runtime(Job.VIEW) is Runtime.OPENVINO else SIZE_STEP


def blob(images: Images) -> Array:
    """BGR images (N x H x W x 3, uint8) as the networks take them: N x 3 x H x W, 0..1. The same numbers as
    `cv2.dnn.blobFromImages(images, 1 / 255)`, in a fraction of its time: the channels are split apart
    first (contiguous planes scale twice as fast as a transposed view: a 1080p table's view 2 -> 1 ms)."""
    n, h, w, _c = images.shape
    out = np.empty((n, 3, h, w), np.float32)
    planes = cv2.split(np.ascontiguousarray(images).reshape(n * h, w, 3))
    for k, plane in enumerate(planes):
        np.multiply(plane.reshape(n, h, w), np.float32(1.0 / 255.0), out=out[:, k])
    return out


_local = threading.local()  # a cv2.dnn.Net or an OpenVINO infer request is not safe to share between threads
_shared: dict[tuple[Runtime, Path], Any] = {}  # ONNX Runtime sessions, OpenVINO compiled models (thread-safe)
_shared_lock = threading.Lock()


def _check(path: Path) -> None:
    if not path.is_file():
        raise DiceModelError(f"the dice network {str(path)!r} is missing: reinstall seneschal")


def _threads() -> int:
    return max(1, cv2.getNumThreads())


def _opencv_net(path: Path) -> Any:
    nets: dict[Path, Any] = _local.__dict__.setdefault("nets", {})
    net = nets.get(path)
    if net is None:
        _check(path)
        try:
            net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as exc:
            raise DiceModelError(f"cannot load the dice network {str(path)!r}: {exc}") from exc
        nets[path] = net
    return net


def _load_errors(ort: Any) -> tuple[type[Exception], ...]:
    """onnxruntime's own error classes (InvalidProtobuf, NoSuchFile, Fail, ...): they derive from Exception
    alone."""
    state = vars(ort.capi.onnxruntime_pybind11_state).values()
    return tuple(v for v in state if isinstance(v, type) and issubclass(v, Exception))


def _loaded(chosen: Runtime, path: Path, load: Callable[[], Any]) -> Any:
    with _shared_lock:
        thing = _shared.get((chosen, path))
        if thing is None:
            _check(path)
            thing = _shared[chosen, path] = load()
        return thing


def _onnxruntime_session(path: Path) -> Any:
    def load() -> Any:
        ort = _onnxruntime()
        options = ort.SessionOptions()
        options.intra_op_num_threads = _threads()
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except _load_errors(ort) as exc:
            raise DiceModelError(f"cannot load the dice network {str(path)!r}: {exc}") from exc

    return _loaded(Runtime.ONNXRUNTIME, path, load)


@functools.cache
def _openvino_core() -> Any:
    return _openvino().Core()


def _openvino_model(path: Path) -> Any:
    """The network compiled for any batch and image size, taking uint8 N x H x W x 3 (BGR as it is) and
    scaling to 0..1 in its own graph; its floating-point layers run in float32 everywhere (not bfloat16 where
    the CPU has it: the same numbers on every machine)."""

    def load() -> Any:
        ov = _openvino()
        from openvino.preprocess import PrePostProcessor

        try:
            model = _openvino_core().read_model(str(path))
            model.reshape({model.inputs[0]: ov.PartialShape([-1, 3, -1, -1])})
            steps = PrePostProcessor(model)
            steps.input().tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC"))
            steps.input().model().set_layout(ov.Layout("NCHW"))
            steps.input().preprocess().convert_element_type(ov.Type.f32).scale(255.0)
            config = {
                "INFERENCE_NUM_THREADS": _threads(),
                "PERFORMANCE_HINT": "LATENCY",
                "INFERENCE_PRECISION_HINT": "f32",
            }
            return _openvino_core().compile_model(steps.build(), "CPU", config)
        except RuntimeError as exc:  # OpenVINO reports a bad file or graph as RuntimeError
            raise DiceModelError(f"cannot load the dice network {str(path)!r}: {exc}") from exc

    return _loaded(Runtime.OPENVINO, path, load)


def _openvino_request(path: Path) -> Any:
    requests: dict[Path, Any] = _local.__dict__.setdefault("requests", {})
    request = requests.get(path)
    if request is None:
        request = requests[path] = _openvino_model(path).create_infer_request()
    return request


def run(path: Path, images: Images, job: Job) -> list[Array]:
    """The network in `path` on a batch of BGR images (N x H x W x 3, uint8), in `job`'s runtime: its
    outputs, in the order the file lists them."""
    if images.ndim != 4 or images.shape[3] != 3 or images.dtype != np.uint8:
        raise DiceModelError(f"a network takes N x H x W x 3 uint8 images, got {images.dtype} {images.shape}")
    chosen = runtime(job)
    if chosen is Runtime.OPENVINO:
        # shared: OpenVINO reads the caller's array in place instead of copying it first
        outs = _openvino_request(path).infer({0: np.ascontiguousarray(images)}, share_inputs=True).to_tuple()
        return [np.asarray(out, np.float32) for out in outs]
    if chosen is Runtime.ONNXRUNTIME:
        session = _onnxruntime_session(path)
        outs = session.run(None, {session.get_inputs()[0].name: blob(images)})
        return [np.asarray(out, np.float32) for out in outs]
    net = _opencv_net(path)
    net.setInput(blob(images))
    names = net.getUnconnectedOutLayersNames()
    outs = net.forward(names) if len(names) > 1 else [net.forward()]
    return [np.asarray(out, np.float32) for out in outs]

"""Where the dice networks run: ONNX Runtime when it is installed, else OpenCV's DNN module.

The same `.onnx` files run in both and give the same numbers to about 1e-5. ONNX Runtime is the faster of
the two on a CPU (2 cores, measured 2026-11-22: the float finder on a 1080p table's view 1.4-2x, a batch of
20 die crops 3x; and it runs the networks' 8-bit twins, `vision.dice.finder_model` and `value_models`;
docs/dice-model.md), so it is the default wherever pip installs it; OpenCV's module is always there (the
Android build has only it). `SENESCHAL_DNN=opencv` or `=onnxruntime` chooses one explicitly.

Both are given as many threads as OpenCV has (`cv2.setNumThreads`), and ONNX Runtime's threads do not spin
while they wait: on a tablet the interface shares the cores with the camera's worker thread.
"""

from __future__ import annotations

import functools
import os
import threading
from enum import Enum
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import DiceModelError

ENV = "SENESCHAL_DNN"
Array = npt.NDArray[np.float32]


class Runtime(Enum):
    OPENCV = "opencv"
    ONNXRUNTIME = "onnxruntime"


@functools.cache  # a failed import is tried again each time otherwise (every network run)
def _onnxruntime() -> Any:
    """The `onnxruntime` module, or None when it is not installed (then OpenCV runs the networks)."""
    try:
        import onnxruntime
    except ImportError:
        return None
    return onnxruntime


def runtime() -> Runtime:
    """The runtime `run` uses: `SENESCHAL_DNN` if set, else ONNX Runtime when installed, else OpenCV."""
    asked = os.environ.get(ENV, "").strip().lower()
    if asked:
        try:
            chosen = Runtime(asked)
        except ValueError:
            names = ", ".join(r.value for r in Runtime)
            raise DiceModelError(f"{ENV}={asked!r} is none of the dice runtimes ({names})") from None
        if chosen is Runtime.ONNXRUNTIME and _onnxruntime() is None:
            raise DiceModelError(f"{ENV}={asked!r} but onnxruntime is not installed: pip install onnxruntime")
        return chosen
    return Runtime.ONNXRUNTIME if _onnxruntime() is not None else Runtime.OPENCV


_local = threading.local()  # a cv2.dnn.Net is not safe to share between threads
_sessions: dict[Path, Any] = {}  # an onnxruntime.InferenceSession is (run() is thread-safe)
_sessions_lock = threading.Lock()


def _check(path: Path) -> None:
    if not path.is_file():
        raise DiceModelError(f"the dice network {str(path)!r} is missing: reinstall seneschal")


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


def _session(path: Path) -> Any:
    with _sessions_lock:
        session = _sessions.get(path)
        if session is None:
            _check(path)
            ort = _onnxruntime()
            options = ort.SessionOptions()
            options.intra_op_num_threads = max(1, cv2.getNumThreads())
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            try:
                session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            except _load_errors(ort) as exc:
                raise DiceModelError(f"cannot load the dice network {str(path)!r}: {exc}") from exc
            _sessions[path] = session
        return session


def run(path: Path, blob: Array) -> list[Array]:
    """The network in `path` on `blob` (its one input): its outputs, in the order the file lists them."""
    if runtime() is Runtime.ONNXRUNTIME:
        session = _session(path)
        outs = session.run(None, {session.get_inputs()[0].name: blob})
        return [np.asarray(out, np.float32) for out in outs]
    net = _opencv_net(path)
    net.setInput(blob)
    names = net.getUnconnectedOutLayersNames()
    outs = net.forward(names) if len(names) > 1 else [net.forward()]
    return [np.asarray(out, np.float32) for out in outs]

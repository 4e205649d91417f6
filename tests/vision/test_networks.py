"""vision.networks: the dice networks give the same numbers in ONNX Runtime and in OpenCV's DNN module, the
choice between them, and its bad settings."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from vision import dice, networks
from vision.errors import DiceModelError
from vision.synth import Difficulty, random_spec, render_scene


def _both(monkeypatch: pytest.MonkeyPatch, call: object) -> tuple[object, object]:
    out = []
    for name in ("opencv", "onnxruntime"):
        monkeypatch.setenv(networks.ENV, name)
        assert networks.runtime() is networks.Runtime(name)
        out.append(call())  # type: ignore[operator]
    return out[0], out[1]


def _view() -> np.ndarray:
    image, _truth = render_scene(random_spec(Difficulty.MEDIUM, 3), 3)
    return np.ascontiguousarray(image[300:620, 700:1180])


def test_both_runtimes_give_one_network_the_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    blob = dice._blob([_view()])
    cv, ort = _both(monkeypatch, lambda: networks.run(dice.MODEL, blob)[0])
    assert isinstance(cv, np.ndarray) and isinstance(ort, np.ndarray)
    assert cv.shape == ort.shape == (1, 11, 80, 120)
    assert np.abs(cv - ort).max() < 1e-3  # logits of size ~10: float rounding, in another order


def test_onnxruntime_runs_the_finders_8_bit_twin_close_to_the_float_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = _view()
    cv, ort = _both(monkeypatch, lambda: dice.network_maps(view))
    assert isinstance(cv, np.ndarray) and isinstance(ort, np.ndarray)
    assert cv.shape == ort.shape == (11, 80, 120)
    heat_cv, heat_ort = (1 / (1 + np.exp(-m[0])) for m in (cv, ort))
    peaks = heat_cv > dice.CANDIDATE
    assert peaks.sum() >= 20  # the view holds dice
    assert np.abs(heat_cv - heat_ort)[peaks].max() < 0.08
    assert np.abs(cv[7:11] - ort[7:11])[:, peaks].max() < 0.3  # box sizes (log px) and centre offsets


def test_both_runtimes_read_a_table_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    image, _truth = render_scene(random_spec(Difficulty.EASY, 5), 5)

    def read() -> list[tuple[tuple[int, int, int, int], int, bool]]:
        found = dice.read_dice(image, die_px=24.0, body_colours=False)
        return sorted((d.box, d.value, d.unsure) for d in found)

    cv, ort = _both(monkeypatch, read)
    assert isinstance(cv, list) and isinstance(ort, list) and len(cv) >= 10
    assert [(v, u) for _b, v, u in cv] == [(v, u) for _b, v, u in ort]
    # the 8-bit finder's boxes are the float one's to a tenth of a die (about 50 px here)
    boxes = np.array([[d[0] for d in cv], [d[0] for d in ort]], np.float64)
    side = boxes[0, :, 2] - boxes[0, :, 0]
    assert (np.abs(boxes[0] - boxes[1]).max(axis=1) <= 0.1 * side).all()


def test_value_networks_agree_across_runtimes_on_a_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    crops = [np.random.default_rng(k).integers(0, 256, (40, 40, 3), dtype=np.uint8) for k in range(5)]
    cv, ort = _both(monkeypatch, lambda: dice._value_logits(dice.VALUE_MODELS[0], crops))
    assert np.abs(np.asarray(cv) - np.asarray(ort)).max() < 1e-3


def test_onnxruntime_runs_the_value_networks_8_bit_twins_close_to_the_float_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(networks.ENV, "opencv")
    image, _truth = render_scene(random_spec(Difficulty.MEDIUM, 5), 5)
    crops = [dice.die_crop(image, c.box) for c in dice.candidates(image, die_px=24.0, read_values=False)]
    assert len(crops) >= 20  # dice, and some of the finder's doubtful spots
    assert [p.name for p in dice.value_models()] == ["dicevalue.onnx", "dicevalue2.onnx"]
    monkeypatch.setenv(networks.ENV, "onnxruntime")
    assert [p.name for p in dice.value_models()] == ["dicevalue.int8.onnx", "dicevalue2.int8.onnx"]
    cv, ort = _both(monkeypatch, lambda: dice.value_scores(crops))
    assert isinstance(cv, np.ndarray) and isinstance(ort, np.ndarray)
    sure = cv.max(axis=1) > dice.SURE_VALUE
    assert sure.sum() >= 10 and (cv.argmax(axis=1) == ort.argmax(axis=1))[sure].all()
    assert np.abs(cv - ort).max() < 0.1


def test_the_default_is_onnxruntime_when_installed_else_opencv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(networks.ENV, raising=False)
    assert networks.runtime() is networks.Runtime.ONNXRUNTIME
    monkeypatch.setattr(networks, "_onnxruntime", lambda: None)
    assert networks.runtime() is networks.Runtime.OPENCV
    monkeypatch.setenv(networks.ENV, "onnxruntime")
    with pytest.raises(DiceModelError, match=r"'onnxruntime' but onnxruntime is not installed"):
        networks.runtime()


def test_an_unknown_runtime_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(networks.ENV, "tensorflow")
    with pytest.raises(DiceModelError, match=r"SENESCHAL_DNN='tensorflow' is none of .*opencv, onnxruntime"):
        dice.read_dice(np.zeros((64, 64, 3), np.uint8))


def test_one_session_serves_threads_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(networks.ENV, "onnxruntime")
    crops = [np.full((40, 40, 3), k * 40, np.uint8) for k in range(4)]
    want = dice._value_logits(dice.VALUE_MODELS[0], crops)
    got: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: got.append(dice._value_logits(dice.VALUE_MODELS[0], crops)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and all(np.array_equal(g, want) for g in got)

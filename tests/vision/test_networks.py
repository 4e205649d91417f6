"""vision.networks: the dice networks give the same numbers in OpenVINO, ONNX Runtime and OpenCV's DNN
module, the choice between them, and its bad settings."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from vision import dice, networks
from vision.errors import DiceModelError
from vision.synth import Difficulty, random_spec, render_scene

EIGHT_BIT = ("onnxruntime", "openvino")


def _both(monkeypatch: pytest.MonkeyPatch, call: object, other: str) -> tuple[object, object]:
    out = []
    for name in ("opencv", other):
        monkeypatch.setenv(networks.ENV, name)
        chosen = networks.Runtime(name)
        assert networks.runtime(networks.Job.VIEW) is networks.runtime(networks.Job.CROPS) is chosen
        out.append(call())  # type: ignore[operator]
    return out[0], out[1]


def _view() -> np.ndarray:
    image, _truth = render_scene(random_spec(Difficulty.MEDIUM, 3), 3)
    return np.ascontiguousarray(image[300:620, 700:1180])


@pytest.mark.parametrize("other", EIGHT_BIT)
def test_the_runtimes_give_one_network_the_same_numbers(monkeypatch: pytest.MonkeyPatch, other: str) -> None:
    images = _view()[None]
    cv, fast = _both(monkeypatch, lambda: networks.run(dice.MODEL, images, networks.Job.VIEW)[0], other)
    assert isinstance(cv, np.ndarray) and isinstance(fast, np.ndarray)
    assert cv.shape == fast.shape == (1, 11, 80, 120)
    assert np.abs(cv - fast).max() < 1e-3  # logits of size ~10: float rounding, in another order


@pytest.mark.parametrize("other", EIGHT_BIT)
def test_the_finders_8_bit_twin_runs_close_to_the_float_one(
    monkeypatch: pytest.MonkeyPatch, other: str
) -> None:
    view = _view()
    cv, fast = _both(monkeypatch, lambda: dice.network_maps(view), other)
    assert isinstance(cv, np.ndarray) and isinstance(fast, np.ndarray)
    assert cv.shape == fast.shape == (11, 80, 120)
    heat_cv, heat_fast = (1 / (1 + np.exp(-m[0])) for m in (cv, fast))
    peaks = heat_cv > dice.CANDIDATE
    assert peaks.sum() >= 20  # the view holds dice
    assert np.abs(heat_cv - heat_fast)[peaks].max() < 0.08
    assert np.abs(cv[7:11] - fast[7:11])[:, peaks].max() < 0.3  # box sizes (log px) and centre offsets


def test_openvino_pads_views_to_few_sizes_and_gives_the_cells_of_the_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new input size costs OpenVINO a warm-up, so views are padded to multiples of 32 there; the maps
    keep the cells of the view padded to 16, as in the other runtimes, the same away from the padding."""
    view = _view()[:, :470]  # 320 x 470: 320 x 480 padded to 16, 320 x 480 to 32, 384 x 512 to 128
    monkeypatch.setenv(networks.ENV, "openvino")
    assert networks.size_step() == 32 and dice.finder_input(view).shape == (1, 320, 480, 3)
    monkeypatch.setattr(networks, "OPENVINO_SIZE_STEP", 128)
    assert dice.finder_input(view).shape == (1, 384, 512, 3)
    padded_far = dice.network_maps(view)
    monkeypatch.setattr(networks, "OPENVINO_SIZE_STEP", 16)
    assert dice.finder_input(view).shape == (1, 320, 480, 3)
    padded_near = dice.network_maps(view)
    assert padded_far.shape == padded_near.shape == (11, 80, 120)
    assert np.abs(padded_far - padded_near)[:, :56, :96].max() < 1e-4  # 24 cells (3 dice) from the padding
    assert np.abs(padded_far - padded_near).max() > 1e-3  # (where the padding is seen it differs)


@pytest.mark.parametrize("other", EIGHT_BIT)
def test_the_runtimes_read_a_table_alike(monkeypatch: pytest.MonkeyPatch, other: str) -> None:
    image, _truth = render_scene(random_spec(Difficulty.EASY, 5), 5)

    def read() -> list[tuple[tuple[int, int, int, int], int, bool]]:
        found = dice.read_dice(image, die_px=24.0, body_colours=False)
        return sorted((d.box, d.value, d.unsure) for d in found)

    cv, fast = _both(monkeypatch, read, other)
    assert isinstance(cv, list) and isinstance(fast, list) and len(cv) >= 10
    assert [(v, u) for _b, v, u in cv] == [(v, u) for _b, v, u in fast]
    # the 8-bit finder's boxes are the float one's to a tenth of a die (about 50 px here)
    boxes = np.array([[d[0] for d in cv], [d[0] for d in fast]], np.float64)
    side = boxes[0, :, 2] - boxes[0, :, 0]
    assert (np.abs(boxes[0] - boxes[1]).max(axis=1) <= 0.1 * side).all()


@pytest.mark.parametrize("other", EIGHT_BIT)
def test_value_networks_agree_across_runtimes_on_a_batch(monkeypatch: pytest.MonkeyPatch, other: str) -> None:
    crops = [np.random.default_rng(k).integers(0, 256, (40, 40, 3), dtype=np.uint8) for k in range(5)]
    cv, fast = _both(monkeypatch, lambda: dice._value_logits(dice.VALUE_MODELS[0], crops), other)
    assert np.abs(np.asarray(cv) - np.asarray(fast)).max() < 1e-3


@pytest.mark.parametrize("other", EIGHT_BIT)
def test_the_value_networks_8_bit_twins_run_close_to_the_float_ones(
    monkeypatch: pytest.MonkeyPatch, other: str
) -> None:
    monkeypatch.setenv(networks.ENV, "opencv")
    image, _truth = render_scene(random_spec(Difficulty.MEDIUM, 5), 5)
    crops = [dice.die_crop(image, c.box) for c in dice.candidates(image, die_px=24.0, read_values=False)]
    assert len(crops) >= 20  # dice, and some of the finder's doubtful spots
    assert [p.name for p in dice.value_models()] == ["dicevalue.onnx", "dicevalue2.onnx"]
    monkeypatch.setenv(networks.ENV, other)
    assert [p.name for p in dice.value_models()] == ["dicevalue.int8.onnx", "dicevalue2.int8.onnx"]
    cv, fast = _both(monkeypatch, lambda: dice.value_scores(crops), other)
    assert isinstance(cv, np.ndarray) and isinstance(fast, np.ndarray)
    sure = cv.max(axis=1) > dice.SURE_VALUE
    assert sure.sum() >= 10 and (cv.argmax(axis=1) == fast.argmax(axis=1))[sure].all()
    assert np.abs(cv - fast).max() < 0.1


def test_by_default_each_job_runs_in_the_fastest_runtime_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The finder's view in OpenVINO, the value networks' crops in ONNX Runtime; either serves both when the
    other is missing, OpenCV's module when both are."""
    view, crops = networks.Job.VIEW, networks.Job.CROPS
    monkeypatch.delenv(networks.ENV, raising=False)
    assert networks.runtime(view) is networks.Runtime.OPENVINO
    assert networks.runtime(crops) is networks.Runtime.ONNXRUNTIME
    assert dice.finder_model().name == "dicenet.int8.onnx"
    assert [p.name for p in dice.value_models()] == ["dicevalue.int8.onnx", "dicevalue2.int8.onnx"]
    monkeypatch.setattr(networks, "_onnxruntime", lambda: None)
    assert networks.runtime(view) is networks.runtime(crops) is networks.Runtime.OPENVINO
    monkeypatch.undo()
    monkeypatch.delenv(networks.ENV, raising=False)
    monkeypatch.setattr(networks, "_openvino", lambda: None)
    assert networks.runtime(view) is networks.runtime(crops) is networks.Runtime.ONNXRUNTIME
    assert networks.size_step() == 16
    monkeypatch.setattr(networks, "_onnxruntime", lambda: None)
    assert networks.runtime(view) is networks.runtime(crops) is networks.Runtime.OPENCV
    assert dice.finder_model().name == "dicenet.onnx"
    for name in ("onnxruntime", "openvino"):
        monkeypatch.setenv(networks.ENV, name)
        with pytest.raises(DiceModelError, match=rf"'{name}' but {name} is not installed"):
            networks.runtime(view)


def test_an_unknown_runtime_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(networks.ENV, "tensorflow")
    with pytest.raises(DiceModelError, match=r"'tensorflow' is none of .*opencv, onnxruntime, openvino"):
        dice.read_dice(np.zeros((64, 64, 3), np.uint8))


@pytest.mark.parametrize("name", EIGHT_BIT)
def test_one_loaded_network_serves_threads_at_once(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(networks.ENV, name)
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


def test_a_network_refuses_what_is_not_a_batch_of_bgr_images() -> None:
    with pytest.raises(DiceModelError, match=r"N x H x W x 3 uint8 images, got float32 \(1, 3, 40, 40\)"):
        networks.run(dice.VALUE_MODELS[0], np.zeros((1, 3, 40, 40), np.float32), networks.Job.CROPS)


def test_openvino_takes_batches_and_views_that_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    """One OpenVINO request (per thread) serves every size: a batch or a view larger than the last is taken
    as it comes, with the numbers a batch of its own would give."""
    monkeypatch.setenv(networks.ENV, "openvino")
    monkeypatch.setattr(networks, "_local", threading.local())  # a fresh request for this thread
    crops = [np.random.default_rng(k).integers(0, 256, (40, 40, 3), dtype=np.uint8) for k in range(20)]
    few = dice._value_logits(dice.VALUE_MODELS[0], crops[:2])
    many = dice._value_logits(dice.VALUE_MODELS[0], crops)
    assert many.shape == (20, 7) and np.abs(many[:2] - few).max() < 1e-4
    view = _view()
    small, large = dice.network_maps(view[:100, :150]), dice.network_maps(view)
    assert small.shape == (11, 28, 40) and large.shape == (11, 80, 120)

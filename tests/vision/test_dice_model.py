"""vision.dice_model: the split, label loading, augmentation and targets the dice networks are trained on, and
the shipped networks themselves (present, small, loadable by OpenCV, a missing file a clear error)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import dice
from vision.dice_model import data, faces, quantize
from vision.errors import DiceModelError

DATA = Path(__file__).resolve().parents[1] / "data" / "real-dice"


def test_the_split_is_fixed_disjoint_and_holds_out_30_percent() -> None:
    names = [f"p{i:03d}.jpg" for i in range(150)]
    tune, held = data.split(list(reversed(names)))
    assert (tune, held) == data.split(names)  # order of the input does not matter
    assert len(held) == 45 and len(tune) == 105
    assert not set(tune) & set(held) and set(tune) | set(held) == set(names)


def test_test_photos_are_labelled_and_load(tmp_path: Path) -> None:
    photos = data.labelled_photos(DATA)
    assert len(photos) == 8
    samples = data.real_samples(sorted(photos)[:2], DATA)
    for s in samples:
        assert s.image.ndim == 3 and len(s.boxes) == len(s.values) > 0
        assert np.all((s.values >= 1) & (s.values <= 6))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "cannot read dice labels"),
        ('{"dice": [{"value": 7, "box": [0, 0, 10, 10]}]}', "outside 1..6"),
        ('{"dice": [{"value": 3, "box": [5, 5, 5, 10]}]}', "no area"),
        ('{"dice": [{"box": [0, 0, 10, 10]}]}', "cannot read dice labels"),
    ],
)
def test_bad_label_files_are_refused_with_the_file_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(data.DatasetError, match=message) as info:
        data.load_label(path)
    assert "bad.json" in str(info.value)


def _square_sample() -> data.Sample:
    image = np.full((200, 300, 3), 90, np.uint8)
    cv2.rectangle(image, (40, 60), (79, 99), (255, 255, 255), -1)  # a 40 px "die"
    return data.Sample(
        image, np.array([[40, 60, 80, 100]], np.float32), np.array([4]), np.zeros((0, 4), np.float32)
    )


@pytest.mark.parametrize("k", range(4))
@pytest.mark.parametrize("flip", [False, True])
def test_turns_and_mirrors_move_the_boxes_with_the_pixels(k: int, flip: bool) -> None:
    s = data._crop(_square_sample(), 0, 0, 200)
    moved = data._flip_rotate(s, k, flip)
    ys, xs = np.nonzero(moved.image[..., 0] > 200)
    assert moved.boxes.tolist() == [[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]]
    assert moved.values.tolist() == [4]


def test_augmented_crops_keep_dice_inside_and_scaled_into_range() -> None:
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(30):
        a = data.augment(_square_sample(), rng, size=128, die_range=(20, 60))
        assert a.image.shape == (128, 128, 3)
        for b in a.boxes:
            side = float(np.mean(b[2:] - b[:2]))
            assert 19 <= side <= 61
            inside = np.clip(b, 0, 128)
            assert np.prod(inside[2:] - inside[:2]) >= 0.6 * np.prod(b[2:] - b[:2]) - 1e-3
            seen += 1
    assert seen >= 15  # crops are mostly taken around dice


def test_targets_peak_at_each_dies_centre_with_its_value_and_size() -> None:
    s = data.Sample(
        np.zeros((64, 64, 3), np.uint8),
        np.array([[10, 10, 30, 34]], np.float32),
        np.array([6]),
        np.array([[40, 40, 60, 60]], np.float32),
    )
    t = data.targets(s, (16, 16))
    cy, cx = 22 / 4, 20 / 4
    assert t["heat"][0, int(cy), int(cx)] == 1.0 and t["heat"].max() == 1.0
    assert t["index"].tolist() == [int(cy) * 16 + int(cx)]
    assert t["value"].tolist() == [5]
    assert np.allclose(np.exp(t["size"][0]), [20, 24])
    assert np.allclose(t["offset"][0], [cx - int(cx), cy - int(cy)])
    assert t["weight"][0, 12, 12] == 0.0 and t["weight"][0, 0, 0] == 1.0  # the ignored die neither way


def test_value_crops_hold_each_die_and_some_background() -> None:
    crops, labels = data.value_crops(_square_sample(), np.random.default_rng(1), negatives=3.0)
    assert labels[0] == 4 and labels.count(data.NOT_A_DIE) >= 1
    assert all(c.shape == (dice.CROP_PX, dice.CROP_PX, 3) for c in crops)


def test_a_die_crop_is_centred_on_its_box() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    cv2.rectangle(image, (40, 30), (60, 50), (255, 255, 255), -1)
    crop = dice.die_crop(image, (40, 30, 61, 51))
    ys, xs = np.nonzero(crop[..., 0] > 128)
    assert abs((xs.min() + xs.max()) / 2 - (dice.CROP_PX - 1) / 2) <= 1
    assert abs((ys.min() + ys.max()) / 2 - (dice.CROP_PX - 1) / 2) <= 1
    assert (xs.max() - xs.min() + 1) == pytest.approx(dice.CROP_PX / dice.CROP_MARGIN, abs=1.5)


SHIPPED = [nets.finder for nets in (dice.PHOTOS, dice.ABOVE)] + [*dice.PHOTOS.values, *dice.ABOVE.values]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_the_networks_ship_small_and_load_in_opencv(path: Path) -> None:
    assert path.is_file() and path.stat().st_size < 3 * 1024 * 1024
    assert cv2.dnn.readNetFromONNX(str(path)) is not None
    log = path.with_suffix(".log.json")
    assert json.loads(log.read_text())["args"]["photos"]  # how they were made travels with them


@pytest.mark.parametrize("source", SHIPPED, ids=lambda p: p.name)
def test_each_networks_8_bit_twin_is_of_the_shipped_network(source: Path) -> None:
    """A retrained network needs `python -m vision.dice_model.quantize` again: ONNX Runtime reads the twin."""
    twin = quantize.twin_path(source)
    assert twin.is_file() and twin.stat().st_size < source.stat().st_size / 2
    log = json.loads(quantize.log_path(twin).read_text())
    assert log["source_sha256"] == quantize.source_digest(source)
    # the PHOTOS finder sees one view per calibration photo: 21 photos hold no held-out kind
    assert log["calibration_inputs"] >= 20 and list(log["kept_float"]) == list(quantize.kept_float(source))
    # the nodes kept in floating point are named in the network (quantize_static passes over unknown names)
    assert all(name.encode() in source.read_bytes() for name in quantize.kept_float(source))


def test_a_set_of_networks_names_its_value_networks_beside_its_finder() -> None:
    assert [p.name for p in dice.ABOVE.values] == ["dicevalue-above.onnx", "dicevalue2-above.onnx"]
    assert [p.name for p in dice.PHOTOS.values] == ["dicevalue.onnx", "dicevalue2.onnx"]
    assert dice.PHOTOS.finder.parent == dice.ABOVE.finder.parent == dice.MODELS


def test_the_finder_gives_eleven_maps_at_a_quarter_size() -> None:
    maps = dice.network_maps(np.zeros((100, 130, 3), np.uint8))
    assert maps.shape == (data.CHANNELS, 28, 36)  # padded to 112 x 144, a quarter of that


@pytest.mark.parametrize("runtime", ["opencv", "onnxruntime", "openvino"])
def test_a_missing_network_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, runtime: str
) -> None:
    monkeypatch.setenv("SENESCHAL_DNN", runtime)
    monkeypatch.setattr(dice, "PHOTOS", dice.Networks(tmp_path / "gone.onnx"))
    with pytest.raises(DiceModelError, match=r"gone(\.int8)?\.onnx' is missing"):
        dice.read_dice(np.zeros((64, 64, 3), np.uint8))
    monkeypatch.setattr(dice, "PHOTOS", dice.Networks(tmp_path / "broken.onnx"))
    dice.finder_model().write_bytes(b"not a network")  # the file this runtime reads
    with pytest.raises(DiceModelError, match=r"cannot load the dice network .*broken(\.int8)?\.onnx"):
        dice.read_dice(np.zeros((64, 64, 3), np.uint8))


def test_hidden_dice_are_ignored_not_taught_and_a_wrong_index_is_an_error() -> None:
    name = sorted(data.labelled_photos(DATA))[0]
    (whole,) = data.real_samples([name], DATA)
    (hidden,) = data.real_samples([name], DATA, {name: frozenset({0})})
    assert len(hidden.boxes) == len(whole.boxes) - 1 and len(hidden.values) == len(hidden.boxes)
    assert hidden.ignore.tolist() == whole.boxes[:1].tolist()
    assert hidden.boxes.tolist() == whole.boxes[1:].tolist()
    with pytest.raises(data.DatasetError, match="no die 99 to hide"):
        data.real_samples([name], DATA, {name: frozenset({99})})


def test_the_8_bit_twins_are_calibrated_on_no_held_out_photo_or_kind() -> None:
    tune, _held = data.split(list(data.labelled_photos(DATA)))
    chosen = quantize.calibration_photos(10, DATA)
    holding = faces.held_out_dice()  # photo -> its held-out kinds' dice
    assert chosen and set(chosen) <= set(tune)
    assert not set(chosen) & set(holding)
    assert len([n for n in tune if n not in holding]) == len(chosen)  # every other tuning photo is used
    assert quantize.calibration_photos(1, DATA) == chosen[:1]
    assert quantize.calibration_photos(folder=DATA) == chosen

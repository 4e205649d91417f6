"""vision.dice_model.above and .faces: the training tables seen from above (the finder's boxes are the dice's
top faces, the value crops hold each face and the side faces' smears as no die) and the real faces dressed on
them (training kinds only)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import topview
from vision.dice_model import above, faces
from vision.dice_model.data import NOT_A_DIE
from vision.tags import DIE_MM

LIBRARY = faces.LIBRARY


@pytest.fixture(scope="module")
def table() -> above.AboveTable:
    made = above.above_table(above.SEED_BASE + 3)
    assert made is not None
    return made


def test_the_finder_s_boxes_are_top_faces_at_the_view_s_scale(table: above.AboveTable) -> None:
    sides = (table.sample.boxes[:, 2:] - table.sample.boxes[:, :2]).min(axis=1)
    face = topview.PX_PER_MM * DIE_MM
    # a square of 25 px turned any way: its box is 25..35 px a side
    assert len(sides) and np.all(sides >= face * 0.95) and np.all(sides <= face * 1.45)
    assert len(table.sample.values) == len(table.sample.boxes)


def test_value_crops_hold_every_die_twice_and_no_die_crops(table: above.AboveTable) -> None:
    labels = np.array(table.labels)
    assert np.count_nonzero(labels != NOT_A_DIE) == 2 * len(table.sample.boxes)
    assert np.count_nonzero(labels == NOT_A_DIE) >= len(table.sample.boxes)
    assert all(c.shape == (40, 40, 3) and c.dtype == np.uint8 for c in table.crops)


def test_a_side_face_s_smear_lies_towards_the_camera_beside_its_die() -> None:
    image, truth = above.render_table(above.SEED_BASE + 5)
    polys = [p for k, p in truth.tile_polygons.items() if k[0] in "TK"]  # type: ignore[attr-defined]
    view = topview.above(image.shape, np.linalg.inv(truth.homography), polys)  # type: ignore[attr-defined]
    die = next(d for d in truth.dice if d.location)  # type: ignore[attr-defined]
    to_top = np.linalg.inv(view.top_to_image)
    top = cv2.perspectiveTransform(die.top_face.reshape(-1, 1, 2), to_top).reshape(-1, 2)
    smears = above._side_smears(view, top)
    tilt = truth.params.tilt_deg  # type: ignore[attr-defined]
    if tilt < 5:
        assert smears == []  # from straight above no side shows
    for x, y in smears:
        assert 0.6 * DIE_MM < float(np.linalg.norm(np.array([x, y]) - top.mean(axis=0))) < 3 * DIE_MM


@pytest.mark.skipif(not (LIBRARY / "faces.json").is_file(), reason="the face library is not in this checkout")
def test_faces_are_of_training_kinds_only() -> None:
    doc = json.loads((LIBRARY / "faces.json").read_text())
    held = {k["id"] for k in doc["kinds"] if k["held_out"]}
    looks = faces.load_looks()
    assert looks and not {look.kind for look in looks} & held
    rng = np.random.default_rng(0)
    face = looks[0].face(3, 24, rng)
    assert face.shape == (24, 24, 3) and face.dtype == np.uint8


def test_a_missing_library_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(faces.FaceLibraryError, match="cannot read the face library"):
        faces.load_looks(tmp_path)


@pytest.mark.skipif(not (LIBRARY / "faces.json").is_file(), reason="the face library is not in this checkout")
def test_held_out_dice_are_every_die_of_a_held_out_kind_by_photo() -> None:
    doc = json.loads((LIBRARY / "faces.json").read_text())
    held = {k["id"] for k in doc["kinds"] if k["held_out"]}
    kind = {(d["photo"], d["index"]): d["kind"] for d in doc["dice"]}
    hidden = faces.held_out_dice()
    named = {(photo, i) for photo, indices in hidden.items() for i in indices}
    assert named == {key for key, k in kind.items() if k in held}
    assert len(named) >= 394  # the held-out kinds' usable dice and more: excluded ones too


def test_a_malformed_library_is_a_clear_error_for_held_out_dice(tmp_path: Path) -> None:
    doc = {"kinds": [{"id": "x", "held_out": True}], "dice": [{"kind": "x"}]}  # no photo, no index
    (tmp_path / "faces.json").write_text(json.dumps(doc))
    with pytest.raises(faces.FaceLibraryError, match="cannot read the face library"):
        faces.held_out_dice(tmp_path)


def _two_tone(value: int, px: int) -> np.ndarray:
    """A black die with white pips and a blue streak (neither body nor pip)."""
    from vision.synth import DrawnLook

    face = DrawnLook((30, 30, 30), (220, 220, 220), edge=0.0).face(value, px, np.random.default_rng(1))
    face[px // 2, :] = (90, 30, 30)
    return face


def test_a_recoloured_look_puts_pips_and_body_in_their_new_colours_and_keeps_the_rest() -> None:
    class Base:
        body, pips = (30, 30, 30), (220, 220, 220)

        def face(self, value: int, px: int, rng: np.random.Generator) -> np.ndarray:
            return _two_tone(value, px)

    look = faces.RecolouredLook(Base(), body=(0, 0, 200), pips=(0, 230, 230))  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    out = look.face(5, 40, rng).astype(int)
    original = _two_tone(5, 40)
    pip = original[..., 0] > 200
    body = (original == 30).all(axis=2)
    assert pip.sum() > 20 and body.sum() > 500
    assert np.abs(out[pip] - (0, 230, 230)).max() <= 12
    assert np.abs(out[body] - (0, 0, 200)).max() <= 2
    # the streak, off the body-to-pip line, keeps its difference from it
    assert out[20, 1, 0] - out[5, 1, 0] >= 40
    same = faces.RecolouredLook(Base(), body=(30, 30, 30), pips=(220, 220, 220))  # type: ignore[arg-type]
    assert np.abs(same.face(5, 40, rng).astype(int) - original).max() <= 1


@pytest.mark.skipif(not (LIBRARY / "faces.json").is_file(), reason="the face library is not in this checkout")
def test_training_looks_are_photographed_kinds_and_recoloured_ones_with_pips_that_show() -> None:
    pick = faces.training_looks()
    rng = np.random.default_rng(4)
    looks = [pick(rng) for _ in range(200)]
    recoloured = [look for look in looks if isinstance(look, faces.RecolouredLook)]
    assert 40 <= len(recoloured) <= 120
    assert all(isinstance(look, faces.PhotoLook) for look in looks if look not in recoloured)
    for look in recoloured:
        lab = cv2.cvtColor(np.array([[look.body, look.pips]], np.uint8), cv2.COLOR_BGR2LAB).astype(float)[0]
        assert np.linalg.norm(lab[0] - lab[1]) >= faces.RECOLOURED_CONTRAST

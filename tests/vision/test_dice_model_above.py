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

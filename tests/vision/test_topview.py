"""The table seen from above (`vision.topview`): its geometry on seeded synthetic tables at steep stands, and
the dice read in it."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import topview
from vision.synth import Difficulty, random_spec, render_scene
from vision.tags import DIE_MM


def _table(seed: int, tilt: float) -> tuple[np.ndarray, object]:
    return render_scene(random_spec(Difficulty.MEDIUM, seed).with_(tilt_deg=tilt), seed)


def _view(image: np.ndarray, truth: object) -> topview.TopView:
    outlines = [p for k, p in truth.tile_polygons.items() if k[0] in "TK"]  # type: ignore[attr-defined]
    return topview.above(image.shape, np.linalg.inv(truth.homography), outlines)  # type: ignore[attr-defined]


def test_the_plane_at_no_height_is_the_table_itself() -> None:
    image, truth = _table(3, 40.0)
    hom = truth.homography  # type: ignore[attr-defined]
    at0 = topview.lifted(hom, (image.shape[1], image.shape[0]), 0.0)
    assert np.allclose(at0 / at0[2, 2], hom / hom[2, 2], atol=1e-6)


@pytest.mark.parametrize("tilt", [0.0, 35.0, 55.0])
def test_every_top_face_is_a_square_of_the_view_s_size_wherever_it_stands(tilt: float) -> None:
    image, truth = _table(5, tilt)
    view = _view(image, truth)
    to_top = np.linalg.inv(view.top_to_image)
    side = view.px_per_mm * DIE_MM
    dice = [d for d in truth.dice if d.location]  # type: ignore[attr-defined]
    assert dice
    for d in dice:
        q = view.to_view(cv2.perspectiveTransform(d.top_face.reshape(-1, 1, 2), to_top).reshape(-1, 2))
        sides = np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1)
        assert np.allclose(sides, side, rtol=0.04), (tilt, sides, side)
        # and lies inside the view
        assert q.min() >= 0 and q[:, 0].max() <= view.size[0] and q[:, 1].max() <= view.size[1]


def test_a_face_crop_is_centred_on_its_point_and_square_to_the_table() -> None:
    image, truth = _table(7, 45.0)
    view = _view(image, truth)
    d = next(d for d in truth.dice if d.location)  # type: ignore[attr-defined]
    where = view.to_table(view.to_view(cv2.perspectiveTransform(
        np.asarray(d.centre, np.float64).reshape(1, 1, 2), np.linalg.inv(view.top_to_image)
    ).reshape(-1, 2)))[0]
    outline = topview.face_outline(view, where)
    assert np.allclose(outline.mean(axis=0), d.centre, atol=1.0)
    # a white square drawn on the frame over that face comes out square in the crop's middle
    marked = np.zeros_like(image)
    cv2.fillConvexPoly(marked, np.round(d.top_face).astype(np.int32), (255, 255, 255))
    (crop,) = topview.face_crops(marked, view, [where], 40, span=1.25)
    inside = crop[:, :, 0] > 127
    ys, xs = np.nonzero(inside)
    assert abs(xs.mean() - 19.5) < 1.5 and abs(ys.mean() - 19.5) < 1.5
    # a 16 mm face in a 20 mm crop: (40 / 1.25)^2 px, whatever its turn
    assert inside.sum() == pytest.approx((40 / 1.25) ** 2, rel=0.12)


def test_a_4k_frame_is_averaged_down_before_the_view_is_made() -> None:
    image, truth = render_scene(
        random_spec(Difficulty.EASY, 11, resolution=(3840, 2160)).with_(tilt_deg=20.0), 11
    )
    view = _view(image, truth)
    seen = topview.warp(image, view)
    assert seen.shape[:2] == (view.size[1], view.size[0])
    # the view of a 4K frame is as smooth as the frame's own half-size shrink (no aliasing of the codes)
    assert float(cv2.Laplacian(cv2.cvtColor(seen, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()) < 1e4


@pytest.mark.parametrize("tilt", [0.0, 30.0])
def test_dice_read_from_above_stand_where_the_dice_stand(tilt: float) -> None:
    from vision.knights import find_dice

    image, truth = _table(13, tilt)
    polygons = dict(truth.tile_polygons)  # type: ignore[attr-defined]
    found = find_dice(image, polygons, image_to_table=np.linalg.inv(truth.homography))  # type: ignore[attr-defined]
    view = _view(image, truth)
    to_top = np.linalg.inv(view.top_to_image)
    true = [
        (cv2.perspectiveTransform(np.float64(d.centre).reshape(1, 1, 2), to_top).reshape(2), d.value)
        for d in truth.dice  # type: ignore[attr-defined]
        if d.location and not d.hidden
    ]
    assert len(found) == len(true)
    for where, value in true:
        near = min(found, key=lambda f: math.dist(f.where, where))
        assert math.dist(near.where, where) < 0.2 * DIE_MM
        assert near.value == value


def _camera_homography(focal: float, tilt_deg: float, yaw_deg: float, size: tuple[int, int]) -> np.ndarray:
    """Table (mm) -> image of the synthetic renderer's pinhole camera (`focal` px, 900 mm from the table's
    middle, tilted from the vertical), the table turned `yaw_deg` under it."""
    from vision.synth import _look

    to_image = _look(np.zeros(3), 900.0, tilt_deg, focal, size).plane_homography
    y = math.radians(yaw_deg)
    turn = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    out: np.ndarray = to_image @ turn
    return out


@pytest.mark.parametrize("yaw", [0.0, 30.0, 45.0, 90.0])
@pytest.mark.parametrize("tilt", [15.0, 35.0, 55.0])
def test_the_focal_length_is_told_from_the_table_however_it_is_turned(tilt: float, yaw: float) -> None:
    # a table's axis across the camera's slant (yaw 0 or 90) is the usual stand, and where the axes' right
    # angle alone cannot tell the focal length
    size = (1920, 1080)
    for hfov in (55.0, 64.0, 75.0):
        focal = size[0] / 2 / math.tan(math.radians(hfov / 2))
        hom = _camera_homography(focal, tilt, yaw, size)
        assert topview.focal_length(hom, size) == pytest.approx(focal, rel=1e-6)
        assert topview.focal_length(hom * -3.0, size) == pytest.approx(focal, rel=1e-6)  # any scale


def test_a_view_too_square_on_to_tell_gets_the_nominal_focal_length() -> None:
    size = (1920, 1080)
    nominal = size[0] / 2 / math.tan(math.radians(topview.NOMINAL_HFOV_DEG / 2))
    for tilt in (0.0, 5.0):
        hom = _camera_homography(1200.0, tilt, 20.0, size)
        assert topview.focal_length(hom, size) == pytest.approx(nominal)
    # a homography no camera of a plausible lens makes (an affine one) gets it too
    flat = np.array([[2.0, 0.1, 900.0], [0.0, 2.0, 500.0], [0.0, 0.0, 1.0]])
    assert topview.focal_length(flat, size) == pytest.approx(nominal)

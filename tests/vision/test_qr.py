"""Decoding tags in frames: both backends, corner order, foreign codes ignored, bad input refused."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import zxingcpp

from engine.hexgrid import Hex
from vision.errors import FrameError, TagRejection
from vision.qr import Backend, _zxing_read, decode_tags, find_candidates, orient_corners
from vision.synth import Difficulty, GroundTruth, SceneSpec, random_layout, random_spec, render_scene
from vision.tags import format_payload, sticker_image

Image = np.ndarray


@pytest.fixture(scope="module")
def scene() -> tuple[Image, GroundTruth]:
    layout = random_layout(2, np.random.default_rng(1))
    spec = SceneSpec(layout, difficulty=Difficulty.EASY, tilt_deg=15.0, yaw_deg=30.0, layout_seed=1)
    return render_scene(spec, 1)


def _paste_code(image: Image, text: str, x: int, y: int, module: int = 4) -> None:
    b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode)
    code = np.asarray(zxingcpp.write_barcode_to_image(b, scale=module, add_quiet_zones=True))
    image[y : y + code.shape[0], x : x + code.shape[1]] = code[:, :, None]


@pytest.mark.parametrize("backend", [Backend.ZXING, Backend.PYZBAR])
def test_backends_find_the_stickers_with_their_corners_in_code_order(
    scene: tuple[Image, GroundTruth], backend: Backend
) -> None:
    image, truth = scene
    result = decode_tags(image, backend)
    visible = [t for t in truth.tags if not t.covered]
    assert len(result.tags) >= 0.9 * len(visible)
    for det in result.tags:
        match = [
            t
            for t in truth.tags
            if t.payload == det.payload.text
            and np.linalg.norm(t.corners.mean(axis=0) - np.array(det.centre)) < 10
        ]
        assert match, det
        # top-left is top-left of the code itself, whatever the code's turn in the image
        assert np.max(np.linalg.norm(match[0].corners - det.corners, axis=1)) < 4.0, det


def test_foreign_and_future_codes_are_ignored_with_reasons(scene: tuple[Image, GroundTruth]) -> None:
    image = scene[0].copy()
    _paste_code(image, "tel:+31612345678", 20, 20)
    _paste_code(image, "MM2:T07", 20, 300)
    _paste_code(image, "MM1:T99", 20, 600)
    for backend in (Backend.ZXING, Backend.PYZBAR):
        result = decode_tags(image, backend)
        reasons = {i.text: i.reason for i in result.ignored}
        assert reasons == {
            "tel:+31612345678": TagRejection.NOT_OURS,
            "MM2:T07": TagRejection.NEWER_VERSION,
            "MM1:T99": TagRejection.MALFORMED,
        }, backend
        assert all(t.payload.text.startswith("MM1:") for t in result.tags)


def test_regions_and_upscaling_find_small_codes() -> None:
    spec = SceneSpec({Hex(0, 0): "T05", Hex(1, 0): "T06"}, tilt_deg=0.0, yaw_deg=0.0, fill=0.12)
    image, truth = render_scene(spec, 2)
    assert truth.px_per_mm * 1.27 < 2.0  # modules under 2 px
    centres = [t.corners.mean(axis=0) for t in truth.tags]
    boxes = [(int(c[0]) - 40, int(c[1]) - 40, int(c[0]) + 40, int(c[1]) + 40) for c in centres]
    found = decode_tags(image, Backend.ZXING, regions=boxes, upscale=3.0)
    assert {t.payload.text for t in found} == {"MM1:T05", "MM1:T06"}


@pytest.mark.parametrize("backend", [Backend.ZXING, Backend.PYZBAR])
def test_deblurring_reads_codes_blurred_across_their_small_modules(backend: Backend) -> None:
    """The map reader's last tries: enlarged and deblurred crops (pyzbar once ignored `deblur`, so the far
    row of a tilted 1080p table stayed unread: bench seed 1032)."""
    sticker = cv2.cvtColor(sticker_image(format_payload("T07"), "Tarn", 10), cv2.COLOR_BGR2GRAY)
    h, w = sticker.shape
    read_plain = read_deblurred = 0
    for turn, module_px, blur in ((0, 1.8, 0.8), (20, 1.8, 0.8), (30, 2.0, 1.0), (0, 2.0, 1.0)):
        warp = cv2.getRotationMatrix2D((w / 2, h / 2), turn, module_px / 10)
        warp[:, 2] += [200 - w / 2, 200 - h / 2]
        image = cv2.warpAffine(sticker, warp, (400, 400), flags=cv2.INTER_AREA, borderValue=150)
        image = cv2.GaussianBlur(image, (0, 0), blur)
        box = [(100, 100, 300, 300)]
        read_plain += len(decode_tags(image, backend, regions=box, upscale=3.0).tags)
        deblurred = decode_tags(image, backend, regions=box, upscale=3.0, deblur=2.0)
        assert [t.payload.text for t in deblurred] == ["MM1:T07"], (backend, turn, module_px, blur)
        read_deblurred += 1
    if backend is Backend.PYZBAR:
        assert read_plain < read_deblurred  # these codes need it


def test_candidates_cover_the_codes(scene: tuple[Image, GroundTruth]) -> None:
    image, truth = scene
    boxes = find_candidates(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    inside = 0
    for t in truth.tags:
        c = t.corners.mean(axis=0)
        inside += any(b[0] <= c[0] <= b[2] and b[1] <= c[1] <= b[3] for b in boxes)
    assert inside >= 0.9 * len(truth.tags)


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((10, 10, 3), np.uint8),
        np.zeros((100, 100, 3), np.float32),
        np.zeros((100, 100, 5), np.uint8),
        b"\x00\x01garbage",
        None,
    ],
)
def test_not_an_image_is_refused_clearly(bad: object) -> None:
    with pytest.raises(FrameError):
        decode_tags(bad)  # type: ignore[arg-type]


def test_a_frame_without_codes_gives_nothing() -> None:
    blank = np.full((480, 640, 3), 90, np.uint8)
    for backend in Backend:
        result = decode_tags(blank, backend)
        assert not result.tags and not result.ignored


def test_small_codes_are_turned_the_right_way() -> None:
    """zbar's corner order is the scan's, so `orient_corners` finds the code's own top-left from its finder
    patterns; on these 1080p tables their modules are about 2 px. zxing reports the order itself: the
    reference."""
    rng = np.random.default_rng(0)
    checked = right = 0
    modules = []
    for difficulty, seed in ((Difficulty.EASY, 3), (Difficulty.MEDIUM, 4), (Difficulty.MEDIUM, 6)):
        image, _truth = render_scene(random_spec(difficulty, seed), seed)
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        for _text, corners in _zxing_read(gray):
            modules.append(float(np.linalg.norm(corners[1] - corners[0])) / 21)
            turned = orient_corners(gray, corners[rng.permutation(4)])
            checked += 1
            right += bool(np.abs(turned - corners).max() < 1e-9)
    assert checked >= 120 and float(np.median(modules)) < 2.1
    assert right >= 0.97 * checked  # thresholding into modules first turned 74 % of these right

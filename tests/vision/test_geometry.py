"""The table plane from the codes, and the hex lattice from the tiles."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.hexgrid import Hex
from vision.geometry import apply_homography, fit_plane
from vision.hexfit import TileEstimate, fit_lattice
from vision.synth import Difficulty, SceneSpec, random_layout, render_scene
from vision.tags import CODE_MM


@pytest.fixture(scope="module")
def tilted() -> tuple[np.ndarray, object]:
    layout = random_layout(4, np.random.default_rng(2))
    return render_scene(
        SceneSpec(
            layout, difficulty=Difficulty.HARD, tilt_deg=35.0, occluders=0, glare_spots=0, layout_seed=2
        ),
        2,
    )


def _pairwise(p: np.ndarray) -> np.ndarray:
    return np.linalg.norm(p[:, None, :] - p[None, :, :], axis=2)


@pytest.mark.parametrize("noise_px", [0.0, 1.0])
def test_plane_from_code_corners_recovers_table_distances(
    tilted: tuple[np.ndarray, object], noise_px: float
) -> None:
    _image, truth = tilted
    rng = np.random.default_rng(0)
    corners = [t.corners + rng.normal(0.0, noise_px, (4, 2)) for t in truth.tags]  # type: ignore[attr-defined]
    plane = fit_plane(corners, CODE_MM)
    assert plane is not None and not plane.outliers
    ids = sorted(truth.tile_centres)  # type: ignore[attr-defined]
    img = np.array([truth.tile_centres[i] for i in ids])  # type: ignore[attr-defined]
    true_mm = apply_homography(np.linalg.inv(truth.homography), img)  # type: ignore[attr-defined]
    ours = plane.to_table(img)
    err = np.abs(_pairwise(true_mm) - _pairwise(ours)).max()
    # mm, over a map 60 cm across, with 1.8 px modules: a tenth of a tile at worst
    assert err < (0.05 if noise_px == 0 else 9.0), err
    # round trip
    assert np.allclose(plane.to_image(ours), img, atol=1e-6)


def test_plane_rejects_a_misread_code(tilted: tuple[np.ndarray, object]) -> None:
    _image, truth = tilted
    corners = [t.corners.copy() for t in truth.tags]  # type: ignore[attr-defined]
    corners[3][2] += [25.0, 30.0]  # one corner far off
    plane = fit_plane(corners, CODE_MM)
    assert plane is not None and 3 in plane.outliers


def test_no_codes_no_plane() -> None:
    assert fit_plane([]) is None
    assert fit_lattice([]) is None


def _estimates(
    cells: list[Hex], pitch: float, angle: float, rng: np.random.Generator, shift: float
) -> list[TileEstimate]:
    out = []
    c, s = math.cos(angle), math.sin(angle)
    for i, h in enumerate(cells):
        x, y = h.to_pixel(pitch / math.sqrt(3.0))
        r, a = rng.uniform(0, shift * pitch), rng.uniform(0, 2 * math.pi)
        x, y = x + r * math.cos(a), y + r * math.sin(a)
        out.append(
            TileEstimate(
                f"T{i + 1:02d}",
                500 + c * x - s * y,
                -200 + s * x + c * y,
                angle + math.radians(rng.uniform(-15, 15)) + math.pi / 3 * rng.integers(0, 6),
            )
        )
    return out


@pytest.mark.parametrize("seed", range(5))
def test_lattice_assigns_shifted_turned_tiles(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cells = list(Hex(0, 0).spiral(3))
    keep = [c for c in cells if rng.random() < 0.8]
    tiles = _estimates(keep, 88.0, rng.uniform(-math.pi, math.pi), rng, shift=1 / 3)
    fit = fit_lattice(tiles)
    assert fit is not None and not fit.unassigned
    assert fit.lattice.pitch == pytest.approx(88.0, rel=0.06)
    # same layout up to numbering: differences between hexes agree with the truth up to one rotation
    truth = {t.id: h for t, h in zip(tiles, keep, strict=True)}
    ref = tiles[0].id
    ok = False
    for k in range(6):

        def rot(h: Hex, k: int = k) -> Hex:
            q, r = h.q, h.r
            s = -q - r
            for _ in range(k):
                q, r, s = -r, -s, -q
            return Hex(q, r)

        if all(rot(truth[t] - truth[ref]) == fit.hexes[t] - fit.hexes[ref] for t in truth):
            ok = True
    assert ok


@pytest.mark.parametrize("k1", [0.0, 0.1, 0.18])
def test_a_lens_bending_the_codes_is_fitted_with_the_plane(
    tilted: tuple[np.ndarray, object], k1: float
) -> None:
    """Codes seen through a barrel lens (`Lens`), corners as a decoder gives them (half a pixel off):
    fitted with the frame's size, the plane says the lens and places the table as a pinhole would; a
    pinhole's codes get no lens."""
    from vision.geometry import Lens

    _image, truth = tilted
    lens = Lens.of_frame(k1, (1920, 1080))
    rng = np.random.default_rng(1)
    tags = truth.tags  # type: ignore[attr-defined]
    seen = [lens.distort(t.corners) + rng.normal(0.0, 0.5, (4, 2)) for t in tags]
    plane = fit_plane(seen, CODE_MM, frame=(1920, 1080))
    assert plane is not None
    assert abs(plane.lens.k1 - k1) < 0.02, plane.lens
    ids = sorted(truth.tile_centres)  # type: ignore[attr-defined]
    img = np.array([truth.tile_centres[i] for i in ids])  # type: ignore[attr-defined]
    true_mm = apply_homography(np.linalg.inv(truth.homography), img)  # type: ignore[attr-defined]
    ours = plane.to_table(lens.distort(img))
    assert np.abs(_pairwise(true_mm) - _pairwise(ours)).max() < 3.0
    assert np.allclose(plane.to_image(ours), lens.distort(img), atol=1e-4)
    assert np.allclose(lens.undistort(lens.distort(img)), img, atol=1e-6)

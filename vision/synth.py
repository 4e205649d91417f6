"""Seeded synthetic table scenes with exact ground truth, for tests and benchmarks.

The table is modelled in millimetres (z = 0 is the table top, z < 0 is above it) and photographed by a
pinhole camera, so tilt, perspective and the sides of dice come out as a real camera sees them. Hex tiles
carry exactly the stickers `seneschal tags` prints (`vision.tags.sticker_image`), stuck as docs/stickers.md
says; knights are 16 mm dice in player colours with pips; artefact cards lie face-up (sticker visible) or
face-down. Then light (warm/cool, uneven), glare, hands, blur and sensor noise.

`render_scene(spec, seed)` renders one frame. Everything random comes from `seed`, except what belongs to
the table rather than to the frame: with `spec.layout_seed` set, the camera pose, tile placement and dice
positions come from it, so several frames of one table (different seeds) show the same table from the same
camera.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Protocol, cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from engine.hexgrid import Hex
from vision.tags import (
    CARD_H_MM,
    CARD_W_MM,
    DIE_MM,
    MODULE_MM,
    QR_MODULES,
    QUIET_MODULES,
    STICKER_CENTRE_OFFSET_MM,
    STICKER_H_MM,
    STICKER_W_MM,
    TILE_ACROSS_FLATS_MM,
    TILE_SIZE_MM,
    format_payload,
    kind_of,
    sticker_image,
    sticker_label,
)

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]
BGR = tuple[int, int, int]

RES_1080P = (1920, 1080)
RES_4K = (3840, 2160)

# Player die colours (body, BGR) and their pip colours. Shared with the default calibration.
DIE_COLOURS: dict[Colour, BGR] = {
    Colour.RED: (40, 40, 190),
    Colour.BLUE: (160, 80, 30),
    Colour.YELLOW: (40, 200, 230),
    Colour.GREEN: (60, 140, 40),
    Colour.WHITE: (235, 235, 235),
    Colour.BLACK: (35, 35, 35),
}
PIP_COLOURS: dict[Colour, BGR] = {
    Colour.RED: (240, 240, 240),
    Colour.BLUE: (240, 240, 240),
    Colour.YELLOW: (30, 30, 30),
    Colour.GREEN: (240, 240, 240),
    Colour.WHITE: (25, 25, 25),
    Colour.BLACK: (235, 235, 235),
}

# Standard pip layouts on a unit face (0..1, y down).
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}

HFOV_DEG = 64.0  # a typical tablet / USB camera
NATURAL_GAP = 1.02  # tiles on a table lie about 2 mm apart
TEX_PPM = 8.0  # texture resolution (px per mm) of the finest level; coarser levels by pyrDown


class Difficulty(Enum):
    EASY = "easy"  # straight down, even light
    MEDIUM = "medium"  # tilt <= 25 degrees, mixed light, small dice
    HARD = "hard"  # tilt <= 35 degrees, glare, hands


@dataclass(frozen=True, slots=True)
class SceneSpec:
    """What to render. Fields left as None are drawn from the difficulty preset with the seed."""

    tiles: Mapping[Hex, str]
    knights: Mapping[str, Mapping[Colour, int]] = field(default_factory=dict)
    artefacts: Mapping[str, bool] = field(default_factory=dict)  # artefact id -> face up
    resolution: tuple[int, int] = RES_1080P
    difficulty: Difficulty = Difficulty.EASY
    layout_seed: int | None = None
    tilt_deg: float | None = None  # camera tilt from straight down
    yaw_deg: float | None = None  # table rotation in the image
    fill: float | None = None  # share of the frame the table's contents span
    temperature: float | None = None  # -1 cool .. +1 warm
    unevenness: float | None = None  # 0 even .. 1 strong gradient and vignette
    blur_sigma: float | None = None  # px at 1080p (scaled for other resolutions)
    noise_sigma: float | None = None  # grey levels
    glare_spots: int | None = None
    occluders: int | None = None  # hands
    tile_shift: float | None = None  # max tile shift, as a fraction of the tile pitch
    tile_rotation_deg: float | None = None  # max tile rotation off its lattice orientation
    hide_tags: float = 0.0  # fraction of stickers covered by a paper scrap (for robustness tests)
    stickers: bool = True  # False renders tiles without stickers (bad-input tests)
    # A camera stream: with a seed here, the light, glare, table and dice faces come from it rather than from
    # the frame's seed, so consecutive frames differ only by sensor noise, hands and what moved.
    steady_seed: int | None = None
    # How each player's dice look (`DieLook`: drawn in any colours, or faces cut from photographs); a colour
    # not given is drawn in its `DIE_COLOURS`.
    looks: Mapping[Colour, DieLook] = field(default_factory=dict)

    def with_(self, **changes: Any) -> SceneSpec:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class SceneParams:
    """The parameters actually used for a frame (the preset draws filled in)."""

    tilt_deg: float
    yaw_deg: float
    fill: float
    temperature: float
    unevenness: float
    blur_sigma: float
    noise_sigma: float
    glare_spots: int
    occluders: int
    tile_shift: float
    tile_rotation_deg: float


@dataclass(frozen=True, slots=True)
class DieTruth:
    location: str | None  # tile id, or None for `render_die`'s loose dice
    colour: Colour
    value: int
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 of the whole die's silhouette (exclusive end)
    top_face: FloatArray  # 4x2 image px
    centre: tuple[float, float]  # centre of the top face, image px
    hidden: bool  # mostly under a hand
    glare: float = 0.0  # strongest glare over the top face, 0 (none) .. 1 (washed out to white)


@dataclass(frozen=True, slots=True)
class TrueDie:
    """A rendered die as the dice reader reports one (`vision.dice.DieReading`'s box, value, confidence,
    unsure): what tests and benchmarks hand the knights reader in place of the real dice reader."""

    box: tuple[int, int, int, int]  # whole die, as `DieTruth.box`
    value: int
    confidence: float = 1.0
    unsure: bool = False


@dataclass(frozen=True, slots=True)
class TagTruth:
    payload: str
    component: str
    corners: FloatArray  # 4x2 image px: the code's top-left, top-right, bottom-right, bottom-left
    covered: bool  # something lies over part of the code (die, hand, scrap)
    glare: float = 0.0  # strongest glare over the code, 0 (none) .. 1 (washed out to white)


@dataclass(frozen=True, slots=True)
class GroundTruth:
    tiles: dict[Hex, str]
    tile_polygons: dict[str, FloatArray]  # 6x2 image px, the tile's real (shifted, rotated) outline
    tile_centres: dict[str, tuple[float, float]]
    tile_hexes: dict[str, Hex]
    dice: tuple[DieTruth, ...]
    knights: dict[str, dict[Colour, int]]
    artefacts: dict[str, bool]
    card_polygons: dict[str, FloatArray]
    tags: tuple[TagTruth, ...]
    occluded: frozenset[str]  # locations (tiles and cards) partly under a hand
    homography: FloatArray  # table (mm) -> image (px)
    px_per_mm: float  # at the image centre
    params: SceneParams
    resolution: tuple[int, int]


# --- presets ------------------------------------------------------------------------------------------------


def _draw_params(
    spec: SceneSpec, frame_rng: np.random.Generator, layout_rng: np.random.Generator
) -> SceneParams:
    d = spec.difficulty

    def pick(value: float | None, lo: float, hi: float, rng: np.random.Generator) -> float:
        return float(value) if value is not None else float(rng.uniform(lo, hi))

    if d is Difficulty.EASY:
        tilt = pick(spec.tilt_deg, 0.0, 4.0, layout_rng)
        yaw = pick(spec.yaw_deg, -8.0, 8.0, layout_rng)
        fill = pick(spec.fill, 0.8, 0.9, layout_rng)
        temp = pick(spec.temperature, -0.1, 0.1, frame_rng)
        unev = pick(spec.unevenness, 0.0, 0.1, frame_rng)
        blur = pick(spec.blur_sigma, 0.3, 0.6, frame_rng)
        noise = pick(spec.noise_sigma, 1.0, 2.5, frame_rng)
        glare = spec.glare_spots if spec.glare_spots is not None else 0
        occ = spec.occluders if spec.occluders is not None else 0
        shift = pick(spec.tile_shift, 0.05, 0.05, layout_rng)
        rot = pick(spec.tile_rotation_deg, 4.0, 4.0, layout_rng)
    elif d is Difficulty.MEDIUM:
        tilt = pick(spec.tilt_deg, 0.0, 25.0, layout_rng)
        yaw = pick(spec.yaw_deg, -180.0, 180.0, layout_rng)
        fill = pick(spec.fill, 0.7, 0.88, layout_rng)
        temp = pick(spec.temperature, -0.7, 0.7, frame_rng)
        unev = pick(spec.unevenness, 0.0, 0.35, frame_rng)
        blur = pick(spec.blur_sigma, 0.4, 0.9, frame_rng)
        noise = pick(spec.noise_sigma, 1.5, 4.0, frame_rng)
        glare = spec.glare_spots if spec.glare_spots is not None else int(frame_rng.integers(0, 2))
        occ = spec.occluders if spec.occluders is not None else 0
        shift = pick(spec.tile_shift, 0.1, 0.1, layout_rng)
        rot = pick(spec.tile_rotation_deg, 10.0, 10.0, layout_rng)
    else:
        tilt = pick(spec.tilt_deg, 10.0, 35.0, layout_rng)
        yaw = pick(spec.yaw_deg, -180.0, 180.0, layout_rng)
        fill = pick(spec.fill, 0.7, 0.9, layout_rng)
        temp = pick(spec.temperature, -1.0, 1.0, frame_rng)
        unev = pick(spec.unevenness, 0.1, 0.5, frame_rng)
        blur = pick(spec.blur_sigma, 0.5, 1.2, frame_rng)
        noise = pick(spec.noise_sigma, 2.5, 5.0, frame_rng)
        glare = spec.glare_spots if spec.glare_spots is not None else int(frame_rng.integers(1, 4))
        occ = spec.occluders if spec.occluders is not None else int(frame_rng.integers(1, 3))
        shift = pick(spec.tile_shift, 0.2, 0.2, layout_rng)
        rot = pick(spec.tile_rotation_deg, 15.0, 15.0, layout_rng)
    return SceneParams(tilt, yaw, fill, temp, unev, blur, noise, glare, occ, shift, rot)


# --- camera -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Camera:
    K: FloatArray
    R: FloatArray
    C: FloatArray  # camera centre in world mm

    def project(self, pts: FloatArray) -> FloatArray:
        """Nx3 world points -> Nx2 image px."""
        xc = (pts - self.C) @ self.R.T
        uv = xc @ self.K.T
        return np.asarray(uv[:, :2] / uv[:, 2:3], np.float64)

    def depth(self, pts: FloatArray) -> FloatArray:
        return np.asarray(((pts - self.C) @ self.R.T)[:, 2], np.float64)

    @property
    def plane_homography(self) -> FloatArray:
        """Table (x, y mm, z = 0) -> image px."""
        t = -self.R @ self.C
        m = np.column_stack([self.R[:, 0], self.R[:, 1], t])
        h = self.K @ m
        return np.asarray(h / h[2, 2], np.float64)


def _look(target: FloatArray, distance: float, tilt_deg: float, f: float, size: tuple[int, int]) -> _Camera:
    t = math.radians(tilt_deg)
    # World: x right, y towards the camera's bottom edge, z into the table (up is -z).
    fwd = np.array([0.0, -math.sin(t), math.cos(t)])
    centre = target - distance * fwd
    x_axis = np.array([1.0, 0.0, 0.0])
    y_axis = np.cross(fwd, x_axis)
    r = np.vstack([x_axis, y_axis, fwd])
    k = np.array([[f, 0.0, size[0] / 2.0], [0.0, f, size[1] / 2.0], [0.0, 0.0, 1.0]])
    return _Camera(k, r, centre)


def _fit_camera(points: FloatArray, tilt_deg: float, size: tuple[int, int], fill: float) -> _Camera:
    """A camera at `tilt_deg` whose view of `points` (Nx3) spans `fill` of the frame, centred."""
    w, h = size
    f = (w / 2.0) / math.tan(math.radians(HFOV_DEG / 2.0))
    lo, hi = points[:, :2].min(axis=0), points[:, :2].max(axis=0)
    target = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, 0.0])
    extent = max((hi[0] - lo[0]) / w, (hi[1] - lo[1]) / h)
    distance = f * extent / fill
    cam = _look(target, distance, tilt_deg, f, size)
    for _ in range(6):
        uv = cam.project(points)
        ulo, uhi = uv.min(axis=0), uv.max(axis=0)
        scale = max((uhi[0] - ulo[0]) / (fill * w), (uhi[1] - ulo[1]) / (fill * h))
        distance *= scale
        centre_px = (ulo + uhi) / 2.0
        hinv = np.linalg.inv(cam.plane_homography)
        a = hinv @ np.array([centre_px[0], centre_px[1], 1.0])
        b = hinv @ np.array([w / 2.0, h / 2.0, 1.0])
        shift = a[:2] / a[2] - b[:2] / b[2]
        target = target + np.array([shift[0], shift[1], 0.0])
        cam = _look(target, distance, tilt_deg, f, size)
    return cam


# --- textures -----------------------------------------------------------------------------------------------


def _stable_seed(*parts: object) -> int:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little")


@functools.lru_cache(maxsize=1)
def _catalogue_labels() -> dict[str, tuple[str, int | None, str]]:
    """id -> (name, value, kind/colour hint) from the default catalogue (names only decorate the stickers)."""
    from engine.catalogue import load_default_catalogue

    cat = load_default_catalogue()
    out: dict[str, tuple[str, int | None, str]] = {}
    for t in cat.territories:
        out[t.id] = (t.name, t.value, t.kind.value)
    for lake in cat.lakes:
        out[lake.id] = (lake.name, None, "lake")
    for c in cat.castles:
        out[c.id] = (c.name, None, c.colour.value)
    for a in cat.artefacts:
        out[a.id] = (a.name, None, a.type.value)
    return out


def label_for(component_id: str) -> str:
    """The sticker label for a component of the default catalogue (the sheet uses the box catalogue)."""
    name, value, _ = _catalogue_labels().get(component_id, (component_id, None, ""))
    return sticker_label(name, value)


_KIND_COLOURS: dict[str, BGR] = {
    "grasslands": (70, 170, 120),
    "forest": (40, 110, 50),
    "mountains": (130, 130, 140),
    "village": (90, 150, 190),
    "city": (120, 140, 170),
    "fort": (100, 120, 150),
    "fortress": (90, 100, 130),
    "cave": (70, 80, 100),
    "battlefield": (60, 90, 150),
    "shrine": (150, 160, 200),
    "marshlands": (80, 120, 100),
    "ruins": (120, 130, 150),
    "abbey": (140, 170, 200),
    "homelands": (80, 180, 160),
    "arena": (70, 130, 200),
    "lake": (170, 120, 60),
}
_CASTLE_COLOURS: dict[str, BGR] = {
    "red": (50, 50, 150),
    "blue": (140, 80, 40),
    "yellow": (50, 170, 200),
    "green": (50, 120, 50),
    "white": (200, 200, 200),
    "black": (50, 50, 50),
}


def _sticker_placements(component_id: str) -> list[tuple[float, float, float]]:
    """(x, y, angle) of each sticker's code centre in the tile frame (mm, y down) and the direction its top
    points (radians): against two opposite edges (the vertical flats of a pointy-top tile), code outwards.
    A small per-tile jitter stands for hand-stuck stickers; it belongs to the box, not to the frame."""
    rng = np.random.default_rng(_stable_seed("sticker", component_id))
    offset = STICKER_CENTRE_OFFSET_MM
    out = []
    for outward in (0.0, math.pi):
        jx, jy = rng.uniform(-1.0, 1.0, 2)
        ja = math.radians(float(rng.uniform(-3.0, 3.0)))
        a = outward + ja
        d = offset + float(jx)
        out.append((d * math.cos(a) - float(jy) * math.sin(a), d * math.sin(a) + float(jy) * math.cos(a), a))
    return out


def _paste_sticker(
    tex: Image, text: str, label: str, place: tuple[float, float, float], origin_mm: float
) -> None:
    """Paste a sticker image into a texture (TEX_PPM px/mm) with its code centre at (cx, cy) mm (tile frame,
    texture origin at -origin_mm) and its top pointing along `angle`; `place` is (cx, cy, angle)."""
    cx_mm, cy_mm, angle = place
    m = round(MODULE_MM * TEX_PPM)
    img = sticker_image(text, label, m)
    scale = (MODULE_MM * TEX_PPM) / m
    code_c = (QR_MODULES + 2 * QUIET_MODULES) * m / 2.0
    # Sticker "up" (-v) must point along angle: rotate by angle + 90 degrees (y-down frame).
    rot = angle + math.pi / 2
    c, s = math.cos(rot) * scale, math.sin(rot) * scale
    tx = (cx_mm + origin_mm) * TEX_PPM
    ty = (cy_mm + origin_mm) * TEX_PPM
    mat = np.array([[c, -s, tx - (c * code_c - s * code_c)], [s, c, ty - (s * code_c + c * code_c)]])
    h, w = tex.shape[:2]
    warped = cv2.warpAffine(
        np.ascontiguousarray(img),
        mat,
        (w, h),
        flags=cv2.INTER_AREA,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0),
    )
    mask = cv2.warpAffine(
        np.full(img.shape[:2], 255, np.uint8),
        mat,
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    alpha = (mask.astype(np.float32) / 255.0)[:, :, None]
    tex[:] = (tex.astype(np.float32) * (1 - alpha) + warped.astype(np.float32) * alpha).astype(np.uint8)


def _art(rng: np.random.Generator, size: int, base: BGR, strength: float) -> Image:
    """Low-frequency blotches over a base colour: stands for a tile's printed artwork."""
    small = rng.normal(0.0, 1.0, (8, 8, 3)).astype(np.float32)
    big = cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)
    fine = cv2.resize(
        rng.normal(0.0, 1.0, (size // 8, size // 8, 1)).astype(np.float32),
        (size, size),
        interpolation=cv2.INTER_LINEAR,
    )
    out = np.array(base, np.float32)[None, None, :] + strength * big + 0.4 * strength * fine[:, :, None]
    return np.asarray(np.clip(out, 0, 255), np.uint8)


@functools.lru_cache(maxsize=64)
def _tile_texture_levels(component_id: str, stickers: bool) -> tuple[Image, ...]:
    """The tile's top face as textures (level 0 at TEX_PPM px/mm, each next level half), square, centred."""
    name, value, hint = _catalogue_labels().get(component_id, (component_id, None, "grasslands"))
    kind = kind_of(component_id)
    rng = np.random.default_rng(_stable_seed("tile", component_id))
    half = TILE_SIZE_MM + 2.0
    size = round(2 * half * TEX_PPM)
    if kind is not None and kind.value == "castle":
        base = _CASTLE_COLOURS.get(hint, (120, 120, 120))
        tex = _art(rng, size, base, 14.0)
    elif kind is not None and kind.value == "lake":
        tex = _art(rng, size, _KIND_COLOURS["lake"], 10.0)
    else:
        tex = _art(rng, size, _KIND_COLOURS.get(hint, (90, 150, 110)), 22.0)
    centre = size / 2.0
    # printed border and the value / name, in the dice band (top and bottom corners)
    corners = np.array(
        [
            [
                centre + TILE_SIZE_MM * TEX_PPM * math.cos(math.radians(60 * i - 30)),
                centre + TILE_SIZE_MM * TEX_PPM * math.sin(math.radians(60 * i - 30)),
            ]
            for i in range(6)
        ]
    )
    cv2.polylines(
        tex,
        [np.round(corners * 16).astype(np.int32)],
        True,
        (40, 50, 60),
        round(1.2 * TEX_PPM),
        cv2.LINE_AA,
        shift=4,
    )
    if value is not None:
        vy = int(centre - 0.62 * TILE_SIZE_MM * TEX_PPM)
        cv2.circle(tex, (int(centre), vy), int(5 * TEX_PPM), (30, 200, 230), -1, cv2.LINE_AA)
        cv2.putText(
            tex,
            str(value),
            (int(centre - 2.2 * TEX_PPM), vy + int(2.3 * TEX_PPM)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.18 * TEX_PPM,
            (20, 20, 20),
            max(1, round(0.6 * TEX_PPM)),
            cv2.LINE_AA,
        )
    cv2.putText(
        tex,
        name[:14],
        (int(centre - 15 * TEX_PPM), int(centre + 0.66 * TILE_SIZE_MM * TEX_PPM)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.06 * TEX_PPM,
        (240, 240, 240),
        max(1, round(0.3 * TEX_PPM)),
        cv2.LINE_AA,
    )
    if stickers:
        text = format_payload(component_id)
        label = sticker_label(name, value)
        for x, y, a in _sticker_placements(component_id):
            _paste_sticker(tex, text, label, (x, y, a), half)
    return _pyramid(tex)


@functools.lru_cache(maxsize=64)
def _card_texture_levels(component_id: str, face_up: bool) -> tuple[Image, ...]:
    w = round(CARD_W_MM * TEX_PPM)
    h = round(CARD_H_MM * TEX_PPM)
    rng = np.random.default_rng(_stable_seed("card", component_id, face_up))
    if face_up:
        tex = _art(rng, max(w, h), (200, 225, 235), 6.0)[:h, :w].copy()
        name = _catalogue_labels().get(component_id, (component_id, None, ""))[0]
        cv2.putText(
            tex,
            name[:18],
            (int(4 * TEX_PPM), int(10 * TEX_PPM)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.055 * TEX_PPM,
            (40, 40, 80),
            max(1, round(0.25 * TEX_PPM)),
            cv2.LINE_AA,
        )
        label = label_for(component_id)
        _paste_sticker_rect(tex, format_payload(component_id), label)
    else:
        tex = _art(rng, max(w, h), (40, 40, 110), 10.0)[:h, :w].copy()
        cv2.rectangle(
            tex,
            (int(3 * TEX_PPM), int(3 * TEX_PPM)),
            (w - int(3 * TEX_PPM), h - int(3 * TEX_PPM)),
            (60, 150, 200),
            max(1, round(0.8 * TEX_PPM)),
            cv2.LINE_AA,
        )
    cv2.rectangle(tex, (0, 0), (w - 1, h - 1), (60, 60, 60), max(1, round(0.4 * TEX_PPM)))
    return _pyramid(tex)


def _paste_sticker_rect(tex: Image, text: str, label: str) -> None:
    h, w = tex.shape[:2]
    # code centre a little above the card centre so the whole sticker sits in the middle
    cx = w / 2 / TEX_PPM
    cy = h / 2 / TEX_PPM - (STICKER_H_MM - STICKER_W_MM) / 2
    _paste_sticker(tex, text, label, (cx, cy, -math.pi / 2), 0.0)


def _pyramid(tex: Image) -> tuple[Image, ...]:
    levels = [tex]
    while min(levels[-1].shape[:2]) > 48:
        levels.append(np.asarray(cv2.pyrDown(levels[-1]), np.uint8))
    for lv in levels:
        lv.setflags(write=False)
    return tuple(levels)


@functools.lru_cache(maxsize=256)
class DieLook(Protocol):
    """How one kind of die looks: a face showing `value`, `px` x `px`, seen from straight above."""

    def face(self, value: int, px: int, rng: np.random.Generator) -> Image: ...


@dataclass(frozen=True, slots=True)
class DrawnLook:
    """A die drawn in any colours: a body (marbled with a second colour when `swirl` is given), pips, and
    how large the pips are and how dark the rounded edges read."""

    body: BGR
    pips: BGR
    swirl: BGR | None = None
    pip_scale: float = 1.0
    edge: float = 0.25

    def face(self, value: int, px: int, rng: np.random.Generator) -> Image:
        face = np.empty((px, px, 3), np.float32)
        face[:] = self.body
        if self.swirl is not None:
            noise = cv2.GaussianBlur(rng.standard_normal((px, px)).astype(np.float32), (0, 0), px / 8.0)
            share = np.clip((noise / max(float(noise.std()), 1e-6)) * 0.8 + 0.5, 0.0, 1.0)[:, :, None]
            face = face * (1.0 - share) + np.asarray(self.swirl, np.float32) * share
        yy, xx = np.mgrid[0:px, 0:px].astype(np.float32) / (px - 1)
        edge = np.minimum(np.minimum(xx, 1 - xx), np.minimum(yy, 1 - yy))
        face *= (np.clip(edge / 0.12, 0.0, 1.0) * self.edge + 1.0 - self.edge)[:, :, None]
        out = np.clip(face, 0, 255).astype(np.uint8)
        r = max(1, round(0.085 * self.pip_scale * px * 16)) if px >= 8 else 1
        for fx, fy in PIPS[value]:
            cv2.circle(
                out, (round(fx * (px - 1) * 16), round(fy * (px - 1) * 16)), r, self.pips, -1, cv2.LINE_AA,
                shift=4,
            )
        return np.ascontiguousarray(np.rot90(out, int(rng.integers(0, 4))))


def _die_face(colour: Colour, value: int, px: int) -> Image:
    body = np.array(DIE_COLOURS[colour], np.float32)
    face = np.empty((px, px, 3), np.float32)
    face[:] = body
    # rounded edges read darker/lighter on real dice
    yy, xx = np.mgrid[0:px, 0:px].astype(np.float32) / (px - 1)
    edge = np.minimum(np.minimum(xx, 1 - xx), np.minimum(yy, 1 - yy))
    shade = np.clip(edge / 0.12, 0.0, 1.0) * 0.25 + 0.75
    face *= shade[:, :, None]
    out = np.clip(face, 0, 255).astype(np.uint8)
    pip = PIP_COLOURS[colour]
    r = max(1, round(0.085 * px * 16)) if px >= 8 else 1
    for fx, fy in PIPS[value]:
        cv2.circle(
            out, (round(fx * (px - 1) * 16), round(fy * (px - 1) * 16)), r, pip, -1, cv2.LINE_AA, shift=4
        )
    out.setflags(write=False)
    return out


# --- drawing onto the frame ---------------------------------------------------------------------------------


def _warp_into(
    frame: Image, tex: Image, src_to_img: FloatArray, polygon: FloatArray, shade: float = 1.0
) -> None:
    """Warp a texture into the frame through a homography, inside `polygon` (image px, anti-aliased edge)."""
    h, w = frame.shape[:2]
    x0 = max(math.floor(float(polygon[:, 0].min())) - 1, 0)
    y0 = max(math.floor(float(polygon[:, 1].min())) - 1, 0)
    x1 = min(math.ceil(float(polygon[:, 0].max())) + 2, w)
    y1 = min(math.ceil(float(polygon[:, 1].max())) + 2, h)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
    m = shift @ src_to_img
    roi = frame[y0:y1, x0:x1]
    warped = cv2.warpPerspective(
        tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = np.round((polygon - [x0, y0]) * 16).astype(np.int32)
    cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA, shift=4)
    if shade != 1.0:
        warped = cv2.convertScaleAbs(warped, alpha=shade)
    alpha = cv2.merge([mask, mask, mask])
    blended = (roi.astype(np.uint16) * (255 - alpha) + warped.astype(np.uint16) * alpha + 127) // 255
    roi[:] = blended.astype(np.uint8)


def _pick_level(levels: tuple[Image, ...], px_per_mm: float) -> tuple[Image, float]:
    ppm = TEX_PPM
    chosen = levels[0]
    for lv in levels[1:]:
        if ppm / 2.0 < 1.25 * px_per_mm:
            break
        ppm /= 2.0
        chosen = lv
    return chosen, ppm


def _local_ppm(hom: FloatArray, x: float, y: float) -> float:
    p = np.array([[x, y], [x + 1.0, y], [x, y + 1.0]], np.float64)
    q = cv2.perspectiveTransform(p[None], hom)[0]
    return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])))


def _placement_matrix(
    place: tuple[float, float, float], tex_ppm: float, tex_w: int, tex_h: int
) -> FloatArray:
    """Texture px -> table mm for a texture centred at `place` = (cx, cy, angle)."""
    cx, cy, angle = place
    c, s = math.cos(angle), math.sin(angle)
    k = 1.0 / tex_ppm
    ox, oy = (tex_w - 1) / 2.0, (tex_h - 1) / 2.0
    return np.array(
        [
            [c * k, -s * k, cx - (c * ox - s * oy) * k],
            [s * k, c * k, cy - (s * ox + c * oy) * k],
            [0.0, 0.0, 1.0],
        ]
    )


def _hex_corners_mm(cx: float, cy: float, angle: float, size: float) -> FloatArray:
    return np.array(
        [
            [
                cx + size * math.cos(math.radians(60 * i - 30) + angle),
                cy + size * math.sin(math.radians(60 * i - 30) + angle),
            ]
            for i in range(6)
        ]
    )


def _to_img(hom: FloatArray, pts: FloatArray) -> FloatArray:
    return np.asarray(cv2.perspectiveTransform(pts.reshape(1, -1, 2).astype(np.float64), hom)[0], np.float64)


@dataclass(slots=True)
class _Die:
    location: str | None
    colour: Colour
    value: int
    x: float
    y: float
    yaw: float


def _side_values(value: int, rng: np.random.Generator) -> list[int]:
    sides = [v for v in range(1, 7) if v not in (value, 7 - value)]
    rng.shuffle(sides)
    return sides


def _draw_die(
    frame: Image,
    cam: _Camera,
    die: _Die,
    light: FloatArray,
    rng: np.random.Generator,
    *,
    size_mm: float = DIE_MM,
    look: DieLook | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Draw one die (in its player's `DIE_COLOURS`, or as `look` has it); returns (silhouette hull px, top
    face 4x2 px)."""
    h = size_mm / 2.0
    c, s = math.cos(die.yaw), math.sin(die.yaw)
    base = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    rot = base @ np.array([[c, s], [-s, c]])
    xy = rot + np.array([die.x, die.y])
    bottom = np.column_stack([xy, np.zeros(4)])
    top = np.column_stack([xy, np.full(4, -size_mm)])
    top_px = cam.project(top)
    bottom_px = cam.project(bottom)
    ppm = float(np.linalg.norm(top_px[1] - top_px[0])) / size_mm
    face_px = int(min(128, max(16, 2 ** math.ceil(math.log2(max(size_mm * ppm * 1.3, 2.0))))))
    src = np.array([[0, 0], [face_px - 1, 0], [face_px - 1, face_px - 1], [0, face_px - 1]], np.float32)
    sides = _side_values(die.value, rng)
    for i in range(4):
        j = (i + 1) % 4
        mid = (xy[i] + xy[j]) / 2.0 - [die.x, die.y]
        normal = np.array([mid[0], mid[1], 0.0]) / max(np.linalg.norm(mid), 1e-9)
        face_centre = np.array([(xy[i][0] + xy[j][0]) / 2, (xy[i][1] + xy[j][1]) / 2, -h])
        to_cam = cam.C - face_centre
        if float(normal @ to_cam) <= 0:
            continue
        quad = np.array([top_px[i], top_px[j], bottom_px[j], bottom_px[i]])
        shade = 0.55 + 0.3 * max(0.0, float(normal @ light))
        tex = _die_face(die.colour, sides[i], face_px) if look is None else look.face(sides[i], face_px, rng)
        m = cv2.getPerspectiveTransform(src, quad.astype(np.float32)).astype(np.float64)
        _warp_into(frame, tex, m, quad, shade)
    tex = _die_face(die.colour, die.value, face_px) if look is None else look.face(die.value, face_px, rng)
    m = cv2.getPerspectiveTransform(src, top_px.astype(np.float32)).astype(np.float64)
    _warp_into(frame, tex, m, top_px, 1.0)
    hull = cv2.convexHull(np.vstack([top_px, bottom_px]).astype(np.float32))[:, 0, :].astype(np.float64)
    return hull, top_px


def _die_positions(
    location: str,
    centre: tuple[float, float],
    angle: float,
    values: list[tuple[Colour, int]],
    rng: np.random.Generator,
) -> list[_Die]:
    """Dice on a tile, in the band between its two stickers (tile frame x ~ 0), spread along y."""
    n = len(values)
    cols = 1 if n <= 4 else 2 if n <= 8 else 3
    rows = math.ceil(n / cols)
    pitch = DIE_MM * 1.22
    out: list[_Die] = []
    placed: list[FloatArray] = []
    ca, sa = math.cos(angle), math.sin(angle)
    for k, (colour, value) in enumerate(values):
        col, row = k % cols, k // cols
        for attempt in range(12):
            lx = (col - (cols - 1) / 2) * pitch + float(rng.uniform(-1.5, 1.5))
            ly = (row - (rows - 1) / 2) * pitch + float(rng.uniform(-1.5, 1.5))
            yaw = angle + math.radians(float(rng.uniform(-12, 12))) if attempt < 10 else angle
            x = centre[0] + lx * ca - ly * sa
            y = centre[1] + lx * sa + ly * ca
            fp = _footprint(x, y, yaw, DIE_MM * 1.04)
            if all(
                cv2.intersectConvexConvex(fp.astype(np.float32), o.astype(np.float32))[0] <= 0.0
                for o in placed
            ):
                break
        placed.append(fp)
        out.append(_Die(location, colour, value, x, y, yaw))
    return out


def _footprint(x: float, y: float, yaw: float, size: float) -> FloatArray:
    h = size / 2
    c, s = math.cos(yaw), math.sin(yaw)
    base = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return np.asarray(base @ np.array([[c, s], [-s, c]]) + np.array([x, y]), np.float64)


def dice_for(knights: Mapping[Colour, int]) -> list[tuple[Colour, int]]:
    """Dice showing a number of knights per colour: as few dice as possible (sixes, then the rest)."""
    out: list[tuple[Colour, int]] = []
    for colour in sorted(knights, key=lambda c: c.value):
        n = int(knights[colour])
        while n > 0:
            out.append((colour, min(6, n)))
            n -= 6
    return out


# --- hands, light, sensor -----------------------------------------------------------------------------------


def _hand_polygons(
    rng: np.random.Generator, tip: FloatArray, size: tuple[int, int], px_per_mm: float
) -> list[FloatArray]:
    """A hand reaching in from the nearest frame edge to `tip` (px): arm, palm, four fingers and a thumb."""
    w, h = size
    edges = {"left": tip[0], "right": w - tip[0], "top": tip[1], "bottom": h - tip[1]}
    side = min(edges, key=lambda k: edges[k])
    entry = {
        "left": (-50.0, tip[1]),
        "right": (w + 50.0, tip[1]),
        "top": (tip[0], -50.0),
        "bottom": (tip[0], h + 50.0),
    }[side]
    entry_pt = np.array(entry) + rng.uniform(-0.15, 0.15, 2) * [w, h]
    direction = tip - entry_pt
    direction /= max(float(np.linalg.norm(direction)), 1e-6)
    normal = np.array([-direction[1], direction[0]])
    palm_w = 85 * px_per_mm
    palm_l = 95 * px_per_mm
    palm_c = tip - direction * (palm_l * 0.2)
    polys = []
    arm_w = 70 * px_per_mm
    wrist = palm_c - direction * palm_l * 0.45
    polys.append(
        np.array(
            [
                entry_pt + normal * arm_w * 0.6,
                wrist + normal * arm_w / 2,
                wrist - normal * arm_w / 2,
                entry_pt - normal * arm_w * 0.6,
            ]
        )
    )
    ell = cv2.ellipse2Poly(
        (round(palm_c[0]), round(palm_c[1])),
        (round(palm_l / 2), round(palm_w / 2)),
        round(math.degrees(math.atan2(direction[1], direction[0]))),
        0,
        360,
        15,
    )
    polys.append(np.asarray(ell, np.float64))
    for i in range(4):
        off = (i - 1.5) / 1.5 * palm_w * 0.36
        base = palm_c + direction * palm_l * 0.38 + normal * off
        length = (60 + 10 * (1 - abs(i - 1.5) / 1.5)) * px_per_mm * float(rng.uniform(0.7, 1.05))
        bend = direction + normal * float(rng.uniform(-0.25, 0.25))
        end = base + bend / np.linalg.norm(bend) * length
        fw = 17 * px_per_mm
        polys.append(
            np.array(
                [
                    base + normal * fw / 2,
                    end + normal * fw / 2.4,
                    end - normal * fw / 2.4,
                    base - normal * fw / 2,
                ]
            )
        )
    thumb_base = palm_c + normal * palm_w * 0.45
    thumb_end = thumb_base + (normal * 0.8 + direction * 0.6) * 55 * px_per_mm
    fw = 20 * px_per_mm
    polys.append(
        np.array(
            [
                thumb_base + direction * fw / 2,
                thumb_end + direction * fw / 2.4,
                thumb_end - direction * fw / 2.4,
                thumb_base - direction * fw / 2,
            ]
        )
    )
    return polys


def _draw_hand(frame: Image, polys: list[FloatArray], rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    h, w = frame.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for p in polys:
        cv2.fillPoly(mask, [np.round(p * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    skin = np.array([rng.uniform(90, 150), rng.uniform(130, 175), rng.uniform(175, 225)], np.float32)
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return mask
    x0, x1, y0, y1 = bx, bx + bw, by, by + bh
    sub = mask[y0:y1, x0:x1]
    # a soft shadow first, then the hand with smooth shading
    shadow = cv2.GaussianBlur(sub, (0, 0), max(2.0, (x1 - x0) / 40))
    off = max(2, (x1 - x0) // 30)
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    sh = np.zeros_like(shadow)
    sh[off:, off:] = shadow[:-off, :-off]
    roi *= 1.0 - 0.35 * (sh.astype(np.float32) / 255.0)[:, :, None]
    dist = cv2.distanceTransform((sub > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.75 + 0.25 * np.clip(dist / max(float(dist.max()), 1.0) * 2.0, 0.0, 1.0)
    hand = skin[None, None, :] * shade[:, :, None]
    a = (sub.astype(np.float32) / 255.0)[:, :, None]
    roi = roi * (1 - a) + hand * a
    frame[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    return mask


def _apply_light(frame: Image, params: SceneParams, rng: np.random.Generator) -> Image:
    h, w = frame.shape[:2]
    sw, sh = 48, 27
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx = xx / (sw - 1) * 2 - 1
    yy = yy / (sh - 1) * 2 - 1
    ang = float(rng.uniform(0, 2 * math.pi))
    grad = (xx * math.cos(ang) + yy * math.sin(ang)) * 0.5
    vignette = -(xx**2 + yy**2) * 0.25
    exposure = float(rng.uniform(0.92, 1.06))
    gain = exposure * (1.0 + params.unevenness * (grad + vignette))
    t = params.temperature
    chan = np.array([1.0 - 0.18 * t, 1.0 - 0.02 * abs(t), 1.0 + 0.12 * t], np.float32)
    g = np.clip(gain[:, :, None] * chan[None, None, :] * 128.0, 0, 255).astype(np.uint8)
    big = cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.asarray(cv2.multiply(frame, big, scale=1.0 / 128.0), np.uint8)


_Spot = tuple[float, float, float, float, float]  # cx, cy, sx, sy, peak


def _glare_at_points(spots: Sequence[_Spot], pts: FloatArray) -> float:
    """The strongest glare (0..1) any spot casts on any of the points."""
    best = 0.0
    for cx, cy, sx, sy, peak in spots:
        a = peak * np.exp(-(((pts[:, 0] - cx) / sx) ** 2 + ((pts[:, 1] - cy) / sy) ** 2) / 2.0)
        best = max(best, float(a.max()))
    return best


def _add_glare(frame: Image, rng: np.random.Generator, spots: int, scale: float) -> list[_Spot]:
    h, w = frame.shape[:2]
    out: list[_Spot] = []
    for _ in range(spots):
        cx, cy = float(rng.uniform(0.1, 0.9) * w), float(rng.uniform(0.1, 0.9) * h)
        sx = float(rng.uniform(25, 70)) * scale
        sy = sx * float(rng.uniform(0.4, 1.0))
        peak = float(rng.uniform(0.55, 0.9))
        out.append((cx, cy, sx, sy, peak))
        r = int(3 * max(sx, sy))
        x0, x1 = max(0, int(cx) - r), min(w, int(cx) + r)
        y0, y1 = max(0, int(cy) - r), min(h, int(cy) + r)
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        a = peak * np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2) / 2.0)
        roi = frame[y0:y1, x0:x1].astype(np.float32)
        roi += (255.0 - roi) * a[:, :, None]
        frame[y0:y1, x0:x1] = roi.astype(np.uint8)
    return out


_NOISE_SCALE = 32.0
_NOISE_MARGIN = 64


@functools.lru_cache(maxsize=4)
def _noise_base(shape: tuple[int, ...]) -> npt.NDArray[np.int16]:
    """A fixed field of unit noise (times _NOISE_SCALE), a little larger than the frame: each frame takes a
    randomly offset window of it, which costs no generation time at 4K."""
    h, w = shape[:2]
    channels = shape[2] if len(shape) > 2 else 1
    flat = np.empty((h + _NOISE_MARGIN, (w + _NOISE_MARGIN) * channels), np.int16)  # one channel: a scalar
    cv2.setRNGSeed(12345)  # sigma fills all of it (on 3 channels OpenCV would fill only the first)
    cast(Any, cv2).randn(flat, 0.0, _NOISE_SCALE)  # scalar mean/sigma: the stubs only list arrays
    base = flat.reshape(h + _NOISE_MARGIN, w + _NOISE_MARGIN, *shape[2:])
    base.setflags(write=False)
    return base


def _add_noise(frame: Image, sigma: float, rng: np.random.Generator) -> Image:
    """Sensor noise of standard deviation `sigma` grey levels."""
    base = _noise_base(frame.shape)
    dy, dx = (int(v) for v in rng.integers(0, _NOISE_MARGIN, 2))
    h, w = frame.shape[:2]
    window = base[dy : dy + h, dx : dx + w]
    k = sigma / _NOISE_SCALE
    noise = cast(Any, cv2).multiply(window.reshape(h, -1), k, dtype=cv2.CV_16S).reshape(window.shape)
    return np.asarray(cv2.add(frame, noise, dtype=cv2.CV_8U), np.uint8)


def _table(size: tuple[int, int], rng: np.random.Generator) -> Image:
    w, h = size
    base = np.array([rng.uniform(50, 80), rng.uniform(85, 115), rng.uniform(120, 160)], np.float32)
    low = cv2.resize(
        rng.normal(0, 1, (9, 16, 1)).astype(np.float32), (w // 4, h // 4), interpolation=cv2.INTER_CUBIC
    )
    grain = cv2.resize(
        rng.normal(0, 1, (h // 32, 1)).astype(np.float32), (w // 4, h // 4), interpolation=cv2.INTER_LINEAR
    )
    small = base[None, None, :] + (10 * low + 6 * grain)[:, :, None]
    return np.asarray(
        cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR), np.uint8
    )


# --- scene --------------------------------------------------------------------------------------------------


def render_scene(spec: SceneSpec, seed: int) -> tuple[Image, GroundTruth]:
    """Render one frame of a table described by `spec`; returns (BGR image, exact ground truth)."""
    w, h = spec.resolution
    if w < 64 or h < 64:
        raise ValueError(f"resolution must be at least 64x64, got {spec.resolution!r}")
    rng = np.random.default_rng(_stable_seed("frame", seed))
    steady = spec.steady_seed

    def steady_rng(*part: object) -> np.random.Generator:
        """The frame's generator, or in a stream (`steady_seed`) one of its own per part of the scene."""
        return rng if steady is None else np.random.default_rng(_stable_seed("steady", steady, *part))

    layout_seed = spec.layout_seed if spec.layout_seed is not None else seed
    lrng = np.random.default_rng(_stable_seed("layout", layout_seed))
    params = _draw_params(spec, steady_rng("params"), lrng)
    res_scale = w / RES_1080P[0]

    # table-frame placement of tiles: lattice position (rotated by yaw) plus jitter. Players set the camera
    # on the side of the table that fits the map best: unless the yaw was given, turn a long map a quarter
    # turn when that lets it fill more of the frame.
    yaw = math.radians(params.yaw_deg)
    if spec.yaw_deg is None and spec.tiles:
        yaw = _best_quarter_turn(list(spec.tiles), yaw, w / h)
        params = replace(params, yaw_deg=math.degrees(yaw))
    cy, sy = math.cos(yaw), math.sin(yaw)
    # Tiles are cardboard: a nudged or turned tile pushes its neighbours rather than sliding under them.
    # So tiles lie with a small natural gap, and a tile's random shift and turn are scaled back until it
    # does not overlap the tiles already placed (visible shifts stay up to `tile_shift` where there is room).
    pitch = TILE_ACROSS_FLATS_MM * NATURAL_GAP
    size = TILE_SIZE_MM * NATURAL_GAP
    placements: dict[str, tuple[float, float, float]] = {}
    tile_hexes: dict[str, Hex] = {}
    placed_polys: list[FloatArray] = []
    tile_area = 1.5 * math.sqrt(3.0) * TILE_SIZE_MM**2
    for hx in sorted(spec.tiles):
        tid = spec.tiles[hx]
        trng = np.random.default_rng(_stable_seed("place", layout_seed, tid, hx.q, hx.r))
        bx, by = hx.to_pixel(size)
        r = float(trng.uniform(0, params.tile_shift)) * pitch
        a = float(trng.uniform(0, 2 * math.pi))
        turn = float(trng.uniform(-1, 1)) * params.tile_rotation_deg
        quarter = 60 * int(trng.integers(0, 6))
        for k in (1.0, 0.75, 0.5, 0.3, 0.15, 0.0):
            px, py = bx + k * r * math.cos(a), by + k * r * math.sin(a)
            wx, wy = px * cy - py * sy, px * sy + py * cy
            ang = yaw + math.radians(quarter + k * turn)
            poly = _hex_corners_mm(wx, wy, ang, TILE_SIZE_MM)
            p32 = poly.astype(np.float32)
            if all(
                cv2.intersectConvexConvex(p32, o.astype(np.float32))[0] < 0.005 * tile_area
                for o in placed_polys
            ):
                break
        placed_polys.append(poly)
        placements[tid] = (wx, wy, ang)
        tile_hexes[tid] = hx

    # artefact cards: face-up in front of their owners; here in columns left and right of the map, which
    # suits a 16:9 frame
    cards: dict[str, tuple[float, float, float]] = {}
    if placements:
        pts = np.array([[p[0], p[1]] for p in placements.values()])
        lo, hi = pts.min(axis=0) - TILE_SIZE_MM, pts.max(axis=0) + TILE_SIZE_MM
    else:
        lo, hi = np.array([-100.0, -100.0]), np.array([100.0, 100.0])
    ids = sorted(spec.artefacts)
    per_col = max(1, min(4, int((hi[1] - lo[1]) // (CARD_H_MM + 8))))
    for k, aid in enumerate(ids):
        side = k % 2
        col, row = (k // 2) // per_col, (k // 2) % per_col
        rows_here = min(per_col, math.ceil((len(ids) - side) / 2) - col * per_col)
        x = (
            (lo[0] - 12 - CARD_W_MM / 2 - col * (CARD_W_MM + 8))
            if side == 0
            else (hi[0] + 12 + CARD_W_MM / 2 + col * (CARD_W_MM + 8))
        )
        y = (lo[1] + hi[1]) / 2 + (row - (rows_here - 1) / 2) * (CARD_H_MM + 8)
        cards[aid] = (
            x + float(lrng.uniform(-3, 3)),
            y + float(lrng.uniform(-3, 3)),
            math.radians(float(lrng.uniform(-6, 6))) + yaw * 0,
        )

    # camera
    extent_pts = []
    for x, y, a in placements.values():
        extent_pts.extend(_hex_corners_mm(x, y, a, TILE_SIZE_MM).tolist())
    for x, y, a in cards.values():
        extent_pts.extend(_card_corners(x, y, a).tolist())
    if not extent_pts:
        extent_pts = [[-200.0, -120.0], [200.0, 120.0]]
    ext = np.array(extent_pts)
    cam = _fit_camera(np.column_stack([ext, np.zeros(len(ext))]), params.tilt_deg, (w, h), params.fill)
    hom = cam.plane_homography
    centre_world = cv2.perspectiveTransform(np.array([[[w / 2, h / 2]]], np.float64), np.linalg.inv(hom))[
        0, 0
    ]
    ppm_centre = _local_ppm(hom, float(centre_world[0]), float(centre_world[1]))

    frame = _table((w, h), steady_rng("table"))
    lit = steady_rng("light")
    light = np.array([float(lit.uniform(-0.6, 0.6)), float(lit.uniform(-0.6, 0.6)), -0.6])
    light /= np.linalg.norm(light)

    tile_polygons: dict[str, FloatArray] = {}
    tile_centres: dict[str, tuple[float, float]] = {}
    tags: list[tuple[str, str, FloatArray]] = []
    tile_covered: set[int] = set()
    for tid, (x, y, a) in placements.items():
        poly_mm = _hex_corners_mm(x, y, a, TILE_SIZE_MM)
        poly = _to_img(hom, poly_mm)
        tile_polygons[tid] = poly
        c = _to_img(hom, np.array([[x, y]]))[0]
        tile_centres[tid] = (float(c[0]), float(c[1]))
        levels = _tile_texture_levels(tid, spec.stickers)
        tex, tppm = _pick_level(levels, _local_ppm(hom, x, y))
        m = hom @ _placement_matrix((x, y, a), tppm, tex.shape[1], tex.shape[0])
        # a thin dark edge stands for the tile's thickness
        cv2.polylines(
            frame,
            [np.round(poly * 16).astype(np.int32)],
            True,
            (25, 30, 35),
            max(1, round(2 * res_scale)),
            cv2.LINE_AA,
            shift=4,
        )
        _warp_into(frame, tex, m, poly)
        for k, (_p, _c, corners) in enumerate(tags):  # a shifted tile can lie over a neighbour's sticker
            if cv2.intersectConvexConvex(corners.astype(np.float32), poly.astype(np.float32))[0] > 1.0:
                tile_covered.add(k)
        if spec.stickers:
            for sx, sy_, sa in _sticker_placements(tid):
                tags.append((format_payload(tid), tid, _code_corners_img(hom, (x, y, a), (sx, sy_, sa))))

    card_polygons: dict[str, FloatArray] = {}
    for aid, (x, y, a) in cards.items():
        poly = _to_img(hom, _card_corners(x, y, a))
        card_polygons[aid] = poly
        levels = _card_texture_levels(aid, bool(spec.artefacts[aid]))
        tex, tppm = _pick_level(levels, _local_ppm(hom, x, y))
        m = hom @ _placement_matrix((x, y, a), tppm, tex.shape[1], tex.shape[0])
        _warp_into(frame, tex, m, poly)
        if spec.artefacts[aid]:
            cx_mm = 0.0
            cy_mm = -(STICKER_H_MM - STICKER_W_MM) / 2
            tags.append(
                (format_payload(aid), aid, _code_corners_img(hom, (x, y, a), (cx_mm, cy_mm, -math.pi / 2)))
            )

    # scraps of paper over some stickers (robustness tests: "a quarter of the tags hidden")
    blockers: list[FloatArray] = []
    if spec.hide_tags > 0 and tags:
        n_hide = round(spec.hide_tags * len(tags))
        hide_rng = np.random.default_rng(_stable_seed("hide", seed))
        for idx in hide_rng.choice(len(tags), size=min(n_hide, len(tags)), replace=False):
            corners = tags[int(idx)][2]
            centre = corners.mean(axis=0)
            scrap = (
                centre
                + (corners - centre) * 0.75
                + hide_rng.uniform(-0.1, 0.1, (4, 2)) * (corners[1] - corners[0])[None, :].__abs__().max()
            )
            cv2.fillConvexPoly(
                frame,
                np.round(scrap * 16).astype(np.int32),
                (int(hide_rng.integers(150, 230)),) * 3,
                cv2.LINE_AA,
                shift=4,
            )
            blockers.append(scrap)

    # dice
    dice: list[_Die] = []
    for loc in sorted(spec.knights):
        values = dice_for(spec.knights[loc])
        if not values or loc not in placements:
            continue
        x, y, a = placements[loc]
        drng = np.random.default_rng(
            _stable_seed(
                "dice", layout_seed, loc, tuple(sorted((c.value, n) for c, n in spec.knights[loc].items()))
            )
        )
        dice.extend(_die_positions(loc, (x, y), a, values, drng))
    dice.sort(key=lambda d: -float(cam.depth(np.array([[d.x, d.y, -DIE_MM / 2]]))[0]))
    drawn: list[tuple[_Die, FloatArray, FloatArray]] = []
    for d in dice:
        _draw_shadow(frame, cam, d, light)
    for d in dice:
        faces = steady_rng("die", d.location, round(d.x, 2), round(d.y, 2))
        hull, top = _draw_die(frame, cam, d, light, faces, look=spec.looks.get(d.colour))
        drawn.append((d, hull, top))
        blockers.append(hull)

    # hands
    occ_mask = np.zeros((h, w), np.uint8)
    if params.occluders > 0 and tile_centres:
        ids = sorted(tile_centres)
        for _ in range(params.occluders):
            target = np.array(tile_centres[ids[int(rng.integers(0, len(ids)))]]) + rng.normal(
                0, 20 * res_scale, 2
            )
            polys = _hand_polygons(rng, target, (w, h), ppm_centre)
            occ_mask |= _draw_hand(frame, polys, rng)

    glare_rng = steady_rng("glare")
    spots = _add_glare(frame, glare_rng, params.glare_spots, res_scale) if params.glare_spots else []
    frame = _apply_light(frame, params, lit)
    if params.blur_sigma > 0:
        # a 4K camera is sharper per millimetre than a 1080p one, though not twice as sharp
        frame = np.asarray(
            cv2.GaussianBlur(frame, (0, 0), params.blur_sigma * math.sqrt(res_scale)), np.uint8
        )
    if params.noise_sigma > 0:
        frame = _add_noise(frame, params.noise_sigma, rng)

    # ground truth
    small = (
        np.asarray(cv2.resize(occ_mask, (w // 4, h // 4), interpolation=cv2.INTER_AREA), np.uint8)
        if params.occluders
        else None
    )
    occluded: set[str] = set()
    for loc, poly in list(tile_polygons.items()) + list(card_polygons.items()):
        if small is not None and _covered_fraction(small, poly / 4.0) > 0.02:
            occluded.add(loc)
    die_truths = []
    for d, hull, top in drawn:
        x0, y0 = np.floor(hull.min(axis=0)).astype(int)
        x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + 1
        hidden = small is not None and _covered_fraction(small, hull / 4.0) > 0.3
        centre = top.mean(axis=0)
        die_truths.append(
            DieTruth(
                d.location,
                d.colour,
                d.value,
                (int(x0), int(y0), int(x1), int(y1)),
                top,
                (float(centre[0]), float(centre[1])),
                bool(hidden),
                _glare_at_points(spots, np.vstack([top, centre[None, :]])),
            )
        )
    tag_truths = []
    for k, (payload, comp, corners) in enumerate(tags):
        covered = k in tile_covered or any(
            cv2.intersectConvexConvex(corners.astype(np.float32), b.astype(np.float32))[0] > 0.0
            for b in blockers
        )
        if small is not None and _covered_fraction(small, corners / 4.0) > 0.0:
            covered = True
        tag_truths.append(
            TagTruth(
                payload,
                comp,
                corners,
                covered,
                _glare_at_points(spots, np.vstack([corners, corners.mean(0)])),
            )
        )
    knights = {loc: {c: int(n) for c, n in per.items() if n > 0} for loc, per in spec.knights.items()}
    truth = GroundTruth(
        tiles=dict(spec.tiles),
        tile_polygons=tile_polygons,
        tile_centres=tile_centres,
        tile_hexes=tile_hexes,
        dice=tuple(die_truths),
        knights={k: v for k, v in knights.items() if v},
        artefacts={k: bool(v) for k, v in spec.artefacts.items()},
        card_polygons=card_polygons,
        tags=tuple(tag_truths),
        occluded=frozenset(occluded),
        homography=hom,
        px_per_mm=ppm_centre,
        params=params,
        resolution=(w, h),
    )
    return frame, truth


def _best_quarter_turn(cells: list[Hex], yaw: float, aspect: float) -> float:
    pts = np.array([h.to_pixel(1.0) for h in cells])
    best, best_scale = yaw, -1.0
    for turn in (0.0, math.pi / 2):
        a = yaw + turn
        c, s = math.cos(a), math.sin(a)
        r = pts @ np.array([[c, s], [-s, c]])
        extent = r.max(axis=0) - r.min(axis=0) + 2.0
        scale = min(aspect / extent[0], 1.0 / extent[1])
        if scale > best_scale + 1e-9:
            best, best_scale = a, scale
    return best


def _covered_fraction(mask: npt.NDArray[np.uint8], poly: FloatArray) -> float:
    h, w = mask.shape
    x0 = max(int(poly[:, 0].min()), 0)
    y0 = max(int(poly[:, 1].min()), 0)
    x1 = min(int(poly[:, 0].max()) + 1, w)
    y1 = min(int(poly[:, 1].max()) + 1, h)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    pm = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(pm, np.round(poly - [x0, y0]).astype(np.int32), 255)
    area = int(np.count_nonzero(pm))
    if area == 0:
        return 0.0
    both = np.count_nonzero((pm > 0) & (mask[y0:y1, x0:x1] > 127))
    return float(both) / area


def _card_corners(x: float, y: float, a: float) -> FloatArray:
    hw, hh = CARD_W_MM / 2, CARD_H_MM / 2
    base = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    c, s = math.cos(a), math.sin(a)
    return np.asarray(base @ np.array([[c, s], [-s, c]]) + np.array([x, y]), np.float64)


def _code_corners_img(
    hom: FloatArray, place: tuple[float, float, float], sticker: tuple[float, float, float]
) -> FloatArray:
    """Image corners (TL, TR, BR, BL in the code's own orientation) of a code whose centre sits at (sx, sy) in
    the frame of a tile/card placed at (x, y, a), top pointing along `sa` (tile frame)."""
    x, y, a = place
    sx, sy, sa = sticker
    half = QR_MODULES * MODULE_MM / 2
    up = np.array([math.cos(sa), math.sin(sa)])
    right = np.array([-up[1], up[0]])
    local = np.array([sx, sy]) + np.array([(-right + up), (right + up), (right - up), (-right - up)]) * half
    c, s = math.cos(a), math.sin(a)
    world = local @ np.array([[c, s], [-s, c]]) + [x, y]
    return _to_img(hom, world)


def _draw_shadow(frame: Image, cam: _Camera, die: _Die, light: FloatArray) -> None:
    # a soft shadow cast away from the light
    offset = -light[:2] / max(abs(float(light[2])), 0.3) * DIE_MM * 0.35
    fp = _footprint(die.x + float(offset[0]), die.y + float(offset[1]), die.yaw, DIE_MM * 1.05)
    px = cam.project(np.column_stack([fp, np.zeros(4)]))
    x0, y0 = np.floor(px.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 5
    hh, ww = frame.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, ww), min(y1, hh)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((px - [x0, y0]) * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.5)
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    roi *= 1.0 - 0.4 * (mask.astype(np.float32) / 255.0)[:, :, None]
    frame[y0:y1, x0:x1] = roi.astype(np.uint8)


# --- single dice (die-level tests) --------------------------------------------------------------------------


def render_die(
    value: int,
    colour: Colour,
    *,
    seed: int = 0,
    size_px: float = 40.0,
    canvas: tuple[int, int] | None = None,
    tilt_deg: float = 0.0,
    yaw_deg: float | None = None,
    neighbours: Sequence[tuple[int, Colour]] = (),
    touching: bool = True,
    glare: bool = False,
    temperature: float = 0.0,
    blur_sigma: float = 0.5,
    noise_sigma: float = 2.0,
    background: BGR | None = None,
) -> tuple[Image, tuple[DieTruth, ...]]:
    """A close-up of one die (plus `neighbours` in a row beside it, touching or not) on tile-like art.
    `size_px` is the top face's width in pixels; with `tilt_deg` > 0 the sides show."""
    if not 1 <= value <= 6:
        raise ValueError(f"a die shows 1..6, got {value!r}")
    rng = np.random.default_rng(_stable_seed("die", seed))
    n = 1 + len(neighbours)
    gap = DIE_MM * (1.0 if touching else 1.6)
    if canvas is None:
        cw = int(size_px * (2.8 + (n - 1) * gap / DIE_MM * 1.25))
        canvas = (max(cw, 32), max(int(size_px * 2.8), 32))
    w, h = canvas
    f = (w / 2.0) / math.tan(math.radians(HFOV_DEG / 2.0))
    distance = f * DIE_MM / size_px
    xs = [(i - (n - 1) / 2) * gap for i in range(n)]
    cam = _look(np.array([0.0, 0.0, -DIE_MM]), distance, tilt_deg, f, (w, h))  # aimed at the top faces
    frame = np.empty((h, w, 3), np.uint8)
    bg = (
        background
        if background is not None
        else (int(rng.integers(60, 160)), int(rng.integers(90, 190)), int(rng.integers(90, 190)))
    )
    frame[:] = bg
    art = _art(rng, max(w, h), bg, 12.0)[:h, :w]
    frame[:] = art
    light = np.array([float(rng.uniform(-0.6, 0.6)), float(rng.uniform(-0.6, 0.6)), -0.6])
    light /= np.linalg.norm(light)
    base_yaw = math.radians(yaw_deg) if yaw_deg is not None else float(rng.uniform(-math.pi, math.pi))
    dice = [_Die(None, colour, value, xs[0] if n > 1 else 0.0, 0.0, base_yaw)]
    for i, (v, c) in enumerate(neighbours, start=1):
        if not 1 <= v <= 6:
            raise ValueError(f"a die shows 1..6, got {v!r}")
        dice.append(
            _Die(
                None,
                c,
                v,
                xs[i],
                float(rng.uniform(-1.0, 1.0)),
                base_yaw if touching else float(rng.uniform(-math.pi, math.pi)),
            )
        )
    if touching and n > 1:
        for d in dice:  # aligned dice touch face to face
            d.yaw = 0.0
            d.y = 0.0
    dice.sort(key=lambda d: -float(cam.depth(np.array([[d.x, d.y, -DIE_MM / 2]]))[0]))
    truths = []
    for d in dice:
        _draw_shadow(frame, cam, d, light)
    for d in dice:
        hull, top = _draw_die(frame, cam, d, light, rng)
        x0, y0 = np.floor(hull.min(axis=0)).astype(int)
        x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + 1
        centre = top.mean(axis=0)
        truths.append(
            DieTruth(
                None,
                d.colour,
                d.value,
                (int(x0), int(y0), int(x1), int(y1)),
                top,
                (float(centre[0]), float(centre[1])),
                False,
            )
        )
    params = SceneParams(
        tilt_deg, 0.0, 1.0, temperature, 0.0, blur_sigma, noise_sigma, int(glare), 0, 0.0, 0.0
    )
    if glare:
        t0 = truths[0] if truths else None
        if t0 is not None:
            cx, cy = t0.centre
            _glare_at(frame, cx, cy, size_px * 0.35)
    frame = _apply_light(frame, replace(params, unevenness=0.0), rng)
    if blur_sigma > 0:
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), blur_sigma), np.uint8)
    if noise_sigma > 0:
        frame = _add_noise(frame, noise_sigma, rng)
    truths.sort(key=lambda t: t.box[0])
    return frame, tuple(truths)


def _glare_at(frame: Image, cx: float, cy: float, sigma: float) -> None:
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = 0.8 * np.exp(-(((xx - cx) / sigma) ** 2 + ((yy - cy) / (sigma * 0.6)) ** 2) / 2.0)
    f = frame.astype(np.float32)
    f += (255.0 - f) * a[:, :, None]
    frame[:] = f.astype(np.uint8)


# --- random tables (tests, benchmarks) ----------------------------------------------------------------------

TERRITORIES_FOR = {2: 10, 3: 15, 4: 20, 5: 25, 6: 30}
LAKES_FOR = {2: 1, 3: 1, 4: 2, 5: 2, 6: 3}


def random_layout(players: int, rng: np.random.Generator) -> dict[Hex, str]:
    """A plausible map for `players` (values 3 in the middle, 1 on the rim, castles outside, lakes inside).
    Not an official diagram: the camera reads whatever map is on the table."""
    if players not in TERRITORIES_FOR:
        raise ValueError(f"players must be 2..6, got {players!r}")
    n_terr, n_lakes = TERRITORIES_FOR[players], LAKES_FOR[players]
    origin = Hex(0, 0)
    cells: list[Hex] = []
    radius = 0
    while len(cells) < n_terr + n_lakes:
        ring = list(origin.ring(radius))
        need = n_terr + n_lakes - len(cells)
        if len(ring) > need:
            start = int(rng.integers(0, len(ring)))
            ring = [ring[(start + i) % len(ring)] for i in range(need)]
        cells.extend(ring)
        radius += 1
    inner = [c for c in cells if c != origin and c.distance(origin) <= 1] or cells[:1]
    lake_cells = [inner[int(i)] for i in rng.choice(len(inner), size=min(n_lakes, len(inner)), replace=False)]
    land = [c for c in cells if c not in lake_cells]
    land.sort(key=lambda c: (c.distance(origin), c.q, c.r))
    ids = [f"T{i:02d}" for i in rng.permutation(30)[:n_terr] + 1]
    layout: dict[Hex, str] = dict(zip(land, ids, strict=True))
    for i, c in enumerate(lake_cells):
        layout[c] = f"L{i + 1}"
    # castles: outside cells adjacent to the map, spread around
    taken = set(layout)
    rim = sorted(
        {n for c in taken for n in c.neighbours() if n not in taken},
        key=lambda c: math.atan2(c.to_pixel(1.0)[1], c.to_pixel(1.0)[0]),
    )
    castle_ids = [f"K{i}" for i in rng.permutation(6)[:players] + 1]
    offset = int(rng.integers(0, len(rim)))
    for i, kid in enumerate(castle_ids):
        layout[rim[(offset + round(i * len(rim) / players)) % len(rim)]] = kid
    return layout


def random_knights(
    layout: Mapping[Hex, str], colours: Sequence[Colour], rng: np.random.Generator
) -> dict[str, dict[Colour, int]]:
    """Knights as a game in progress might have them: each castle its owner's knights (several dice), about
    half the territories one die."""
    knights: dict[str, dict[Colour, int]] = {}
    castles = sorted(v for v in layout.values() if v.startswith("K"))
    for kid, colour in zip(castles, colours, strict=False):
        knights[kid] = {colour: int(rng.integers(1, 16))}
    for tid in sorted(v for v in layout.values() if v.startswith("T")):
        if rng.random() < 0.55:
            knights[tid] = {colours[int(rng.integers(0, len(colours)))]: int(rng.integers(1, 7))}
    return knights


def random_spec(
    difficulty: Difficulty, seed: int, *, resolution: tuple[int, int] = RES_1080P, players: int | None = None
) -> SceneSpec:
    """A random table (map, knights, artefacts) for benchmarks, seeded.

    Without `players`, 2..6 players at 4K but 2..4 at 1080p: a five- or six-player map framed whole by a
    1080p camera leaves under 2 px per code module, outside the set-up docs/stickers.md recommends."""
    rng = np.random.default_rng(_stable_seed("spec", seed, difficulty.value))
    most = 6 if resolution[0] >= 2 * RES_1080P[0] else 4
    n = players if players is not None else int(rng.integers(2, most + 1))
    colours = [Colour(c) for c in ("red", "blue", "yellow", "green", "white", "black")][:n]
    layout = random_layout(n, rng)
    knights = random_knights(layout, colours, rng)
    artefacts = {f"A{i:02d}": bool(rng.random() < 0.8) for i in sorted(rng.permutation(18)[: 3 * n] + 1)}
    return SceneSpec(layout, knights, artefacts, resolution, difficulty, layout_seed=seed)

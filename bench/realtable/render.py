"""Rendering a frame: the table in 3D through the camera, then the lens, the sensor and the JPEG encoder.

1. A *table texture* (millimetres -> pixels, a little finer than the camera's finest view of it) holds what
   is printed flat on the table: tile art, the stickers as printed (`stickers.printed_stickers`), cards; and
   a *shade* layer: soft contact shadows of dice, tiles, card piles and hands, cast away from the lamp.
2. The texture goes through the table plane's homography onto a pinhole canvas (supersampled 1.5x at
   1080p), over a table top evaluated at every canvas point (wood, felt, cloth, laminate, slate; the floor
   beyond the table's edge), lit by the lamp (a pool of light falling off with distance and angle).
3. Dice are 16 mm cubes in 3D, drawn far to near: the body's silhouette in the body's own dark colour, then
   each face turned towards the camera textured with a real face of the player's kind (the top with the
   die's value, the sides with the values a real die has there), its corners rounded, shaded by the angle to
   the lamp, with a specular glint where the lamp reflects. A label buffer records which die's top face
   each pixel shows, so dice hidden behind others, and under hands, are known exactly.
4. Hands and forearms are flat shapes at their height over the table, projected, skin-shaded, blurred when
   they move.
5. The lens bends the canvas (barrel distortion) and the canvas is shrunk to the frame; then defocus (more
   away from the focus distance), camera shake, the lamp's glare on glossy print, vignetting, what the
   camera's white balance left, exposure, sensor noise (shot and read), the ISP's sharpening, and JPEG.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from bench.realtable import art
from bench.realtable.camera import Camera
from bench.realtable.library import FACE_PX, atlas_face
from bench.realtable.scene import Card, DieSpec, Frame, Hand, Scene, TilePose, Truth
from bench.realtable.stickers import STICKER_H_MM, STICKER_W_MM, printed_stickers
from engine.catalogue import load_default_catalogue

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

MAX_TEXTURE_PX = 6000
SHADE_PX_PER_MM = 1.5
LENS_SOFTNESS = 0.45  # px: a tablet lens and its demosaicking are never perfectly sharp
HIDDEN_SHARE = 0.5  # a die showing less than this share of its silhouette is "hidden" behind others
HAND_COVER_DIE = 0.2  # a hand over this much of a die's top face covers its location
HAND_COVER_TILE = 0.4  # ... or over this much of the tile


@dataclass
class Canvas:
    """The pinhole picture being built, with what the truth needs from it."""

    image: Image  # BGR uint8
    labels: npt.NDArray[np.int32]  # 0 nothing; 2k+1 die k's top face; 2k+2 die k's body; -1 a hand
    k: F64  # intrinsics of the canvas
    scale: float
    pad: tuple[float, float]


def render(frame: Frame) -> tuple[Image, Truth]:
    """The frame as the camera's JPEG (decoded, BGR) and its exact truth."""
    canvas, truth = draw(frame)
    return _optics(canvas, frame.scene, frame), truth


def draw(frame: Frame) -> tuple[Canvas, Truth]:
    """The pinhole canvas before the lens and sensor (labels and all), and the frame's truth."""
    scene = frame.scene
    cam = scene.camera
    scale = 1.3 if cam.width <= 2000 else 1.0
    px, py = cam.undistort_pad()
    pad = (px * scale, py * scale)
    k = cam.intrinsics(scale, pad)
    w = round(cam.width * scale + 2 * pad[0])
    h = round(cam.height * scale + 2 * pad[1])
    light = _light_field(scene, frame, k, (w, h))
    table = _table_background(scene, frame, k, (w, h))
    content, alpha, shade = _content(scene, frame, k, (w, h))
    img = _composite(table, content, alpha, shade, light)
    canvas = Canvas(img, np.zeros((h, w), np.int32), k, scale, pad)
    drawn = _draw_dice(canvas, scene, frame)
    before_hands = _die_counts(canvas, len(frame.dice))
    hand_mask = _draw_hands(canvas, scene, frame)
    after_hands = _die_counts(canvas, len(frame.dice))
    truth = _truth(
        scene, frame, canvas, drawn=drawn, before=before_hands, after=after_hands, hand_mask=hand_mask
    )
    return canvas, truth


# --- light ------------------------------------------------------------------------------------------


def _table_points(k: F64, cam: Camera, size: tuple[int, int], step: int) -> tuple[F32, F32]:
    """Table coordinates (mm) of a grid of canvas pixels every `step` px."""
    w, h = size
    hp = cam.plane_homography(k)
    inv = np.linalg.inv(hp)
    us = np.arange(0, w + step, step, dtype=np.float64)
    vs = np.arange(0, h + step, step, dtype=np.float64)
    gu, gv = np.meshgrid(us, vs)
    den = inv[2, 0] * gu + inv[2, 1] * gv + inv[2, 2]
    den = np.where(np.abs(den) < 1e-9, 1e-9, den)
    x = (inv[0, 0] * gu + inv[0, 1] * gv + inv[0, 2]) / den
    y = (inv[1, 0] * gu + inv[1, 1] * gv + inv[1, 2]) / den
    behind = den < 0  # above the horizon: no table there
    x[behind], y[behind] = 1e6, 1e6
    return x.astype(np.float32), y.astype(np.float32)


def lamp_light(scene: Scene, x: F32 | F64, y: F32 | F64, shift: float = 0.0) -> F32:
    """How brightly the table is lit at (x, y) mm, 1 near the map's middle: room light plus the lamp's pool
    (inverse square, cosine of incidence)."""
    lx, ly, lz = scene.lamp
    lz = lz * (1 + 0.08 * shift)
    d2 = (x - lx) ** 2 + (y - ly) ** 2 + lz**2
    lamp = (lz / np.sqrt(d2)) * (lz**2 / d2)
    cx, cy = scene.camera.target
    d2c = (cx - lx) ** 2 + (cy - ly) ** 2 + lz**2
    ref = (lz / math.sqrt(d2c)) * (lz**2 / d2c)
    a = scene.ambient
    return np.asarray(a + (1 - a) * lamp / ref, np.float32)


def _light_field(scene: Scene, frame: Frame, k: F64, size: tuple[int, int]) -> F32:
    step = 8
    x, y = _table_points(k, scene.camera, size, step)
    field = lamp_light(scene, x, y, frame.light_shift)
    return cv2.resize(field, size, interpolation=cv2.INTER_LINEAR)


def _table_background(scene: Scene, frame: Frame, k: F64, size: tuple[int, int]) -> Image:
    """The table top (and the floor beyond its edge) at every canvas pixel, evaluated at a third of the
    canvas's resolution (the table beyond the map is out of focus anyway)."""
    step = 3
    x, y = _table_points(k, scene.camera, size, step)
    rng = np.random.default_rng([scene.seed, 7])
    x0, y0, x1, y1 = scene.table_rect
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    c, s = math.cos(scene.table_turn), math.sin(scene.table_turn)
    u = c * (x - cx) + s * (y - cy)
    v = -s * (x - cx) + c * (y - cy)
    top = art.table_top(u, v, scene.table_look, rng)
    inside = (np.abs(u) < (x1 - x0) / 2) & (np.abs(v) < (y1 - y0) / 2)
    floor = np.array((45, 50, 60), np.float32) * (0.8 + 0.2 * art.noise(x.shape, rng, 30)[..., None])
    img = np.where(inside[..., None], top, floor)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    return cv2.resize(img.astype(np.uint8), size, interpolation=cv2.INTER_LINEAR)


# --- the table texture --------------------------------------------------------------------------------

_STATIC: dict[tuple[int, str, tuple[int, int]], tuple[Image, F64]] = {}


def _texture_frame(scene: Scene, k: F64) -> tuple[F64, float, tuple[int, int]]:
    """Texture -> world affine (3x3), px per mm, and size: the tiles, the players' places (decks, artefact
    cards, reserve dice) with a margin, at about the canvas's finest view of them (the canvas is itself
    finer than the frame)."""
    pts = [t.hexagon() for t in scene.tiles]
    pts += [np.array([[x, y]]) for x, y, _ in scene.seats.values()]
    allp = np.concatenate(pts)
    x0, y0 = allp.min(axis=0) - 200
    x1, y1 = allp.max(axis=0) + 200
    hp = scene.camera.plane_homography(k)
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [(x0 + x1) / 2, (y0 + y1) / 2]])
    finest = max(_px_per_mm(hp, p) for p in corners)
    r = float(np.clip(finest * 0.85, 2.0, 6.0))
    r = min(r, MAX_TEXTURE_PX / max(x1 - x0, y1 - y0))
    size = (round((x1 - x0) * r), round((y1 - y0) * r))
    to_world = np.array([[1 / r, 0, x0], [0, -1 / r, y1], [0, 0, 1]])
    return to_world, r, size


def _px_per_mm(hp: F64, p: F64) -> float:
    """Canvas pixels per table mm at table point p (the larger axis of the local map)."""

    def at(q: F64) -> F64:
        v = hp @ np.array([q[0], q[1], 1.0])
        return v[:2] / v[2]

    if (hp @ np.array([p[0], p[1], 1.0]))[2] <= 0:
        return 0.0
    a, bx, by = at(p), at(p + np.array([1.0, 0])), at(p + np.array([0, 1.0]))
    return float(max(np.linalg.norm(bx - a), np.linalg.norm(by - a)))


def _local_map(to_world: F64, x: float, y: float, turn: float, flip: bool = True) -> F64:
    """Affine 2x3: local mm (picture axes, y down when `flip`) -> texture px."""
    world_from_local = np.array(
        [
            [math.cos(turn), -math.sin(turn) * (-1 if flip else 1), x],
            [math.sin(turn), math.cos(turn) * (-1 if flip else 1), y],
            [0, 0, 1],
        ]
    )
    tex_from_world = np.linalg.inv(to_world)
    return (tex_from_world @ world_from_local)[:2]


def _content(scene: Scene, frame: Frame, k: F64, size: tuple[int, int]) -> tuple[Image, Image, Image]:
    """What is printed flat on the table (tiles, stickers, decks: drawn once per scene; this frame's artefact
    cards over them) and the shadows, through the table plane onto the canvas."""
    to_world, r, tsize = _texture_frame(scene, k)
    key = (scene.seed, scene.level.value, scene.resolution)
    cached = _STATIC.get(key)
    if cached is None or not np.allclose(cached[1], to_world):
        _STATIC.clear()
        colour, alpha = _static_layer(scene, to_world, tsize)
        _STATIC[key] = (cv2.merge([colour, alpha]), to_world)
    plane = scene.camera.plane_homography(k)
    bgra = cv2.warpPerspective(_STATIC[key][0], plane @ to_world, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    for i, card in enumerate(c for c in frame.cards if c.kind == "artefact"):
        _card_onto(bgra, plane, r, card, np.random.default_rng([scene.seed, 11, frame.index, i]))
    # shadows are soft: their layer is coarse (SHADE_PX_PER_MM), which keeps its blurs cheap
    down = min(1.0, SHADE_PX_PER_MM / r)
    shade_world = to_world @ np.diag([1 / down, 1 / down, 1.0])
    shade_size = (max(1, round(tsize[0] * down)), max(1, round(tsize[1] * down)))
    shade = _shade_layer(scene, frame, shade_world, shade_size)
    shade_c = cv2.warpPerspective(shade, plane @ shade_world, size, flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    return bgra[..., :3], bgra[..., 3], shade_c


def _card_onto(bgra: Image, plane: F64, r: float, card: Card, rng: np.random.Generator) -> None:
    """One card drawn in its own small texture and laid over the canvas where it lies."""
    w, h = round(art.CARD_W_MM * r) + 4, round(art.CARD_H_MM * r) + 4
    # the card's texture: its centre in the middle, `r` px per mm, picture axes (y down)
    to_world = np.array([[math.cos(card.turn) / r, math.sin(card.turn) / r, 0.0],
                         [math.sin(card.turn) / r, -math.cos(card.turn) / r, 0.0], [0.0, 0.0, 1.0]])
    to_world[:2, 2] = np.array([card.x, card.y]) - to_world[:2, :2] @ np.array([w / 2, h / 2])
    colour = np.zeros((h, w, 3), np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    _draw_card(art.Pen(colour, alpha, np.eye(3)[:2]), to_world, card, rng)
    hp = plane @ to_world
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64) @ hp.T
    if np.any(corners[:, 2] <= 0):
        return
    uv = corners[:, :2] / corners[:, 2:3]
    x0, y0 = np.maximum(np.floor(uv.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(uv.max(axis=0)).astype(int) + 2, (bgra.shape[1], bgra.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    warped = cv2.warpPerspective(cv2.merge([colour, alpha]), shift @ hp, (int(x1 - x0), int(y1 - y0)),
                                 flags=cv2.INTER_LINEAR)
    a = warped[..., 3:4].astype(np.float32) / 255
    roi = bgra[y0:y1, x0:x1]
    roi[..., :3] = (roi[..., :3] * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    roi[..., 3] = np.maximum(roi[..., 3], warped[..., 3])


def _static_layer(scene: Scene, to_world: F64, tsize: tuple[int, int]) -> tuple[Image, Image]:
    colour = np.zeros((tsize[1], tsize[0], 3), np.uint8)
    alpha = np.zeros((tsize[1], tsize[0]), np.uint8)
    cat = load_default_catalogue()
    stickers = printed_stickers()
    for card in scene.decks:
        _draw_card(
            art.Pen(colour, alpha, np.eye(3)[:2]),
            to_world,
            card,
            np.random.default_rng([scene.seed, 12, abs(int(card.x)), abs(int(card.y))]),
        )
    for t in scene.tiles:
        _tile_art(colour, alpha, to_world, t, cat)
    for t in scene.tiles:  # stickers last: nothing printed on a neighbouring tile reaches over them
        for centre, up, right in t.sticker_frames():
            _paste(colour, alpha, to_world, stickers[t.tile], centre=centre, up=up, right=right,
                   w_mm=STICKER_W_MM, h_mm=STICKER_H_MM)
    return colour, alpha


def _tile_art(colour: Image, alpha: Image, to_world: F64, t: TilePose, cat: Any) -> None:
    """A tile's printed face, drawn in a buffer and kept only inside the tile's outline (a motif may reach
    past its hexagon; print does not)."""
    tex_from_world = np.linalg.inv(to_world)
    outline = np.column_stack([t.hexagon(), np.ones(6)]) @ tex_from_world.T
    x0, y0 = np.maximum(np.floor(outline[:, :2].min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.ceil(outline[:, :2].max(axis=0)).astype(int) + 3
    roi = (slice(y0, y1), slice(x0, x1))
    sub, sub_alpha = colour[roi].copy(), alpha[roi].copy()
    m = _local_map(to_world, t.x, t.y, t.turn)
    m[:, 2] -= (x0, y0)
    pen = art.Pen(sub, sub_alpha, m)
    rng = np.random.default_rng(t.art_seed)
    spec = cat.get(t.tile)
    if t.tile.startswith("K"):
        art.draw_tile(pen, "castle", rng, name=spec.name, castle=cat.castle(t.tile).colour)
    elif t.tile.startswith("L"):
        art.draw_tile(pen, "lake", rng, name=spec.name)
    else:
        kind = getattr(spec, "kind", None)
        art.draw_tile(pen, kind.value if kind is not None else "grasslands", rng, name=spec.name,
                      value=getattr(spec, "value", None))
    inside = np.zeros(sub.shape[:2], np.uint8)
    cv2.fillPoly(inside, [np.round((outline[:, :2] - (x0, y0)) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    keep = inside.astype(np.float32)[..., None] / 255
    colour[roi] = (sub * keep + colour[roi] * (1 - keep)).astype(np.uint8)
    alpha[roi] = np.maximum(alpha[roi], (sub_alpha.astype(np.float32) * keep[..., 0]).astype(np.uint8))


def _draw_card(pen: art.Pen, to_world: F64, card: Card, rng: np.random.Generator) -> None:
    m = _local_map(to_world, card.x, card.y, card.turn)
    p = art.Pen(pen.canvas, pen.alpha, m)
    if card.kind == "deck":
        for layer in range(3, 0, -1):  # the pile's edge shows as darker offset outlines
            q = art.Pen(
                pen.canvas,
                pen.alpha,
                _local_map(to_world, card.x + 0.4 * layer, card.y - 0.4 * layer, card.turn),
            )
            q.poly(art.card_corners(), (150, 160, 170), cover=True)
    if card.kind == "artefact" and card.up and card.artefact is not None:
        art.draw_card(p, "artefact", rng)
        c, s = math.cos(card.turn), math.sin(card.turn)
        up = np.array([-s, c])  # the card picture's top (local -y) in the world
        right = np.array([c, s])
        sticker = printed_stickers()[card.artefact]
        centre = np.array([card.x, card.y])
        _paste(
            pen.canvas,
            pen.alpha,
            to_world,
            sticker,
            centre=centre,
            up=up,
            right=right,
            w_mm=STICKER_W_MM,
            h_mm=STICKER_H_MM,
        )
    else:
        art.draw_card(p, "face" if card.up else "back", rng)


def _paste(
    colour: Image,
    alpha: Image,
    to_world: F64,
    sticker: Image,
    *,
    centre: F64,
    up: F64,
    right: F64,
    w_mm: float,
    h_mm: float,
) -> None:
    """A printed sticker, `w_mm` x `h_mm`, its top towards `up`, onto the texture."""
    tex_from_world = np.linalg.inv(to_world)

    def tex(p: F64) -> F64:
        v = tex_from_world @ np.array([p[0], p[1], 1.0])
        return v[:2]

    tl = tex(centre + up * h_mm / 2 - right * w_mm / 2)
    tr = tex(centre + up * h_mm / 2 + right * w_mm / 2)
    bl = tex(centre - up * h_mm / 2 - right * w_mm / 2)
    sh, sw = sticker.shape[:2]
    src = np.float32([[0, 0], [sw, 0], [0, sh]])
    dst = np.float32([tl, tr, bl])
    quad = np.array([tl, tr, tr + bl - tl, bl])
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    H, W = colour.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    a = cv2.getAffineTransform(src, dst - np.float32([x0, y0]))
    # shrinking 300 dpi print to the texture: pre-blur so the warp does not alias
    shrink = sw / max(1.0, float(np.linalg.norm(tr - tl)))
    src_img = cv2.GaussianBlur(sticker, (0, 0), 0.45 * shrink) if shrink > 1.5 else sticker
    warped = cv2.warpAffine(
        src_img,
        a,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0),
    )
    m = cv2.warpAffine(np.full((sh, sw), 255, np.uint8), a, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    mf = m.astype(np.float32)[..., None] / 255
    roi = colour[y0:y1, x0:x1].astype(np.float32)
    colour[y0:y1, x0:x1] = (roi * (1 - mf) + warped.astype(np.float32) * mf).astype(np.uint8)
    alpha[y0:y1, x0:x1] = np.maximum(alpha[y0:y1, x0:x1], m)


def _shadow_offset(scene: Scene, x: float, y: float, height: float) -> tuple[float, float]:
    lx, ly, lz = scene.lamp
    dx, dy = x - lx, y - ly
    return dx * height / lz, dy * height / lz


def _shade_layer(scene: Scene, frame: Frame, to_world: F64, tsize: tuple[int, int]) -> Image:
    """Soft shadows (255: none) in the texture: tiles' edges, card piles, dice, hands."""
    r = 1.0 / to_world[0, 0]
    dark = np.zeros((tsize[1], tsize[0]), np.float32)
    tex_from_world = np.linalg.inv(to_world)

    def px(points: F64) -> npt.NDArray[np.int32]:
        p = np.column_stack([points, np.ones(len(points))]) @ tex_from_world.T
        return np.round(p[:, :2] * 16).astype(np.int32)

    strength = 1.0 - scene.ambient * 0.6
    for t in scene.tiles:  # a 2 mm cardboard tile's shadow on the table
        ox, oy = _shadow_offset(scene, t.x, t.y, 2.0)
        cv2.fillPoly(dark, [px(t.hexagon() + np.array([ox, oy]))], 0.35 * strength, cv2.LINE_AA, 4)
    for c in frame.cards:
        if c.kind == "deck":
            ox, oy = _shadow_offset(scene, c.x, c.y, c.height)
            corners = art.card_corners() @ np.array(
                [[math.cos(c.turn), math.sin(c.turn)], [-math.sin(c.turn), math.cos(c.turn)]]
            ) + (c.x + ox, c.y + oy)
            cv2.fillPoly(dark, [px(corners)], 0.5 * strength, cv2.LINE_AA, 4)
    dark = cv2.GaussianBlur(dark, (0, 0), max(0.8, 1.2 * r))
    dice = np.zeros_like(dark)
    for d in frame.dice:
        foot = d.die.footprint()
        ox, oy = _shadow_offset(scene, d.die.x, d.die.y, d.die.size * 0.9)
        cv2.fillPoly(dice, [px(foot + np.array([ox, oy]))], 0.55 * strength, cv2.LINE_AA, 4)
        cv2.fillPoly(dice, [px(foot)], 0.75, cv2.LINE_AA, 4)  # contact: the base is dark under any light
    dice = cv2.GaussianBlur(dice, (0, 0), max(1.0, 2.5 * r))
    hands = np.zeros_like(dark)
    for hand in frame.hands:
        for poly, z, _ in _hand_polys(hand):
            ox, oy = _shadow_offset(scene, hand.tip[0], hand.tip[1], float(np.mean(z)))
            cv2.fillPoly(hands, [px(poly + np.array([ox, oy]))], 0.3 * strength, cv2.LINE_AA, 4)
    if frame.hands:
        hands = cv2.GaussianBlur(hands, (0, 0), max(2.0, 18 * r))
    total = 1.0 - np.clip(dark + dice + hands, 0, 0.9)
    return np.asarray(total * 255, np.uint8)


def _composite(table: Image, content: Image, alpha: Image, shade: Image, light: F32) -> Image:
    a = alpha.astype(np.float32) / 255
    img = cv2.blendLinear(table, content, 1 - a, a)
    factor = np.clip(shade.astype(np.float32) * (light * (128 / 255)), 0, 255).astype(np.uint8)
    return cv2.multiply(img, cv2.merge([factor, factor, factor]), scale=1 / 128)


# --- dice ---------------------------------------------------------------------------------------------


def _rounded_mask(n: int, radius: float) -> tuple[F32, F32]:
    """A face's coverage (a square with rounded corners) and its bevel shading (the rounded edge catches
    less light), both `n` x `n`."""
    big = n * 4
    m = np.zeros((big, big), np.uint8)
    r = int(radius * big)
    cv2.rectangle(m, (r, 0), (big - 1 - r, big - 1), 255, -1)
    cv2.rectangle(m, (0, r), (big - 1, big - 1 - r), 255, -1)
    for cx, cy in ((r, r), (big - 1 - r, r), (r, big - 1 - r), (big - 1 - r, big - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    mask = cv2.resize(m, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    i = np.arange(n, dtype=np.float32) + 0.5
    edge = np.minimum(np.minimum(i[None, :], n - i[None, :]), np.minimum(i[:, None], n - i[:, None])) / n
    bevel = np.clip(0.75 + edge * 4, 0.75, 1.0).astype(np.float32)
    return mask, bevel


_MASK, _BEVEL = _rounded_mask(FACE_PX, 0.16)


def _draw_dice(canvas: Canvas, scene: Scene, frame: Frame) -> list[tuple[int, int]]:
    """Every die, far to near. Returns each die's pixel counts as drawn, before anything nearer: its top face,
    and its whole silhouette."""
    cam = scene.camera
    centre = cam.centre
    order = sorted(
        range(len(frame.dice)),
        key=lambda i: (
            -float(np.linalg.norm(np.array([frame.dice[i].die.x, frame.dice[i].die.y, 8.0]) - centre))
        ),
    )
    drawn = [(0, 0)] * len(frame.dice)
    for i in order:
        drawn[i] = _draw_die(canvas, scene, frame, i, frame.dice[i])
    return drawn


def _body_colour(face: Image) -> F32:
    lab = face.reshape(-1, 3).astype(np.float32)
    ring = np.concatenate([face[:4].reshape(-1, 3), face[-4:].reshape(-1, 3)]).astype(np.float32)
    return np.asarray(np.median(ring if len(ring) else lab, axis=0), np.float32)


def _draw_die(canvas: Canvas, scene: Scene, frame: Frame, i: int, spec: DieSpec) -> tuple[int, int]:
    cam = scene.camera
    d = spec.die
    corners = d.corners()
    uv, _ = cam.project(corners, canvas.k)
    h, w = canvas.image.shape[:2]
    if uv[:, 0].max() < 0 or uv[:, 1].max() < 0 or uv[:, 0].min() >= w or uv[:, 1].min() >= h:
        return 0, 0
    light_at = float(lamp_light(scene, np.float64(d.x), np.float64(d.y), frame.light_shift))
    lamp = np.array(scene.lamp, np.float64) - np.array([d.x, d.y, d.size / 2])
    lamp /= np.linalg.norm(lamp)
    view = cam.centre - np.array([d.x, d.y, d.size / 2])
    view /= np.linalg.norm(view)
    a = scene.ambient
    top_light = a + (1 - a) * max(0.0, lamp[2])
    top = atlas_face(spec.faces[0])
    body = _body_colour(top) * 0.55 * light_at
    hull = cv2.convexHull(np.round(uv * 16).astype(np.int32))
    cv2.fillConvexPoly(canvas.image, hull, tuple(float(v) for v in np.clip(body, 0, 255)), cv2.LINE_AA, 4)
    cv2.fillConvexPoly(
        canvas.labels,
        np.round(uv).astype(np.int32)[
            cv2.convexHull(np.round(uv).astype(np.float32), returnPoints=False).ravel()
        ],
        2 * i + 2,
    )
    faces = d.face_quads()
    faces.sort(key=lambda f: f[0] == 0)  # sides first, the top last
    for direction, quad, normal in faces:
        centre = quad.mean(axis=0)
        if float(np.dot(normal, cam.centre - centre)) <= 0:
            continue
        q, _ = cam.project(quad, canvas.k)
        shade = (a + (1 - a) * max(0.0, float(np.dot(normal, lamp)))) / max(top_light, 1e-3)
        if direction != 0:
            shade *= 0.92  # side faces of the photos' dice look a touch darker than the light alone says
        halfway = lamp + view
        halfway /= np.linalg.norm(halfway)
        glint = 0.45 * max(0.0, float(np.dot(normal, halfway))) ** 40
        face = np.rot90(atlas_face(spec.faces[direction]), spec.face_turns[direction])
        label = 2 * i + 1 if direction == 0 else 0
        _warp_face(canvas, face, q, gain=shade * light_at, glint=glint, label=label)
    x0, y0 = np.maximum(np.floor(uv.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 3
    roi = canvas.labels[y0:y1, x0:x1]
    top = int((roi == 2 * i + 1).sum())
    return top, top + int((roi == 2 * i + 2).sum())


def _warp_face(canvas: Canvas, face: Image, quad: F64, *, gain: float, glint: float, label: int) -> int:
    """Paint one face into the canvas; returns how many pixels it covered (for the top face's label)."""
    h, w = canvas.image.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0c, y0c, x1c, y1c = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1c <= x0c or y1c <= y0c:
        return 0
    n = FACE_PX
    src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    m = cv2.getPerspectiveTransform(src, (quad - (x0c, y0c)).astype(np.float32))
    tex = face.astype(np.float32) * (_BEVEL[..., None] * gain)
    if glint > 0.02:
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
        # a glossy face mirrors the lamp's shade as a broad sheen across it, brightest along one rounded edge
        sheen = 0.6 * np.exp(-(((xx + yy - 0.9) / 0.35) ** 2)) + 0.4 * np.exp(-((xx - 0.04) / 0.05) ** 2)
        tex += (255 * glint * sheen)[..., None]
    tex = np.clip(tex, 0, 255)
    size = (x1c - x0c, y1c - y0c)
    warped = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(_MASK, m, size, flags=cv2.INTER_LINEAR)
    roi = canvas.image[y0c:y1c, x0c:x1c].astype(np.float32)
    canvas.image[y0c:y1c, x0c:x1c] = (roi * (1 - mask[..., None]) + warped * mask[..., None]).astype(np.uint8)
    if label:
        inside = mask > 0.5
        canvas.labels[y0c:y1c, x0c:x1c][inside] = label
        return int(inside.sum())
    return 0


def _die_counts(canvas: Canvas, n: int) -> list[tuple[int, int]]:
    """Per die, the pixels still showing its top face, and the whole die."""
    counts = np.bincount(canvas.labels[canvas.labels > 0].ravel(), minlength=2 * n + 3)
    return [(int(counts[2 * i + 1]), int(counts[2 * i + 1] + counts[2 * i + 2])) for i in range(n)]


# --- hands --------------------------------------------------------------------------------------------


def _hand_polys(hand: Hand) -> list[tuple[F64, F64, str]]:
    """The hand's shapes in world mm (x, y), each point's height, and skin or sleeve."""
    rng = np.random.default_rng(abs(int(hand.tip[0] * 1000 + hand.tip[1])))
    parts = art.hand_outline(hand.length, hand.width, hand.spread, rng)
    c, s = math.cos(hand.towards), math.sin(hand.towards)
    rot = np.array([[c, -s], [s, c]])
    out = []
    for poly, what in parts:
        world = poly @ rot.T + np.array(hand.tip)
        # the fingers hang near the table; behind the knuckles the hand and arm rise towards the shoulder
        back = np.clip(-poly[:, 0] - hand.length, 0, None)
        z = hand.height + 12 + 0.45 * back + 0.1 * np.clip(-poly[:, 0], 0, hand.length)
        out.append((world, z, what))
    return out


def _draw_hands(canvas: Canvas, scene: Scene, frame: Frame) -> npt.NDArray[np.bool_]:
    """Each hand: its parts projected, shaded as something round (brighter along its middle, by the
    distance to its outline), skin with a little mottling, a sleeve; soft, or smeared when it moves."""
    h, w = canvas.image.shape[:2]
    covered = np.zeros((h, w), bool)
    for k, hand in enumerate(frame.hands):
        skin_mask = np.zeros((h, w), np.uint8)
        sleeve_mask = np.zeros((h, w), np.uint8)
        for poly, z, what in _hand_polys(hand):
            uv, depth = scene.camera.project(np.column_stack([poly, z]), canvas.k)
            if np.any(depth <= 50):
                continue
            q = np.round(uv * 16).astype(np.int32)
            cv2.fillPoly(sleeve_mask if what == "sleeve" else skin_mask, [q], 255, cv2.LINE_AA, 4)
        both = cv2.max(skin_mask, sleeve_mask)
        if not both.any():
            continue
        ys, xs = np.nonzero(both)
        x0, y0 = max(0, int(xs.min()) - 30), max(0, int(ys.min()) - 30)
        x1, y1 = min(w, int(xs.max()) + 31), min(h, int(ys.max()) + 31)
        sl = (slice(y0, y1), slice(x0, x1))
        sk = skin_mask[sl].astype(np.float32) / 255
        sv = sleeve_mask[sl].astype(np.float32) / 255
        sk = sk * (1 - sv)
        m = np.clip(sk + sv, 0, 1)
        dist = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
        width = max(4.0, float(np.percentile(dist[dist > 0], 95)) if (dist > 0).any() else 4.0)
        round_ = np.sqrt(np.clip(dist / width, 0, 1))  # a cylinder's cosine, roughly
        rng = np.random.default_rng([frame.seed, 21, k])
        mottle = 1 + 0.025 * art.noise(m.shape, rng, 25 * canvas.scale)
        light_at = float(
            lamp_light(scene, np.float64(hand.tip[0]), np.float64(hand.tip[1]), frame.light_shift)
        )
        skin = np.array(art.SKIN_BGR[hand.skin], np.float32)
        sleeve = np.array(art.SLEEVE_BGR[hand.sleeve], np.float32)
        shade = (0.55 + 0.5 * round_) * mottle * light_at * 1.1
        colour = (skin[None, None, :] * sk[..., None] + sleeve[None, None, :] * sv[..., None]) * shade[
            ..., None
        ]
        colour = colour / np.maximum(m, 1e-3)[..., None]
        if hand.motion_px > 0.5:
            kern = _line_kernel(hand.motion_px * canvas.scale, float(hand.towards))
            colour = cv2.filter2D(colour * m[..., None], -1, kern)
            m = cv2.filter2D(m, -1, kern)
            colour = colour / np.maximum(m, 1e-3)[..., None]
        else:
            m = cv2.GaussianBlur(m, (0, 0), 0.7 * canvas.scale)
        roi = canvas.image[sl].astype(np.float32)
        canvas.image[sl] = np.clip(roi * (1 - m[..., None]) + colour * m[..., None], 0, 255).astype(np.uint8)
        hit = m > 0.5
        canvas.labels[sl][hit] = -1
        covered[sl] |= hit
    return covered


def _line_kernel(length: float, angle: float) -> F32:
    n = max(3, math.ceil(length) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(
        k,
        (round((c - dx) * 16), round((c - dy) * 16)),
        (round((c + dx) * 16), round((c + dy) * 16)),
        1.0,
        1,
        cv2.LINE_AA,
        4,
    )
    return k / max(k.sum(), 1e-6)


# --- truth --------------------------------------------------------------------------------------------


def _truth(
    scene: Scene,
    frame: Frame,
    canvas: Canvas,
    *,
    drawn: list[tuple[int, int]],
    before: list[tuple[int, int]],
    after: list[tuple[int, int]],
    hand_mask: npt.NDArray[np.bool_],
) -> Truth:
    """Locations with a die mostly hidden behind others (under half of its silhouette showing: its top
    face always shows, since dice are all the same height, but its sides do not), locations a hand covers
    (a fifth of a die's top face, or 40 % of the tile), artefact cards wholly in view, the dice's boxes."""
    cam = scene.camera
    hidden: set[str] = set()
    covered: set[str] = set()
    boxes = []
    for i, d in enumerate(frame.dice):
        (top, whole), (_, seen), (top_after, _) = drawn[i], before[i], after[i]
        if d.location is not None and whole and seen < HIDDEN_SHARE * whole:
            hidden.add(d.location)
        if d.location is not None and top and before[i][0] - top_after > HAND_COVER_DIE * top:
            covered.add(d.location)
        uv, _ = cam.project(d.die.corners(), canvas.k)
        frame_pts = _to_frame(cam, canvas, uv)
        x0, y0 = frame_pts.min(axis=0)
        x1, y1 = frame_pts.max(axis=0)
        boxes.append(
            (
                d.location,
                d.colour,
                d.die.value,
                (float(x0), float(y0), float(x1), float(y1)),
                seen / whole if whole else 0.0,
            )
        )
    if frame.hands:
        for t in scene.tiles:
            uv, _ = cam.project(np.column_stack([t.hexagon(), np.zeros(6)]), canvas.k)
            m = np.zeros(hand_mask.shape, np.uint8)
            cv2.fillPoly(m, [np.round(uv).astype(np.int32)], 1)
            area = int(m.sum())
            if area and int((hand_mask & (m > 0)).sum()) > HAND_COVER_TILE * area:
                covered.add(t.tile)
    artefacts = {}
    for c in frame.cards:
        if c.kind != "artefact" or c.artefact is None:
            continue
        corners = art.card_corners(STICKER_W_MM, STICKER_W_MM) @ np.array(
            [[math.cos(c.turn), math.sin(c.turn)], [-math.sin(c.turn), math.cos(c.turn)]]
        ) + (c.x, c.y)
        uv, z = cam.project(np.column_stack([corners, np.zeros(4)]), canvas.k)
        pts = _to_frame(cam, canvas, uv)
        inside = np.all(z > 0) and np.all((pts >= 2) & (pts <= (cam.width - 3, cam.height - 3)))
        under = any(
            hand_mask[int(np.clip(v, 0, hand_mask.shape[0] - 1)), int(np.clip(u, 0, hand_mask.shape[1] - 1))]
            for u, v in uv
        )
        if inside and not under:
            artefacts[c.artefact] = c.up
    return Truth(
        scene.board,
        frame.knights(),
        frozenset(covered),
        frozenset(hidden),
        artefacts,
        frame.optics.blurred,
        boxes,
    )


def _to_frame(cam: Camera, canvas: Canvas, uv: F64) -> F64:
    """Canvas pinhole points -> points in the distorted output frame."""
    pinhole = (uv - np.array(canvas.pad)) / canvas.scale
    return cam.distorted(pinhole)


# --- optics -------------------------------------------------------------------------------------------


def _optics(canvas: Canvas, scene: Scene, frame: Frame) -> Image:
    cam = scene.camera
    o = frame.optics
    rng = np.random.default_rng(frame.seed)
    mx, my = _distortion_maps(cam, canvas.scale, canvas.pad)
    img = cv2.remap(canvas.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if canvas.scale != 1.0:
        img = cv2.resize(img, (cam.width, cam.height), interpolation=cv2.INTER_AREA)
    img = _defocus(img, cam, max(o.defocus, LENS_SOFTNESS))
    if o.motion_px > 0.5:
        img = cv2.filter2D(img, -1, _line_kernel(o.motion_px, o.motion_angle))
    gain = (1 - o.vignette * _vignette(cam.width, cam.height))[..., None] * (
        o.exposure * np.array(o.wb, np.float32)
    )[None, None, :]
    f = img.astype(np.float32) * gain
    f = _glare(f, scene, o.glare)
    noise = rng.standard_normal(f.shape, dtype=np.float32)
    chroma = cv2.GaussianBlur(noise, (0, 0), 0.8)  # demosaicking spreads the noise over neighbours
    sigma = cv2.sqrt(cv2.max(f, 0) * (o.shot_noise**2 / 255) + o.read_noise**2)
    f += sigma * cv2.addWeighted(noise, 0.6, chroma, 0.8, 0)
    if o.sharpen > 0:
        f = cv2.addWeighted(f, 1 + o.sharpen, cv2.GaussianBlur(f, (0, 0), 1.2), -o.sharpen, 0)
    out = np.clip(f, 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, o.jpeg])
    assert ok
    decoded = cv2.imdecode(jpg, cv2.IMREAD_COLOR)
    return np.asarray(decoded, np.uint8)


_MAPS: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}


def _distortion_maps(cam: Camera, scale: float, pad: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    key = (cam, scale, pad)
    if key not in _MAPS:
        _MAPS.clear()
        _MAPS[key] = cam.distortion_maps(scale, pad)
    return _MAPS[key]


@functools.cache
def _vignette(w: int, h: int) -> F32:
    """Squared distance from the frame's middle over the corners' (0..1)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.asarray(((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2), np.float32)


def _defocus(img: Image, cam: Camera, sigma: float) -> Image:
    """Sharp at the focus distance (the map's middle), blurring up to `sigma` towards the near and far
    edges of a tilted view."""
    if sigma < 0.2:
        return img
    blurred = cv2.GaussianBlur(img, (0, 0), sigma)
    if sigma >= 2.0 or cam.tilt < 5:
        return blurred
    mild = cv2.GaussianBlur(img, (0, 0), sigma * 0.5)
    rows = np.linspace(-1, 1, cam.height, dtype=np.float32)
    wgt = np.repeat(np.clip(np.abs(rows) * 1.2, 0, 1)[:, None], cam.width, axis=1)
    return cv2.blendLinear(mild, blurred, 1 - wgt, wgt)


def _glare(f: F32, scene: Scene, strength: float) -> F32:
    """The lamp's reflection on glossy print: where the mirror of the lamp in the table meets the view."""
    if strength < 0.02:
        return f
    cam = scene.camera
    c = cam.centre
    lx, ly, lz = scene.lamp
    t = c[2] / (c[2] + lz)
    p = c + t * (np.array([lx, ly, -lz]) - c)
    uv, z = cam.project(np.array([[p[0], p[1], 0.0]]))
    if z[0] <= 0:
        return f
    centre = cam.distorted(uv)[0]
    # the highlight's size: a lamp shade seen in a semi-glossy print, stretched along the view's tilt
    rad = 0.09 * cam.width * (0.7 + 0.6 * scene.gloss)
    q = 4
    yy, xx = np.mgrid[0 : cam.height : q, 0 : cam.width : q].astype(np.float32)
    stretch = 1.0 + math.sin(math.radians(cam.tilt)) * 0.8
    d2 = ((xx - centre[0]) / rad) ** 2 + ((yy - centre[1]) / (rad * stretch)) ** 2
    # a bright core (the lamp's own reflection, washing print out to white) in a wider haze
    profile = np.clip(0.8 * np.exp(-d2 * 5) + 0.35 * np.exp(-d2), 0, 1).astype(np.float32)
    w = cv2.resize(profile * strength, (cam.width, cam.height), interpolation=cv2.INTER_LINEAR)
    w = (w * (0.4 + 0.6 * scene.gloss))[..., None]
    return f + w * (275 - f)

"""What lies flat on the table, through the table plane onto the canvas: the table top and the floor beyond
it, the lamp's pool of light, the *table texture* (tile art, the stickers as printed, cards: millimetres to
pixels at about the canvas's finest view of them) and a coarse *shade* layer of soft shadows cast away from
the lamp (tiles' edges, card piles, dice, hands)."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from bench.realtable import art
from bench.realtable.canvas import F32, F64, Image, lamp_light, table_points
from bench.realtable.hands import hand_polys
from bench.realtable.scene import Card, Frame, Scene, TilePose
from bench.realtable.stickers import STICKER_H_MM, STICKER_W_MM, printed_stickers
from engine.catalogue import load_default_catalogue

MAX_TEXTURE_PX = 6000
SHADE_PX_PER_MM = 1.5


def light_field(scene: Scene, frame: Frame, k: F64, size: tuple[int, int]) -> F32:
    step = 8
    x, y = table_points(k, scene.camera, size, step)
    field = lamp_light(scene, x, y, frame.light_shift)
    return cv2.resize(field, size, interpolation=cv2.INTER_LINEAR)


def table_background(scene: Scene, frame: Frame, k: F64, size: tuple[int, int]) -> Image:
    """The table top (and the floor beyond its edge) at every canvas pixel, evaluated at a third of the
    canvas's resolution (the table beyond the map is out of focus anyway)."""
    step = 3
    x, y = table_points(k, scene.camera, size, step)
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


def texture_frame(scene: Scene, k: F64) -> tuple[F64, float, tuple[int, int]]:
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


def content(scene: Scene, frame: Frame, k: F64, size: tuple[int, int]) -> tuple[Image, Image, Image]:
    """What is printed flat on the table (tiles, stickers, decks: drawn once per scene; this frame's artefact
    cards over them) and the shadows, through the table plane onto the canvas."""
    to_world, r, tsize = texture_frame(scene, k)
    key = (scene.seed, scene.level.value, scene.resolution)
    cached = _STATIC.get(key)
    if cached is None or not np.allclose(cached[1], to_world):
        _STATIC.clear()
        colour, alpha = static_layer(scene, to_world, tsize)
        _STATIC[key] = (cv2.merge([colour, alpha]), to_world)
    plane = scene.camera.plane_homography(k)
    bgra = cv2.warpPerspective(
        _STATIC[key][0],
        plane @ to_world,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    for i, card in enumerate(c for c in frame.cards if c.kind == "artefact"):
        _card_onto(bgra, plane, r, card, np.random.default_rng([scene.seed, 11, frame.index, i]))
    # shadows are soft: their layer is coarse (SHADE_PX_PER_MM), which keeps its blurs cheap
    down = min(1.0, SHADE_PX_PER_MM / r)
    shade_world = to_world @ np.diag([1 / down, 1 / down, 1.0])
    shade_size = (max(1, round(tsize[0] * down)), max(1, round(tsize[1] * down)))
    shade = _shade_layer(scene, frame, shade_world, shade_size)
    shade_c = cv2.warpPerspective(
        shade,
        plane @ shade_world,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )
    return bgra[..., :3], bgra[..., 3], shade_c


def _card_onto(bgra: Image, plane: F64, r: float, card: Card, rng: np.random.Generator) -> None:
    """One card drawn in its own small texture and laid over the canvas where it lies."""
    w, h = round(art.CARD_W_MM * r) + 4, round(art.CARD_H_MM * r) + 4
    # the card's texture: its centre in the middle, `r` px per mm, picture axes (y down)
    to_world = np.array(
        [
            [math.cos(card.turn) / r, math.sin(card.turn) / r, 0.0],
            [math.sin(card.turn) / r, -math.cos(card.turn) / r, 0.0],
            [0.0, 0.0, 1.0],
        ]
    )
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
    warped = cv2.warpPerspective(
        cv2.merge([colour, alpha]), shift @ hp, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR
    )
    a = warped[..., 3:4].astype(np.float32) / 255
    roi = bgra[y0:y1, x0:x1]
    roi[..., :3] = (roi[..., :3] * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    roi[..., 3] = np.maximum(roi[..., 3], warped[..., 3])


def static_layer(scene: Scene, to_world: F64, tsize: tuple[int, int]) -> tuple[Image, Image]:
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
            _paste(
                colour,
                alpha,
                to_world,
                stickers[t.tile],
                centre=centre,
                up=up,
                right=right,
                w_mm=STICKER_W_MM,
                h_mm=STICKER_H_MM,
            )
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
        art.draw_tile(
            pen,
            kind.value if kind is not None else "grasslands",
            rng,
            name=spec.name,
            value=getattr(spec, "value", None),
        )
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
        for poly, z, _ in hand_polys(hand):
            ox, oy = _shadow_offset(scene, hand.tip[0], hand.tip[1], float(np.mean(z)))
            cv2.fillPoly(hands, [px(poly + np.array([ox, oy]))], 0.3 * strength, cv2.LINE_AA, 4)
    if frame.hands:
        hands = cv2.GaussianBlur(hands, (0, 0), max(2.0, 18 * r))
    total = 1.0 - np.clip(dark + dice + hands, 0, 0.9)
    return np.asarray(total * 255, np.uint8)


def composite(table: Image, content: Image, alpha: Image, shade: Image, light: F32) -> Image:
    a = alpha.astype(np.float32) / 255
    img = cv2.blendLinear(table, content, 1 - a, a)
    factor = np.clip(shade.astype(np.float32) * (light * (128 / 255)), 0, 255).astype(np.uint8)
    return cv2.multiply(img, cv2.merge([factor, factor, factor]), scale=1 / 128)

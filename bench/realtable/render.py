"""Rendering a frame: the table in 3D through the camera, then the lens, the sensor and the JPEG encoder.

1. A *table texture* (millimetres -> pixels, a little finer than the camera's finest view of it) holds what
   is printed flat on the table: tile art, the stickers as printed (`stickers.printed_stickers`), cards; and
   a *shade* layer: soft contact shadows of dice, tiles, card piles and hands, cast away from the lamp.
2. The texture goes through the table plane's homography onto a pinhole canvas (supersampled 1.3x at
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

import math

import cv2
import numpy as np
import numpy.typing as npt

from bench.realtable import art, optics
from bench.realtable.camera import Camera
from bench.realtable.canvas import Canvas, Image, to_frame
from bench.realtable.dicedraw import die_counts, draw_dice
from bench.realtable.hands import draw_hands
from bench.realtable.scene import Card, Frame, Scene, Truth
from bench.realtable.stickers import STICKER_W_MM
from bench.realtable.tabletop import composite, content, light_field, table_background

HIDDEN_SHARE = 0.5  # a die showing less than this share of its silhouette is "hidden" behind others
HAND_COVER_DIE = 0.2  # a hand over this much of a die's top face covers its location
HAND_COVER_TILE = 0.4  # ... or over this much of the tile
CARD_COVER_SHARE = 0.01  # a card's sticker with more than this share under something is not wholly in view


def render(frame: Frame) -> tuple[Image, Truth]:
    """The frame as the camera's JPEG (decoded, BGR) and its exact truth."""
    canvas, truth = draw(frame)
    return optics.apply(canvas, frame.scene, frame), truth


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
    light = light_field(scene, frame, k, (w, h))
    table = table_background(scene, frame, k, (w, h))
    printed, alpha, shade = content(scene, frame, k, (w, h))
    img = composite(table, printed, alpha, shade, light)
    canvas = Canvas(img, np.zeros((h, w), np.int32), k, scale, pad)
    drawn = draw_dice(canvas, scene, frame)
    before_hands = die_counts(canvas, len(frame.dice))
    hand_mask = draw_hands(canvas, scene, frame)
    after_hands = die_counts(canvas, len(frame.dice))
    truth = _truth(
        scene, frame, canvas, drawn=drawn, before=before_hands, after=after_hands, hand_mask=hand_mask
    )
    return canvas, truth


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
    (a fifth of a die's top face, or 40 % of the tile), artefact cards in view (`_cards_in_view`), the dice's
    boxes."""
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
        frame_pts = to_frame(cam, canvas, uv)
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
    artefacts, covered_cards = _cards_in_view(scene, frame, canvas, hand_mask)
    return Truth(
        scene.board,
        frame.knights(),
        frozenset(covered),
        frozenset(hidden),
        artefacts,
        frame.optics.blurred,
        boxes,
        covered_cards,
    )


def _cards_in_view(
    scene: Scene, frame: Frame, canvas: Canvas, hand_mask: npt.NDArray[np.bool_]
) -> tuple[dict[str, bool], dict[str, bool]]:
    """Artefact cards whose sticker (code and quiet zone) lies wholly inside the frame, face up or down: those
    with nothing over their sticker, and those with something over a part of it (a card laid later over it,
    a die, a hand; more than `CARD_COVER_SHARE` of its area, which forgives the outlines' rounding)."""
    cam = scene.camera
    cards = [c for c in frame.cards if c.kind == "artefact" and c.artefact is not None]
    outlines = [_on_canvas(cam, canvas, art.card_corners(), c) for c in cards]
    clear: dict[str, bool] = {}
    covered: dict[str, bool] = {}
    for i, c in enumerate(cards):
        uv, z = cam.project(
            np.column_stack([_placed(art.card_corners(STICKER_W_MM, STICKER_W_MM), c), np.zeros(4)]), canvas.k
        )
        pts = to_frame(cam, canvas, uv)
        if not (np.all(z > 0) and np.all((pts >= 2) & (pts <= (cam.width - 3, cam.height - 3)))):
            continue
        sticker = np.zeros(hand_mask.shape, np.uint8)
        cv2.fillPoly(sticker, [np.round(uv * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        over = np.zeros(hand_mask.shape, np.uint8)
        for later in outlines[i + 1 :]:
            cv2.fillPoly(over, [np.round(later * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        inside = sticker > 0
        hidden = (over[inside] > 0) | hand_mask[inside] | (canvas.labels[inside] > 0)
        area = int(np.count_nonzero(inside))
        share = float(np.count_nonzero(hidden)) / area if area else 1.0
        (clear if share <= CARD_COVER_SHARE else covered)[c.artefact] = c.up  # type: ignore[index]
    return clear, covered


def _placed(corners: npt.NDArray[np.float64], card: Card) -> npt.NDArray[np.float64]:
    """A card's own corners (mm, its middle at 0) where it lies on the table."""
    turn = np.array([[math.cos(card.turn), math.sin(card.turn)], [-math.sin(card.turn), math.cos(card.turn)]])
    return np.asarray(corners @ turn + (card.x, card.y), np.float64)


def _on_canvas(
    cam: Camera, canvas: Canvas, corners: npt.NDArray[np.float64], card: Card
) -> npt.NDArray[np.float64]:
    uv, _ = cam.project(np.column_stack([_placed(corners, card), np.zeros(len(corners))]), canvas.k)
    return np.asarray(uv, np.float64)

"""Hands and forearms over the table: flat shapes at their height (fingers, palm, thumb, arm, sleeve) rising
towards the shoulder, projected, shaded as round by the distance to their outline, softened, smeared when
they move."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from bench.realtable import art
from bench.realtable.canvas import F64, Canvas, lamp_light, line_kernel
from bench.realtable.scene import Frame, Hand, Scene


def hand_polys(hand: Hand) -> list[tuple[F64, F64, str]]:
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


def draw_hands(canvas: Canvas, scene: Scene, frame: Frame) -> npt.NDArray[np.bool_]:
    """Each hand: its parts projected, shaded as something round (brighter along its middle, by the
    distance to its outline), skin with a little mottling, a sleeve; soft, or smeared when it moves."""
    h, w = canvas.image.shape[:2]
    covered = np.zeros((h, w), bool)
    for k, hand in enumerate(frame.hands):
        skin_mask = np.zeros((h, w), np.uint8)
        sleeve_mask = np.zeros((h, w), np.uint8)
        for poly, z, what in hand_polys(hand):
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
            kern = line_kernel(hand.motion_px * canvas.scale, float(hand.towards))
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

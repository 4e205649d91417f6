"""Dice on the canvas: 16 mm cubes drawn far to near, each face turned to the camera textured with a real face
of the die's kind (`library.atlas_face`), rounded, shaded by the angle to the lamp, with a glossy sheen where
the lamp reflects; the canvas's label buffer records which die each pixel shows."""

from __future__ import annotations

import cv2
import numpy as np

from bench.realtable.canvas import F32, F64, Canvas, Image, lamp_light
from bench.realtable.library import FACE_PX, atlas_face
from bench.realtable.scene import DieSpec, Frame, Scene


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


def draw_dice(canvas: Canvas, scene: Scene, frame: Frame) -> list[tuple[int, int]]:
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
        sheen = 0.6 * np.exp(-(((xx + yy - 0.9) / 0.35) ** 2)) + 0.4 * np.exp(-(((xx - 0.04) / 0.05) ** 2))
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


def die_counts(canvas: Canvas, n: int) -> list[tuple[int, int]]:
    """Per die, the pixels still showing its top face, and the whole die."""
    counts = np.bincount(canvas.labels[canvas.labels > 0].ravel(), minlength=2 * n + 3)
    return [(int(counts[2 * i + 1]), int(counts[2 * i + 1] + counts[2 * i + 2])) for i in range(n)]

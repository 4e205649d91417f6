"""The pinhole canvas a frame is built on, the lamp's light over the table, and small drawing helpers shared
by the table, the dice, the hands and the lens."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from bench.realtable.camera import Camera
from bench.realtable.scene import Scene

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]


@dataclass
class Canvas:
    """The pinhole picture being built, with what the truth needs from it."""

    image: Image  # BGR uint8
    labels: npt.NDArray[np.int32]  # 0 nothing; 2k+1 die k's top face; 2k+2 die k's body; -1 a hand
    k: F64  # intrinsics of the canvas
    scale: float
    pad: tuple[float, float]


def table_points(k: F64, cam: Camera, size: tuple[int, int], step: int) -> tuple[F32, F32]:
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


def lamp_light(scene: Scene, x: F32 | F64 | float, y: F32 | F64 | float, shift: float = 0.0) -> F32:
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


def line_kernel(length: float, angle: float) -> F32:
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


def to_frame(cam: Camera, canvas: Canvas, uv: F64) -> F64:
    """Canvas pinhole points -> points in the distorted output frame."""
    pinhole = (uv - np.array(canvas.pad)) / canvas.scale
    return cam.distorted(pinhole)

"""The camera: a pinhole on a stand looking at the table, and the lens's barrel distortion.

World coordinates are millimetres, right-handed: X and Y on the table, Z up; the table top is Z = 0. A camera
stands at azimuth `yaw` (the direction it faces across the table), tilted `tilt` degrees from straight down,
turned `roll` degrees about its own axis, at `distance` mm from the point it aims at. Image x runs right and
y down; the far side of the table is at the top of the image.

Barrel distortion: a distorted image point at normalised radius r_d (image px from the principal point over
the focal length) shows what a pinhole would show at r_u = r_d (1 + k1 r_d^2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Camera:
    width: int
    height: int
    focal: float  # px
    target: tuple[float, float]  # the table point the camera aims at, mm
    distance: float  # mm from the lens to the target
    tilt: float  # degrees from straight down
    yaw: float  # degrees: the direction the camera faces across the table (0: +X)
    roll: float = 0.0  # degrees about the optical axis
    k1: float = 0.0  # barrel distortion

    @property
    def forward(self) -> F64:
        t, y = math.radians(self.tilt), math.radians(self.yaw)
        return np.array([math.sin(t) * math.cos(y), math.sin(t) * math.sin(y), -math.cos(t)])

    @property
    def centre(self) -> F64:
        return np.array([*self.target, 0.0]) - self.distance * self.forward

    @property
    def rotation(self) -> F64:
        """World -> camera (rows: the camera's x, y, z axes in world coordinates)."""
        y = math.radians(self.yaw)
        z = self.forward
        x = np.array([math.sin(y), -math.cos(y), 0.0])
        yv = np.cross(z, x)
        r = math.radians(self.roll)
        xr = math.cos(r) * x + math.sin(r) * yv
        yr = -math.sin(r) * x + math.cos(r) * yv
        return np.stack([xr, yr, z])

    def intrinsics(self, scale: float = 1.0, pad: tuple[float, float] = (0.0, 0.0)) -> F64:
        """K for an image `scale` times the frame, with `pad` px (at that scale) added on each side."""
        f = self.focal * scale
        return np.array(
            [
                [f, 0.0, self.width * scale / 2 + pad[0]],
                [0.0, f, self.height * scale / 2 + pad[1]],
                [0.0, 0.0, 1.0],
            ]
        )

    def project(self, points: F64, k: F64 | None = None) -> tuple[F64, F64]:
        """World points (N x 3) -> pinhole image points (N x 2) and their depths (N)."""
        k = self.intrinsics() if k is None else k
        cam = (np.asarray(points, np.float64) - self.centre) @ self.rotation.T
        z = cam[:, 2]
        uv = cam @ k.T
        return uv[:, :2] / np.maximum(uv[:, 2:3], 1e-6), z

    def plane_homography(self, k: F64 | None = None) -> F64:
        """Table plane (X, Y, 1) -> pinhole image (u, v, 1)."""
        k = self.intrinsics() if k is None else k
        r = self.rotation
        t = -r @ self.centre
        return k @ np.column_stack([r[:, 0], r[:, 1], t])

    def distorted(self, points: F64) -> F64:
        """Pinhole image points of the frame -> where the distorting lens puts them (inverts r_u(r_d))."""
        c = np.array([self.width / 2, self.height / 2])
        d = (np.asarray(points, np.float64) - c) / self.focal
        ru = np.linalg.norm(d, axis=1)
        rd = ru.copy()
        for _ in range(8):  # Newton on r_d (1 + k1 r_d^2) = r_u
            f = rd * (1 + self.k1 * rd**2) - ru
            rd -= f / (1 + 3 * self.k1 * rd**2)
        s = np.where(ru > 1e-9, rd / np.maximum(ru, 1e-9), 1.0)
        return c + d * s[:, None] * self.focal

    def undistort_pad(self) -> tuple[float, float]:
        """How far (frame px) the pinhole picture must reach beyond the frame on each side for the
        distorted frame's corners."""
        hx, hy = self.width / 2 / self.focal, self.height / 2 / self.focal
        grow = 1 + self.k1 * (hx**2 + hy**2)
        return (hx * (grow - 1) * self.focal + 2, hy * (grow - 1) * self.focal + 2)

    def distortion_maps(self, scale: float, pad: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        """cv2.remap maps: for each pixel of the distorted frame (at `scale`), where to read the padded
        pinhole picture."""
        w, h = round(self.width * scale), round(self.height * scale)
        f = self.focal * scale
        xs = (np.arange(w, dtype=np.float32) - w / 2) / f
        ys = (np.arange(h, dtype=np.float32) - h / 2) / f
        gx, gy = np.meshgrid(xs, ys)
        grow = 1 + self.k1 * (gx * gx + gy * gy)
        map_x = (gx * grow * f + w / 2 + pad[0]).astype(np.float32)
        map_y = (gy * grow * f + h / 2 + pad[1]).astype(np.float32)
        return map_x, map_y


def fit_distance(cam: Camera, corners: F64, fill: float) -> Camera:
    """The camera moved along its axis until the points' pinhole image spans `fill` of the frame (in the
    tighter of width and height), the way someone sets a tablet stand to frame the map."""
    lo, hi = 200.0, 20000.0
    for _ in range(40):
        mid = (lo + hi) / 2
        c = Camera(cam.width, cam.height, cam.focal, cam.target, mid, cam.tilt, cam.yaw, cam.roll, cam.k1)
        uv, z = c.project(corners)
        if np.any(z <= 0):
            lo = mid
            continue
        span = max(
            (uv[:, 0].max() - uv[:, 0].min()) / cam.width, (uv[:, 1].max() - uv[:, 1].min()) / cam.height
        )
        lo, hi = (mid, hi) if span > fill else (lo, mid)
    return Camera(cam.width, cam.height, cam.focal, cam.target, hi, cam.tilt, cam.yaw, cam.roll, cam.k1)


def centre_in_frame(cam: Camera, corners: F64) -> Camera:
    """Aim so that the points' pinhole image is centred in the frame (a few rounds of re-aiming)."""
    c = cam
    h_inv = None
    for _ in range(4):
        uv, _ = c.project(corners)
        mid = (uv.min(axis=0) + uv.max(axis=0)) / 2
        h_inv = np.linalg.inv(c.plane_homography())
        p = h_inv @ np.array([mid[0], mid[1], 1.0])
        q = h_inv @ np.array([c.width / 2, c.height / 2, 1.0])
        shift = p[:2] / p[2] - q[:2] / q[2]
        c = Camera(
            c.width,
            c.height,
            c.focal,
            (c.target[0] + shift[0], c.target[1] + shift[1]),
            c.distance,
            c.tilt,
            c.yaw,
            c.roll,
            c.k1,
        )
    return c


def focal_for(width: int, hfov_deg: float) -> float:
    return width / 2 / math.tan(math.radians(hfov_deg) / 2)

"""The lens, the sensor and the encoder, after the canvas: barrel distortion and the shrink to the frame,
defocus (sharp at the map's middle), camera shake, the lamp's glare on glossy print, vignetting, the colour
cast the white balance left, exposure, shot and read noise spread by demosaicking, the ISP's sharpening,
JPEG."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from bench.realtable.camera import Camera
from bench.realtable.canvas import F32, Canvas, Image, line_kernel
from bench.realtable.scene import Frame, Scene

LENS_SOFTNESS = 0.45  # px: a tablet lens and its demosaicking are never perfectly sharp


def apply(canvas: Canvas, scene: Scene, frame: Frame) -> Image:
    cam = scene.camera
    o = frame.optics
    rng = np.random.default_rng(frame.seed)
    mx, my = _distortion_maps(cam, canvas.scale, canvas.pad)
    img = cv2.remap(canvas.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if canvas.scale != 1.0:
        img = cv2.resize(img, (cam.width, cam.height), interpolation=cv2.INTER_AREA)
    img = _defocus(img, cam, max(o.defocus, LENS_SOFTNESS))
    if o.motion_px > 0.5:
        img = cv2.filter2D(img, -1, line_kernel(o.motion_px, o.motion_angle))
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

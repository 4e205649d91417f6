"""Colour primitives of the player colours: white balance by the stickers' white, CIE Lab, and the
shade-tolerant distance every colour comparison uses.

Light changes between setup and play (a lamp switched on, the evening sun) are removed by white balance: the
white paper of the QR stickers is the table's white reference. A colour is scaled per channel so that the
frame's sticker white becomes `WHITE_TARGET` (von Kries), then converted to Lab.

Uneven light (a die in the shade of a lamp's fall-off) makes a surface darker, and in Lab its a/b shrink with
its L. So the distance compares a sample's a/b scaled to the reference's lightness (the ratio clipped to
`SHADE_RANGE`), and counts the lightness difference itself only `L_WEIGHT` as much, so a yellow die in shade
stays yellow. For white and black, which differ only in lightness, it weighs `L_WEIGHT_NEUTRAL`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import CalibrationError

BGR = tuple[float, float, float]
Lab = tuple[float, float, float]

# Sticker white is mapped to this value per channel (slightly below 255 so that balancing never clips it).
WHITE_TARGET = 235.0
L_WEIGHT = 0.35
L_WEIGHT_NEUTRAL = 0.8
SHADE_RANGE = (0.85, 3.0)


def white_balance_gains(white_bgr: Sequence[float]) -> BGR:
    """Per-channel gains that turn the measured sticker white into neutral `WHITE_TARGET` grey."""
    if len(white_bgr) != 3:
        raise CalibrationError(f"white reference must have 3 channels (B, G, R), got {list(white_bgr)!r}")
    values = [float(v) for v in white_bgr]
    if not all(math.isfinite(v) for v in values) or min(values) < 20.0:
        raise CalibrationError(
            f"white reference {values!r} is too dark or invalid to balance from (need every channel >= 20)"
        )
    b, g, r = (WHITE_TARGET / v for v in values)
    return (b, g, r)


def clip(values: npt.NDArray[Any], low: float, high: float) -> npt.NDArray[Any]:
    """`np.clip` for the few colours of one die: the same numbers without its overhead (tens of microseconds a
    call, four calls a die)."""
    out: npt.NDArray[Any] = np.minimum(np.maximum(values, low), high)
    return out


def balance(bgr: npt.ArrayLike, white_bgr: Sequence[float] | None) -> npt.NDArray[np.float32]:
    """Apply white balance to one colour or an Nx3 array of colours (no-op when `white_bgr` is None)."""
    arr = np.asarray(bgr, dtype=np.float32).reshape(-1, 3)
    if white_bgr is None:
        return arr
    gains = np.asarray(white_balance_gains(white_bgr), dtype=np.float32)
    out: npt.NDArray[np.float32] = clip(arr * gains, 0.0, 255.0).astype(np.float32)
    return out


def bgr_to_lab(bgr: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Nx3 BGR (0..255, any float) -> Nx3 Lab (L 0..100, a/b about -128..127)."""
    arr = (np.asarray(bgr, dtype=np.float32) / np.float32(255.0)).reshape(-1, 1, 3).astype(np.float32)
    lab: npt.NDArray[np.float32] = np.asarray(cv2.cvtColor(arr, cv2.COLOR_BGR2Lab), np.float32).reshape(-1, 3)
    return lab


def lab_to_bgr(lab: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Nx3 Lab -> Nx3 BGR (0..255, float)."""
    arr = np.asarray(lab, dtype=np.float32).reshape(-1, 1, 3)
    bgr: npt.NDArray[np.float64] = np.asarray(cv2.cvtColor(arr, cv2.COLOR_Lab2BGR), np.float64).reshape(-1, 3)
    return bgr * 255.0


def l_weight(references: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """How much lightness counts against each Lab reference (Nx3): `L_WEIGHT` for colourful ones, up to
    `L_WEIGHT_NEUTRAL` for white, grey and black, which lightness alone tells apart."""
    neutral = 1.0 - np.minimum(np.hypot(references[..., 1], references[..., 2]), 30.0) / 30.0
    out: npt.NDArray[np.float32] = (L_WEIGHT + (L_WEIGHT_NEUTRAL - L_WEIGHT) * neutral).astype(np.float32)
    return out


def lab_distance(references: npt.ArrayLike, sample: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Shade-tolerant distance from a Lab sample to each Lab reference (Nx3): see the module docstring.
    `sample` may also be Nx3, one sample per reference (row by row)."""
    refs = np.asarray(references, dtype=np.float32).reshape(-1, 3)
    s = np.asarray(sample, dtype=np.float32).reshape(-1, 3)
    ratio = clip(refs[:, 0] / np.maximum(s[:, 0], 1.0), *SHADE_RANGE)
    da = s[:, 1] * ratio - refs[:, 1]
    db = s[:, 2] * ratio - refs[:, 2]
    dl = l_weight(refs) * (s[:, 0] - refs[:, 0])
    dist: npt.NDArray[np.float32] = np.sqrt(dl**2 + da**2 + db**2).astype(np.float32)
    return dist

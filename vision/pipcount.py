"""A second opinion on a die's value that no network gives: its pips counted on its rectified top face.

The value networks are unsure of some faces they read right (a kind of die they never met, a glint, a soft
frame); a count of the pips that agrees with their likeliest value, from pips that lie as a die's do, lets
that value be stated (`vision.dice.decide`). It only confirms: a count that differs, or pips that do not lie
as a die's, leaves the die unsure.

On a face rectified as `vision.topview.face_crops` cuts it (`FACE_BOX` inside the crop), the pips are the
strongest blobs of one polarity in lightness at a pip's scale (a difference of Gaussians), within the
face's reach of the crop's middle: darker than the body on a light die, lighter on a dark one (the side of
the face's middle lightness with the longer tail is the pips', a minority). They must be alike in strength
and size (a glint on a dark die is no pip), and lie as every face of a die does: symmetric about their centre, which
lies near the crop's middle (a lone pip nearer still), with a pip there only for an odd count, no two
closer than a pip apart and the farthest two as far apart as a face's corner pips are.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.topview import FACE_BOX

Image = npt.NDArray[np.uint8]
Points = npt.NDArray[np.float64]

FACE_PX = float(FACE_BOX[2] - FACE_BOX[0])  # the face's side in its crop
PIP_SIGMA = 0.056 * FACE_PX  # a pip's radius over root two: the blob filter's scale
SURROUND = 3.0  # the surround a pip stands out of, in pip scales
AREA_REACH = 0.17 * FACE_PX  # a pip's area is measured this far from its centre
REACH = 0.47 * FACE_PX  # a pip's centre lies within this of the face's centre (a corner pip at any turn)
STRONGEST = 0.35  # blobs this strong against the strongest are looked at
ALIKE = 0.6  # ... and each must be this strong against the strongest: a die's pips are alike
SIZES = 2.2  # ... and no pip's area over this times another's (a glint on a dark die is larger than a pip)
OFF_MIDDLE = 0.16 * FACE_PX  # the pips' centre lies within this of the crop's middle
LONE_OFF_MIDDLE = 0.08 * FACE_PX  # ... a lone pip within this (a 2 cut by the crop shows one pip off it)
SYMMETRY = 0.094 * FACE_PX  # each pip's mirror through their centre lies within this of a pip
APART = 0.16 * FACE_PX  # no two pips closer than this
ACROSS = (0.53 * FACE_PX, 0.84 * FACE_PX)  # the farthest two pips (corner to corner) lie this far apart


def pips(face: Image) -> int | None:
    """How many pips `face` shows, when they lie as a die's do; None when they do not (or none stand out)."""
    lightness = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    signed = lightness * _pip_sign(lightness)
    points, strengths = _blobs(signed)
    if len(points) == 0 or strengths.min() < ALIKE * strengths.max():
        return None
    areas = _areas(signed, points)
    if areas.max() > SIZES * areas.min():
        return None
    return len(points) if _lie_as_pips(points, _middle(face)) else None


def _middle(face: Image) -> npt.NDArray[np.float64]:
    return np.array([(FACE_BOX[0] + FACE_BOX[2]) / 2.0, (FACE_BOX[1] + FACE_BOX[3]) / 2.0]) - 0.5


def _inner(image: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The face's middle, well inside its edges whichever way it is turned."""
    x0, y0, x1, y1 = FACE_BOX
    return image[y0 + 4 : y1 - 4, x0 + 4 : x1 - 4]


def _areas(signed: npt.NDArray[np.float32], points: Points) -> npt.NDArray[np.float64]:
    """Each blob's area: its pixels past half way from the body's level to the blob's peak, within
    `AREA_REACH` of it (short of the next pip, and of the face's edge beyond a corner pip)."""
    smooth = cv2.GaussianBlur(signed, (0, 0), PIP_SIGMA / 2.0)
    body = float(np.median(_inner(smooth)))
    ys, xs = np.mgrid[: smooth.shape[0], : smooth.shape[1]]
    out = []
    for x, y in points.astype(int):
        near = (xs - x) ** 2 + (ys - y) ** 2 <= AREA_REACH**2
        out.append(float(np.count_nonzero(near & (smooth > (smooth[y, x] + body) / 2.0))))
    return np.array(out)


def _pip_sign(lightness: npt.NDArray[np.float32]) -> float:
    """-1 when the pips are darker than the body (the middle's lightness has its longer tail below its
    median), else 1."""
    low, median, high = np.percentile(_inner(lightness), (5, 50, 95))
    return -1.0 if median - low > high - median else 1.0


def _blobs(signed: npt.NDArray[np.float32]) -> tuple[Points, npt.NDArray[np.float32]]:
    """Local maxima of the pip-scale blob response within the face's reach, and their strengths."""
    pip = cv2.GaussianBlur(signed, (0, 0), PIP_SIGMA)
    response = pip - cv2.GaussianBlur(signed, (0, 0), PIP_SIGMA * SURROUND)
    h, w = response.shape
    ys, xs = np.mgrid[:h, :w]
    middle = (np.array([w, h], np.float64) - 1.0) / 2.0
    reach = (xs - middle[0]) ** 2 + (ys - middle[1]) ** 2 <= REACH**2
    peak = response >= cv2.dilate(response, np.ones((5, 5), np.uint8))
    found = np.argwhere(peak & reach & (response > 0))
    if len(found) == 0:
        return np.zeros((0, 2)), np.zeros(0, np.float32)
    strengths = response[found[:, 0], found[:, 1]]
    keep = strengths >= STRONGEST * strengths.max()
    return found[keep][:, ::-1].astype(np.float64), strengths[keep]


def _lie_as_pips(points: Points, middle: npt.NDArray[np.float64]) -> bool:
    """Whether `points` lie as a die's pips do (the module's docstring)."""
    n = len(points)
    if n > 6:
        return False
    centre = points.mean(axis=0)
    if np.linalg.norm(centre - middle) > (LONE_OFF_MIDDLE if n == 1 else OFF_MIDDLE):
        return False
    mirrored = 2.0 * centre - points
    gaps = np.linalg.norm(points[None, :, :] - mirrored[:, None, :], axis=2).min(axis=1)
    if gaps.max() > SYMMETRY:
        return False
    has_middle = bool(np.linalg.norm(points - centre, axis=1).min() < SYMMETRY)
    if has_middle != (n % 2 == 1):
        return False
    if n == 1:
        return True
    apart = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)[np.triu_indices(n, 1)]
    return bool(apart.min() >= APART and ACROSS[0] <= apart.max() <= ACROSS[1])

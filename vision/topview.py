"""The table seen from straight above, at the height of the dice's top faces.

A camera on a stand sees the table at a slant: far dice look smaller than near ones, and every die shows one
or two side faces whose pips must not count. The stickers give the table's homography and so the camera's
pose (`vision.knights.plane_at_height`), and with it the view a camera straight above would have of the plane
one die high, where every die's top face lies. In that view:

- every top face is a square of the same size (`PX_PER_MM` x `DIE_MM`), wherever the die stands and however
  steep the camera;
- no top face hides another (equal cubes on a flat table cannot cover each other's tops from any camera
  above them);
- a die's side faces are a smear beside its top, towards the camera, and the table under a die is hidden.

The dice finder reads that view (`vision.dice.read_from_above`), and a die's position in it is its place on
the table in millimetres; the value networks read each top face rectified from the frame at the frame's own
resolution (`face_crops`), so they see a square face from straight above, as in a photograph taken from
above, never a slanted die with its sides.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.tags import DIE_MM

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

# A top face 25 px across: the finder's scale (`vision.dice.TARGET_DIE_PX` 30 px for a whole die, 1.2 times
# its top face), so the view needs no resizing.
PX_PER_MM = 25.0 / DIE_MM
MARGIN_MM = 12.0  # table around the outlines, so that a die on a tile's edge is seen whole
# The value networks' crop spans this many top faces around a face's centre (a photograph's whole-die box,
# `vision.dice.die_crop`, spans about 1.15 x 1.1 of its top face).
FACE_CROP_SPAN = 1.25
# In a top face rectified at 40 px (the value networks' crop, FACE_CROP_SPAN faces across), the face's own box
# (x0, y0, x1, y1): its players' colours are measured on its middle (`ColourCalibration.name_crops`).
FACE_BOX = (4, 4, 36, 36)
NOMINAL_HFOV_DEG = 64.0  # a typical tablet / USB camera, when the view is too square-on to tell


@dataclass(frozen=True, slots=True, eq=False)
class TopView:
    """Where the view from above lies: view px = (table mm - `origin`) x `px_per_mm`, on the plane
    `height_mm` above the table; `top_to_image` maps that plane (table mm) to the frame's pixels."""

    origin: tuple[float, float]
    px_per_mm: float
    size: tuple[int, int]  # (width, height) px
    height_mm: float
    top_to_image: FloatArray
    image_to_table: FloatArray  # the table plane's own (height 0)
    image_size: tuple[int, int]  # the frame's (width, height) px
    camera: tuple[float, float, float] = (0.0, 0.0, 1.0)  # the camera's place: table mm, height mm

    @property
    def view_to_image(self) -> FloatArray:
        k = 1.0 / self.px_per_mm
        to_table = np.array([[k, 0.0, self.origin[0]], [0.0, k, self.origin[1]], [0.0, 0.0, 1.0]])
        out: FloatArray = self.top_to_image @ to_table
        return out

    def to_table(self, view_points: npt.ArrayLike) -> FloatArray:
        """View px -> table mm (the point under them on the table)."""
        p = np.asarray(view_points, np.float64).reshape(-1, 2)
        out: FloatArray = p / self.px_per_mm + np.asarray(self.origin)
        return out

    def to_view(self, table_points: npt.ArrayLike) -> FloatArray:
        p = np.asarray(table_points, np.float64).reshape(-1, 2)
        out: FloatArray = (p - np.asarray(self.origin)) * self.px_per_mm
        return out

    def to_image(self, table_points: npt.ArrayLike, height_mm: float | None = None) -> FloatArray:
        """Table mm -> frame px, on this view's plane (or, with `height_mm` 0, on the table itself)."""
        p = np.asarray(table_points, np.float64).reshape(-1, 1, 2)
        if len(p) == 0:
            return np.zeros((0, 2))
        hom = (
            self.top_to_image
            if height_mm is None
            else lifted(np.linalg.inv(self.image_to_table), self.image_size, height_mm)
        )
        return np.asarray(cv2.perspectiveTransform(p, hom), np.float64).reshape(-1, 2)

    def outline_in_view(self, polygon: npt.ArrayLike) -> FloatArray:
        """An outline on the table (frame px, e.g. a tile's) in view px."""
        p = np.asarray(polygon, np.float64).reshape(-1, 1, 2)
        table = np.asarray(cv2.perspectiveTransform(p, self.image_to_table), np.float64).reshape(-1, 2)
        return self.to_view(table)


@dataclass(frozen=True, slots=True)
class Pose:
    """The camera recovered from the table's homography (`pose`): intrinsics, the table's axes and "up" in the
    camera's frame, its origin there, and the camera's place above the table (table mm, height mm)."""

    k: FloatArray
    r1: FloatArray
    r2: FloatArray
    up: FloatArray
    t: FloatArray
    centre: FloatArray  # (x, y, height) in table mm


def pose(table_to_image: npt.ArrayLike, image_size: tuple[int, int]) -> Pose:
    """The camera, assuming square pixels and the principal point at the image centre, its focal length from
    the table's homography (`focal_length`)."""
    w, h = image_size
    hom0 = np.asarray(table_to_image, np.float64)
    f = focal_length(hom0, image_size)
    k = np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1.0]])
    m = np.linalg.inv(k) @ hom0
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] * scale < 0:  # the table must be in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    r3 = np.cross(r1, r2)
    r3 /= max(float(np.linalg.norm(r3)), 1e-12)
    # "Up" is the side of the table the camera is on: its centre is -R^T t.
    rot = np.column_stack([r1, r2, r3])
    centre = -rot.T @ t
    up = r3 if centre[2] > 0 else -r3
    return Pose(k, r1, r2, up, t, np.array([centre[0], centre[1], abs(centre[2])]))


# Under this sine of the view's slant the focal length cannot be told from the table (`focal_length`).
SQUARE_ON = 0.2


def focal_length(table_to_image: npt.ArrayLike, image_size: tuple[int, int]) -> float:
    """The focal length (px) that makes the table's axes at right angles and of one length, both (Zhang's two
    constraints, least squares in 1/f^2). Orthogonality alone is ill-conditioned when an axis lies across the
    camera's slant, as a stand at a table's side usually sets it: on 36 of the realism renderer's dev frames
    (0-50 degrees) it came out 0.5-5.5 times the true length, or not at all; where the view slants enough
    to tell, both gave 0.94-1.06 of it, half within 3 %. A view too square-on to tell (`SQUARE_ON`), or a
    length outside half to twice `NOMINAL_HFOV_DEG`'s, gives that nominal one; the height of a die then
    barely shows anyway."""
    w, h = image_size
    k0 = np.array([[1.0, 0, w / 2.0], [0, 1.0, h / 2.0], [0, 0, 1.0]])
    a = np.linalg.inv(k0) @ np.asarray(table_to_image, np.float64)
    a1, a2 = a[:, 0], a[:, 1]
    nominal = (w / 2.0) / math.tan(math.radians(NOMINAL_HFOV_DEG / 2.0))
    across = (float(np.linalg.norm(a1[:2])) + float(np.linalg.norm(a2[:2]))) / 2.0
    if across <= 0 or nominal * math.hypot(a1[2], a2[2]) / across < SQUARE_ON:
        return nominal
    rows = np.array([a1[0] * a2[0] + a1[1] * a2[1], a1[0] ** 2 + a1[1] ** 2 - a2[0] ** 2 - a2[1] ** 2])
    rhs = -np.array([a1[2] * a2[2], a1[2] ** 2 - a2[2] ** 2])
    inv_f2 = float(rows @ rhs) / max(float(rows @ rows), 1e-300)
    if inv_f2 <= 0:
        return nominal
    f = 1.0 / math.sqrt(inv_f2)
    return f if 0.5 * nominal < f < 2.0 * nominal else nominal


def lifted(table_to_image: npt.ArrayLike, image_size: tuple[int, int], height_mm: float) -> FloatArray:
    """The homography table (mm) -> image for the plane `height_mm` above the table (a die's top face), from
    the camera's `pose`."""
    cam = pose(table_to_image, image_size)
    out: FloatArray = cam.k @ np.column_stack([cam.r1, cam.r2, cam.t + height_mm * cam.up])
    return out


def above(
    image_shape: tuple[int, ...],
    image_to_table: npt.ArrayLike,
    outlines: Iterable[npt.ArrayLike],
    *,
    height_mm: float = DIE_MM,
    px_per_mm: float = PX_PER_MM,
    margin_mm: float = MARGIN_MM,
) -> TopView:
    """The view from above of the table under `outlines` (frame px polygons on the table, e.g. the knight
    locations' tiles), on the plane `height_mm` up."""
    i2t = np.asarray(image_to_table, np.float64)
    pts = [np.asarray(p, np.float64).reshape(-1, 2) for p in outlines]
    if not pts:
        raise ValueError("a view from above needs at least one outline")
    table = np.asarray(cv2.perspectiveTransform(np.concatenate(pts).reshape(-1, 1, 2), i2t)).reshape(-1, 2)
    lo = table.min(axis=0) - margin_mm
    hi = table.max(axis=0) + margin_mm
    size = (max(16, math.ceil((hi[0] - lo[0]) * px_per_mm)), max(16, math.ceil((hi[1] - lo[1]) * px_per_mm)))
    w, h = image_shape[1], image_shape[0]
    cam = pose(np.linalg.inv(i2t), (w, h))
    top = cam.k @ np.column_stack([cam.r1, cam.r2, cam.t + height_mm * cam.up])
    where = (float(cam.centre[0]), float(cam.centre[1]), float(cam.centre[2]))
    return TopView((float(lo[0]), float(lo[1])), px_per_mm, size, height_mm, top, i2t, (w, h), where)


def warp(image: Image, view: TopView) -> Image:
    """The view from above, from `image`. Where the frame has several pixels to each of the view's, the
    part of the frame the view shows is first averaged down by whole squares, so that the view does not
    alias (a 4K frame)."""
    to_image = view.view_to_image
    # frame px per view px at the view's centre: how much the frame is shrunk
    c = np.array([[view.size[0] / 2, view.size[1] / 2], [view.size[0] / 2 + 1, view.size[1] / 2 + 1]])
    p = np.asarray(cv2.perspectiveTransform(c.reshape(-1, 1, 2), to_image)).reshape(-1, 2)
    k = max(1, int(float(np.linalg.norm(p[1] - p[0])) / math.sqrt(2.0)))
    src = image
    if k > 1:
        # only the part of the frame under the view, its corners on whole squares
        w, h = view.size
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
        seen = np.asarray(cv2.perspectiveTransform(corners, to_image)).reshape(-1, 2)
        fh, fw = image.shape[:2]
        x0 = max(0, int(seen[:, 0].min()) - k) // k * k
        y0 = max(0, int(seen[:, 1].min()) - k) // k * k
        x1 = min(fw, math.ceil(seen[:, 0].max()) + k) // k * k
        y1 = min(fh, math.ceil(seen[:, 1].max()) + k) // k * k
        if x1 - x0 >= k and y1 - y0 >= k:
            part = image[y0:y1, x0:x1]
            src = np.asarray(
                cv2.resize(part, ((x1 - x0) // k, (y1 - y0) // k), interpolation=cv2.INTER_AREA), np.uint8
            )
            # frame px (x) -> averaged px (x - x0) / k - 0.5 + 0.5 / k: a square's centre is its pixels' mean
            shift = -0.5 + 0.5 / k
            to_small = np.array([[1.0 / k, 0.0, -x0 / k + shift], [0.0, 1.0 / k, -y0 / k + shift], [0, 0, 1]])
            to_image = to_small @ to_image
    out = cv2.warpPerspective(
        src, to_image, view.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(out, np.uint8)


def region(view: TopView, outlines: Sequence[npt.ArrayLike], grow: float = 1.12) -> Image:
    """The mask (view px, 0/1) of `outlines` (frame px on the table) grown by `grow` about their centres."""
    mask = np.zeros((view.size[1], view.size[0]), np.uint8)
    for poly in outlines:
        q = view.outline_in_view(poly)
        q = (q - q.mean(axis=0)) * grow + q.mean(axis=0)
        cv2.fillPoly(mask, [np.round(q).astype(np.int32).reshape(-1, 1, 2)], 1)
    return mask


def face_crops(
    image: Image,
    view: TopView,
    table_points: npt.ArrayLike,
    size: int,
    *,
    span: float = FACE_CROP_SPAN,
    turns: Sequence[float] | None = None,
) -> list[Image]:
    """For each point on the table (mm), the top face above it as a `size` x `size` square seen from straight
    above, `span` top faces across, rectified from the frame at its own resolution (turned by `turns` degrees
    about its centre when given, for training)."""
    pts = np.asarray(table_points, np.float64).reshape(-1, 2)
    half = span * DIE_MM / 2.0
    out: list[Image] = []
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    for k, (x, y) in enumerate(pts.tolist()):
        a = math.radians(turns[k]) if turns is not None else 0.0
        c, s = math.cos(a) * half, math.sin(a) * half
        corners = np.array([[x - c + s, y - s - c], [x + c + s, y + s - c], [x + c - s, y + s + c],
                            [x - c - s, y - s + c]])
        src = view.to_image(corners).astype(np.float32)
        m = np.asarray(cv2.getPerspectiveTransform(dst, src), np.float64)
        # frame px per crop px: where the frame is finer than the crop (a 4K frame), warp k times larger and
        # average k x k squares, so the pips do not alias
        k2 = max(1, int(float(np.linalg.norm(src[1] - src[0])) / size))
        crop = cv2.warpPerspective(
            image, m @ np.diag([1.0 / k2, 1.0 / k2, 1.0]), (size * k2, size * k2),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE,
        )
        if k2 > 1:
            crop = cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)
        out.append(np.asarray(crop, np.uint8))
    return out


@functools.lru_cache(maxsize=1)
def _unit() -> FloatArray:
    return np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])


def away_from_camera(view: TopView, table_point: Sequence[float]) -> tuple[float, float]:
    """The unit vector on the table pointing from under the camera through `table_point`: a die's side faces
    smear towards the camera in the view from above, so its top face lies this way from its smear."""
    dx, dy = table_point[0] - view.camera[0], table_point[1] - view.camera[1]
    n = math.hypot(dx, dy)
    return (dx / n, dy / n) if n > 1e-9 else (0.0, 0.0)


def side_behind(view: TopView, table_point: Sequence[float]) -> float:
    """How far (mm) a die's side face turned to the camera lies from its top face's centre in the view from
    above, at `table_point`: half a side, plus the half-height side face seen through the top plane,
    farther the slanter the camera looks (8 mm + 8 mm x tan of the view's angle from the vertical)."""
    x, y, height = view.camera
    slant = math.hypot(table_point[0] - x, table_point[1] - y) / max(height - DIE_MM, 1.0)
    return DIE_MM / 2.0 * (1.0 + slant)


def face_px(view: TopView, table_point: Sequence[float]) -> float:
    """How many frame pixels a top face at `table_point` spans along its shorter side as the camera sees it
    (towards the camera it is foreshortened): under about 8, its pips are a pixel across."""
    u = away_from_camera(view, table_point)
    if u == (0.0, 0.0):
        u = (1.0, 0.0)
    h = DIE_MM / 2.0
    x, y = table_point[0], table_point[1]
    ends = view.to_image([(x - h * u[0], y - h * u[1]), (x + h * u[0], y + h * u[1]),
                          (x + h * u[1], y - h * u[0]), (x - h * u[1], y + h * u[0])])
    return float(min(np.linalg.norm(ends[1] - ends[0]), np.linalg.norm(ends[3] - ends[2])))


def die_extent(view: TopView, table_point: Sequence[float]) -> FloatArray:
    """Where a die standing on `table_point` (mm) can show in the frame, whichever way it is turned: the
    corners (frame px) of the squares its turning sweeps at the table and at its top face's height."""
    sq = _unit() * DIE_MM * math.sqrt(2.0) + np.asarray(table_point, np.float64)
    floor = cv2.perspectiveTransform(sq.reshape(-1, 1, 2), np.linalg.inv(view.image_to_table)).reshape(-1, 2)
    return np.vstack([view.to_image(sq), np.asarray(floor, np.float64)])


def face_outline(view: TopView, table_point: Sequence[float], yaw: float = 0.0) -> FloatArray:
    """The top face over `table_point` (mm), a square turned by `yaw` radians, in frame px."""
    c, s = math.cos(yaw), math.sin(yaw)
    sq = _unit() * DIE_MM @ np.array([[c, s], [-s, c]]) + np.asarray(table_point, np.float64)
    return view.to_image(sq)

"""Dice on the table: where each die is, its top face's value 1..6, and how sure we are.

Two kinds of small convolutional network, run on the CPU from `vision/models/` by ONNX Runtime or OpenCV's
DNN module (`vision.networks`):

1. The *finder* (`dicenet.onnx`; in ONNX Runtime its 8-bit twin `dicenet.int8.onnx`) looks at the image
   scaled so a die is about `TARGET_DIE_PX` across and gives, for every cell of a grid a quarter of that
   size, how likely a die's centre lies there, a value guess, the die's box size and the centre's place in
   the cell. Local maxima of the centre score are candidates.
2. The *value networks* (`dicevalue*.onnx`, they vote; in ONNX Runtime their 8-bit twins) see each
   candidate's crop at the image's own resolution and say "not a die" or the top face's value, counting only
   the top face's pips.

Two sets of them ship (`Networks`): `PHOTOS` for dice photographed as they lie (`read_dice`: a tray, a
close-up, a frame with no table known) and `ABOVE` (`dicenet-above.onnx`, ...) for the table read from above
(`read_from_above`: the frame warped to a view straight down onto the dice's top faces, each top face
rectified for the value networks; `vision.topview`). Each reads its own kind of picture best.

`judge` combines them. Both were trained by `python -m vision.dice_model.train` on the tuning part of the
real labelled photographs and on seeded synthetic tables and close-ups (docs/dice-model.md), so they learnt
what rules of thumb could not: glossy and marbled bodies, glare, side faces, dice touching.

Boxes are whole dice, as the real photographs are labelled. A die is `unsure` when the best value is not
clearly ahead, the die itself is doubtful, or the region's edge cuts it: the app then asks the players rather
than guess. `calibration` (anything with `nearest(bgr, white_bgr)`) names each die's player from its top
face's body colour. Figures on real photographs: `bench/dice_real.py`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from vision import networks, topview
from vision.calibration import die_body_colour, middle_of
from vision.errors import VisionError

Image = npt.NDArray[np.uint8]
Box = tuple[int, int, int, int]

MODELS = Path(__file__).resolve().parent / "models"


@dataclass(frozen=True, slots=True)
class Networks:
    """A finder and the value networks that vote with it (alike, trained with different seeds), trained for
    one kind of picture: `PHOTOS` for dice photographed as they lie (a tray, a close-up: `read_dice`),
    `ABOVE` for the table seen from above with each top face rectified (`read_from_above`)."""

    finder: Path

    @property
    def values(self) -> tuple[Path, ...]:
        """The value networks' float originals (two members vote)."""
        return (self.value(1), self.value(2))

    def value(self, member: int) -> Path:
        """The value network `member` (1, 2, ...) beside the finder: `dicenet-above.onnx` ->
        `dicevalue-above.onnx`, `dicevalue2-above.onnx`."""
        suffix = self.finder.stem.removeprefix("dicenet")
        return self.finder.with_name(f"dicevalue{'' if member == 1 else member}{suffix}.onnx")


PHOTOS = Networks(MODELS / "dicenet.onnx")
ABOVE = Networks(MODELS / "dicenet-above.onnx")
MODEL = PHOTOS.finder
VALUE_MODELS = PHOTOS.values


def _for_runtime(model: Path, job: networks.Job) -> Path:
    """A network's file for the runtime doing `job`: its 8-bit twin in OpenVINO and ONNX Runtime (made by
    `python -m vision.dice_model.quantize`), the float original in OpenCV's DNN module."""
    if networks.eight_bit(job):
        return model.with_name(model.stem + ".int8.onnx")
    return model


def finder_model(nets: Networks | None = None) -> Path:
    """The finder's file for its runtime (its 8-bit twin is 1.5-2.3x faster in ONNX Runtime, 1.4-2x more in
    OpenVINO); `nets`: `PHOTOS` unless given."""
    return _for_runtime((nets or PHOTOS).finder, networks.Job.VIEW)


def value_models(nets: Networks | None = None) -> tuple[Path, ...]:
    """The value networks' files for their runtime (8-bit twins: 1.4-1.7x faster in ONNX Runtime)."""
    return tuple(_for_runtime(m, networks.Job.CROPS) for m in (nets or PHOTOS).values)


STRIDE = 4  # the network's output grid is a quarter of its input
MIN_SIDE_PX = 10  # smaller images cannot hold a die
TARGET_DIE_PX = 30.0  # whole-die size the finder works at (trained on 18..72 px; smaller is faster)
WHOLE_OVER_FACE = 1.2  # a whole die's box over its top face's side, seen from a camera stand
MAX_UNHINTED_SIDE = 1920  # without a size hint, larger images are read at this long side
CANDIDATE = 0.15  # the finder's centre scores below this are not even looked at
DETECT = 0.5  # a die score (finder and value network together) below this is not a die at all
HEAD_WEIGHT = 0.0  # how much the finder's own value guess counts beside the value network's
FINDER_WEIGHT = 0.4  # the finder's weight in the die score (a geometric mean with the value networks' P(die))
SURE_DIE = 0.6  # ... below this it is a die we are unsure of
# ... unless the value networks' P(die) reaches this: as sure as their label smoothing lets them be (about
# 0.993). The finder's centre score is weak for a die beside a stronger one in a castle (the neighbour's peak
# pulls it down), while its crop, read at full resolution, shows a die plainly.
SURE_CROP = 0.99
SURE_VALUE = 0.7  # the best value's probability needed to report it without doubt
# Two reported boxes sharing this much of the smaller one are one die (the weaker reading dropped); when the
# weaker is a die we are unsure of, the lower share. Dice side by side or in a row on a castle, seen at a
# tilt, share up to about half (their side faces overlap the neighbour's box).
SAME_DIE_OVERLAP = 0.65
SAME_DIE_OVERLAP_UNSURE = 0.5
EDGE_SHARE = 0.6  # a die with less of its box inside the region is cut by the region's edge
# The value networks learnt with label smoothing 0.05 over 7 classes: a network quite sure of a crop gives it
# about 0.957, never 1. Under these it is not sure: below VOTE_BELOW the second network votes too (the first
# decides alone above it), below SECOND_LOOK_BELOW (after the vote) the crop is also read in its four turns.
VOTE_BELOW = 0.94
SECOND_LOOK_BELOW = 0.9
CROP_PX = 40  # the value network's input: one die, centred
CROP_MARGIN = 1.15  # its crop spans this times the die box's longer side

TILE_SIDE_MM = 90.0 / math.sqrt(3.0)  # vision.tags: tiles are 90 mm across flats
DIE_SIDE_MM = 16.0  # vision.tags.DIE_MM
# The finder's view is shrunk by averaging areas below this scale, as its training data was (a 4K table:
# 0.3-0.45); a milder shrink (1080p: 0.6-0.9) is bilinear: 6-9 -> 1 ms, and read alike (bench/vision.py's
# easy and medium tables on seeds 200000..: the same readings). Below it, areas of a whole number of pixels
# are averaged (`whole_shrink`) and the mild rest is bilinear too (`finder_input`).
AREA_BELOW = 0.5
REGION_GROWTH = 1.12  # vision.knights grows tile polygons by 12% before passing them


class DiceInputError(VisionError, ValueError):
    """The image (or region) given to the dice reader is not readable."""


class Nearest(Protocol):
    def nearest(
        self, bgr: Sequence[float], white_bgr: Sequence[float] | None = None
    ) -> tuple[Colour, float]: ...


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die: its box in the image (x0, y0, x1, y1, whole die), top face value, confidence 0..1, measured
    body colour (BGR; None when the caller named the players itself: `read_dice(body_colours=False)`) and the
    nearest calibrated player."""

    box: Box
    value: int
    confidence: float
    unsure: bool
    colour_bgr: tuple[float, float, float] | None
    player: Colour | None = None
    # read from above (`read_from_above`): where the die stands on the table, mm (`box` is then its top
    # face's, `whole` the box it can show in whichever way it is turned), and its top face rectified as the
    # value networks saw it (`topview.FACE_BOX` of it is the face alone)
    where: tuple[float, float] | None = None
    face: Image | None = field(default=None, compare=False, repr=False)
    whole: Box | None = None

    @property
    def extent(self) -> Box:
        """The whole die's box in the image: `whole` when read from above, else `box`."""
        return self.box if self.whole is None else self.whole

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "box": list(self.box),
            "value": self.value,
            "confidence": round(self.confidence, 3),
            "unsure": self.unsure,
            "colour_bgr": None if self.colour_bgr is None else [round(c, 1) for c in self.colour_bgr],
            "player": None if self.player is None else self.player.value,
        }
        if self.where is not None:
            out["where_mm"] = [round(v, 1) for v in self.where]
        return out


def _check_image(image: object) -> Image:
    if not isinstance(image, np.ndarray):
        raise DiceInputError(f"expected a numpy image, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise DiceInputError(f"expected an 8-bit image, got dtype {image.dtype}")
    if image.ndim != 3 or image.shape[2] != 3:
        raise DiceInputError(f"expected a BGR image (HxWx3), got shape {image.shape!r}")
    if min(image.shape[:2]) < 2 * MIN_SIDE_PX:
        raise DiceInputError(f"image of {image.shape[1]}x{image.shape[0]} px is too small to hold a die")
    return image


def _region_mask(shape: tuple[int, ...], region: object) -> npt.NDArray[np.uint8] | None:
    if region is None:
        return None
    try:
        arr = np.asarray(region)
    except (TypeError, ValueError) as exc:
        raise DiceInputError(f"region must be a mask or a polygon, got {type(region).__name__}") from exc
    if arr.ndim == 2 and arr.shape == shape[:2]:
        # non-zero is inside, whatever the value: a byte mask is used as it is (read, never written)
        return np.ascontiguousarray(arr) if arr.dtype == np.uint8 else (arr > 0).astype(np.uint8)
    # a polygon is N x 2 points (or N x 1 x 2, as OpenCV's contours come): any other array, such as a mask of
    # another size, is refused rather than read as a list of points
    polygon = arr.ndim in (2, 3) and arr.shape[-1] == 2 and (arr.ndim == 2 or arr.shape[1] == 1)
    if arr.dtype.kind not in "iuf" or not polygon or len(arr) < 3:
        raise DiceInputError(
            f"region must be a mask of the image's size {shape[:2]!r} or an Nx2 polygon, "
            f"got shape {arr.shape!r}"
        )
    pts = arr.reshape(-1, 2).astype(np.float64)
    if not np.all(np.isfinite(pts)):
        raise DiceInputError("region polygon has non-finite points")
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
    return mask


def estimate_die_px(region: npt.NDArray[np.uint8] | None) -> float | None:
    """A die's expected side from a region made of (grown) tile hexagons: a tile's side is 52 mm, a die 16 mm.
    The region's outline keeps whole tile sides where a tile meets no neighbour (the longer outline edges are
    such sides), and a tile's inner radius is 45 mm; where tiles merge both only grow, so the smaller wins."""
    if region is None or not region.any():
        return None
    mask = (region > 0).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    edges: list[float] = []
    for c in contours:
        perimeter = cv2.arcLength(c, True)
        poly = cv2.approxPolyDP(c, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
        if len(poly) >= 3:
            edges.extend(np.linalg.norm(poly - np.roll(poly, 1, axis=0), axis=1).tolist())
    if not edges:
        return None
    from_outline = float(np.percentile(edges, 75)) * DIE_SIDE_MM / (TILE_SIDE_MM * REGION_GROWTH)
    inner = float(cv2.distanceTransform(mask, cv2.DIST_L2, 5).max())
    return min(from_outline, inner * DIE_SIDE_MM / (45.0 * REGION_GROWTH))


def value_scores(crops: Sequence[Image], nets: Networks | None = None) -> npt.NDArray[np.float32]:
    """The value networks on die crops (`die_crop`), their votes averaged: N x 7 probabilities, not a die then
    values 1..6."""
    if not crops:
        return np.zeros((0, 7), np.float32)
    models = value_models(nets)
    first = _softmax(_value_logits(models[0], crops))
    # The others vote only where the first is not sure: where it is, they agree (tuning photos and synthetic
    # tables), and each network costs as much as the finder on a table's dice.
    ask = [i for i, p in enumerate(first) if float(p.max()) < VOTE_BELOW]
    if ask and len(models) > 1:
        doubtful = [crops[i] for i in ask]
        total = first[ask].copy()
        for path in models[1:]:
            total += _softmax(_value_logits(path, doubtful))
        first[ask] = total / len(models)
    out: npt.NDArray[np.float32] = first.astype(np.float32)
    return out


def _value_logits(path: Path, crops: Sequence[Image]) -> npt.NDArray[np.float64]:
    (logits,) = networks.run(path, np.stack(crops), networks.Job.CROPS)
    return np.asarray(logits, np.float64).reshape(len(crops), 7)


def _softmax(logits: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: npt.NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
    return out


def network_maps(
    image: Image, padded: Image | None = None, nets: Networks | None = None
) -> npt.NDArray[np.float32]:
    """The finder's raw output for a BGR image padded to a multiple of 16: 11 x H/4 x W/4. `padded`: the
    image as the finder takes it (`finder_input`), when the caller made it already."""
    padded = finder_input(image) if padded is None else padded
    (maps,) = networks.run(finder_model(nets), padded, networks.Job.VIEW)
    h, w = image.shape[:2]
    step = networks.SIZE_STEP
    # the rest of a larger padding (`networks.size_step`) is cut off: the same cells in every runtime
    out: npt.NDArray[np.float32] = maps[0][:, : -(-h // step) * step // 4, : -(-w // step) * step // 4]
    return out


def finder_input(image: Image, scale: float = 1.0) -> Image:
    """A BGR image as the finder takes it: resized by `scale`, 1 x H x W x 3, padded (edge pixels repeated) to
    a multiple of `networks.size_step()`. The resized image is `[0, :h, :w]` of it, `(h, w)` =
    `finder_size(image.shape, scale)`.

    Shrinks by more than `AREA_BELOW` average areas, as the finder's training data was shrunk (bilinear alone
    lost white dice at 4K): squares of `whole_shrink(scale)` pixels, when the image's sides are a multiple of
    it (`candidates` makes them so), then the mild rest bilinear; else fractional areas (a 4K table's view,
    in a slow moment: 33 against 5 ms). Milder shrinks and enlargements are bilinear."""
    h, w = finder_size(image.shape, scale)
    step = networks.size_step()
    ph, pw = -h % step, -w % step
    if (h, w) == image.shape[:2]:
        padded = cv2.copyMakeBorder(image, 0, ph, 0, pw, cv2.BORDER_REPLICATE) if ph or pw else image
        return np.asarray(padded, np.uint8)[None]
    # Resized straight into the padded array: at 1080p a copy and an allocation (whose first writes fault
    # every page in) fewer, 1-3 ms.
    out = np.empty((1, h + ph, w + pw, 3), np.uint8)
    view = out[0, :h, :w]
    interpolation = cv2.INTER_AREA if scale < AREA_BELOW else cv2.INTER_LINEAR
    k = whole_shrink(scale)
    if k > 1 and image.shape[0] % k == 0 and image.shape[1] % k == 0:
        # OpenCV's whole-number area shrink: the exact k x k means, in a fraction of a fractional one's time
        size = (image.shape[1] // k, image.shape[0] // k)
        image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
        interpolation = cv2.INTER_LINEAR
    made = cv2.resize(image, (w, h), dst=view, interpolation=interpolation)
    if not np.shares_memory(made, out):  # OpenCV would not write into the array it was given
        view[...] = made
    out[0, h:, :w] = out[0, h - 1, :w]
    out[0, :, w:] = out[0, :, w - 1 : w]
    return out


def die_crop(
    image: Image,
    box: Sequence[float] | npt.NDArray[np.floating[Any]],
    size: int = CROP_PX,
    *,
    angle_deg: float = 0.0,
    zoom: float = 1.0,
) -> Image:
    """A `size` x `size` view of one die for the value network: around its box's centre, `CROP_MARGIN` times
    the box's longer side across (turned by `angle_deg`, `zoom` closer when training jitters it)."""
    cx, cy = (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0
    side = max(box[2] - box[0], box[3] - box[1], 1.0) * CROP_MARGIN / zoom
    m = np.asarray(cv2.getRotationMatrix2D((cx, cy), angle_deg, size / side), np.float64)
    m[:, 2] += np.array([size / 2.0 - cx, size / 2.0 - cy])
    crop = cv2.warpAffine(
        image,
        m,
        (size, size),
        flags=cv2.INTER_AREA if side > size else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(crop, np.uint8)


def looked_at_twice(crops: Sequence[Image], nets: Networks | None = None) -> npt.NDArray[np.float32]:
    """`value_scores`, and for the crops it is not sure of, the average over the crop's four quarter turns:
    a second look where it matters, at a quarter of the price of always looking four times."""
    probs = value_scores(crops, nets)
    doubtful = [i for i, p in enumerate(probs) if float(p.max()) < SECOND_LOOK_BELOW]
    if doubtful:
        turned = [np.ascontiguousarray(np.rot90(crops[i], k)) for i in doubtful for k in (1, 2, 3)]
        more = value_scores(turned, nets).reshape(len(doubtful), 3, -1)
        for row, i in enumerate(doubtful):
            probs[i] = (probs[i] + more[row].sum(axis=0)) / 4.0
    return probs


def _shared(a: Sequence[float], b: Sequence[float]) -> float:
    """The share of the smaller of two boxes that the other covers."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / smaller if smaller > 0 else 0.0


def _sigmoid(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    out: npt.NDArray[np.float32] = (1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))).astype(np.float32)
    return out


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


@dataclass(frozen=True, slots=True)
class _Found:
    box: tuple[float, float, float, float]  # in the network input's pixels
    score: float
    probs: npt.NDArray[np.float32]  # value 1..6


def decode(maps: npt.NDArray[np.float32], detect: float = CANDIDATE) -> list[_Found]:
    """Dice from the network's maps: local maxima of the centre score; a box overlapping a stronger one by
    more than half is dropped."""
    heat = _sigmoid(maps[0])
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > detect)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs])
    ys, xs = ys[order], xs[order]
    # every peak's numbers at once (a table's view has dozens): values, box sizes, centre offsets
    at = maps[:, ys, xs].astype(np.float64)
    e = np.exp(at[1:7] - at[1:7].max(axis=0))
    probs = (e / e.sum(axis=0)).astype(np.float32).T
    sizes = np.exp(np.minimum(8.0, at[7:9]))
    centres = (np.stack([xs, ys]) + _sigmoid(maps[9:11, ys, xs]).astype(np.float64)) * STRIDE
    corners = np.concatenate([centres - sizes / 2, centres + sizes / 2]).T
    overlapping = _ious(corners) > 0.5
    scores = heat[ys, xs].tolist()
    found: list[_Found] = []
    dropped = np.zeros(len(scores), bool)
    for k, (x0, y0, x1, y1) in enumerate(corners.tolist()):
        if dropped[k]:
            continue
        found.append(_Found((x0, y0, x1, y1), scores[k], probs[k]))
        dropped |= overlapping[k]
    return found


def _ious(boxes: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """`iou` of every pair of `boxes` (n x 4), as an n x n matrix."""
    x0, y0, x1, y1 = (boxes[:, i] for i in range(4))
    ix = np.maximum(0.0, np.minimum(x1[:, None], x1[None]) - np.maximum(x0[:, None], x0[None]))
    iy = np.maximum(0.0, np.minimum(y1[:, None], y1[None]) - np.maximum(y0[:, None], y0[None]))
    inter = ix * iy
    area = (x1 - x0) * (y1 - y0)
    union = area[:, None] + area[None] - inter
    out: npt.NDArray[np.float64] = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return out


def _scale_for(shape: tuple[int, ...], die_px: float | None, mask: npt.NDArray[np.uint8] | None) -> float:
    """How much to resize the image so that dice come out about `TARGET_DIE_PX` across."""
    if die_px is not None:
        if not (isinstance(die_px, int | float) and math.isfinite(die_px) and die_px > 0):
            raise DiceInputError(f"die_px must be a positive size in pixels, got {die_px!r}")
        face: float | None = float(die_px)
    else:
        face = estimate_die_px(mask) if mask is not None else None
    if face is not None:
        return min(2.0, max(0.1, TARGET_DIE_PX / (face * WHOLE_OVER_FACE)))
    return min(1.0, MAX_UNHINTED_SIDE / max(shape[:2]))


def whole_shrink(scale: float) -> int:
    """How many pixels a side the squares are that `finder_input` averages first for a shrink by `scale` (1:
    none): the most that leave some shrink to do. The rest, `k * scale`, is then over 1 - `scale`, a mild
    shrink that bilinear does as well."""
    return int(1.0 / scale) if scale < AREA_BELOW else 1


def finder_size(shape: tuple[int, ...], scale: float) -> tuple[int, int]:
    """The (height, width) of an image of `shape` resized by `scale` for the finder (`finder_input`)."""
    if abs(scale - 1.0) <= 0.02:
        return shape[0], shape[1]
    return max(16, round(shape[0] * scale)), max(16, round(shape[1] * scale))


@dataclass(frozen=True, slots=True)
class Candidate:
    """Something the finder thinks may be a die, before the decision: its box in the image, the finder's
    centre score and value guess, the value network's scores (not a die, 1..6), whether the region cuts it."""

    box: Box
    score: float
    head: npt.NDArray[np.float32]
    crop: npt.NDArray[np.float32]
    cut: bool


def candidates(
    image: Image,
    region: object = None,
    *,
    die_px: float | None = None,
    read_values: bool = True,
    least_score: float = CANDIDATE,
    nets: Networks | None = None,
) -> list[Candidate]:
    """Both networks' view of every possible die in `image` (see `read_dice` for the arguments) whose centre
    score reaches `least_score`; without `read_values`, the finder's alone (crop scores left at zero:
    training mines the finder's false alarms). `nets`: `PHOTOS` unless given."""
    img = _check_image(image)
    mask = _region_mask(img.shape, region)
    h, w = img.shape[:2]
    scale = _scale_for(img.shape, die_px, mask)
    ox, oy, ex, ey = 0, 0, w, h
    if mask is not None:
        bx, by, bw, bh = cv2.boundingRect(mask)
        if bw == 0 or bh == 0:
            return []
        pad = int(TARGET_DIE_PX / scale)  # context around the region's edge
        ox, oy = max(0, bx - pad), max(0, by - pad)
        ex, ey = min(w, bx + bw + pad), min(h, by + bh + pad)
    # sides a multiple of the whole-pixel shrink, so that `finder_input` can average whole squares (a few
    # pixels of context fewer)
    k = whole_shrink(scale)
    if min(ex - ox, ey - oy) >= k:
        ex, ey = ox + (ex - ox) // k * k, oy + (ey - oy) // k * k
    vh, vw = finder_size((ey - oy, ex - ox), scale)
    padded = finder_input(img[oy:ey, ox:ex], scale)  # OpenCV reads the region in place
    view = padded[0, :vh, :vw]
    sx, sy = (ex - ox) / view.shape[1], (ey - oy) / view.shape[0]
    kept: list[tuple[_Found, tuple[float, float, float, float]]] = []
    for f in decode(network_maps(view, padded, nets), max(CANDIDATE, least_score)):
        box = (f.box[0] * sx + ox, f.box[1] * sy + oy, f.box[2] * sx + ox, f.box[3] * sy + oy)
        cx, cy = int((box[0] + box[2]) / 2), int((box[1] + box[3]) / 2)
        if not (0 <= cx < w and 0 <= cy < h) or min(box[2] - box[0], box[3] - box[1]) < 2:
            continue
        if mask is None or mask[cy, cx]:
            kept.append((f, box))
    # Found at the finder's scale, read at the image's own: pips need every pixel the camera gives.
    crops = [die_crop(img, box) for _f, box in kept] if read_values else []
    probs = looked_at_twice(crops, nets) if read_values else np.zeros((len(kept), 7), np.float32)
    out: list[Candidate] = []
    for (f, box), p7 in zip(kept, probs, strict=True):
        x0, y0 = max(0, round(box[0])), max(0, round(box[1]))
        x1, y1 = min(w, round(box[2])), min(h, round(box[3]))
        # A die the region's edge cuts in two may belong to the next tile: ask rather than guess.
        cut = False
        if mask is not None and y1 > y0 and x1 > x0:
            cut = int(np.count_nonzero(mask[y0:y1, x0:x1])) < EDGE_SHARE * (y1 - y0) * (x1 - x0)
        out.append(Candidate((x0, y0, x1, y1), f.score, f.probs, p7, cut))
    return out


def read_dice(
    image: Image,
    region: object = None,
    calibration: Nearest | None = None,
    *,
    die_px: float | None = None,
    white_bgr: Sequence[float] | None = None,
    body_colours: bool = True,
) -> list[DieReading]:
    """Every die in `image` (or whose centre lies in `region`: a polygon Nx2 or a mask of the image's size).

    `die_px`: the expected top-face side in pixels when known (else estimated from a tile-shaped region, else
    the image is read as it is). `calibration`: an object with `nearest(bgr, white_bgr) -> (Colour, distance)`
    to name each die's player. `body_colours=False` (no calibration): leave the body colours unmeasured, for a
    caller that looks at the faces' colours itself (`vision.knights`).
    """
    img = _check_image(image)
    judged: list[tuple[float, Candidate, npt.NDArray[np.float64]]] = []
    # The die score is at most the centre score to the finder's weight: below the score that cannot reach
    # DETECT whatever the crop says, candidates are not read at all.
    for c in candidates(img, region, die_px=die_px, least_score=DETECT ** (1.0 / FINDER_WEIGHT)):
        die, values = judge(c.score, c.head, c.crop)
        if die >= DETECT:
            judged.append((die, c, values))
    out: list[DieReading] = []
    kept: list[Box] = []
    for die, c, values in sorted(judged, key=lambda j: -j[0]):
        sure = sure_die(die, c.crop)
        overlap = SAME_DIE_OVERLAP if sure else SAME_DIE_OVERLAP_UNSURE
        if any(_shared(c.box, k) >= overlap for k in kept):
            continue  # a tilted die's top face found apart from the whole die: one die
        kept.append(c.box)
        value = int(np.argmax(values)) + 1
        sure_value = float(values[value - 1])
        bgr = die_body_colour(img, middle_of(c.box)) if body_colours or calibration is not None else None
        player: Colour | None = None
        if calibration is not None and bgr is not None:
            player, _distance = calibration.nearest(bgr, white_bgr)
        out.append(
            DieReading(
                box=c.box,
                value=value,
                confidence=sure_value * (1.0 if sure else die / SURE_DIE),
                unsure=sure_value < SURE_VALUE or not sure or c.cut,
                colour_bgr=bgr,
                player=player,
            )
        )
    return out


# Two of the finder's candidates whose top faces' centres lie closer than this on the table are one die: from
# above, no two top faces overlap, so distinct dice stand at least a side apart.
SAME_DIE_FROM_ABOVE_MM = 0.6 * DIE_SIDE_MM
# Read from above, a candidate whose die score (`judge`) reaches this but not `DETECT` is no die to count,
# but not clearly nothing either: its place is reported as a doubtful die, so that its location asks.
DOUBT = DETECT
# Read from above, a value is stated only when the value networks are as sure of it as they get (where the
# first decides alone, `VOTE_BELOW`); under that it is asked. On the realism renderer's dev scenes (training
# kinds, 0-35 degrees) a value under it was wrong one time in ten (27 of 266 dice; every vote and quarter
# turn, and the `PHOTOS` networks too, agreeing: a lamp's glint taken for a pip, a pip lost in it, a
# neighbour's pip in the crop), over it 3 of 3365. On the synthetic renderer's dev tables 25 of 2464 dice
# were under it, all read right: there it costs questions (bench/vision.py), never a wrong count.
STATE_VALUE = VOTE_BELOW


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The decisions `decide` takes from both networks' scores (see the constants of the same names;
    `sure_value`: `STATE_VALUE`)."""

    detect: float = DETECT
    sure_die: float = SURE_DIE
    sure_value: float = STATE_VALUE
    doubt: float = DOUBT


@dataclass(frozen=True, slots=True)
class Look:
    """The value networks' view of one place on the table seen from above: where (mm), the top face there
    rectified, and their scores of it (not a die, 1..6)."""

    where: tuple[float, float]
    face: Image
    scores: npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Seen:
    """A candidate read from above: the finder's view of it and the value networks' at its place (`look`),
    and, for a candidate that may be a die's side faces (seen towards the camera from its top face), at the
    place its top face would then have (`behind`)."""

    candidate: Candidate
    look: Look
    behind: Look | None = None
    front: Look | None = None  # where its own side faces would show, for one where another's would

    @property
    def where(self) -> tuple[float, float]:
        return self.look.where

    @property
    def face(self) -> Image:
        return self.look.face

    @property
    def scores(self) -> npt.NDArray[np.float32]:
        return self.look.scores


def seen_from_above(
    image: Image, view: topview.TopView, region: npt.NDArray[np.uint8] | None = None,
    least: float = DOUBT ** (1.0 / FINDER_WEIGHT),
) -> list[Seen]:
    """Both networks' view of every possible die in `region` (a 0/1 mask of the view's size) of the table
    seen from above (`vision.topview`) whose centre score reaches `least`: the finder reads the view, the
    value networks each top face rectified from `image` at its own resolution."""
    img = _check_image(image)
    seen = topview.warp(img, view)
    found = candidates(
        seen, region, die_px=view.px_per_mm * DIE_SIDE_MM, read_values=False, least_score=least, nets=ABOVE
    )
    if not found:
        return []
    places = view.to_table([((c.box[0] + c.box[2]) / 2.0, (c.box[1] + c.box[3]) / 2.0) for c in found])
    looks = _recentred(img, view, _looks(img, view, [(float(x), float(y)) for x, y in places.tolist()]))
    # A die's side faces show towards the camera from its top face: where the finder may have put a die on
    # them, the place a side farther from the camera is looked at too.
    doubtful = [k for k, look in enumerate(looks) if 1.0 - float(look.scores[0]) >= LOOK_BEHIND]
    behind_at = []
    for k in doubtful:
        p = looks[k].where
        u = topview.away_from_camera(view, p)
        far = topview.side_behind(view, p)
        behind_at.append((p[0] + far * u[0], p[1] + far * u[1]))
    behind = dict(zip(doubtful, _looks(img, view, behind_at), strict=True))
    # A die found where another's side faces would show, which the value networks are sure of: its own side
    # faces show in front of it if it is a die (`_maybe_side_faces`).
    wheres = [look.where for look in looks]
    sure = [k for k, look in enumerate(looks) if 1.0 - float(look.scores[0]) >= SURE_CROP]
    fronting = [k for k in sure if _at_side_place(wheres[k], wheres, view)]
    front_at = []
    for k in fronting:
        p = wheres[k]
        u = topview.away_from_camera(view, p)
        near = topview.side_behind(view, p)
        front_at.append((p[0] - near * u[0], p[1] - near * u[1]))
    front = dict(zip(fronting, _looks(img, view, front_at), strict=True))
    pairs = enumerate(zip(found, looks, strict=True))
    return [Seen(c, look, behind.get(k), front.get(k)) for k, (c, look) in pairs]


# Looked behind: a candidate whose place the value networks give at least this P(die).
LOOK_BEHIND = 0.3
# A top face the value networks are not sure of is looked at again this far (mm) off its place each way: the
# finder's centre of a die touching a taller-looking neighbour can sit a quarter side off, so the crop cuts
# the pips. The look whose best value is likeliest is kept, when clearly likelier. The four places are
# weighed by the first value network alone, and only the likeliest is looked at as every face is: the
# second looks were half the dice time, and most candidates are tile art. (Every unsure face is looked at
# again, whatever P(die) the networks gave it: a crop that cuts the pips can look like no die at all.) On
# the realism renderer's dev scenes (training kinds, seeds 500000+) this read the same knights, a few more
# right, and the second looks took 60 % of the crops they did.
RECENTRE_MM = 0.25 * DIE_SIDE_MM
RECENTRE_GAIN = 0.05
OFF_CENTRE = ((RECENTRE_MM, 0.0), (-RECENTRE_MM, 0.0), (0.0, RECENTRE_MM), (0.0, -RECENTRE_MM))


def _recentred(image: Image, view: topview.TopView, looks: list[Look]) -> list[Look]:
    unsure = [k for k, look in enumerate(looks) if float(look.scores[1:].max()) < SURE_VALUE]
    if not unsure:
        return looks
    places, faces, first = _off_centre(image, view, [looks[k].where for k in unsure])
    best = first[:, 1:].max(axis=1).reshape(len(unsure), -1)
    picks = [n * len(OFF_CENTRE) + int(np.argmax(row)) for n, row in enumerate(best)]
    chosen = _judged([places[i] for i in picks], [faces[i] for i in picks])
    out = list(looks)
    for k, best in zip(unsure, chosen, strict=True):
        if float(best.scores[1:].max()) >= float(looks[k].scores[1:].max()) + RECENTRE_GAIN:
            out[k] = best
    return out


def _off_centre(
    image: Image, view: topview.TopView, centres: Sequence[tuple[float, float]]
) -> tuple[list[tuple[float, float]], list[Image], npt.NDArray[np.float64]]:
    """Each of `centres` (mm) looked at `OFF_CENTRE` off, in turn: the places, their top faces rectified, and
    the first value network's probabilities of each (not a die, 1..6): a cheap look before a full one."""
    places = [(x + dx, y + dy) for x, y in centres for dx, dy in OFF_CENTRE]
    faces = topview.face_crops(image, view, places, CROP_PX)
    return places, faces, _softmax(_value_logits(value_models(ABOVE)[0], faces))


def _looks(image: Image, view: topview.TopView, places: Sequence[tuple[float, float]]) -> list[Look]:
    if not places:
        return []
    return _judged(places, topview.face_crops(image, view, places, CROP_PX))


def _judged(places: Sequence[tuple[float, float]], faces: Sequence[Image]) -> list[Look]:
    """The value networks' look at top faces already cut (`topview.face_crops`) at `places`."""
    probs = looked_at_twice(faces, ABOVE)
    return [Look(p, f, scores) for p, f, scores in zip(places, faces, probs, strict=True)]


def decide(
    seen: Sequence[Seen], view: topview.TopView, limits: Thresholds = Thresholds()
) -> list[DieReading]:
    """The dice among `seen`, strongest first, one reading per die: a die score under `limits.doubt` is
    nothing; under `limits.detect`, a doubtful die of no value; a die the networks are not sure of, or whose
    value they are not sure of, or that the region's edge cuts, is unsure. Each reading has its place on the
    table (`where`, mm) and, as its `box`, its top face's box in the frame."""
    judged = []
    for s in _top_faces(seen, limits):
        die, values = judge(s.candidate.score, s.candidate.head, s.scores)
        if die >= limits.doubt:
            judged.append((die, s, values))
    out: list[DieReading] = []
    kept: list[tuple[float, float]] = []
    w, h = view.image_size
    for die, s, values in sorted(judged, key=lambda j: -j[0]):
        if any(math.dist(s.where, k) < SAME_DIE_FROM_ABOVE_MM for k in kept):
            continue
        kept.append(s.where)
        sure = (
            die >= limits.detect
            and sure_die(die, s.scores, limits.sure_die)
            and not _maybe_side_faces(s, [j[1].where for j in judged if j[1] is not s], view)
        )
        value = int(np.argmax(values)) + 1
        sure_value = float(values[value - 1])
        out.append(
            DieReading(
                box=_bounds(topview.face_outline(view, s.where), w, h),
                value=value,
                confidence=sure_value * (1.0 if sure else die / limits.sure_die),
                unsure=sure_value < limits.sure_value or not sure or s.candidate.cut,
                colour_bgr=None,
                where=s.where,
                face=s.face,
                whole=_bounds(topview.die_extent(view, s.where), w, h),
            )
        )
    return out


def _bounds(points: npt.NDArray[np.float64], w: int, h: int) -> Box:
    """The box (x0, y0, x1, y1) of `points` in a `w` x `h` image, at least a pixel each way."""
    x0 = max(0, math.floor(float(points[:, 0].min())))
    y0 = max(0, math.floor(float(points[:, 1].min())))
    x1 = min(w, math.ceil(float(points[:, 0].max())))
    y1 = min(h, math.ceil(float(points[:, 1].max())))
    return (x0, y0, max(x0 + 1, x1), max(y0 + 1, y1))


# A die found where another die's side faces would show (`_maybe_side_faces`): how far from there, as a
# share of a side, and how far off the direction away from the camera (degrees).
SIDE_PLACE_SHARE = 0.25
SIDE_PLACE_DEG = 30.0


# A die where another's side faces would show, the value networks as sure of it as they get, is a die when
# they give the place its own side faces would show (`Seen.front`) at least this P(die). On the realism
# renderer's dev scenes at 35-50 degrees (training kinds), 0.5 and 0.8 both turned four of five dice counted
# twice into questions (silently wrong 1.23 -> 0.78 and 0.67 %, knights right 67.9 -> 65.8 %); at 0-35
# degrees neither changed silently wrong, and knights right fell 0.2-0.7 points.
FRONT_DIE = 0.8


def _maybe_side_faces(s: Seen, others: Sequence[tuple[float, float]], view: topview.TopView) -> bool:
    """Whether `s` stands where the side faces of another die found behind it (away from the camera) would
    show, and is not shown a die: it may be that die's sides read as a die of their own, so it is doubted (a
    die touching another in front of it, seen steeply, is asked too). Shown a die: the value networks as sure
    of it as they get, and of the place in front of it, where its own side faces show (a steep camera sees a
    side face about as large as a top face, pips and all: sure alone, it was counted twice)."""
    if not _at_side_place(s.where, others, view):
        return False
    if 1.0 - float(s.scores[0]) < SURE_CROP:
        return True
    return s.front is not None and 1.0 - float(s.front.scores[0]) < FRONT_DIE


def _at_side_place(
    p: tuple[float, float], others: Sequence[tuple[float, float]], view: topview.TopView
) -> bool:
    """Whether `p` (mm) lies where the side faces of a die at one of `others`, behind it, would show."""
    u = topview.away_from_camera(view, p)
    far = topview.side_behind(view, p)
    cos_limit = math.cos(math.radians(SIDE_PLACE_DEG))
    for w in others:
        dx, dy = w[0] - p[0], w[1] - p[1]
        d = math.hypot(dx, dy)
        behind = d > 0 and (dx * u[0] + dy * u[1]) / d > cos_limit
        if behind and abs(d - far) < SIDE_PLACE_SHARE * DIE_SIDE_MM:
            return True
    return False


def _top_faces(seen: Sequence[Seen], limits: Thresholds) -> list[Seen]:
    """Each candidate at its top face: one found on a die's side faces is moved to the place behind it, away
    from the camera, when that place holds a die the value networks are sure of and no candidate that is a
    die in its own right (a die standing behind another, touching it, keeps both)."""
    strong = [
        s.where for s in seen if judge(s.candidate.score, s.candidate.head, s.scores)[0] >= limits.doubt
    ]
    out = []
    for s in seen:
        b = s.behind
        moved = (
            b is not None
            and 1.0 - float(b.scores[0]) >= SURE_CROP
            and float(b.scores[1:].max()) >= SURE_VALUE
            and float(b.scores[0]) <= float(s.scores[0]) + 0.005
            and not any(w != s.where and math.dist(w, b.where) < 0.5 * DIE_SIDE_MM for w in strong)
        )
        out.append(Seen(s.candidate, b) if moved and b is not None else s)
    return out


def read_from_above(
    image: Image, view: topview.TopView, region: npt.NDArray[np.uint8] | None = None
) -> list[DieReading]:
    """Every die whose top face's centre lies in `region` (a 0/1 mask of the view's size) of the table seen
    from above (`vision.topview`): `seen_from_above`, then `decide`, then `lone_pips_checked`. Body colours
    are left to the caller (`vision.knights`)."""
    return lone_pips_checked(image, view, decide(seen_from_above(image, view, region), view))


# Box setup asks for one die on each castle; a die of a kind the networks never met can score under `DOUBT`
# there (on its own colour's print), so the reader reports none. Where one is known to stand, the strongest
# candidate with at least this die score is taken as it (`read_expected`). On the realism renderer's dev
# scenes (training kinds, seeds 500000+, 0-50 degrees), of 297 castles in frames of the bare map none had a
# candidate over 0.23, and of 284 castles in set-up frames with their die in view every one had the die at
# 0.39 or more: 3 of them under `DOUBT`, reported as no die before.
EXPECTED_DIE = 0.3


def read_expected(
    image: Image, view: topview.TopView, region: npt.NDArray[np.uint8] | None = None
) -> list[DieReading]:
    """The die known to stand in `region` of the table seen from above, when `read_from_above` reports none
    there: the strongest candidate whose die score reaches `EXPECTED_DIE`, unsure (nothing under `DOUBT` is
    a die unprompted). One reading, or none when no candidate reaches it."""
    seen = seen_from_above(image, view, region, least=CANDIDATE)
    found = decide(seen, view, dataclasses.replace(Thresholds(), doubt=EXPECTED_DIE))
    return [dataclasses.replace(d, unsure=True) for d in found[:1]]


# A die read as 1 may be a 2 whose second pip its crop cut off: the finder's centre of a die touching another
# can sit a quarter side off, towards the pip left in the crop, which then sits near the crop's middle as a
# 1's pip does. Such a die is looked at a quarter side off each way (`RECENTRE_MM`), and asked when a look
# shows more pips with at least this probability: moving the crop cannot add pips of the die itself. On the
# realism renderer's dev scenes (training kinds, seeds 500000+, 0-50 degrees) every value stated wrong (3 of
# 4958) was a 2 read as 1 this way; this asked all three, and 2 of the 4955 stated right (a neighbour's pip
# in the look off its side). Only 1s are looked at again, and each look is read in full (both networks, turns)
# only when the first network alone gives it more pips with `LONE_PIP_SCREEN` or more: on those scenes 50 of
# 2640 looks, and every look the full reading gave more pips was among them.
LONE_PIP_MORE = 0.5
LONE_PIP_SCREEN = 0.3


def lone_pips_checked(image: Image, view: topview.TopView, dice: list[DieReading]) -> list[DieReading]:
    """`dice` with each stated 1 made unsure when a look a quarter side off shows more pips
    (`LONE_PIP_MORE`)."""
    ones = [k for k, d in enumerate(dice) if d.value == 1 and not d.unsure and d.where is not None]
    if not ones:
        return dice
    centres = [w for k in ones if (w := dice[k].where) is not None]
    places, faces, first = _off_centre(_check_image(image), view, centres)
    keen = [i for i, v in enumerate(first[:, 1:]) if _more_pips(v, LONE_PIP_SCREEN)]
    seen = _judged([places[i] for i in keen], [faces[i] for i in keen])
    n = len(OFF_CENTRE)
    more = {ones[i // n] for i, look in zip(keen, seen, strict=True) if _more_pips(look.scores[1:])}
    return [dataclasses.replace(d, unsure=True) if k in more else d for k, d in enumerate(dice)]


def _more_pips(values: npt.NDArray[Any], least: float = LONE_PIP_MORE) -> bool:
    """Whether the values' likeliest (1..6 in order) is more than 1, with probability `least` or more."""
    return int(np.argmax(values)) > 0 and float(values.max()) >= least


def judge(
    score: float,
    head: npt.NDArray[np.float32],
    crop: npt.NDArray[np.float32],
    head_weight: float = HEAD_WEIGHT,
    finder_weight: float = FINDER_WEIGHT,
) -> tuple[float, npt.NDArray[np.float64]]:
    """(how sure it is a die 0..1, the six values' probabilities) from the finder's centre score and value
    head and the value network's view of the crop (not a die, values 1..6): the die score is a weighted
    geometric mean of the finder's centre score and the value networks' P(die)."""
    p_die = max(0.0, 1.0 - float(crop[0]))
    die = max(0.0, score) ** finder_weight * p_die ** (1.0 - finder_weight)
    values = np.asarray(crop[1:], np.float64) * np.asarray(head, np.float64) ** head_weight
    return die, values / max(float(values.sum()), 1e-12)


def sure_die(die: float, crop: npt.NDArray[np.float32], sure: float = SURE_DIE) -> bool:
    """Whether a candidate of die score `die` (`judge`) whose crop the value networks scored `crop` (not a
    die, 1..6) is a die we are sure of: its die score reaches `sure`, or the networks are as sure of the crop
    as they get (`SURE_CROP`)."""
    return die >= sure or 1.0 - float(crop[0]) >= SURE_CROP


def draw_dice(image: Image, dice: Sequence[DieReading]) -> Image:
    """A copy of `image` with each die's box and value drawn (orange and '?' when unsure)."""
    shown = image.copy()
    for d in dice:
        colour = (0, 165, 255) if d.unsure else (0, 200, 0)
        cv2.rectangle(shown, d.box[:2], d.box[2:], colour, 2)
        cv2.putText(
            shown,
            str(d.value) + ("?" if d.unsure else ""),
            (d.box[0], max(12, d.box[1] - 3)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            colour,
            2,
            cv2.LINE_AA,
        )
    return shown


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(2)


def dice_main(argv: Sequence[str]) -> int:
    """`seneschal vision dice IMAGE [--show OUT.png]`: the dice in one image as JSON."""
    prog = "seneschal vision dice"
    parser = _OneLineParser(prog=prog, description=dice_main.__doc__)
    parser.add_argument("image")
    parser.add_argument("--show", metavar="OUT.png", help="write the image with the dice drawn on it")
    parser.add_argument("--die-px", type=float, default=None, help="expected die face side in pixels")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return 2 if exc.code else 0
    path = Path(args.image)
    raw = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
    if raw is None:
        print(f"{prog}: cannot read an image from {args.image!r}", file=sys.stderr)
        return 2
    image = np.asarray(raw, np.uint8)
    side = min(image.shape[:2])
    if args.die_px is not None and not (math.isfinite(args.die_px) and 4 <= args.die_px <= side):
        print(f"{prog}: --die-px must be from 4 to {side} (the image's shorter side), got {args.die_px:g}",
              file=sys.stderr)
        return 2
    try:
        dice = read_dice(image, die_px=args.die_px)
    except DiceInputError as exc:
        print(f"seneschal vision dice: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"image": str(path), "dice": [d.to_json() for d in dice]}))
    if args.show and not cv2.imwrite(args.show, draw_dice(image, dice)):
        print(f"seneschal vision dice: cannot write {args.show!r}", file=sys.stderr)
        return 2
    return 0

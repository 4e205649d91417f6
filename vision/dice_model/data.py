"""Training data for the dice network: labelled real photographs, seeded synthetic tables, augmentation and
the network's targets. NumPy and OpenCV only, so it is tested (and the split is shared) without PyTorch.

Boxes are whole dice (x0, y0, x1, y1), as the real photographs are labelled; values 1..6. `ignore` boxes (a
die mostly under a hand in a synthetic frame) are neither positives nor negatives.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.dice import die_crop, iou

Image = npt.NDArray[np.uint8]
Boxes = npt.NDArray[np.float32]  # Nx4

STRIDE = 4  # the network's output is a quarter of its input
CHANNELS = 11  # heat, value 1..6 logits, log width, log height, offset x, offset y
SPLIT_SEED = 7
HELD_OUT = 0.3
SYNTH_SEED_BASE = 100_000  # far from the seeds benchmarks (1000+) and tests (< 100) render
REAL_DICE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real-dice" / "photos"


class DatasetError(ValueError):
    """A labelled photo or its label file cannot be used."""


@dataclass(frozen=True, slots=True)
class Sample:
    image: Image
    boxes: Boxes
    values: npt.NDArray[np.int64]  # 1..6 per box
    ignore: Boxes
    hard: Boxes = field(default_factory=lambda: np.zeros((0, 4), np.float32))  # the finder's false alarms

    def __post_init__(self) -> None:
        if len(self.boxes) != len(self.values):
            raise DatasetError(f"{len(self.boxes)} boxes but {len(self.values)} values")


def split(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """(tuning, held out): names sorted, shuffled with seed 7, the last 30% held out. Training and every
    threshold use the tuning part only; `bench/dice_real.py` reports both."""
    order = sorted(names)
    np.random.default_rng(SPLIT_SEED).shuffle(order)
    cut = len(order) - round(len(order) * HELD_OUT)
    return order[:cut], order[cut:]


def match(found: Sequence[Sequence[float]], truth: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Readings to labelled dice, one to one, IoU >= 0.5, best pairs first: (reading index, label index)."""
    pairs = sorted(
        ((iou(f, t), i, j) for i, f in enumerate(found) for j, t in enumerate(truth)), reverse=True
    )
    used_f: set[int] = set()
    used_t: set[int] = set()
    out = []
    for v, i, j in pairs:
        if v < 0.5:
            break
        if i in used_f or j in used_t:
            continue
        used_f.add(i)
        used_t.add(j)
        out.append((i, j))
    return out


def labelled_photos(folder: Path = REAL_DICE) -> dict[str, Path]:
    """Photo name -> path for every JPEG with a label file beside it."""
    return {p.name: p for p in sorted(Path(folder).glob("*.jpg")) if p.with_suffix(".json").is_file()}


def load_label(path: Path) -> tuple[Boxes, npt.NDArray[np.int64]]:
    """The boxes and values of a photo's label file (see ../shared/data/README.md)."""
    try:
        label = json.loads(Path(path).read_text())
        dice = label["dice"]
        boxes = np.array([[float(v) for v in d["box"]] for d in dice], np.float32).reshape(-1, 4)
        values = np.array([int(d["value"]) for d in dice], np.int64)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"cannot read dice labels from {str(path)!r}: {exc}") from exc
    if len(values) and (values.min() < 1 or values.max() > 6):
        raise DatasetError(f"{str(path)!r}: a die value outside 1..6 in {values.tolist()!r}")
    if len(boxes) and np.any(boxes[:, 2:] <= boxes[:, :2]):
        raise DatasetError(f"{str(path)!r}: a box with no area")
    return boxes, values


def real_samples(
    names: Sequence[str], folder: Path = REAL_DICE, hidden: Mapping[str, AbstractSet[int]] | None = None
) -> list[Sample]:
    """The labelled photos `names`; a die `hidden` names (photo name -> label indices) is ignored, neither
    a die nor background to the networks (a held-out kind's die, `faces.held_out_dice`)."""
    photos = labelled_photos(folder)
    out = []
    for name in names:
        path = photos[name]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise DatasetError(f"cannot decode {str(path)!r}")
        boxes, values = load_label(path.with_suffix(".json"))
        hide = np.zeros(len(values), bool)
        for i in (hidden or {}).get(name, ()):
            if not 0 <= i < len(values):
                raise DatasetError(f"{name!r} has {len(values)} dice: no die {i} to hide")
            hide[i] = True
        out.append(Sample(np.asarray(image, np.uint8), boxes[~hide], values[~hide], boxes[hide]))
    return out


def synthetic_samples(count: int, seed: int = SYNTH_SEED_BASE) -> Iterator[Sample]:
    """`count` random tables (`vision.synth`), difficulties in turn, every other one at 4K (seen shrunk, a 4K
    frame is sharper and less noisy than a 1080p one: white dice beside white stickers were missed there);
    dice mostly under a hand are ignored, not taught either way."""
    from vision.synth import RES_4K, RES_1080P, Difficulty, random_spec, render_scene

    kinds = list(Difficulty)
    for i in range(count):
        s = seed + i
        size = RES_4K if (i // len(kinds)) % 2 else RES_1080P
        image, truth = render_scene(random_spec(kinds[i % len(kinds)], s, resolution=size), s)
        keep = [d for d in truth.dice if not d.hidden]
        hidden = [d for d in truth.dice if d.hidden]
        yield Sample(
            image,
            np.array([d.box for d in keep], np.float32).reshape(-1, 4),
            np.array([d.value for d in keep], np.int64),
            np.array([d.box for d in hidden], np.float32).reshape(-1, 4),
        )


def synthetic_closeups(count: int, seed: int = SYNTH_SEED_BASE + 20_000) -> Iterator[Sample]:
    """`count` close-ups (`vision.synth.render_die`): one die of a random player colour, value, size and tilt,
    often with neighbours in a row (touching or not), sometimes glare or warm/cool light."""
    from engine.colours import Colour
    from vision.synth import render_die

    colours = list(Colour)
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        pick = [(int(rng.integers(1, 7)), colours[int(rng.integers(0, len(colours)))]) for _ in range(4)]
        image, truth = render_die(
            pick[0][0],
            pick[0][1],
            seed=seed + i,
            size_px=float(rng.uniform(20, 56)),
            tilt_deg=float(rng.uniform(0, 30)),
            neighbours=pick[1 : 1 + int(rng.integers(0, 4))],
            touching=bool(rng.random() < 0.6),
            glare=bool(rng.random() < 0.25),
            temperature=float(rng.uniform(-1, 1)),
        )
        boxes = np.array([d.box for d in truth], np.float32).reshape(-1, 4)
        yield Sample(image, boxes, np.array([d.value for d in truth], np.int64), np.zeros((0, 4), np.float32))


DIE_RANGE = (18.0, 72.0)  # px: the sizes dice are rescaled to for the finder (`augment`)


@dataclass(frozen=True, slots=True)
class Part:
    """Training samples drawn with `weight`, rescaled so their dice span `die_range` px."""

    weight: float
    samples: tuple[Sample, ...]
    die_range: tuple[float, float] = DIE_RANGE


@dataclass(frozen=True, slots=True)
class Mixture:
    """Training samples in parts (real photos, tables, close-ups, views from above), each drawn with its
    weight."""

    parts: tuple[Part, ...]

    def pick_part(self, rng: np.random.Generator) -> tuple[Sample, tuple[float, float]]:
        """A sample, and the sizes its part's dice are to be rescaled to."""
        parts = [p for p in self.parts if p.samples]
        weights = np.array([p.weight for p in parts], np.float64)
        chosen = parts[int(rng.choice(len(parts), p=weights / weights.sum()))]
        return chosen.samples[int(rng.integers(0, len(chosen.samples)))], chosen.die_range

    def pick(self, rng: np.random.Generator) -> Sample:
        return self.pick_part(rng)[0]


# --- augmentation -------------------------------------------------------------------------------------------


def _scaled(sample: Sample, scale: float) -> Sample:
    h, w = sample.image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    image = cv2.resize(sample.image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    return Sample(np.asarray(image, np.uint8), sample.boxes * scale, sample.values, sample.ignore * scale)


def _crop(sample: Sample, x0: int, y0: int, size: int) -> Sample:
    """A size x size window (padded with the image's mean colour); dice under 60% inside become ignored."""
    h, w = sample.image.shape[:2]
    fill = sample.image[::16, ::16].reshape(-1, 3).mean(axis=0)
    out = np.empty((size, size, 3), np.uint8)
    out[:] = fill.astype(np.uint8)
    sx0, sy0, sx1, sy1 = max(0, x0), max(0, y0), min(w, x0 + size), min(h, y0 + size)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = sample.image[sy0:sy1, sx0:sx1]
    shift = np.array([x0, y0, x0, y0], np.float32)
    boxes = sample.boxes - shift
    clipped = np.clip(boxes, 0, size)
    area = np.prod(boxes[:, 2:] - boxes[:, :2], axis=1)
    inside = np.prod(np.maximum(clipped[:, 2:] - clipped[:, :2], 0), axis=1) / np.maximum(area, 1e-6)
    keep = inside >= 0.6
    partial = (inside > 0) & ~keep
    ignore = np.concatenate([sample.ignore - shift, boxes[partial]]).astype(np.float32)
    return Sample(out, boxes[keep], sample.values[keep], ignore)


def _flip_rotate(sample: Sample, k: int, flip: bool) -> Sample:
    """Quarter turns and a mirror: a die's face value survives both."""
    image = sample.image
    size = image.shape[0]

    def move(b: Boxes) -> Boxes:
        b = b.copy()
        if flip:
            b[:, [0, 2]] = size - b[:, [2, 0]]
        for _ in range(k):  # np.rot90 turns counter-clockwise: (x, y) -> (y, size - x)
            b = np.stack([b[:, 1], size - b[:, 2], b[:, 3], size - b[:, 0]], axis=1)
        return b.astype(np.float32)

    if flip:
        image = image[:, ::-1]
    image = np.ascontiguousarray(np.rot90(image, k))
    return Sample(image, move(sample.boxes), sample.values, move(sample.ignore))


def photometric(image: Image, rng: np.random.Generator) -> Image:
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.int16)
    if rng.random() < 0.7:  # dice come in every colour: turn the hue wheel
        hsv[..., 0] = (hsv[..., 0] + int(rng.integers(0, 180))) % 180
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.6, 1.4), 0, 255)
    out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    out *= rng.uniform(0.85, 1.15, size=3)  # warm and cool light
    out = (out - 128.0) * rng.uniform(0.7, 1.3) + 128.0 + rng.uniform(-35, 35)
    if rng.random() < 0.3:
        gamma = rng.uniform(0.7, 1.4)
        out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** gamma
    if rng.random() < 0.3:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.2)), np.float32)
    if rng.random() < 0.5:
        out += rng.standard_normal(out.shape, np.float32) * np.float32(rng.uniform(1, 6))
    result = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", result, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])
        if ok:
            result = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return result


def augment(
    sample: Sample, rng: np.random.Generator, size: int = 256, die_range: tuple[float, float] = DIE_RANGE
) -> Sample:
    """A random size x size training crop: rescaled so dice span `die_range` px, cropped (mostly around dice),
    turned, mirrored and recoloured."""
    if len(sample.boxes):
        side = float(np.median(np.mean(sample.boxes[:, 2:] - sample.boxes[:, :2], axis=1)))
        scale = math.exp(rng.uniform(math.log(die_range[0]), math.log(die_range[1]))) / max(side, 1.0)
    else:
        scale = rng.uniform(0.5, 1.5)
    # Crop the source window first, then scale it: cheap even on a 4K frame.
    src = math.ceil(size / scale) + 2
    h, w = sample.image.shape[:2]
    if len(sample.boxes) and rng.random() < 0.8:
        b = sample.boxes[int(rng.integers(0, len(sample.boxes)))]
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        x0 = int(cx - rng.uniform(0.15, 0.85) * src)
        y0 = int(cy - rng.uniform(0.15, 0.85) * src)
    else:
        x0 = int(rng.integers(min(0, w - src), max(1, w - src + 1)))
        y0 = int(rng.integers(min(0, h - src), max(1, h - src + 1)))
    window = _crop(sample, x0, y0, src)
    c = _crop(_scaled(window, size / src), 0, 0, size)
    c = _flip_rotate(c, int(rng.integers(0, 4)), bool(rng.random() < 0.5))
    return Sample(photometric(c.image, rng), c.boxes, c.values, c.ignore)


# --- targets ------------------------------------------------------------------------------------------------


def gaussian_sigma(w: float, h: float) -> float:
    """Spread of a die's centre peak on the output grid: a sixth of its smaller side, at least 0.7 cells."""
    return max(0.7, min(w, h) / STRIDE / 6.0)


def targets(sample: Sample, out_hw: tuple[int, int]) -> dict[str, npt.NDArray[np.float32]]:
    """What the network should output on an (out_h, out_w) grid: `heat` (1, H, W) peaks at die centres,
    `weight` (1, H, W) 0 over ignored dice; and per centre cell `index` (flat cell), `value` 0..5, `size`
    (log w, log h in input px), `offset` (sub-cell centre)."""
    oh, ow = out_hw
    heat = np.zeros((oh, ow), np.float32)
    weight = np.ones((oh, ow), np.float32)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float32)
    for b in sample.ignore:
        x0, y0, x1, y1 = (b / STRIDE).tolist()
        weight[max(0, int(y0)) : max(0, math.ceil(y1)), max(0, int(x0)) : max(0, math.ceil(x1))] = 0.0
    index, value, size, offset = [], [], [], []
    for b, v in zip(sample.boxes, sample.values, strict=True):
        w, h = float(b[2] - b[0]), float(b[3] - b[1])
        cx, cy = (b[0] + b[2]) / 2 / STRIDE, (b[1] + b[3]) / 2 / STRIDE
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < ow and 0 <= iy < oh):
            continue
        sigma = gaussian_sigma(w, h)
        g = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma * sigma))
        np.maximum(heat, g, out=heat)
        index.append(iy * ow + ix)
        value.append(int(v) - 1)
        size.append((math.log(max(w, 1.0)), math.log(max(h, 1.0))))
        offset.append((cx - ix, cy - iy))
    weight[heat > 0.5] = 1.0  # an ignored die never hides a taught one
    return {
        "heat": heat[None],
        "weight": weight[None],
        "index": np.array(index, np.float32),
        "value": np.array(value, np.float32),
        "size": np.array(size, np.float32).reshape(-1, 2),
        "offset": np.array(offset, np.float32).reshape(-1, 2),
    }


# --- the value network's crops ------------------------------------------------------------------------------

NOT_A_DIE = 0  # the value network's class for a crop that holds no die (classes 1..6 are the values)


def _overlaps(box: npt.NDArray[np.float64], others: Boxes, limit: float) -> bool:
    return any(iou(box.tolist(), o.tolist()) > limit for o in others)


def with_hard_negatives(sample: Sample, found: Sequence[Sequence[float]]) -> Sample:
    """`sample` plus, as hard negatives, the boxes in `found` (the finder's candidates) that lie on no
    labelled or ignored die: what the value network most needs to learn to turn down."""
    known = np.concatenate([sample.boxes, sample.ignore]).reshape(-1, 4)
    hard = []
    for b in found:
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        on_die = any(k[0] <= cx <= k[2] and k[1] <= cy <= k[3] for k in known)
        if not on_die and not _overlaps(np.asarray(b, np.float64), known, 0.2):
            hard.append([float(v) for v in b])
    return replace(sample, hard=np.array(hard, np.float32).reshape(-1, 4))


def value_crops(
    sample: Sample, rng: np.random.Generator, negatives: float = 0.5
) -> tuple[list[Image], list[int]]:
    """One jittered crop per die (class = its value), plus about `negatives` crops per die of things that are
    not a die (class `NOT_A_DIE`): die-sized views of the background, views half a die off a real one, and
    half of the sample's hard negatives (the finder's false alarms)."""
    crops: list[Image] = []
    labels: list[int] = []
    h, w = sample.image.shape[:2]
    sides = np.mean(sample.boxes[:, 2:] - sample.boxes[:, :2], axis=1) if len(sample.boxes) else [40.0]
    for b, v in zip(sample.boxes, sample.values, strict=True):
        side = float(np.mean(b[2:] - b[:2]))
        shift = rng.normal(0.0, 0.05 * side, 2)
        box = b + np.array([shift[0], shift[1], shift[0], shift[1]], np.float32)
        zoom = math.exp(rng.normal(0.0, 0.08))
        crops.append(die_crop(sample.image, box, angle_deg=float(rng.uniform(0, 360)), zoom=zoom))
        labels.append(int(v))
    avoid = np.concatenate([sample.boxes, sample.ignore]).reshape(-1, 4)
    for _ in range(int(negatives * max(1, len(sample.boxes)) + rng.random())):
        side = float(sides[int(rng.integers(0, len(sides)))]) * math.exp(rng.normal(0.0, 0.15))
        if len(sample.boxes) and rng.random() < 0.4:  # beside a die: its side faces, a neighbour's edge
            b = sample.boxes[int(rng.integers(0, len(sample.boxes)))]
            a = rng.uniform(0, 2 * math.pi)
            cx = (b[0] + b[2]) / 2 + math.cos(a) * side * rng.uniform(0.55, 0.9)
            cy = (b[1] + b[3]) / 2 + math.sin(a) * side * rng.uniform(0.55, 0.9)
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        box = np.array([cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2])
        if _overlaps(box, avoid, 0.3):
            continue
        crops.append(die_crop(sample.image, box, angle_deg=float(rng.uniform(0, 360))))
        labels.append(NOT_A_DIE)
    for b in sample.hard:
        if rng.random() < 0.5:
            side = float(np.mean(b[2:] - b[:2]))
            shift = rng.normal(0.0, 0.05 * side, 2)
            box = b + np.array([shift[0], shift[1], shift[0], shift[1]], np.float32)
            crops.append(die_crop(sample.image, box, angle_deg=float(rng.uniform(0, 360))))
            labels.append(NOT_A_DIE)
    out = []
    for c in crops:
        mirrored = np.ascontiguousarray(c[:, ::-1]) if rng.random() < 0.5 else c
        out.append(photometric(mirrored, rng))
    return out, labels

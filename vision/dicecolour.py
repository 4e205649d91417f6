"""A die's top face in colours: sampled on a grid, fitted with a player's die model at calibration, scored
against every player's model at play.

A player's dice are one physical kind: a body of one colour or several (swirled, marbled) and pips of one
colour, which may be another player's colour (a green die with yellow pips). A `DieModel` is the colours of
its measured faces, white-balanced Lab, each with the share of the faces it covered and whether it is the
pips' (for what the players are shown). A face is scored against a model in three parts:

1. the face's light against the model's: each pixel's nearest colour of the model by the shade-tolerant
   `lab_distance`, then the face's pixels' luminance over their colours' (a die in a lamp's fall-off, a
   translucent die over a dark tile, a face turned from the light). Light within `LIGHT_FREE` times either
   way is free; beyond it costs `LIGHT_COST` per unit of log.
2. the fit: the model's colours lit so (linear RGB scaled), every pixel's distance to the nearest (plain Lab,
   lightness weighed as `l_weight` says), capped at `CAP`, root mean square. A colour that is not the
   model's main one may explain at most its measured share plus `SHARE_SLACK`, and never more than
   `MAX_MINOR` of the face; each unit beyond costs `EXCESS_PENALTY`: a yellow die is not the green die with
   yellow pips, an ivory die with black pips not the black die with white pips.
3. which way round body and pips are: a face split in two by lightness must hold enough of itself on the
   side the model's body was measured on (`DieModel.dark`, `DARK_SPLIT`, `POLAR_COST`): a black die with
   white pips and a white die with black pips have the same two colours, but the body is most of a face.

`vision.calibration.ColourCalibration.name_faces` names a face only when one model scores within its
threshold and clearly better than the runner-up.

Sampling is a fixed grid of `GRID` x `GRID` pixels over the middle of each die's box (`FACE_MARGIN` off each
side: the top face from any stand, without the sides and the table), read for all of a table's dice at
once: one Lab conversion and a few arrays of (colours x dice x pixels).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.errors import CalibrationError
from vision.lab import SHADE_RANGE, WHITE_TARGET, Lab, balance, bgr_to_lab, clip, l_weight, lab_to_bgr

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]

GRID = 12
FACE_MARGIN = 0.25
# A pixel whose every channel is at or above this is glare (clipped white): it says nothing of the die's
# colour. One channel clipped is a colour in strong light (a white die under a warm lamp), kept.
CLIPPED = 250
MAX_COLOURS = 4
# Version 1 calibrations knew a body colour alone: white and black pips are assumed, each this share.
NEUTRAL_PIPS: tuple[Lab, ...] = ((92.4, 0.0, 0.0), (10.0, 0.0, 0.0))
PLAIN_PIP_SHARE = 0.15
# Scoring (the module docstring). Chosen on the real photographs' tuning split: docs/colour-calibration.md.
CAP = 40.0
LIGHT_RANGE = (0.25, 4.0)
LIGHT_FREE = 1.6
LIGHT_COST = 10.0
MAX_VEIL = 0.5
VEIL_COST = 30.0
SHARE_SLACK = 0.3
MAX_MINOR = 0.5
MAX_PIPS = 0.4
EXCESS_PENALTY = 40.0
# Which way round body and pips are in lightness (`lightness_split`): a model whose measured pixels split into
# a darker and a lighter group at least POLAR_CONTRAST apart in L, with at least POLAR_CLEAR more than half of
# them on one side, has its body on that side (`DieModel.dark`). A face that splits so too must have at least
# DARK_SPLIT of its pixels on the dark side for a dark body, at most that for a light one, each unit beyond
# costing POLAR_COST: a black die with white pips is mostly dark, a white die with black pips mostly light,
# whatever the light. (Under a half: blur spreads light pips over a dark body in lightness, L being steeper
# in the dark; on the realism renderer's dev tables black dice's sixes split 0.50-0.60 dark, white dice's
# faces at most 0.39.)
POLAR_CONTRAST = 25.0
POLAR_CLEAR = 0.1
DARK_SPLIT = 0.45
POLAR_COST = 200.0
# Fitting: clusters of at least MIN_CLUSTER of the measured pixels, at least MIN_APART from one another, found
# with lightness weighed FIT_L_WEIGHT (a face's shading spreads its lightness more than its hue).
MIN_CLUSTER = 0.03
MIN_APART = 15.0
FIT_L_WEIGHT = 0.6
# The pips' colour: a colour other than the main one, covering at most PIP_MAX_SHARE of the faces, the one
# farthest from the main colour if that is at least PIP_MIN_APART.
PIP_MAX_SHARE = 0.4
PIP_MIN_APART = 25.0


@dataclass(frozen=True, slots=True)
class FaceSamples:
    """The sampled pixels of n dice faces: white-balanced Lab (n x P x 3), which are usable (n x P: not
    glare, inside the image), where they were taken (n x P x 2, image x and y), and which were clipped
    white (`CLIPPED`; usable all the same when they are most of the face)."""

    lab: FloatArray
    ok: BoolArray
    points: npt.NDArray[np.int32]
    clipped: BoolArray | None = None

    def __len__(self) -> int:
        return int(self.lab.shape[0])

    @classmethod
    def joined(cls, parts: Sequence[FaceSamples]) -> FaceSamples:
        """Faces sampled apart (as many pixels each), one after another."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.of_pixels([])
        clipped = [p.clipped if p.clipped is not None else np.zeros(p.ok.shape, bool) for p in parts]
        return cls(
            np.concatenate([p.lab for p in parts]),
            np.concatenate([p.ok for p in parts]),
            np.concatenate([p.points for p in parts]),
            np.concatenate(clipped),
        )

    @classmethod
    def of_pixels(cls, faces: Sequence[FloatArray]) -> FaceSamples:
        """Faces given as their usable pixels alone (each N x 3 Lab), padded to one size."""
        p = max((len(f) for f in faces), default=0)
        lab = np.zeros((len(faces), p, 3), np.float32)
        ok = np.zeros((len(faces), p), bool)
        for i, f in enumerate(faces):
            lab[i, : len(f)] = f
            ok[i, : len(f)] = True
        return cls(lab, ok, np.zeros((len(faces), p, 2), np.int32), np.zeros((len(faces), p), bool))


def grid_points(
    boxes: Sequence[Sequence[float]], grid: int = GRID, margin: float = FACE_MARGIN
) -> FloatArray:
    """Centres of a `grid` x `grid` lattice over each box, `margin` of its size off each side (n x P x 2)."""
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    steps = (np.arange(grid, dtype=np.float32) + 0.5) / grid
    u = margin + (1.0 - 2.0 * margin) * steps
    uu, vv = np.meshgrid(u, u)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    xs = b[:, None, 0] + w[:, None] * uu.reshape(1, -1)
    ys = b[:, None, 1] + h[:, None] * vv.reshape(1, -1)
    out: FloatArray = np.stack([xs, ys], axis=2)
    return out


def ring_points(boxes: Sequence[Sequence[float]], grow: tuple[float, float] = (1.3, 1.7)) -> FloatArray:
    """Points around each box, between `grow` times its size about its centre: the tile around a die."""
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    grid = 24
    u = (np.arange(grid, dtype=np.float32) + 0.5) / grid * 2.0 - 1.0
    uu, vv = np.meshgrid(u, u)
    r = np.maximum(np.abs(uu), np.abs(vv)).reshape(-1)
    keep = r >= grow[0] / grow[1]
    cx, cy = (b[:, 0] + b[:, 2]) / 2.0, (b[:, 1] + b[:, 3]) / 2.0
    hw, hh = (b[:, 2] - b[:, 0]) / 2.0 * grow[1], (b[:, 3] - b[:, 1]) / 2.0 * grow[1]
    xs = cx[:, None] + hw[:, None] * uu.reshape(1, -1)[:, keep]
    ys = cy[:, None] + hh[:, None] * vv.reshape(1, -1)[:, keep]
    out: FloatArray = np.stack([xs, ys], axis=2)
    return out


def sample_points(
    image: npt.NDArray[np.uint8], points: FloatArray, white_bgr: Sequence[float] | None
) -> FaceSamples:
    """The pixels at `points` (n x P x 2, image x and y; nearest pixel), balanced by the sticker white."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise CalibrationError(f"expected a BGR image, got an array of shape {image.shape!r}")
    h, w = image.shape[:2]
    n, p = points.shape[:2]
    xs = np.floor(points[..., 0]).astype(np.int32)
    ys = np.floor(points[..., 1]).astype(np.int32)
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    xs, ys = np.minimum(np.maximum(xs, 0), w - 1), np.minimum(np.maximum(ys, 0), h - 1)
    pix = image[ys, xs]
    clipped = np.minimum(np.minimum(pix[..., 0], pix[..., 1]), pix[..., 2]) >= CLIPPED
    # most of a face white beyond the sensor is no glare spot: a white die in too much light
    glare = clipped & (clipped.sum(axis=1) * 2 < p)[:, None]
    lab = bgr_to_lab(balance(pix.reshape(-1, 3), white_bgr)).reshape(n, p, 3)
    return FaceSamples(lab, inside & ~glare, np.stack([xs, ys], axis=2), clipped)


def sample_faces(
    image: npt.NDArray[np.uint8], boxes: Sequence[Sequence[float]], white_bgr: Sequence[float] | None
) -> FaceSamples:
    """The middle of each die's box (`FACE_MARGIN`), `GRID` x `GRID` pixels, balanced: what is scored."""
    return sample_points(image, grid_points(boxes), white_bgr)


def sample_crops(
    crops: Sequence[npt.NDArray[np.uint8]], box: Sequence[float], white_bgr: Sequence[float] | None
) -> FaceSamples:
    """`sample_faces` for dice each in an image of its own (top faces rectified from one frame), `box` the
    face's box in every crop: the crops side by side in one image, sampled at once (points in that strip)."""
    for crop in crops:
        if crop.ndim != 3 or crop.shape[2] != 3:
            raise CalibrationError(f"expected BGR crops, got an array of shape {crop.shape!r}")
    if not crops:
        return FaceSamples.of_pixels([])
    strip = np.zeros((max(c.shape[0] for c in crops), sum(c.shape[1] for c in crops), 3), np.uint8)
    boxes = []
    x = 0
    for crop in crops:
        h, w = crop.shape[:2]
        strip[:h, x : x + w] = crop
        boxes.append((box[0] + x, box[1], box[2] + x, box[3]))
        x += w
    return sample_faces(strip, boxes, white_bgr)


# -- the model -------------------------------------------------------------------------------------------


def _lab(values: object, what: str) -> Lab:
    if not (isinstance(values, list | tuple) and len(values) == 3):
        raise CalibrationError(f"{what}: {values!r} is not [L, a, b]")
    if not all(isinstance(v, int | float) and math.isfinite(float(v)) for v in values):
        raise CalibrationError(f"{what}: {values!r} is not three finite numbers")
    return (float(values[0]), float(values[1]), float(values[2]))


@dataclass(frozen=True, slots=True)
class DieColour:
    """One colour of a die's faces: balanced Lab, the share of the measured faces it covered, and whether it
    is the pips' colour."""

    lab: Lab
    share: float
    pips: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "lab", _lab(list(self.lab), "die colour"))
        if not (math.isfinite(self.share) and 0.0 <= self.share <= 1.0):
            raise CalibrationError(f"a die colour's share must be within 0..1, got {self.share!r}")
        object.__setattr__(self, "share", float(self.share))

    def to_json(self) -> dict[str, Any]:
        return {"lab": [round(v, 3) for v in self.lab], "share": round(self.share, 3), "pips": self.pips}

    @classmethod
    def from_json(cls, obj: object) -> DieColour:
        if not isinstance(obj, dict):
            raise CalibrationError(f"a die colour must be an object, got {obj!r:.80}")
        share, pips = obj.get("share"), obj.get("pips", False)
        if not isinstance(share, int | float) or not isinstance(pips, bool):
            raise CalibrationError(f"a die colour needs a share 0..1 and pips true/false, got {obj!r:.80}")
        return cls(_lab(obj.get("lab"), "die colour"), float(share), pips)


@dataclass(frozen=True, slots=True)
class DieModel:
    """One player's kind of die: the colours of its measured faces, the main body colour first, with the
    share of the faces each covered; how far the measured pixels lay from them (`spread`, median distance);
    and how many dice were measured (`dice`: more dice, more of the kind's faces and marbling seen, so the
    naming may trust a near fit more: `vision.calibration.NAMING`)."""

    colours: tuple[DieColour, ...]
    spread: float = 0.0
    dice: int = 1
    # the share of the measured pixels on the dark side of their lightness split, when they split clearly
    # (`POLAR_CONTRAST`, `POLAR_CLEAR`): over a half, a dark body with light pips; under, the other way
    dark: float | None = None

    def __post_init__(self) -> None:
        if not 1 <= len(self.colours) <= MAX_COLOURS + len(NEUTRAL_PIPS):
            raise CalibrationError(f"a die model needs 1..{MAX_COLOURS} colours, got {len(self.colours)}")
        if self.colours[0].pips:
            raise CalibrationError("a die model's first colour must be its body's")
        if not (math.isfinite(self.spread) and self.spread >= 0):
            raise CalibrationError(f"a die model's spread must be a number >= 0, got {self.spread!r}")
        if not (isinstance(self.dice, int) and self.dice >= 1):
            raise CalibrationError(f"a die model is measured on 1 die or more, got {self.dice!r}")
        if self.dark is not None and not (math.isfinite(self.dark) and 0.0 <= self.dark <= 1.0):
            raise CalibrationError(f"a die model's dark share must be within 0..1, got {self.dark!r}")
        object.__setattr__(self, "colours", tuple(self.colours))
        object.__setattr__(self, "spread", float(self.spread))
        object.__setattr__(self, "dark", None if self.dark is None else float(self.dark))

    @classmethod
    def plain(cls, body: Sequence[float], pips: Sequence[Lab] = NEUTRAL_PIPS) -> DieModel:
        """A die of one body colour whose pips are one of `pips` (a version 1 reference: white or black)."""
        share = PLAIN_PIP_SHARE
        main = (float(body[0]), float(body[1]), float(body[2]))
        return cls((DieColour(main, 1.0 - share), *(DieColour(p, share, True) for p in pips)))

    @property
    def main(self) -> Lab:
        """The body's main colour (the model's reference where one colour is asked for)."""
        return self.colours[0].lab

    @property
    def body(self) -> tuple[Lab, ...]:
        return tuple(c.lab for c in self.colours if not c.pips)

    @property
    def pips(self) -> tuple[Lab, ...]:
        return tuple(c.lab for c in self.colours if c.pips)

    def to_json(self) -> dict[str, Any]:
        return {
            "colours": [c.to_json() for c in self.colours],
            "spread": round(self.spread, 2),
            "dice": self.dice,
            **({} if self.dark is None else {"dark": round(self.dark, 3)}),
        }

    @classmethod
    def from_json(cls, obj: object) -> DieModel:
        if not isinstance(obj, dict):
            raise CalibrationError(f"a die model must be an object, got {obj!r:.80}")
        colours, spread, dice = obj.get("colours"), obj.get("spread", 0.0), obj.get("dice", 1)
        if not isinstance(colours, list) or not colours:
            raise CalibrationError(f"a die model needs a list of 'colours', got {obj!r:.80}")
        dark = obj.get("dark")
        if not isinstance(spread, int | float) or not isinstance(dice, int):
            raise CalibrationError(f"a die model's spread and dice must be numbers, got {obj!r:.80}")
        if dark is not None and not isinstance(dark, int | float):
            raise CalibrationError(f"a die model's dark share must be a number, got {obj!r:.80}")
        colours_ = tuple(DieColour.from_json(c) for c in colours)
        return cls(colours_, float(spread), dice, None if dark is None else float(dark))


# -- scoring ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Palette:
    """Every model's colours side by side (m x 3), the model each belongs to (in runs), where each model's run
    starts, and the most of a face each colour may explain (`allowed`): what `score_faces` compares with."""

    colours: FloatArray
    owner: npt.NDArray[np.intp]
    starts: npt.NDArray[np.intp]
    allowed: FloatArray
    dark: FloatArray  # per model: `DieModel.dark`, NaN where it has none

    @classmethod
    def of(cls, models: Sequence[DieModel]) -> Palette:
        colours = [c for m in models for c in m.colours]
        allowed = [
            1.0 if i == 0 else min(MAX_PIPS if c.pips else MAX_MINOR, c.share + SHARE_SLACK)
            for m in models
            for i, c in enumerate(m.colours)
        ]
        return cls(
            np.asarray([c.lab for c in colours], np.float32).reshape(-1, 3),
            np.asarray([k for k, m in enumerate(models) for _c in m.colours], np.intp),
            np.cumsum([0] + [len(m.colours) for m in models[:-1]]).astype(np.intp),
            np.asarray(allowed, np.float32),
            np.asarray([math.nan if m.dark is None else m.dark for m in models], np.float32),
        )


@dataclass(frozen=True, slots=True)
class FaceScores:
    """How well each face fits each model (n x K): `score` (lower is better), its `fit` alone (capped root
    mean square distance), the light the face is in against the model's (`light`), and how many pixels of
    each face were usable."""

    score: FloatArray
    fit: FloatArray
    light: FloatArray
    veil: FloatArray
    usable: npt.NDArray[np.intp]


def _linear(lab: FloatArray) -> FloatArray:
    """Lab (... x 3) -> linear RGB (... x 3, BGR order, 0..1)."""
    srgb = (lab_to_bgr(lab.reshape(-1, 3)) / 255.0).reshape(lab.shape)
    out: FloatArray = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4).astype(
        np.float32
    )
    return out


def _from_linear(linear: FloatArray) -> FloatArray:
    """Linear RGB (... x 3, BGR; clipped to 0..1, what a camera shows) -> Lab."""
    x = np.minimum(np.maximum(linear, 0.0), 1.0)
    enc = np.where(x <= 0.0031308, x * 12.92, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    lab: FloatArray = bgr_to_lab((enc * 255.0).reshape(-1, 3)).reshape(linear.shape)
    return lab


# The sticker white, balanced, in linear RGB (every channel alike).
WHITE_LINEAR = float(((WHITE_TARGET / 255.0 + 0.055) / 1.055) ** 2.4)


def _solve(sums: Sequence[npt.NDArray[Any]], *, veiled: bool) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Least squares of pixels = light x colours (+ veil x white when `veiled`) from the sums of products
    (each K x n: colour by colour, colour by white, white by white, pixel by colour, pixel by white, pixel by
    pixel): (light, veil, the squared residual). A white, grey or black colour cannot tell light from veil
    (the determinant vanishes): no veil then."""
    s_cc, s_cw, s_ww, s_pc, s_pw, s_pp = sums
    det = s_cc * s_ww - s_cw * s_cw
    solvable = (det > 1e-3 * np.maximum(s_cc * s_ww, 1e-12)) & veiled
    veil = clip(
        np.where(solvable, s_cc * s_pw - s_cw * s_pc, 0.0) / np.where(solvable, det, 1.0), 0.0, MAX_VEIL
    )
    light = clip((s_pc - veil * s_cw) / np.maximum(s_cc, 1e-9), *LIGHT_RANGE)
    residual = s_pp - 2 * (light * s_pc + veil * s_pw) + light * light * s_cc + 2 * light * veil * s_cw
    return light, veil, residual + veil * veil * s_ww


def _light(lab: FloatArray, ok: BoolArray, palette: Palette) -> tuple[FloatArray, FloatArray]:
    """The light each face (n x P x 3 Lab) is in against each model's measured dice (K x n each): `light`
    times as strong, veiled by `veil` of the sticker white (glare). Fitted in linear RGB by least squares two
    ways, the closer fit per pixel kept: pixel = light x colour, each pixel against the model's colour
    nearest to it (shade tolerant, as `lab_distance`; among the pixels a colour explains within `CAP`); and
    pixel = light x main colour + veil x white, every pixel against the model's main colour (a die washed
    out by glare, whose every pixel would be nearest its pale pips)."""
    lum, a, b = (np.ascontiguousarray(lab[..., i])[None] for i in range(3))  # 1 x n x P
    e = palette.colours[:, :, None, None]  # m x 3 x 1 x 1
    ratio = clip(e[:, 0] / np.maximum(lum, 1.0), *SHADE_RANGE)
    dl = l_weight(palette.colours)[:, None, None] * (lum - e[:, 0])
    d2 = dl * dl + (a * ratio - e[:, 1]) ** 2 + (b * ratio - e[:, 2]) ** 2  # m x n x P
    nearest = np.minimum.reduceat(d2, palette.starts, axis=0)  # K x n x P
    good = ((d2 <= nearest[palette.owner]) & ok[None] & (d2 < CAP * CAP)).astype(np.float32)
    colour = _linear(palette.colours)  # m x 3
    white = np.full(3, WHITE_LINEAR, np.float32)
    pixels = _linear(lab)  # n x P x 3
    norm = (pixels * pixels).sum(axis=2)  # n x P
    starts = palette.starts
    count = good.sum(axis=2)  # m x n
    taken = np.einsum("mnp,npc->mnc", good, pixels)  # m x n x 3: the sum of the pixels each colour took
    mine = np.add.reduceat(count, starts, axis=0)
    light, veil, residual = _solve((
        np.add.reduceat(count * (colour * colour).sum(axis=1)[:, None], starts, axis=0),
        np.add.reduceat(count * (colour @ white)[:, None], starts, axis=0),
        mine * float(white @ white),
        np.add.reduceat((taken * colour[:, None, :]).sum(axis=2), starts, axis=0),
        np.add.reduceat(taken @ white, starts, axis=0),
        np.add.reduceat((good * norm[None]).sum(axis=2), starts, axis=0),
    ), veiled=False)  # fmt: skip
    # every usable pixel against the main colour
    main = colour[starts]  # K x 3
    okf = ok.astype(np.float32)
    total = np.einsum("np,npc->nc", okf, pixels)  # n x 3
    n_ok = okf.sum(axis=1)[None]  # 1 x n
    ones = np.ones((len(starts), 1), np.float32)
    light_b, veil_b, residual_b = _solve((
        n_ok * (main * main).sum(axis=1)[:, None],
        n_ok * (main @ white)[:, None],
        ones * n_ok * float(white @ white),
        main @ total.T,
        ones * (total @ white)[None],
        ones * (okf * norm).sum(axis=1)[None],
    ), veiled=True)  # fmt: skip
    glared = residual_b / np.maximum(n_ok, 1.0) < residual / np.maximum(mine, 1.0)
    light = np.where(glared, light_b, light)
    veil = np.where(glared, veil_b, veil)
    return light.astype(np.float32), veil.astype(np.float32)


LIGHTNESS_BIN = 2.0


def lightness_split(lum: FloatArray, ok: BoolArray) -> tuple[FloatArray, FloatArray]:
    """Each face's usable pixels (n x P lightness, n x P usable) split in two by lightness (Otsu, on
    `LIGHTNESS_BIN` bins): the share on the dark side, and how far apart the two sides' means lie (0 for a
    face of one lightness; the share NaN for one with fewer than two usable pixels)."""
    n = lum.shape[0]
    bins = int(100 / LIGHTNESS_BIN) + 1
    idx = np.clip(lum / LIGHTNESS_BIN, 0, bins - 1).astype(np.intp) + np.arange(n)[:, None] * bins
    w = ok.astype(np.float64)
    counts = np.bincount(idx.ravel(), w.ravel(), n * bins).reshape(n, bins)
    sums = np.bincount(idx.ravel(), (w * lum).ravel(), n * bins).reshape(n, bins)
    c0, s0 = np.cumsum(counts, axis=1)[:, :-1], np.cumsum(sums, axis=1)[:, :-1]
    total, whole = counts.sum(axis=1, keepdims=True), sums.sum(axis=1, keepdims=True)
    c1 = total - c0
    split = (c0 > 0) & (c1 > 0)
    gap = np.where(split, (whole - s0) / np.where(split, c1, 1) - s0 / np.where(split, c0, 1), 0.0)
    k = np.argmax(c0 * c1 * gap * gap, axis=1)
    rows = np.arange(n)
    dark = np.where(total[:, 0] >= 2, c0[rows, k] / np.maximum(total[:, 0], 1), math.nan)
    return dark.astype(np.float32), gap[rows, k].astype(np.float32)


def polar_dark(pixels: FloatArray) -> float | None:
    """`DieModel.dark` of measured pixels (N x 3 Lab): their dark side's share when they split clearly."""
    dark, gap = lightness_split(pixels[None, :, 0], np.ones((1, len(pixels)), bool))
    d = float(dark[0])
    return d if float(gap[0]) >= POLAR_CONTRAST and abs(d - 0.5) >= POLAR_CLEAR else None


def _polar_cost(faces: FaceSamples, palette: Palette) -> FloatArray:
    """What each face (n) pays against each model (K) for too little of it on the model's body's side of
    its lightness split (`BODY_SIDE`): n x K."""
    dark, gap = lightness_split(faces.lab[..., 0], faces.ok)
    body_dark = palette.dark[None, :] > 0.5
    short = np.where(body_dark, DARK_SPLIT - dark[:, None], dark[:, None] - DARK_SPLIT)
    short = np.maximum(0.0, short)
    known = ~np.isnan(palette.dark)[None, :] & (gap >= POLAR_CONTRAST)[:, None] & ~np.isnan(short)
    out: FloatArray = np.where(known, POLAR_COST * short, 0.0).astype(np.float32)
    return out


def score_faces(faces: FaceSamples, palette: Palette) -> FaceScores:
    """Every face against every model at once (the module docstring). Arrays run colour by colour
    (m x n x P) so that each model's run of colours reduces along the first axis, contiguously; the light
    is fitted on every other pixel (enough for two numbers, half the time)."""
    n = faces.ok.shape[0]
    k = len(palette.starts)
    usable = faces.ok.sum(axis=1)
    if n == 0 or k == 0:
        empty = np.zeros((n, k), np.float32)
        return FaceScores(empty, empty, np.ones((n, k), np.float32), empty, usable.astype(np.intp))
    ok = faces.ok[None]
    per = np.maximum(usable, 1).astype(np.float32)
    light, veil = _light(faces.lab[:, ::2], faces.ok[:, ::2], palette)  # K x n each
    lit_linear = light[palette.owner][..., None] * _linear(palette.colours)[:, None, :]
    lit = _from_linear(lit_linear + veil[palette.owner][..., None] * WHITE_LINEAR)[
        :, :, :, None
    ]  # m x n x 3 x 1
    lum, a, b = (np.ascontiguousarray(faces.lab[..., i])[None] for i in range(3))  # 1 x n x P
    dl = l_weight(palette.colours)[:, None, None] * (lum - lit[:, :, 0])
    d2 = dl * dl + (a - lit[:, :, 1]) ** 2 + (b - lit[:, :, 2]) ** 2  # m x n x P
    nearest = np.minimum.reduceat(d2, palette.starts, axis=0)  # K x n x P
    fit = np.sqrt((np.minimum(nearest, CAP * CAP) * ok).sum(axis=2) / per)  # K x n
    share = ((d2 <= nearest[palette.owner]) & ok).sum(axis=2) / per  # m x n
    excess = np.add.reduceat(np.maximum(0.0, share - palette.allowed[:, None]), palette.starts, axis=0)
    light_cost = LIGHT_COST * np.maximum(0.0, np.abs(np.log(light)) - math.log(LIGHT_FREE))
    score = (fit + EXCESS_PENALTY * excess + light_cost + VEIL_COST * veil).T + _polar_cost(faces, palette)
    none = (usable == 0)[:, None]
    return FaceScores(
        np.where(none, np.inf, score).astype(np.float32),
        np.where(none, np.inf, fit.T).astype(np.float32),
        light.T.astype(np.float32),
        veil.T.astype(np.float32),
        usable.astype(np.intp),
    )


# -- fitting a model to measured dice ----------------------------------------------------------------------


def kmeans(points: FloatArray, k: int, iterations: int = 12) -> npt.NDArray[np.intp]:
    """Plain k-means labels (k-means++ start from a fixed seed: the same pixels, the same clusters)."""
    rng = np.random.default_rng(0)
    centres = [points[int(np.argmin(points[:, 0]))]]
    for _ in range(1, k):
        d2 = np.min(((points[:, None, :] - np.asarray(centres)[None]) ** 2).sum(axis=2), axis=1)
        total = float(d2.sum())
        pick = int(rng.choice(len(points), p=d2 / total)) if total > 0 else int(rng.integers(len(points)))
        centres.append(points[pick])
    c = np.asarray(centres, np.float32)
    labels = np.zeros(len(points), np.intp)
    for _ in range(iterations):
        labels = np.argmin(((points[:, None, :] - c[None]) ** 2).sum(axis=2), axis=1)
        moved = np.asarray(
            [points[labels == j].mean(axis=0) if np.any(labels == j) else c[j] for j in range(k)], np.float32
        )
        if np.allclose(moved, c, atol=0.05):
            break
        c = moved
    return labels


def _clusters(lab: FloatArray) -> npt.NDArray[np.intp]:
    """The most clusters of the pixels (Lab, up to `MAX_COLOURS`) that each hold `MIN_CLUSTER` of them and lie
    `MIN_APART` from one another (`_apart`: the measured dice lie in one light): labels."""
    x = lab * np.asarray([FIT_L_WEIGHT, 1.0, 1.0], np.float32)
    best = np.zeros(len(x), np.intp)
    for k in range(2, MAX_COLOURS + 1):
        if len(x) < 4 * k:
            break
        labels = kmeans(x, k)
        shares = np.bincount(labels, minlength=k) / len(x)
        if shares.min() < MIN_CLUSTER:
            break
        centres = np.asarray([lab[labels == j].mean(axis=0) for j in range(k)], np.float32)
        if _apart(centres, centres)[~np.eye(k, dtype=bool)].min() < MIN_APART:
            break
        best = labels
    return best


def _apart(lab: FloatArray, colours: FloatArray) -> FloatArray:
    """How far apart colours of one face are (N x m): Lab with lightness weighed `FIT_L_WEIGHT`, no shade
    tolerance (a black pip is no gold marbling in shade)."""
    scale = np.asarray([FIT_L_WEIGHT, 1.0, 1.0], np.float32)
    out: FloatArray = np.sqrt((((lab[:, None, :] - colours[None]) * scale) ** 2).sum(axis=2))
    return out


def pixel_distances(lab: FloatArray, colours: FloatArray) -> FloatArray:
    """`lab_distance` from every pixel (N x 3) to every colour (m x 3): N x m."""
    x = lab[:, None, :]
    ratio = clip(colours[:, 0] / np.maximum(x[..., 0], 1.0), *SHADE_RANGE)
    da = x[..., 1] * ratio - colours[:, 1]
    db = x[..., 2] * ratio - colours[:, 2]
    dl = l_weight(colours) * (x[..., 0] - colours[:, 0])
    out: FloatArray = np.sqrt(dl * dl + da * da + db * db)
    return out


@dataclass(frozen=True, slots=True)
class FittedModel:
    """A model fitted to measured faces, and which of its colours each of the faces' pixels took."""

    model: DieModel
    labels: npt.NDArray[np.intp]  # over the pixels given, in order: an index into `model.colours`


def _body_one_side(lightness: FloatArray, pips: int) -> bool:
    """Whether every colour but the pips' is at least `POLAR_CONTRAST` darker than the pips, or every one
    that much lighter."""
    body = np.delete(lightness, pips) - lightness[pips]
    return bool((body <= -POLAR_CONTRAST).all() or (body >= POLAR_CONTRAST).all())


def _pips_of(centres: FloatArray, share: npt.NDArray[np.float64], order: Sequence[int]) -> int:
    """The pips' cluster for a body of cluster `order[0]` (the module constants `PIP_*`), or -1."""
    if len(order) < 2:
        return -1
    apart = _apart(centres, centres[order[0]][None])[:, 0]
    candidates = [j for j in order[1:] if share[j] <= PIP_MAX_SHARE and apart[j] >= PIP_MIN_APART]
    return max(candidates, key=lambda j: float(apart[j])) if candidates else -1


def _pips_largest(
    centres: FloatArray, share: npt.NDArray[np.float64], order: Sequence[int], pips: int
) -> bool:
    """Whether the largest cluster is the pips: a face showing many big pips (a six, sampled in its middle)
    whose body splits into a shaded and a lit part can hold more pips than any one part of its body. So it is
    when the largest cluster could be pips (`PIP_MAX_SHARE`), stands clear of every other cluster in
    lightness on one side (`POLAR_CONTRAST`) and of the next largest as pips do (`PIP_MIN_APART`), and the
    largest-is-body reading does not: its pips would share a side with part of its body (a swirled die's
    dark and light parts stay its body)."""
    if len(order) < 2 or share[order[0]] > PIP_MAX_SHARE:
        return False
    largest, body = order[0], order[1]
    apart = float(_apart(centres[[largest]], centres[[body]])[0, 0])
    if apart < PIP_MIN_APART or not _body_one_side(centres[:, 0], largest):
        return False
    return pips < 0 or not _body_one_side(centres[:, 0], pips)


def fit_model(pixels: FloatArray, dice: int = 1) -> FittedModel:
    """A die model from measured faces' usable pixels (N x 3, balanced Lab, `dice` dice): its colours are
    the clusters of the pixels, the largest the main body colour; the pips' colour is the one farthest from
    it (module constants `PIP_*`), unless the largest is the pips' (`_pips_largest`)."""
    if len(pixels) < 8:
        raise CalibrationError(f"too few usable pixels on the die to measure it ({len(pixels)})")
    labels = _clusters(pixels)
    k = int(labels.max()) + 1
    centres = np.asarray([pixels[labels == j].mean(axis=0) for j in range(k)], np.float32)
    share = np.bincount(labels, minlength=k) / len(pixels)
    order = [int(j) for j in np.argsort(-share, kind="stable")]
    pips = _pips_of(centres, share, order)
    if _pips_largest(centres, share, order, pips):
        pips = order[0]
    order = [j for j in order if j != pips] + ([pips] if pips >= 0 else [])
    colours = tuple(
        DieColour(
            (float(centres[j][0]), float(centres[j][1]), float(centres[j][2])), float(share[j]), j == pips
        )
        for j in order
    )
    rank = np.empty(k, np.intp)
    rank[order] = np.arange(k)
    spread = float(np.median(pixel_distances(pixels, centres).min(axis=1)))
    # Which side of a lightness split is the body means something only where every body colour lies on one
    # side of the pips' lightness: a body swirled in a light and a dark colour splits along its swirls.
    solid = pips >= 0 and _body_one_side(centres[:, 0], pips)
    return FittedModel(DieModel(colours, spread, dice, polar_dark(pixels) if solid else None), rank[labels])

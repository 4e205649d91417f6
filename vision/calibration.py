"""Player colour calibration: which player a die belongs to, from the colours of its top face.

At setup every player shows their dice (one or more, on their castle); `vision.colourcheck` measures them and
checks the measurement, and each player's kind of die becomes a `DieModel` (`vision.dicecolour`): its body's
colours (one, or several for swirled and marbled dice) and its pips' colour, white-balanced Lab. At play a
die's face is scored against every player's model (`ColourCalibration.name_faces`): it is named when one
model fits within its threshold and clearly better than the runner-up (`NAMING`), and is otherwise unsure,
so its location is asked. White balance and the shade-tolerant distance are `vision.lab`'s.

A face is given as an image and a box in it: a whole die's box in the frame, or a top face rectified on its
own (`name_crops`); the middle half of the box is sampled (`vision.dicecolour.sample_faces`).

Version 1 calibration files held one body colour per player; they load as models of that colour with white
or black pips. `match` and its kin name a single body colour the version 1 way, against the models' main
colours (`references`): the dice reader's own colour option uses it; `vision.knights` names the table's dice
with `name_faces` / `name_crops`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from vision.dicecolour import (
    DieColour,
    DieModel,
    FaceSamples,
    FaceScores,
    Palette,
    sample_crops,
    sample_faces,
    score_faces,
)
from vision.errors import CalibrationError
from vision.lab import (
    BGR,
    L_WEIGHT,
    L_WEIGHT_NEUTRAL,
    SHADE_RANGE,
    WHITE_TARGET,
    Lab,
    balance,
    bgr_to_lab,
    lab_distance,
    white_balance_gains,
)
from vision.lab import clip as _clip

__all__ = [
    "BGR", "L_WEIGHT", "L_WEIGHT_NEUTRAL", "SHADE_RANGE", "WHITE_TARGET", "ColourCalibration", "ColourMatch",
    "Lab", "balance", "bgr_to_lab", "default_calibration", "die_body_colour",
    "die_face_colours", "lab_distance", "middle_of", "sticker_white", "white_balance_gains",
]  # fmt: skip

Box = tuple[int, int, int, int]
T = TypeVar("T")

FORMAT = "seneschal-colour-calibration"
VERSION = 2
CHROMA_TOLERANCE = 0.5
# Glare: how much white veil `match` may take off a sample, and what taking it off costs per unit.
MAX_GLARE = 0.5
GLARE_PENALTY = 45.0
DEFAULT_THRESHOLD = 24.0
# The nearest reference must be at least this much closer than the runner-up to be trusted.
DEFAULT_MARGIN = 6.0
# Share of a die box left out on each side when sampling its body colour (sides, shadow, tile around it).
INNER_MARGIN = 0.15


@dataclass(frozen=True, slots=True)
class Naming:
    """When a face is named a player's: its score against the player's model at most `threshold`, and the
    runner-up's at least `margin` more."""

    threshold: float
    margin: float


# By how many dice a model was measured (two or more alike): a model of one die has seen one face of one die,
# so another die must fit it better than any other model by more to be named. Chosen on the face library's
# train split (every pair of its eleven kinds, docs/colour-calibration.md): at most 0.05 % of dice named a
# wrong player (half the aim, for kinds never seen), at most a fifth of dice of a kind nobody measured
# named, the most named right.
NAMING: dict[int, Naming] = {1: Naming(22.0, 10.0), 2: Naming(22.0, 8.0)}


# And the runner-up at least this many times as far as the nearest: a face far from every model (a die in
# deep shade, or of a look nobody measured) must be the clearer nearer one. The margins above hold for faces
# near their model; on the realism renderer's dev tables (training kinds, seeds 500000+) the dice named wrong
# lay 9-22 from it (half of them over 17), the runner-up 1.5-2.9 times as far; the dice named right, 9.5 at
# the median. Of about 6600 dice named right there, 57 were under 1.7 times, and 10 of the 26 named wrong.
# On seven dev sets it asked one location more that was silently wrong (of 8), and moved knights right by
# -0.4 to +0.2 points.
NEARER = 1.7


def naming_for(dice: int) -> Naming:
    return NAMING[max(1, min(dice, max(NAMING)))]


def middle_of(box: Box, margin: float = 0.15) -> Box:
    """The middle of a whole die's box (`margin` of its size off every side): the top face, more or less, from
    any camera stand; its colour is the die's body colour."""
    x0, y0, x1, y1 = (int(v) for v in box)
    mx, my = (x1 - x0) * margin, (y1 - y0) * margin
    ix0, iy0 = round(x0 + mx), round(y0 + my)
    return (ix0, iy0, max(ix0 + 1, round(x1 - mx)), max(iy0 + 1, round(y1 - my)))


def die_body_colour(image: npt.NDArray[np.uint8], box: Box, mask: npt.NDArray[np.uint8] | None = None) -> BGR:
    """Median body colour of the die face in `box` (x0, y0, x1, y1), pips and glare excluded.

    The inner 70% of the box is used (edges mix with the tile or the die's sides); glare (clipped pixels) is
    left out and the pips are told from the body by `_split_face`. `mask` (same size as the image, non-zero =
    die) narrows the sample further when the finder has one.
    """
    return die_face_colours(image, box, mask)[0]


def die_face_colours(
    image: npt.NDArray[np.uint8], box: Box, mask: npt.NDArray[np.uint8] | None = None
) -> tuple[BGR, BGR | None]:
    """(body, pips) median colours of the die face in `box`, as `die_body_colour` tells them apart; pips None
    when the patch is one flat colour."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise CalibrationError(f"expected a BGR image, got an array of shape {image.shape!r}")
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(v) for v in box)
    if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
        raise CalibrationError(f"die box {tuple(box)!r} is empty or outside the {w}x{h} image")
    mx, my = (x1 - x0) * INNER_MARGIN, (y1 - y0) * INNER_MARGIN
    ix0, iy0 = int(x0 + mx), int(y0 + my)
    ix1, iy1 = max(ix0 + 1, math.ceil(x1 - mx)), max(iy0 + 1, math.ceil(y1 - my))
    patch = np.asarray(image[iy0:iy1, ix0:ix1], np.uint8)
    keep = np.ones(patch.shape[:2], bool)
    if mask is not None and np.count_nonzero(mask[iy0:iy1, ix0:ix1]) >= 4:
        keep = mask[iy0:iy1, ix0:ix1] > 0
    # per channel rather than numpy's reductions over the last axis of three: 10x cheaper on a die
    unclipped = keep & (np.maximum(np.maximum(patch[:, :, 0], patch[:, :, 1]), patch[:, :, 2]) < 250)
    if int(np.count_nonzero(unclipped)) >= max(4, int(np.count_nonzero(keep)) // 5):
        keep = unclipped
    body, other = _split_face(patch, keep)
    b, g, r = _median_bgr(body)
    if other is None or len(other) == 0:
        return (b, g, r), None
    return (b, g, r), _median_bgr(other)


def _median_bgr(pixels: npt.NDArray[np.uint8]) -> BGR:
    """Each channel's median of N x 3 pixels (N > 0), as `np.median(pixels, axis=0)` gives it, without its
    overhead (a third of the time on a die's few hundred pixels)."""
    n = len(pixels)
    half = n // 2
    channels = np.ascontiguousarray(pixels.T)
    if n % 2:
        mid = np.partition(channels, half, axis=1)[:, half].astype(np.float64)
    else:
        both = np.partition(channels, (half - 1, half), axis=1)
        mid = (both[:, half - 1].astype(np.float64) + both[:, half]) / 2.0
    return (float(mid[0]), float(mid[1]), float(mid[2]))


def _split_face(
    patch: npt.NDArray[np.uint8], keep: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8] | None]:
    """Split the middle of a die face (HxWx3) into body and pips by lightness (Otsu); the body's pixels.

    The body is the group along the middle of the patch's sides: the patch stops short of the face's edges and
    the pips start further in, while a six can fill most of the middle with pips (so size alone would lie).
    """
    pixels: npt.NDArray[np.uint8] = patch[keep]
    if len(pixels) < 8:
        return patch.reshape(-1, 3), None
    # the channels' mean, rounded down: a whole number divided by three never rounds across an integer
    total = patch[:, :, 0].astype(np.uint16) + patch[:, :, 1] + patch[:, :, 2]
    lightness = (total // 3).astype(np.uint8)
    values = lightness[keep]
    if int(values.max()) - int(values.min()) < 40:
        return pixels, None
    cut, _ = cv2.threshold(values.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    is_dark = lightness <= cut
    dark: npt.NDArray[np.uint8] = patch[keep & is_dark]
    light: npt.NDArray[np.uint8] = patch[keep & ~is_dark]
    if min(len(dark), len(light)) < 0.08 * len(pixels):
        return (dark, None) if len(dark) > len(light) else (light, None)

    # The middle 40% of each side: a turned die's box has its corners outside the face.
    hh, ww = keep.shape
    ys = slice(int(hh * 0.3), max(int(hh * 0.3) + 1, int(hh * 0.7)))
    xs = slice(int(ww * 0.3), max(int(ww * 0.3) + 1, int(ww * 0.7)))
    border = np.zeros(keep.shape, bool)
    border[0, xs] = border[-1, xs] = border[ys, 0] = border[ys, -1] = True
    border &= keep
    dark_on_border = int(np.count_nonzero(border & is_dark))
    light_on_border = int(np.count_nonzero(border & ~is_dark))
    if dark_on_border != light_on_border:
        return (dark, light) if dark_on_border > light_on_border else (light, dark)
    return (dark, light) if len(dark) > len(light) else (light, dark)


@dataclass(frozen=True, slots=True)
class ColourMatch:
    """The result of classifying one colour: nearest player colour, its distance, and the runner-up's."""

    colour: Colour
    distance: float
    runner_up: Colour | None
    runner_up_distance: float
    threshold: float
    margin: float
    stand_in: bool = False  # the nearest is a game colour never measured: its dice are asked, never named
    refuted: bool = False  # its pips are not on the side of its body the nearest's are (`vision.pipside`)

    @property
    def accepted(self) -> bool:
        """True when the colour is near enough to its reference and clearly nearer than the runner-up (and
        was measured, and nothing refuted it)."""
        if self.stand_in or self.refuted or self.distance > self.threshold:
            return False
        return self.runner_up is None or (
            self.runner_up_distance - self.distance >= self.margin
            and self.runner_up_distance >= NEARER * self.distance
        )


@dataclass(frozen=True, slots=True)
class ColourCalibration:
    """Every player's kind of die (`models`, white-balanced Lab) and their main body colours (`references`);
    `threshold` and `margin` are the single-colour `match`'s rejection rule.

    Made from references alone (version 1), each model is that body colour with white or black pips; made
    with `models`, the references are the models' main colours. `stand_ins`: colours whose models were not
    measured but stand in for a game's player whose dice were not (`playing`)."""

    references: Mapping[Colour, Lab] = field(default_factory=dict)
    threshold: float = DEFAULT_THRESHOLD
    margin: float = DEFAULT_MARGIN
    models: Mapping[Colour, DieModel] = field(default_factory=dict)
    stand_ins: frozenset[Colour] = frozenset()
    _colours: tuple[Colour, ...] = field(init=False, repr=False, compare=False)
    _matrix: npt.NDArray[np.float32] = field(init=False, repr=False, compare=False)
    _bgr: npt.NDArray[np.float64] = field(init=False, repr=False, compare=False)
    _palette: Palette = field(init=False, repr=False, compare=False)
    _naming: tuple[Naming, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.references and not self.models:
            raise CalibrationError("a colour calibration needs one player's reference or more, got none")
        problems = []
        for colour, lab in self.references.items():
            if not isinstance(colour, Colour):
                problems.append(f"{colour!r} is not a player colour")
            elif len(lab) != 3 or not all(math.isfinite(float(v)) for v in lab):
                problems.append(f"{colour.value}: reference {lab!r} is not three finite Lab numbers")
        for colour, model in self.models.items():
            if not isinstance(colour, Colour) or not isinstance(model, DieModel):
                problems.append(f"{colour!r}: {model!r:.60} is not a player colour's die model")
        if self.models and self.references and set(self.models) != set(self.references):
            problems.append(
                f"models of {sorted(c.value for c in self.models)} but references of "
                f"{sorted(c.value for c in self.references)}"
            )
        if not (self.threshold > 0 and self.margin >= 0):
            problems.append(f"threshold {self.threshold!r} must be > 0 and margin {self.margin!r} >= 0")
        if not set(self.stand_ins) <= set(self.models):
            problems.append(f"stand-ins {sorted(c.value for c in self.stand_ins)} without a model")
        if problems:
            raise CalibrationError("invalid colour calibration: " + "; ".join(problems))
        if self.models:
            refs = {c: m.main for c, m in self.models.items()}
            models = dict(self.models)
        else:
            refs = {c: (float(v[0]), float(v[1]), float(v[2])) for c, v in self.references.items()}
            models = {c: DieModel.plain(lab) for c, lab in refs.items()}
        object.__setattr__(self, "references", refs)
        object.__setattr__(self, "models", models)
        object.__setattr__(self, "_colours", tuple(refs))
        object.__setattr__(self, "_matrix", np.asarray([refs[c] for c in refs], dtype=np.float32))
        lab_img = self._matrix.reshape(-1, 1, 3)
        bgr = np.asarray(cv2.cvtColor(lab_img, cv2.COLOR_Lab2BGR), np.float64).reshape(-1, 3) * 255.0
        object.__setattr__(self, "_bgr", bgr)
        object.__setattr__(self, "_palette", Palette.of([models[c] for c in self._colours]))
        object.__setattr__(self, "_naming", tuple(naming_for(models[c].dice) for c in self._colours))

    @property
    def colours(self) -> tuple[Colour, ...]:
        return self._colours

    @property
    def measured(self) -> tuple[Colour, ...]:
        """The colours whose dice were measured (every one but the `stand_ins`)."""
        return tuple(c for c in self._colours if c not in self.stand_ins)

    def playing(self, players: Iterable[Colour]) -> ColourCalibration:
        """This calibration for a game of `players`: a player whose dice were not measured (no die found on
        their castle at set-up, or refused) gets a stand-in, the default model of their colour
        (`default_calibration`). Without one, the scoring knows only the others' dice, and one of them
        would be named for it; with one, a die nearest the stand-in, or not clearly nearer a measured
        model, is asked (`ColourMatch.stand_in`). Stand-ins of players not in the game are dropped."""
        wanted = set(players)
        missing = [c for c in Colour if c in wanted and (c not in self.models or c in self.stand_ins)]
        kept = {c: m for c, m in self.models.items() if c not in self.stand_ins or c in wanted}
        if (not self.stand_ins or not kept) and not missing:
            return self  # nothing to stand in for, or nothing measured to keep (`unmeasured_calibration`)
        defaults = default_calibration(missing).models if missing else {}
        return ColourCalibration(
            threshold=self.threshold,
            margin=self.margin,
            models={**kept, **{c: defaults[c] for c in missing}},
            stand_ins=frozenset(missing),
        )

    def with_models(self, models: Mapping[Colour, DieModel]) -> ColourCalibration:
        """This calibration with these players' dice measured (`vision.owncastle`): their models replace what
        stood in for them, and their dice are named from now on."""
        if not models:
            return self
        return ColourCalibration(
            threshold=self.threshold,
            margin=self.margin,
            models={**self.models, **models},
            stand_ins=frozenset(self.stand_ins - set(models)),
        )

    # -- construction --------------------------------------------------------------------------------------
    @classmethod
    def of_models(cls, models: Mapping[Colour, DieModel]) -> ColourCalibration:
        """The calibration of measured kinds of dice (`vision.colourcheck`)."""
        return cls(models=dict(models))

    @classmethod
    def from_samples(
        cls,
        samples: Mapping[Colour, Sequence[float]],
        white_bgr: Sequence[float] | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        margin: float = DEFAULT_MARGIN,
    ) -> ColourCalibration:
        """References from one measured BGR body colour per player, balanced with the frame's white (the
        version 1 way: white or black pips assumed)."""
        refs: dict[Colour, Lab] = {}
        for colour, bgr in samples.items():
            if len(bgr) != 3:
                raise CalibrationError(f"{colour!r}: sample {list(bgr)!r} is not a BGR triple")
            lab = bgr_to_lab(balance(bgr, white_bgr))[0]
            refs[colour] = (float(lab[0]), float(lab[1]), float(lab[2]))
        return cls(refs, threshold=threshold, margin=margin)

    @classmethod
    def from_dice(
        cls,
        image: npt.NDArray[np.uint8],
        boxes: Mapping[Colour, Box],
        white_bgr: Sequence[float] | None = None,
    ) -> ColourCalibration:
        """Every player shows a die; `boxes` says where each one is in `image` (whole dice). Each die's face
        is fitted as it is, unchecked: the box-setup flow measures through `vision.colourcheck`."""
        from vision.dicecolour import fit_model

        if white_bgr is None:
            white_bgr = sticker_white(image)
        faces = sample_faces(image, list(boxes.values()), white_bgr)
        models = {c: fit_model(faces.lab[i][faces.ok[i]]).model for i, c in enumerate(boxes)}
        return cls.of_models(models)

    # -- naming a die from its face ------------------------------------------------------------------------
    def score(self, image: npt.NDArray[np.uint8], boxes: Sequence[Sequence[float]],
              white_bgr: Sequence[float] | None) -> FaceScores:  # fmt: skip
        """Every die's face (whole-die `boxes`) against every player's model, in `colours` order."""
        return score_faces(sample_faces(image, boxes, white_bgr), self._palette)

    def name_faces(
        self,
        image: npt.NDArray[np.uint8],
        boxes: Sequence[Sequence[float]],
        white_bgr: Sequence[float] | None,
    ) -> list[ColourMatch]:
        """Each die's player from its face (`boxes` (x0, y0, x1, y1) in `image`, whose sticker white is
        `white_bgr`: whole dice's boxes, or top faces' own; the middle half of each is sampled), in `boxes`'
        order: accepted when one model fits within its threshold and the runner-up is clearly worse
        (`NAMING`, by how many dice the model was measured on)."""
        if len(boxes) == 0:
            return []
        return self.decide(self.score(image, boxes, white_bgr).score)

    def name_crops(
        self,
        crops: Sequence[npt.NDArray[np.uint8]],
        box: Sequence[float],
        white_bgr: Sequence[float] | None,
    ) -> list[ColourMatch]:
        """`name_faces` for dice each in an image of its own (top faces rectified from one frame, whose
        sticker white is `white_bgr`), `box` the face's box (x0, y0, x1, y1) in every crop: the crops side by
        side in one image, named at once."""
        return self.name_samples(sample_crops(crops, box, white_bgr)) if len(crops) else []

    def name_samples(self, faces: FaceSamples) -> list[ColourMatch]:
        """`name_faces` for faces already sampled (`vision.dicecolour.sample_faces`)."""
        return self.decide(self.score_samples(faces).score) if len(faces) else []

    def score_samples(self, faces: FaceSamples) -> FaceScores:
        """Faces already sampled against every player's model, in `colours` order."""
        return score_faces(faces, self._palette)

    def decide(self, scores: npt.NDArray[np.floating[Any]]) -> list[ColourMatch]:
        """`ColourMatch`es from faces' scores (n x players, `colours` order)."""
        out = []
        for row in np.asarray(scores, np.float64).reshape(-1, len(self._colours)):
            order = np.argsort(row, kind="stable")
            best = int(order[0])
            second = int(order[1]) if len(order) > 1 else None
            rule = self._naming[best]
            out.append(
                ColourMatch(
                    colour=self._colours[best],
                    distance=float(row[best]),
                    runner_up=None if second is None else self._colours[second],
                    runner_up_distance=math.inf if second is None else float(row[second]),
                    threshold=rule.threshold,
                    margin=rule.margin,
                    stand_in=self._colours[best] in self.stand_ins,
                )
            )
        return out

    # -- classification ------------------------------------------------------------------------------------
    def match_lab(self, lab: Sequence[float]) -> ColourMatch:
        """Classify a (balanced) Lab colour, without the glare model of `match`."""
        return self._match_distances(lab_distance(self._matrix, np.asarray(lab, dtype=np.float32)))

    def _match_distances(self, d: npt.NDArray[np.floating[Any]]) -> ColourMatch:
        order = np.argsort(d)
        best = int(order[0])
        second = int(order[1]) if len(order) > 1 else None
        return ColourMatch(
            colour=self._colours[best],
            distance=float(d[best]),
            runner_up=None if second is None else self._colours[second],
            runner_up_distance=math.inf if second is None else float(d[second]),
            threshold=self.threshold_for(self._colours[best]),
            margin=self.margin,
            stand_in=self._colours[best] in self.stand_ins,
        )

    def threshold_for(self, colour: Colour) -> float:
        """The rejection distance around one reference: saturated colours tolerate more (glare washes them
        out, and the margin to the runner-up still guards against confusions); neutral ones `threshold`."""
        _l, a, b = self.references[colour]
        chroma = min(math.hypot(a, b), 70.0)
        return self.threshold * (1.0 + CHROMA_TOLERANCE * chroma / 70.0)

    def match(self, bgr: Sequence[float], white_bgr: Sequence[float] | None = None) -> ColourMatch:
        """Classify a BGR body colour seen in a frame whose sticker white is `white_bgr` (None: as is).

        Glare veils a die in white light: the balanced sample is compared with each reference both as it is
        and with the veil taken off (`sample = (1 - a) * reference + a * white`, `a` fitted per reference up
        to `MAX_GLARE`), the latter costing `GLARE_PENALTY * a`; the smaller distance counts.
        """
        return self.match_many([bgr], white_bgr)[0]

    def match_many(
        self, colours: Sequence[Sequence[float]], white_bgr: Sequence[float] | None = None
    ) -> list[ColourMatch]:
        """`match` for many colours of one frame at once, with the same numbers (a table's dice: one pass of
        numpy's operations instead of one per die)."""
        if len(colours) == 0:
            return []
        samples = balance(np.asarray(colours, np.float64).reshape(-1, 3), white_bgr).astype(np.float64)
        n, r = len(samples), len(self._matrix)
        labs = bgr_to_lab(samples)
        d = lab_distance(np.tile(self._matrix, (n, 1)), np.repeat(labs, r, axis=0)).astype(np.float64)
        d = d.reshape(n, r)
        # every sample against every reference: the veil towards white from each, how much of it it shows
        white = np.full(3, WHITE_TARGET)
        refs = np.asarray(self._bgr, np.float64).reshape(-1, 3)
        veils = white - refs
        norms = np.einsum("ij,ij->i", veils, veils)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = _clip(((samples[:, None, :] - refs[None]) * veils[None]).sum(axis=2) / norms, 0.0, MAX_GLARE)
        veiled = (norms >= 1e-6)[None] & (a > 0.02)
        if veiled.any():
            which, ref = np.nonzero(veiled)
            av = a[which, ref][:, None]
            unveiled = _clip((samples[which] - av * white) / (1.0 - av), 0.0, 255.0)
            alt = lab_distance(self._matrix[ref], bgr_to_lab(unveiled)).astype(np.float64)
            d[which, ref] = np.minimum(d[which, ref], alt + GLARE_PENALTY * a[which, ref])
        return [self._match_distances(row) for row in d]

    def nearest(self, bgr: Sequence[float], white_bgr: Sequence[float] | None = None) -> tuple[Colour, float]:
        """The nearest player colour and its distance; callers compare with `threshold` (see `match`)."""
        m = self.match(bgr, white_bgr)
        return m.colour, m.distance

    # -- persistence ---------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Version 2: every player's die model; the references (main colours) ride along for a reader's
        eyes."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "threshold": self.threshold,
            "margin": self.margin,
            "references": {c.value: [round(v, 3) for v in self.references[c]] for c in self.measured},
            "models": {c.value: self.models[c].to_json() for c in self.measured},
        }

    @classmethod
    def from_json(cls, obj: object) -> ColourCalibration:
        """Versions 1 (references alone) and 2 (die models)."""
        if not isinstance(obj, dict):
            raise CalibrationError(f"a colour calibration must be a JSON object, got {obj!r:.80}")
        if obj.get("format") != FORMAT:
            raise CalibrationError(
                f"not a colour calibration: format is {obj.get('format')!r}, expected {FORMAT!r}"
            )
        version = obj.get("version")
        if not isinstance(version, int) or not 1 <= version <= VERSION:
            raise CalibrationError(
                f"colour calibration version {version!r} is not supported (this reads 1..{VERSION})"
            )
        problems: list[str] = []
        threshold = obj.get("threshold", DEFAULT_THRESHOLD)
        margin = obj.get("margin", DEFAULT_MARGIN)
        if not isinstance(threshold, int | float) or not isinstance(margin, int | float):
            problems.append(f"threshold {threshold!r} and margin {margin!r} must be numbers")
            threshold, margin = DEFAULT_THRESHOLD, DEFAULT_MARGIN
        if version >= 2:
            models = _parse_by_colour(obj.get("models"), "models", "colour -> die model", DieModel.from_json,
                                      problems)  # fmt: skip
            if problems:
                raise CalibrationError("invalid colour calibration: " + "; ".join(problems))
            return cls(threshold=float(threshold), margin=float(margin), models=models)
        refs = _parse_by_colour(
            obj.get("references"), "references", "colour -> [L, a, b]", _reference, problems
        )
        if problems:
            raise CalibrationError("invalid colour calibration: " + "; ".join(problems))
        return cls(refs, threshold=float(threshold), margin=float(margin))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ColourCalibration:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            msg = f"cannot read colour calibration {str(p)!r}: {exc.strerror or exc}"
            raise CalibrationError(msg) from exc
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"colour calibration {str(p)!r} is not JSON: {exc}") from exc
        return cls.from_json(obj)


def _reference(lab: object) -> Lab:
    if not (isinstance(lab, list) and len(lab) == 3 and all(isinstance(v, int | float) for v in lab)):
        raise CalibrationError(f"{lab!r} is not [L, a, b]")
    return (float(lab[0]), float(lab[1]), float(lab[2]))


def _parse_by_colour(
    obj: object, key: str, shape: str, parse: Callable[[object], T], problems: list[str]
) -> dict[Colour, T]:
    """`obj` as {colour name: parse(value)}; every problem quoted into `problems`."""
    if not isinstance(obj, dict):
        problems.append(f"{key!r} must be an object of {shape}, got {obj!r:.80}")
        return {}
    out: dict[Colour, T] = {}
    for name, value in obj.items():
        try:
            colour = Colour(name)
        except ValueError:
            problems.append(f"unknown colour {name!r}")
            continue
        try:
            out[colour] = parse(value)
        except CalibrationError as exc:
            problems.append(f"{name}: {exc}")
    if not out and not problems:
        problems.append(f"{key!r} holds no colour: a calibration needs one player's or more (none)")
    return out


def sticker_white(image: npt.NDArray[np.uint8], quads: Sequence[npt.NDArray[Any]] | None = None) -> BGR:
    """Estimate the table's white (sticker paper) in `image`.

    With sticker corner quads (from the QR decoder), the white is the bright paper around
    each code:
    the 90th percentile per channel of the pixels inside the quads enlarged by 25% (codes are half black;
    the 90th percentile is paper, not glare, which is rarer). Without quads, the 99th percentile of the
    whole frame's low-saturation pixels is used (a weaker guess).
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        raise CalibrationError(f"expected a BGR image, got an array of shape {image.shape!r}")
    samples: list[npt.NDArray[np.uint8]] = []
    h, w = image.shape[:2]
    chosen = list(quads or ())
    if len(chosen) > 16:  # a spread of 16 stickers is plenty, and keeps this under a millisecond or two
        chosen = [chosen[i] for i in np.linspace(0, len(chosen) - 1, 16).round().astype(int)]
    for quad in chosen:
        # a sticker's four corners: plain floats beat numpy's reductions on so few
        xs, ys = zip(*np.asarray(quad, dtype=np.float32).reshape(-1, 2).tolist(), strict=True)
        cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
        x0, x1 = math.floor((min(xs) - cx) * 1.25 + cx), math.ceil((max(xs) - cx) * 1.25 + cx)
        y0, y1 = math.floor((min(ys) - cy) * 1.25 + cy), math.ceil((max(ys) - cy) * 1.25 + cy)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            step = max(1, min(x1 - x0, y1 - y0) // 24)  # ~600 samples per sticker are plenty
            samples.append(image[y0:y1:step, x0:x1:step].reshape(-1, 3))
    if samples:
        pix = np.concatenate(samples)
        # per column, channels apart: numpy's reductions across a row of three cost 2 ms a frame here
        unclipped = np.maximum(np.maximum(pix[:, 0], pix[:, 1]), pix[:, 2]) < 254
        channels = np.ascontiguousarray(pix[unclipped].T)
        if channels.shape[1] >= 16:
            b, g, r = _percentile_rows(channels, 90.0)
            return (max(b, 1.0), max(g, 1.0), max(r, 1.0))
    small = image[::4, ::4].reshape(-1, 3).astype(np.float32)
    sat = small.max(axis=1) - small.min(axis=1)
    neutral = small[(sat < 0.35 * small.max(axis=1) + 10) & (small.max(axis=1) < 254)]
    pool = neutral if len(neutral) >= 16 else small
    bright = pool[pool.mean(axis=1) >= np.percentile(pool.mean(axis=1), 98)]
    b, g, r = (float(v) for v in np.median(bright, axis=0))
    return (max(b, 1.0), max(g, 1.0), max(r, 1.0))


def _percentile_rows(rows: npt.NDArray[np.uint8], q: float) -> tuple[float, float, float]:
    """Each of three rows' `q`th percentile, interpolated linearly as `np.percentile` does, from a partition
    of the bytes themselves (a third of its time on a table's sticker samples)."""
    at = q / 100.0 * (rows.shape[1] - 1)
    lo = math.floor(at)
    hi = min(lo + 1, rows.shape[1] - 1)
    part = np.partition(rows, (lo, hi), axis=1)
    low, high = part[:, lo].tolist(), part[:, hi].tolist()
    b, g, r = (a + (at - lo) * (z - a) for a, z in zip(low, high, strict=True))
    return b, g, r


def default_calibration(colours: Sequence[Colour] | None = None) -> ColourCalibration:
    """Models of the synthetic renderer's dice (`vision.synth.DIE_COLOURS` and `PIP_COLOURS`, neutral light),
    known exactly, so trusted as a model of three dice; the demo's and the tests' calibration."""
    from vision import synth

    white = (WHITE_TARGET, WHITE_TARGET, WHITE_TARGET)
    # The renderer's paper white is pure white; its die colours are given under that light.
    models: dict[Colour, DieModel] = {}
    for colour in colours if colours is not None else list(synth.DIE_COLOURS):
        body, pips = (bgr_to_lab(balance(_body_bgr(c), white))[0] for c in
                      (synth.DIE_COLOURS[colour], synth.PIP_COLOURS[colour]))  # fmt: skip
        models[colour] = DieModel(
            (DieColour(_lab3(body), 0.85), DieColour(_lab3(pips), 0.15, pips=True)), spread=2.0, dice=3
        )
    return ColourCalibration.of_models(models)


def unmeasured_calibration() -> ColourCalibration:
    """No player's dice measured: every colour a stand-in (`default_calibration`'s models), so that every die
    is asked and none named. A real camera's before its box setup: the synthetic camera's colours would name
    real dice by dice they are not."""
    defaults = default_calibration()
    return ColourCalibration(models=defaults.models, stand_ins=frozenset(defaults.colours))


def _lab3(values: npt.NDArray[np.float32]) -> Lab:
    return (float(values[0]), float(values[1]), float(values[2]))


def _body_bgr(entry: object) -> BGR:
    """DIE_COLOURS entries are a BGR triple or a (body, pips) pair; accept both."""
    if isinstance(entry, tuple | list) and len(entry) == 2 and isinstance(entry[0], tuple | list):
        entry = entry[0]
    body = getattr(entry, "body", entry)
    if not (isinstance(body, tuple | list) and len(body) == 3):
        raise CalibrationError(f"unexpected DIE_COLOURS entry {entry!r}")
    b, g, r = (float(v) for v in body)
    return (b, g, r)

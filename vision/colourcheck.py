"""Measuring the players' dice at box setup, and checking every measurement before anyone plays on it.

A player's dice (one or more, in one frame) are measured by `measure`: each die's face sampled as the table
reader samples it (`vision.dicecolour`), balanced by the stickers' white, and a `DieModel` fitted to them all.
A measurement carries its `Problem`s, each a `Doubt` with the measured numbers quoted:

- `NO_WHITE` / `DARK_WHITE`: no sticker in view, or stickers too dark, so the colours cannot be balanced;
- `TOO_SMALL`: a die under `MIN_DIE_PX` across: too few pixels to tell its colours;
- `GLARE`: more than `1 - MIN_USABLE` of a die's face is clipped white (a lamp's reflection, or so much light
  that its colours are lost);
- `LIKE_SURROUNDINGS`: the tile around a die fits the die's model nearly as well as the die does
  (`SURROUNDINGS_APART`): what was measured may be the tile;
- `DICE_DIFFER`: with several dice, one fits the model of the others worse than `DICE_APART`;
- `LIKE_OTHER` (from `separation`, across players): a player's measured faces score within `SEPARATION` of
  another player's model as of their own (the second closest face of four or more, the closest of fewer):
  at play the camera could not tell the two apart.

A measurement with a problem is refused; `picture` shows what was measured (each die with the pixels taken
as body and as pips marked, and the model's colours) for the players to see why.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from vision.dicecolour import (
    DieModel,
    FaceSamples,
    Palette,
    fit_model,
    grid_points,
    pixel_distances,
    ring_points,
    sample_points,
    score_faces,
)
from vision.errors import CalibrationError
from vision.lab import lab_to_bgr

Box = tuple[int, int, int, int]
FloatArray = npt.NDArray[np.float32]

MIN_DIE_PX = 12
MIN_USABLE = 0.6
# The sticker white's darkest channel below this: too little light to measure colours by.
MIN_WHITE = 60.0
# Chosen on the real photographs' tuning split (docs/colour-calibration.md).
SURROUNDINGS_APART = 4.0
DICE_APART = 32.0
SEPARATION = 5.0


class Doubt(Enum):
    """Why a measurement of a player's dice is refused."""

    NO_WHITE = "no-white"
    DARK_WHITE = "dark-white"
    TOO_SMALL = "too-small"
    GLARE = "glare"
    LIKE_SURROUNDINGS = "like-surroundings"
    DICE_DIFFER = "dice-differ"
    LIKE_OTHER = "like-other"


_SENTENCES: dict[Doubt, str] = {
    Doubt.NO_WHITE: "no sticker in view to balance the colours by ({detail}): put a tile's stickers in view",
    Doubt.DARK_WHITE: "the stickers read too dark to measure colours by ({detail}): more light, please",
    Doubt.TOO_SMALL: "the {colour} die is too small in the picture ({detail}): bring the camera closer",
    Doubt.GLARE: "glare covers the {colour} die ({detail}): move the lamp or turn the die",
    Doubt.LIKE_SURROUNDINGS: "the {colour} die can hardly be told from the tile around it ({detail})",
    Doubt.DICE_DIFFER: "the {colour} dice do not look alike ({detail}): is one of them another player's?",
    Doubt.LIKE_OTHER: "{colour} and {other} dice look too alike for the camera ({detail}): "
    "use dice that differ more",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason to refuse a measurement: the `doubt`, the measured numbers (`detail`), the die it is
    about (index into the measurement's dice, None: all of them), and the other player for `LIKE_OTHER`."""

    doubt: Doubt
    detail: str
    die: int | None = None
    other: Colour | None = None

    def sentence(self, colour: Colour) -> str:
        """What to tell the players (English; `companion` translates by `doubt`)."""
        other = "" if self.other is None else self.other.value
        return _SENTENCES[self.doubt].format(colour=colour.value, other=other, detail=self.detail)

    def to_json(self) -> dict[str, Any]:
        return {
            "doubt": self.doubt.value,
            "detail": self.detail,
            "die": self.die,
            "other": None if self.other is None else self.other.value,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Problem:
        try:
            other = obj.get("other")
            return cls(
                Doubt(obj["doubt"]),
                str(obj.get("detail", "")),
                None if obj.get("die") is None else int(obj["die"]),
                None if other is None else Colour(other),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise CalibrationError(f"not a measurement problem: {dict(obj)!r:.120} ({exc})") from exc


@dataclass(frozen=True, slots=True)
class Measurement:
    """A player's dice as measured: the fitted model, each die's usable face pixels (balanced Lab, what the
    checks score), its problems (refused when any), and the picture of what was measured (BGR, or None when
    none was drawn)."""

    model: DieModel
    faces: tuple[FloatArray, ...]
    problems: tuple[Problem, ...] = ()
    picture: npt.NDArray[np.uint8] | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def dice(self) -> int:
        return len(self.faces)

    def to_json(self, *, picture: bool = True) -> dict[str, Any]:
        """JSON (the camera process sends it to the app): the faces' pixels to 0.1, the picture as PNG."""
        doc: dict[str, Any] = {
            "model": self.model.to_json(),
            "faces": [np.round(f, 1).tolist() for f in self.faces],
            "problems": [p.to_json() for p in self.problems],
        }
        if picture and self.picture is not None:
            doc["picture"] = base64.b64encode(picture_png(self.picture)).decode("ascii")
        return doc

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Measurement:
        try:
            faces = tuple(np.asarray(f, np.float32).reshape(-1, 3) for f in obj["faces"])
            problems = tuple(Problem.from_json(p) for p in obj.get("problems", ()))
            model = DieModel.from_json(obj["model"])
        except (KeyError, ValueError, TypeError) as exc:
            raise CalibrationError(f"not a dice measurement: {str(obj)[:120]!r} ({exc})") from exc
        image = None
        if obj.get("picture"):
            data = np.frombuffer(base64.b64decode(obj["picture"]), np.uint8)
            image = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
        return cls(model, faces, problems, image)


def picture_png(picture: npt.NDArray[np.uint8]) -> bytes:
    ok, png = cv2.imencode(".png", picture)
    if not ok:
        raise CalibrationError(f"cannot encode a picture of shape {picture.shape!r}")
    return bytes(png.tobytes())


# -- measuring -------------------------------------------------------------------------------------------


def measure(
    image: npt.NDArray[np.uint8],
    boxes: Sequence[Sequence[float]],
    white_bgr: Sequence[float] | None,
    *,
    others: Sequence[Sequence[float]] = (),
    extents: Sequence[Sequence[float]] | None = None,
    stickers: Sequence[npt.ArrayLike] = (),
    sure: Sequence[bool] = (),
    drawn: bool = True,
) -> Measurement:
    """One player's dice (`boxes` in `image`, whose sticker white is `white_bgr`: whole dice's, or their top
    faces'; the middle half of each is measured), measured and checked alone (`separation` checks players
    against one another). `extents`: where each whole die shows in the frame, when `boxes` are top faces
    (its side faces are not the tile around it); `others`: every other die's, kept out of that tile, as are
    the `stickers` (their quads, frame px: black and white paper, not the tile's art). `sure`: per die,
    whether the dice reader is sure it is a die: such a die is not asked whether it is the tile (a black die
    with white pips on a dark castle beside its stickers looks like its surroundings, and is still a die).
    `drawn`: whether the picture of what was measured is drawn (for the players to see)."""
    if len(boxes) == 0:
        raise CalibrationError("no die to measure")
    b = [tuple(float(v) for v in box) for box in boxes]
    problems = _white_problems(white_bgr)
    white = None if any(p.doubt is Doubt.NO_WHITE for p in problems) else white_bgr
    faces = sample_points(image, grid_points(b), white)
    pixels = [faces.lab[i][faces.ok[i]] for i in range(len(b))]
    problems += _die_problems(b, faces)
    usable = [p for p in pixels if len(p) >= 8]
    if not usable:
        problems.append(Problem(Doubt.GLARE, f"no usable pixel on {len(b)} dice"))
        usable = [faces.lab[i].reshape(-1, 3) for i in range(len(b))]
    model = fit_model(np.concatenate(usable), dice=len(usable)).model
    if not any(p.doubt is Doubt.GLARE for p in problems):
        problems += _differ(pixels)
        whole = b if extents is None else [tuple(float(v) for v in box) for box in extents]
        asked = [k for k in range(len(b)) if not (k < len(sure) and sure[k])]
        paper = _paper(image.shape, stickers)
        problems += _surroundings(
            image, whole, list(others), white, model=model, pixels=pixels, paper=paper, asked=asked
        )
    picture = draw(image, b, faces, model, problems) if drawn else None
    return Measurement(model, tuple(pixels), tuple(problems), picture)


def _white_problems(white_bgr: Sequence[float] | None) -> list[Problem]:
    if white_bgr is None:
        return [Problem(Doubt.NO_WHITE, "no sticker read in this picture")]
    low = min(float(v) for v in white_bgr)
    if not math.isfinite(low) or low < MIN_WHITE:
        shown = ", ".join(f"{float(v):.0f}" for v in white_bgr)
        return [Problem(Doubt.DARK_WHITE, f"sticker white B, G, R = {shown}, under {MIN_WHITE:.0f}")]
    return []


def _die_problems(boxes: Sequence[Sequence[float]], faces: FaceSamples) -> list[Problem]:
    out: list[Problem] = []
    n = faces.ok.shape[1]
    clipped = faces.clipped if faces.clipped is not None else ~faces.ok
    for i, box in enumerate(boxes):
        side = min(box[2] - box[0], box[3] - box[1])
        white = int(clipped[i].sum())
        if side < MIN_DIE_PX:
            out.append(Problem(Doubt.TOO_SMALL, f"{side:.0f} px across, under {MIN_DIE_PX}", i))
        elif white > (1.0 - MIN_USABLE) * n or int(faces.ok[i].sum()) < MIN_USABLE * n:
            out.append(Problem(Doubt.GLARE, f"{white} of its {n} pixels clipped white", i))
    return out


def _differ(pixels: Sequence[FloatArray]) -> list[Problem]:
    """With several dice: each die against the model of the others."""
    if len(pixels) < 2:
        return []
    out: list[Problem] = []
    for i, face in enumerate(pixels):
        rest = [p for j, p in enumerate(pixels) if j != i]
        model = fit_model(np.concatenate(rest), dice=len(rest)).model
        score = float(score_faces(FaceSamples.of_pixels([face]), Palette.of([model])).score[0, 0])
        if score > DICE_APART:
            out.append(Problem(Doubt.DICE_DIFFER, f"die {i + 1} of {len(pixels)} scores {score:.0f} "
                               f"against the others, over {DICE_APART:.0f}", i))  # fmt: skip
    return out


def _paper(shape: tuple[int, ...], stickers: Sequence[npt.ArrayLike]) -> npt.NDArray[np.bool_] | None:
    """The stickers' quads as a mask of the frame, or None when there are none."""
    if not stickers:
        return None
    mask = np.zeros(shape[:2], np.uint8)
    quads = [np.asarray(q, np.float64).reshape(-1, 2).round().astype(np.int32) for q in stickers]
    cv2.fillPoly(mask, quads, 1)
    return mask.astype(bool)


def _surroundings(
    image: npt.NDArray[np.uint8],
    boxes: Sequence[Sequence[float]],
    others: Sequence[Sequence[float]],
    white: Sequence[float] | None,
    *,
    model: DieModel,
    pixels: Sequence[FloatArray],
    paper: npt.NDArray[np.bool_] | None = None,
    asked: Sequence[int] | None = None,
) -> list[Problem]:
    """The tile around each die `asked` (all by default; every die's box grown a fifth and the `paper` mask
    kept out) and the die, each against the other's model: a die is like its surroundings when both fit
    within `SURROUNDINGS_APART` of how the die fits its own (what was measured may be the tile). Both ways,
    so that a white die on white paper (the paper has no pips) or beside a sticker (the die has no tile art)
    is a die."""
    ring = sample_points(image, ring_points(boxes), white)
    dice = np.asarray([*boxes, *others], np.float32).reshape(-1, 4)
    centre = (dice[:, :2] + dice[:, 2:]) / 2.0
    half = (dice[:, 2:] - dice[:, :2]) * 0.6
    out: list[Problem] = []
    for i, face in enumerate(pixels):
        if asked is not None and i not in asked:
            continue
        pts = ring.points[i].astype(np.float32)
        inside = (np.abs(pts[:, None, :] - centre[None]) <= half[None]).all(axis=2).any(axis=1)
        if paper is not None:
            xs = np.clip(pts[:, 0].astype(np.int32), 0, paper.shape[1] - 1)
            ys = np.clip(pts[:, 1].astype(np.int32), 0, paper.shape[0] - 1)
            inside |= paper[ys, xs]
        tile = ring.lab[i][ring.ok[i] & ~inside]
        if len(tile) < 16 or len(face) < 8:
            continue
        around = fit_model(tile).model
        both = FaceSamples.of_pixels([face, tile])
        own, tile_as_die = score_faces(both, Palette.of([model])).score[:, 0]
        die_as_tile = float(score_faces(both, Palette.of([around])).score[0, 0])
        gap = max(float(tile_as_die), die_as_tile) - float(own)
        if gap < SURROUNDINGS_APART:
            detail = f"die and tile each within {gap:.0f} of the die alone, under {SURROUNDINGS_APART:.0f}"
            out.append(Problem(Doubt.LIKE_SURROUNDINGS, detail, i))
    return out


def separation(measurements: Mapping[Colour, Measurement]) -> dict[Colour, list[Problem]]:
    """Players' measured dice against one another: a player's faces that score within `SEPARATION` of another
    player's model as of their own make both refused (`LIKE_OTHER`)."""
    colours = list(measurements)
    out: dict[Colour, list[Problem]] = {c: [] for c in colours}
    if len(colours) < 2:
        return out
    models = [measurements[c].model for c in colours]
    for i, colour in enumerate(colours):
        for other, gap in _too_near(measurements[colour], i, models, colours).items():
            detail = _apart(gap)
            for a, b in ((colour, other), (other, colour)):
                if not any(p.other is b for p in out[a]):
                    out[a].append(Problem(Doubt.LIKE_OTHER, detail, None, b))
    return out


def apart_from(measurement: Measurement, models: Mapping[Colour, DieModel]) -> list[Problem]:
    """One player's measured dice against other players' models alone (their faces not at hand, as for a
    saved calibration): `LIKE_OTHER` for each model the faces score within `SEPARATION` of their own."""
    colours = list(models)
    near = _too_near(measurement, len(colours), [*models.values(), measurement.model], colours)
    return [Problem(Doubt.LIKE_OTHER, _apart(gap), None, c) for c, gap in near.items()]


def _apart(gap: float) -> str:
    return f"{gap:.0f} apart, under {SEPARATION:.0f}"


def _too_near(
    measurement: Measurement, own: int, models: Sequence[DieModel], colours: Sequence[Colour]
) -> dict[Colour, float]:
    """The colours (`colours[j]`: `models[j]`) whose model the measurement's faces score within `SEPARATION`
    of their own (`models[own]`), with the gap: the second smallest of four faces or more, against a
    stray one."""
    faces = [f for f in measurement.faces if len(f)]
    if not faces:
        return {}
    scores = score_faces(FaceSamples.of_pixels(faces), Palette.of(list(models))).score  # faces x models
    out = {}
    for j, other in enumerate(colours):
        if j == own:
            continue
        gaps = np.sort(scores[:, j] - scores[:, own])
        gap = float(gaps[1] if len(gaps) >= 4 else gaps[0])
        if gap < SEPARATION:
            out[other] = gap
    return out


def merged(first: Measurement, second: Measurement) -> Measurement:
    """Two measurements of one player's dice (two taps, other faces up) as one: all the faces, a model fitted
    to them all, checked again for dice that differ. Problems with the light or a die's pixels are kept."""
    faces = [f for f in (*first.faces, *second.faces) if len(f) >= 8]
    if not faces:
        return second
    model = fit_model(np.concatenate(faces), dice=len(faces)).model
    kept = [
        p for m in (first, second) for p in m.problems if p.doubt not in (Doubt.DICE_DIFFER, Doubt.LIKE_OTHER)
    ]
    return Measurement(model, tuple(faces), tuple(kept) + tuple(_differ(faces)), second.picture)


# -- the picture -----------------------------------------------------------------------------------------

CROP_PX = 120
BODY_MARK = (60, 200, 60)
PIPS_MARK = (200, 60, 200)
GLARE_MARK = (150, 150, 150)
REFUSED = (40, 40, 220)


def draw(
    image: npt.NDArray[np.uint8],
    boxes: Sequence[Sequence[float]],
    faces: FaceSamples,
    model: DieModel,
    problems: Sequence[Problem],
) -> npt.NDArray[np.uint8]:
    """Each die enlarged (`CROP_PX` tall), as it is and with its sampled pixels marked by the model's colour
    nearest to them:
    green where that is a body colour, magenta where the pips', a grey cross where unusable (glare); a red
    frame round a die a problem is about (round all of them for a problem about every die); under them,
    the model's colours as swatches, the pips' with a dot."""
    colours = np.asarray([c.lab for c in model.colours], np.float32)
    is_pip = np.asarray([c.pips for c in model.colours], bool)
    blamed = {p.die for p in problems}
    tiles = []
    for i, box in enumerate(boxes):
        pips = is_pip[np.argmin(pixel_distances(faces.lab[i], colours), axis=1)]
        refused = i in blamed or (None in blamed and bool(problems))
        tiles.append(_die_tile(image, box, faces.points[i], faces.ok[i], pips=pips, refused=refused))
    row = np.hstack(tiles)
    return np.vstack([row, _swatches(model, row.shape[1])])


def _die_tile(
    image: npt.NDArray[np.uint8],
    box: Sequence[float],
    points: npt.NDArray[np.int32],
    usable: npt.NDArray[np.bool_],
    *,
    pips: npt.NDArray[np.bool_],
    refused: bool,
) -> npt.NDArray[np.uint8]:
    x0, y0, x1, y1 = box
    cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 0.7
    h, w = image.shape[:2]
    ix0, iy0 = max(0, int(cx - half)), max(0, int(cy - half))
    ix1, iy1 = min(w, math.ceil(cx + half)), min(h, math.ceil(cy + half))
    tile = np.zeros((CROP_PX, CROP_PX, 3), np.uint8)
    crop = image[iy0:iy1, ix0:ix1]
    if crop.size == 0:
        return np.hstack([tile, tile])
    scale = CROP_PX / max(crop.shape[:2])
    size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
    big = cv2.resize(crop, size, interpolation=cv2.INTER_NEAREST)
    tile[: big.shape[0], : big.shape[1]] = big[:CROP_PX, :CROP_PX]
    plain = tile.copy()
    for (px, py), ok, pip in zip(points.tolist(), usable.tolist(), pips.tolist(), strict=True):
        at = (round((px + 0.5 - ix0) * scale), round((py + 0.5 - iy0) * scale))
        if ok:
            cv2.circle(tile, at, 1, PIPS_MARK if pip else BODY_MARK, -1, cv2.LINE_AA)
        else:
            cv2.drawMarker(tile, at, GLARE_MARK, cv2.MARKER_TILTED_CROSS, 4, 1)
    both = np.hstack([plain, tile])
    if refused:
        cv2.rectangle(both, (0, 0), (both.shape[1] - 1, CROP_PX - 1), REFUSED, 3)
    return both


def _swatches(model: DieModel, width: int) -> npt.NDArray[np.uint8]:
    strip = np.full((28, width, 3), 255, np.uint8)
    bgr = lab_to_bgr(np.asarray([c.lab for c in model.colours], np.float32))
    x = 4
    for colour, value in zip(model.colours, bgr, strict=True):
        size = 20
        fill = tuple(int(v) for v in np.clip(value, 0, 255))
        cv2.rectangle(strip, (x, 4), (x + size, 4 + size), fill, -1)
        cv2.rectangle(strip, (x, 4), (x + size, 4 + size), (0, 0, 0), 1)
        if colour.pips:
            cv2.circle(strip, (x + size // 2, 4 + size // 2), 4, PIPS_MARK, -1, cv2.LINE_AA)
        x += size + 6
        if x + size > width:
            break
    return strip

"""Dice faces cut from the real photographs, as looks for the training tables (`vision.synth.DieLook`).

The realism benchmark's face library (`bench/realtable/data/`: every labelled die of the real photographs,
its top face straightened, grouped into kinds — one physical die design each — and split once) is read here
as data: training takes only its `train` split, so the kinds and photographs it holds out stay unseen by the
networks and by every threshold. A player's dice on a training table are one kind, as at a real table; a
face is a random one of that kind's faces of the value, in a random quarter turn. Some players' dice are a
training kind recoloured (`RecolouredLook`): its faces' swirls, gloss and pip shapes in new body and pip
colours, so the networks meet combinations no training kind has (coloured pips on a marbled body, say).

The held-out kinds' dice also lie in the photographs' tuning split; `held_out_dice` names them, and training
hides them (`vision.dice_model.data.real_samples`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

LIBRARY = Path(__file__).resolve().parents[2] / "bench" / "realtable" / "data"
FACE_PX = 48  # the atlas's faces, straightened
ATLAS_COLUMNS = 32
TRAIN = "train"


class FaceLibraryError(ValueError):
    """The face library is missing or malformed."""


@dataclass(frozen=True, slots=True)
class PhotoLook:
    """One kind of real die: its photographed faces by value. A value the kind has no face of is drawn in
    the kind's own body and pip colours."""

    kind: str
    faces: Mapping[int, Sequence[Image]]
    body: tuple[int, int, int]
    pips: tuple[int, int, int]

    def face(self, value: int, px: int, rng: np.random.Generator) -> Image:
        options = self.faces.get(value, ())
        if not options:
            from vision.synth import DrawnLook

            return DrawnLook(self.body, self.pips).face(value, px, rng)
        face = options[int(rng.integers(0, len(options)))]
        turned = np.rot90(face, int(rng.integers(0, 4)))
        out = cv2.resize(turned, (px, px), interpolation=cv2.INTER_AREA if px < FACE_PX else cv2.INTER_LINEAR)
        return np.asarray(out, np.uint8)


def _library(folder: Path) -> tuple[dict[str, Any], set[str]]:
    """The library's `faces.json`, and the ids of its held-out kinds."""
    try:
        doc = json.loads((folder / "faces.json").read_text())
        return doc, {str(k["id"]) for k in doc.get("kinds", []) if k.get("held_out")}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise FaceLibraryError(f"cannot read the face library in {str(folder)!r}: {exc}") from exc


def load_looks(folder: Path = LIBRARY, split: str = TRAIN) -> list[PhotoLook]:
    """One look per kind that has faces in `split`, from the library's `faces.json` and `faces.jpg`."""
    doc, held = _library(folder)
    atlas = cv2.imread(str(folder / "faces.jpg"), cv2.IMREAD_COLOR)
    if atlas is None:
        raise FaceLibraryError(f"cannot decode {str(folder / 'faces.jpg')!r}")
    by_kind: dict[str, dict[int, list[Image]]] = {}
    for die in doc.get("dice", []):
        if die.get("split") != split or die.get("atlas") is None or die.get("kind") in held:
            continue
        k = int(die["atlas"])
        r, c = divmod(k, ATLAS_COLUMNS)
        face = atlas[r * FACE_PX : (r + 1) * FACE_PX, c * FACE_PX : (c + 1) * FACE_PX]
        if face.shape[:2] != (FACE_PX, FACE_PX):
            raise FaceLibraryError(f"atlas face {k} of {die.get('id')!r} lies outside faces.jpg")
        by_kind.setdefault(str(die["kind"]), {}).setdefault(int(die["value"]), []).append(
            np.array(face, np.uint8)
        )
    looks = []
    for kind, faces in sorted(by_kind.items()):
        body, pips = _colours(faces)
        looks.append(PhotoLook(kind, {v: tuple(f) for v, f in faces.items()}, body, pips))
    if not looks:
        raise FaceLibraryError(f"the face library in {str(folder)!r} has no faces in split {split!r}")
    return looks


def _colours(faces: Mapping[int, Sequence[Image]]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A kind's body colour (its faces' middles' median) and pip colour (the pixels farthest from it)."""
    middles = [f[8:-8, 8:-8].reshape(-1, 3) for fs in faces.values() for f in fs]
    pixels = np.concatenate(middles).astype(np.float32)
    body = np.median(pixels, axis=0)
    far = np.linalg.norm(pixels - body, axis=1)
    pips = np.median(pixels[far >= np.percentile(far, 90)], axis=0)
    return (
        (int(body[0]), int(body[1]), int(body[2])),
        (int(pips[0]), int(pips[1]), int(pips[2])),
    )


def held_out_dice(folder: Path = LIBRARY) -> dict[str, frozenset[int]]:
    """Photo name -> the indices (in its label file) of its dice of a held-out kind, whatever their split."""
    doc, held = _library(folder)
    try:
        pairs = [(str(d["photo"]), int(d["index"])) for d in doc["dice"] if d.get("kind") in held]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise FaceLibraryError(f"cannot read the face library in {str(folder)!r}: {exc}") from exc
    out: dict[str, set[int]] = {}
    for photo, index in pairs:
        out.setdefault(photo, set()).add(index)
    return {photo: frozenset(indices) for photo, indices in out.items()}


@dataclass(frozen=True, slots=True)
class RecolouredLook:
    """A training kind's faces in other colours: each pixel is split into body and pip by where it lies
    between the kind's body and pip colours; what is neither (swirls, gloss, shading) is kept as it was."""

    base: PhotoLook
    body: tuple[int, int, int]
    pips: tuple[int, int, int]
    texture: float = 1.0  # how strongly the kind's own swirls and shading show

    def face(self, value: int, px: int, rng: np.random.Generator) -> Image:
        f = self.base.face(value, px, rng).astype(np.float32)
        old_body = np.asarray(self.base.body, np.float32)
        old_pips = np.asarray(self.base.pips, np.float32)
        span = old_pips - old_body
        share = np.clip(((f - old_body) @ span) / max(float(span @ span), 1.0), 0.0, 1.0)[..., None]
        rest = f - (old_body + share * span)
        new_body = np.asarray(self.body, np.float32)
        out = new_body + share * (np.asarray(self.pips, np.float32) - new_body) + self.texture * rest
        return np.asarray(np.clip(np.rint(out), 0, 255), np.uint8)


def _contrasting(rng: np.random.Generator) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Body and pip colours far enough apart in Lab for pips to show: any colours, white and black bodies,
    light, dark or coloured pips."""
    def colour(lo: int, hi: int) -> tuple[int, int, int]:
        b, g, r = (int(v) for v in rng.integers(lo, hi, 3))
        return (b, g, r)

    while True:
        kind = rng.random()
        body = colour(200, 256) if kind < 0.15 else colour(5, 60) if kind < 0.3 else colour(0, 256)
        pips = colour(0, 256)
        lab = cv2.cvtColor(np.array([[body, pips]], np.uint8), cv2.COLOR_BGR2LAB).astype(np.float32)[0]
        if float(np.linalg.norm(lab[0] - lab[1])) >= RECOLOURED_CONTRAST:
            return body, pips


RECOLOURED_SHARE = 0.4  # of the players dressed in photographed faces
RECOLOURED_CONTRAST = 60.0  # Lab distance, body to pips (OpenCV's 8-bit Lab)


def training_looks(folder: Path = LIBRARY) -> Callable[[np.random.Generator], object]:
    """rng -> one of the training kinds' looks, as photographed or recoloured (`RecolouredLook`), for
    `vision.dice_model.above`."""
    looks = load_looks(folder)

    def pick(rng: np.random.Generator) -> object:
        look = looks[int(rng.integers(0, len(looks)))]
        if rng.random() >= RECOLOURED_SHARE:
            return look
        body, pips = _contrasting(rng)
        return RecolouredLook(look, body, pips, float(rng.uniform(0.6, 1.6)))

    return pick

"""Dice faces cut from the real photographs, as looks for the training tables (`vision.synth.DieLook`).

The realism benchmark's face library (`bench/realtable/data/`: every labelled die of the real photographs,
its top face straightened, grouped into kinds — one physical die design each — and split once) is read here
as data: training takes only its `train` split, so the kinds and photographs it holds out stay unseen by the
networks and by every threshold. A player's dice on a training table are one kind, as at a real table; a
face is a random one of that kind's faces of the value, in a random quarter turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

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


def load_looks(folder: Path = LIBRARY, split: str = TRAIN) -> list[PhotoLook]:
    """One look per kind that has faces in `split`, from the library's `faces.json` and `faces.jpg`."""
    try:
        doc = json.loads((folder / "faces.json").read_text())
        atlas = cv2.imread(str(folder / "faces.jpg"), cv2.IMREAD_COLOR)
    except (OSError, ValueError) as exc:
        raise FaceLibraryError(f"cannot read the face library in {str(folder)!r}: {exc}") from exc
    if atlas is None:
        raise FaceLibraryError(f"cannot decode {str(folder / 'faces.jpg')!r}")
    held = {k["id"] for k in doc.get("kinds", []) if k.get("held_out")}
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


def training_looks(folder: Path = LIBRARY) -> Callable[[np.random.Generator], object]:
    """rng -> one of the training kinds' looks, for `vision.dice_model.above`."""
    looks = load_looks(folder)

    def pick(rng: np.random.Generator) -> object:
        return looks[int(rng.integers(0, len(looks)))]

    return pick

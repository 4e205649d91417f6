"""The face library: the top faces of real photographed dice, grouped into kinds, with a fixed split.

`data/faces.json` (hand-checked) records every labelled die of the 150 photographs of
`../shared/data/real-dice/` (Nell Byler's, BSD 3-Clause: `data/LICENSE`): its photo and index there, its
top-face value, its kind (one physical die design: body and pip colour), the top face's quad in the photo,
the visible side faces' quads, quality flags and its split. `data/faces.jpg` holds every usable top face
straightened to `FACE_PX` pixels, in the order of the dice that have an `atlas` index.

Splits (`Split`), fixed in the data and checked by tests:
- `held_out_kind`: dice of a held-out kind, from any photo: never trained or tuned on; the realism benchmark
  reports them apart;
- `held_out_photo`: dice of a training kind in one of the photos `vision.dice_model.data.split` holds out;
- `train`: every other usable die. Train and tune only on these (`faces("train")`);
- `excluded`: not usable (a cut that shows paper, a kind nobody could tell, a die mostly hidden).

    from bench.realtable.library import faces
    for die in faces("train"):
        die.image()          # 48 x 48 BGR, the face straightened
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour

DATA = Path(__file__).resolve().parent / "data"
FACES_JSON = DATA / "faces.json"
ATLAS = DATA / "faces.jpg"
FACE_PX = 48
ATLAS_COLUMNS = 32
FORMAT = "seneschal-real-faces"
VERSION = 1

Image = npt.NDArray[np.uint8]
QuadT = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


class Split(Enum):
    TRAIN = "train"
    HELD_OUT_PHOTO = "held_out_photo"
    HELD_OUT_KIND = "held_out_kind"
    EXCLUDED = "excluded"


class Flag(Enum):
    """Why a die is excluded, or what to know about its face."""

    PAPER = "paper"  # the cut square shows paper: the die's edges were not found
    HAND = "hand"  # excluded by eye (a bad cut, a kind nobody could tell)
    TOUCHING = "touching"  # its labelled box overlaps another die's
    SMALL = "small"  # the top face is under 20 px in the photo


EXCLUDING = frozenset({Flag.PAPER, Flag.HAND})


class LibraryError(ValueError):
    """faces.json is malformed or inconsistent; the message lists every problem."""


@dataclass(frozen=True, slots=True)
class Kind:
    id: str
    colour: Colour | None  # the player colour a player would use it for; None: spare dice only
    body: str
    pips: str
    look: str  # solid, translucent, pearl, marbled, swirled
    held_out: bool
    faces_per_value: tuple[int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0)  # usable faces of 1..6


@dataclass(frozen=True, slots=True)
class Die:
    id: str  # "<photo stem>#<index>"
    photo: str
    index: int
    value: int
    kind: str | None
    top: QuadT
    sides: tuple[QuadT, ...]
    flags: frozenset[Flag]
    split: Split
    atlas: int | None  # index of its straightened face in faces.jpg

    def image(self) -> Image:
        """The top face straightened, `FACE_PX` square, BGR (corner 0 of `top` top-left)."""
        if self.atlas is None:
            raise LibraryError(f"die {self.id} has no face in the atlas (split {self.split.value})")
        return atlas_face(self.atlas)


@dataclass(frozen=True, slots=True)
class Library:
    kinds: Mapping[str, Kind]
    dice: tuple[Die, ...]
    held_out_photos: frozenset[str]

    def faces(
        self, split: Split | str = Split.TRAIN, *, kind: str | None = None, value: int | None = None
    ) -> list[Die]:
        """The usable dice of one split (optionally one kind, one value), in file order."""
        s = Split(split)
        return [
            d
            for d in self.dice
            if d.split is s and (kind is None or d.kind == kind) and (value is None or d.value == value)
        ]

    def kinds_of(self, colour: Colour, *, held_out: bool) -> list[Kind]:
        return [k for k in self.kinds.values() if k.colour is colour and k.held_out is held_out]

    def values_of(self, kind: str, splits: Iterable[Split]) -> dict[int, int]:
        """How many faces of each value a kind has in the given splits."""
        chosen = set(splits)
        out = dict.fromkeys(range(1, 7), 0)
        for d in self.dice:
            if d.kind == kind and d.split in chosen:
                out[d.value] += 1
        return out


def split_of(kind: Kind | None, photo: str, flags: frozenset[Flag], held_out_photos: frozenset[str]) -> Split:
    """The one rule that gives a die its split."""
    if kind is None or flags & EXCLUDING:
        return Split.EXCLUDED
    if kind.held_out:
        return Split.HELD_OUT_KIND
    if photo in held_out_photos:
        return Split.HELD_OUT_PHOTO
    return Split.TRAIN


def _quad(obj: Any) -> QuadT:
    pts = [(float(p[0]), float(p[1])) for p in obj]
    if len(pts) != 4:
        raise ValueError(f"a quad has 4 corners, got {obj!r}")
    return (pts[0], pts[1], pts[2], pts[3])


def parse(doc: Mapping[str, Any]) -> Library:
    """A library from faces.json's document; every problem reported at once."""
    problems: list[str] = []
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise LibraryError(
            f"not a {FORMAT} v{VERSION} document: {doc.get('format')!r} v{doc.get('version')!r}"
        )
    kinds: dict[str, Kind] = {}
    for k in doc.get("kinds", []):
        try:
            per = k.get("faces_per_value", {})
            kind = Kind(
                str(k["id"]),
                None if k["colour"] is None else Colour(k["colour"]),
                str(k["body"]),
                str(k["pips"]),
                str(k["look"]),
                bool(k["held_out"]),
                tuple(int(per.get(str(v), 0)) for v in range(1, 7)),  # type: ignore[arg-type]
            )
        except (KeyError, ValueError, TypeError) as exc:
            problems.append(f"kind {k!r}: {exc}")
            continue
        if kind.id in kinds:
            problems.append(f"kind {kind.id!r} listed twice")
        kinds[kind.id] = kind
    held = frozenset(str(p) for p in doc.get("held_out_photos", []))
    dice: list[Die] = []
    seen: set[str] = set()
    for raw in doc.get("dice", []):
        try:
            die = _die(raw, kinds, held)
        except (KeyError, ValueError, TypeError) as exc:
            problems.append(f"die {raw.get('id', raw)!r}: {exc}")
            continue
        if die.id in seen:
            problems.append(f"die {die.id!r} listed twice")
        seen.add(die.id)
        dice.append(die)
    atlas = [d.atlas for d in dice if d.atlas is not None]
    if atlas != list(range(len(atlas))):
        problems.append("atlas indices must run 0, 1, 2... in file order")
    for kind in kinds.values():
        have = tuple(
            sum(d.kind == kind.id and d.value == v and d.atlas is not None for d in dice) for v in range(1, 7)
        )
        if have != kind.faces_per_value:
            problems.append(f"kind {kind.id!r} records {kind.faces_per_value} faces of 1..6, dice: {have}")
    if problems:
        raise LibraryError("faces.json:\n  - " + "\n  - ".join(problems))
    return Library(kinds, tuple(dice), held)


def _die(raw: Mapping[str, Any], kinds: Mapping[str, Kind], held: frozenset[str]) -> Die:
    kind_id = raw["kind"]
    if kind_id is not None and kind_id not in kinds:
        raise ValueError(f"unknown kind {kind_id!r}")
    value = int(raw["value"])
    if not 1 <= value <= 6:
        raise ValueError(f"value {value} outside 1..6")
    flags = frozenset(Flag(f) for f in raw.get("flags", []))
    photo = str(raw["photo"])
    split = Split(raw["split"])
    want = split_of(kinds.get(kind_id) if kind_id else None, photo, flags, held)
    if split is not want:
        raise ValueError(f"split {split.value!r}, but its kind, photo and flags give {want.value!r}")
    atlas = raw.get("atlas")
    if (atlas is None) != (split is Split.EXCLUDED):
        raise ValueError("a usable die has an atlas face, an excluded one none")
    die_id = f"{Path(photo).stem}#{int(raw['index'])}"
    if raw["id"] != die_id:
        raise ValueError(f"id must be {die_id!r}")
    return Die(
        die_id,
        photo,
        int(raw["index"]),
        value,
        kind_id,
        _quad(raw["top"]),
        tuple(_quad(s) for s in raw.get("sides", [])),
        flags,
        split,
        None if atlas is None else int(atlas),
    )


def die_json(d: Die) -> dict[str, Any]:
    return {
        "id": d.id,
        "photo": d.photo,
        "index": d.index,
        "value": d.value,
        "kind": d.kind,
        "top": [[round(x, 2), round(y, 2)] for x, y in d.top],
        "sides": [[[round(x, 2), round(y, 2)] for x, y in s] for s in d.sides],
        "flags": sorted(f.value for f in d.flags),
        "split": d.split.value,
        "atlas": d.atlas,
    }


@cache
def load(path: Path = FACES_JSON) -> Library:
    return parse(json.loads(Path(path).read_text(encoding="utf-8")))


@cache
def _atlas() -> Image:
    img = cv2.imread(str(ATLAS), cv2.IMREAD_COLOR)
    if img is None:
        raise LibraryError(f"cannot read the face atlas {str(ATLAS)!r}")
    return np.asarray(img, np.uint8)


def atlas_face(index: int) -> Image:
    r, c = divmod(index, ATLAS_COLUMNS)
    a = _atlas()
    face = a[r * FACE_PX : (r + 1) * FACE_PX, c * FACE_PX : (c + 1) * FACE_PX]
    if face.shape[:2] != (FACE_PX, FACE_PX):
        raise LibraryError(f"atlas face {index} lies outside the atlas")
    return face


def faces(
    split: Split | str = Split.TRAIN, *, kind: str | None = None, value: int | None = None
) -> list[Die]:
    """The usable dice of one split: `faces("train")` is everything you may train or tune on."""
    return load().faces(split, kind=kind, value=value)

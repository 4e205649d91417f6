"""Rebuild the face library's cuts and atlas from the photographs, keeping the hand-made decisions.

    python -m bench.realtable.build_library cut [PHOTOS]     # re-cut every die (quads, automatic flags,
                                                            # split, atlas); kinds, hand flags and hand
                                                            # quads kept
    python -m bench.realtable.build_library atlas [PHOTOS]  # splits and atlas again from faces.json as it
                                                            # stands (after a hand edit), quads untouched
    python -m bench.realtable.build_library sheets OUT_DIR  # contact sheets per kind (PNG) to check by eye

What is decided by hand lives in data/faces.json itself: the kinds (colour, looks, held out or not), each
die's kind (null: nobody could tell), the `hand` flag (excluded by eye) and `hand_quad` (a quad fixed by
eye, which `cut` keeps). Photos default to ../shared/data/real-dice/photos (beside the repository).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench.realtable.cutting import cut_die, straighten
from bench.realtable.library import (
    ATLAS,
    ATLAS_COLUMNS,
    FACE_PX,
    FACES_JSON,
    Flag,
    Kind,
    Library,
    Split,
    parse,
    split_of,
)


def default_photos() -> Path:
    """../shared/data/real-dice/photos beside the checkout (or beside the folder of worktrees)."""
    for up in Path(__file__).resolve().parents[2:5]:
        if (up / "shared" / "data" / "real-dice" / "photos").is_dir():
            return up / "shared" / "data" / "real-dice" / "photos"
    return Path("shared/data/real-dice/photos")


PAPER_LAB = 18.0  # a border pixel this close to the photo's paper colour is paper
PAPER_SHARE = 0.08  # a face whose border ring is this much paper shows paper
SMALL_PX = 20.0
PALE_LOOKS = ("white", "ivory")  # bodies as pale as the paper: the paper test cannot tell them


def paper_colour(photo: np.ndarray) -> np.ndarray:
    """The photo's median Lab colour: paper or the grey tray, which fill most of every photo."""
    return np.median(cv2.cvtColor(photo, cv2.COLOR_BGR2Lab).reshape(-1, 3), axis=0).astype(np.float32)


def shows_paper(face: np.ndarray, paper: np.ndarray) -> bool:
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2Lab).astype(np.float32)
    ring = np.concatenate(
        [
            lab[:3].reshape(-1, 3),
            lab[-3:].reshape(-1, 3),
            lab[:, :3].reshape(-1, 3),
            lab[:, -3:].reshape(-1, 3),
        ]
    )
    return float((np.linalg.norm(ring - paper, axis=1) < PAPER_LAB).mean()) > PAPER_SHARE


def touching(boxes: list[list[float]], i: int) -> bool:
    x0, y0, x1, y1 = boxes[i]
    return any(
        j != i and min(x1, b[2]) > max(x0, b[0]) and min(y1, b[3]) > max(y0, b[1])
        for j, b in enumerate(boxes)
    )


def auto_flags(
    face: np.ndarray,
    paper: np.ndarray,
    kind: Kind | None,
    boxes: list[list[float]],
    *,
    i: int,
    top: np.ndarray,
) -> set[str]:
    flags = set()
    pale = kind is not None and any(p in kind.body for p in PALE_LOOKS)
    if kind is not None and not pale and shows_paper(face, paper):
        flags.add(Flag.PAPER.value)
    if touching(boxes, i):
        flags.add(Flag.TOUCHING.value)
    if float(np.linalg.norm(top[1] - top[0])) < SMALL_PX:
        flags.add(Flag.SMALL.value)
    return flags


def cut_all(doc: dict[str, Any], photos: Path) -> dict[str, Any]:
    """Every labelled die cut again; kinds, hand flags and hand quads kept from `doc`."""
    lib = parse(doc)
    old = {d["id"]: d for d in doc["dice"]}
    out = []
    for label in sorted(photos.glob("*.json")):
        photo = cv2.imread(str(label.with_suffix(".jpg")), cv2.IMREAD_COLOR)
        dice = json.loads(label.read_text(encoding="utf-8"))["dice"]
        boxes = [[float(v) for v in d["box"]] for d in dice]
        paper = paper_colour(photo)
        for i, d in enumerate(dice):
            die_id = f"{label.stem}#{i}"
            prev = old.get(die_id, {})
            if prev.get("hand_quad"):
                top, sides = (
                    np.asarray(prev["top"], np.float64),
                    [np.asarray(s) for s in prev.get("sides", [])],
                )
            else:
                cut = cut_die(photo, tuple(boxes[i]), int(d["value"]))  # type: ignore[arg-type]
                top, sides = cut.top, list(cut.sides)
            kind_id = prev.get("kind")
            kind = lib.kinds.get(kind_id) if kind_id else None
            face = straighten(photo, top, FACE_PX)
            flags = auto_flags(face, paper, kind, boxes, i=i, top=top)
            flags |= {f for f in prev.get("flags", []) if f == Flag.HAND.value}
            rec = {
                "id": die_id,
                "photo": label.with_suffix(".jpg").name,
                "index": i,
                "value": int(d["value"]),
                "kind": kind_id,
                "top": np.round(top, 2).tolist(),
                "sides": [np.round(s, 2).tolist() for s in sides],
                "flags": sorted(flags),
            }
            if prev.get("hand_quad"):
                rec["hand_quad"] = True
            out.append(rec)
    doc = dict(doc, dice=out)
    return with_splits(doc)


def with_splits(doc: dict[str, Any]) -> dict[str, Any]:
    """Each die's split and atlas index from its kind, photo and flags (`library.split_of`), and each kind's
    count of usable faces per value."""
    lib = parse(dict(doc, dice=[]))
    held = lib.held_out_photos
    n = 0
    for d in doc["dice"]:
        kind = lib.kinds.get(d["kind"]) if d["kind"] else None
        s = split_of(kind, d["photo"], frozenset(Flag(f) for f in d["flags"]), held)
        d["split"] = s.value
        d["atlas"] = None if s is Split.EXCLUDED else n
        n += s is not Split.EXCLUDED
    for k in doc["kinds"]:  # what each kind has faces of: usable dice per value
        usable = [d["value"] for d in doc["dice"] if d["kind"] == k["id"] and d["atlas"] is not None]
        k["faces_per_value"] = {str(v): usable.count(v) for v in range(1, 7)}
    return doc


def write_atlas(lib: Library, photos: Path, out: Path = ATLAS) -> None:
    usable = [d for d in lib.dice if d.atlas is not None]
    rows = -(-len(usable) // ATLAS_COLUMNS)
    atlas = np.zeros((rows * FACE_PX, ATLAS_COLUMNS * FACE_PX, 3), np.uint8)
    cache: dict[str, np.ndarray] = {}
    for d in usable:
        if d.photo not in cache:
            cache.clear()
            cache[d.photo] = cv2.imread(str(photos / d.photo), cv2.IMREAD_COLOR)
        assert d.atlas is not None
        r, c = divmod(d.atlas, ATLAS_COLUMNS)
        face = straighten(cache[d.photo], np.asarray(d.top, np.float64), FACE_PX)
        atlas[r * FACE_PX : (r + 1) * FACE_PX, c * FACE_PX : (c + 1) * FACE_PX] = face
    cv2.imwrite(str(out), atlas, [cv2.IMWRITE_JPEG_QUALITY, 95])


def write_sheets(lib: Library, out: Path, per_row: int = 16, px: int = 64) -> list[Path]:
    """One PNG per kind (and one of the excluded): each usable face with its die id's index."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    groups: dict[str, list[Any]] = {k: [] for k in lib.kinds}
    for d in lib.dice:
        if d.atlas is not None and d.kind is not None:
            groups[d.kind].append(d)
    for kind, dice in groups.items():
        tiles = []
        for d in dice:
            t = cv2.resize(d.image(), (px, px), interpolation=cv2.INTER_CUBIC)
            label = f"{d.value} {d.split.value[0]}"
            cv2.putText(t, label, (2, 11), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (255, 255, 255), 3)
            cv2.putText(t, label, (2, 11), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 200), 1)
            tiles.append(t)
        while len(tiles) % per_row or not tiles:
            tiles.append(np.zeros((px, px, 3), np.uint8))
        sheet = np.vstack([np.hstack(tiles[i : i + per_row]) for i in range(0, len(tiles), per_row)])
        path = out / f"kind-{kind}.png"
        cv2.imwrite(str(path), sheet)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=("cut", "atlas", "sheets"))
    p.add_argument("path", nargs="?", help="photos folder (cut, atlas) or output folder (sheets)")
    args = p.parse_args(argv)
    doc = json.loads(FACES_JSON.read_text(encoding="utf-8"))
    if args.command == "sheets":
        if not args.path:
            p.error("sheets needs an output folder")
        for path in write_sheets(parse(doc), Path(args.path)):
            print(path)
        return 0
    photos = Path(args.path) if args.path else default_photos()
    if not photos.is_dir():
        print(f"no photographs at {photos}", file=sys.stderr)
        return 2
    doc = cut_all(doc, photos) if args.command == "cut" else with_splits(doc)
    FACES_JSON.write_text(dump(doc), encoding="utf-8")
    write_atlas(parse(doc), photos)
    return 0


def dump(doc: dict[str, Any]) -> str:
    """faces.json's text: the header pretty, one line per die (diffs stay readable)."""
    head = {k: v for k, v in doc.items() if k != "dice"}
    text = json.dumps(head, indent=1, ensure_ascii=False)[:-2]
    lines = ",\n".join("  " + json.dumps(d, ensure_ascii=False) for d in doc["dice"])
    return text + ',\n "dice": [\n' + lines + "\n ]\n}\n"


if __name__ == "__main__":
    sys.exit(main())

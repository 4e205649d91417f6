"""Choose the dice reader's decision thresholds (`vision.dice`: DETECT, SURE_DIE, SURE_VALUE, HEAD_WEIGHT,
FINDER_WEIGHT) on the tuning split only, after training:

    python -m vision.dice_model.tune [--synthetic N]

Both networks run once per image (`vision.dice.candidates`, every candidate down to `CANDIDATE`); the
thresholds are then swept over the cached scores. Printed per setting: recall, precision, value accuracy,
the share of matched dice flagged unsure, and the readings that would be silently wrong (not flagged, yet a
wrong value or no die at all) on the tuning photos and on synthetic tables (seeds the training never saw).
The chosen values are written into `vision/dice.py` by hand, with the table in docs/dice-model.md.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision import dice, topview
from vision.dice_model import above, data, faces
from vision.knights import assign_to_locations
from vision.tags import DIE_MM

TUNE_SYNTH_SEED = data.SYNTH_SEED_BASE + 50_000  # not among the training tables' seeds


@dataclass(frozen=True, slots=True)
class Case:
    found: list[dice.Candidate]
    truth: list[tuple[tuple[float, ...], int]]


def cases_real(folder: Path) -> list[Case]:
    photos = data.labelled_photos(folder)
    tune, _held = data.split(list(photos))
    out = []
    for name in tune:
        image = cv2.imread(str(photos[name]), cv2.IMREAD_COLOR)
        boxes, values = data.load_label(photos[name].with_suffix(".json"))
        truth = [(tuple(float(v) for v in b), int(v)) for b, v in zip(boxes, values, strict=True)]
        out.append(Case(dice.candidates(np.asarray(image, np.uint8)), truth))
    return out


def cases_synthetic(count: int) -> list[Case]:
    from vision.synth import Difficulty, random_spec, render_scene

    out = []
    kinds = list(Difficulty)
    for i in range(count):
        seed = TUNE_SYNTH_SEED + i
        image, truth = render_scene(random_spec(kinds[i % len(kinds)], seed), seed)
        shown = [(tuple(float(v) for v in d.box), d.value) for d in truth.dice if not d.hidden]
        out.append(Case(dice.candidates(image, die_px=truth.px_per_mm * DIE_MM), shown))
    return out


def score(  # noqa: PLR0917
    cases: Sequence[Case], detect: float, sure_die: float, sure_value: float, head: float, finder: float = 0.5
) -> str:
    labelled = readings = matched = correct = unsure = wrong = extra = 0
    for case in cases:
        kept = []
        for c in case.found:
            die, values = dice.judge(c.score, c.head, c.crop, head, finder)
            if die < detect:
                continue
            v = int(np.argmax(values)) + 1
            unsure = values[v - 1] < sure_value or not dice.sure_die(die, c.crop, sure_die) or c.cut
            kept.append((c.box, v, bool(unsure)))
        pairs = data.match([k[0] for k in kept], [t[0] for t in case.truth])
        labelled += len(case.truth)
        readings += len(kept)
        matched += len(pairs)
        correct += sum(kept[i][1] == case.truth[j][1] for i, j in pairs)
        unsure += sum(kept[i][2] for i, _j in pairs)
        wrong += sum(not kept[i][2] and kept[i][1] != case.truth[j][1] for i, j in pairs)
        hit = {i for i, _j in pairs}
        extra += sum(not k[2] for i, k in enumerate(kept) if i not in hit)
    return (
        f"recall {matched / max(1, labelled):.3f} precision {matched / max(1, readings):.3f} "
        f"value {correct / max(1, matched):.3f} unsure {unsure / max(1, matched):.3f} "
        f"silently wrong {wrong}+{extra}"
    )


TUNE_ABOVE_SEED = above.SEED_BASE + 50_000  # not among the training tables' seeds


@dataclass(frozen=True, slots=True)
class AboveCase:
    """One table seen from above: what both networks saw, each candidate's location, and the truth per
    location (knights per die value; locations under a hand are left out)."""

    view: topview.TopView
    seen: list[dice.Seen]
    places: list[str | None]
    truth: dict[str, list[int]]


def cases_above(count: int, looks: Any) -> list[AboveCase]:
    out = []
    for i in range(count):
        seed = TUNE_ABOVE_SEED + i
        image, gt = above.render_table(seed, looks)
        polygons = {k: p for k, p in gt.tile_polygons.items() if k[:1] in ("T", "K")}  # type: ignore[attr-defined]
        if not polygons:
            continue
        i2t = np.linalg.inv(gt.homography)  # type: ignore[attr-defined]
        view = topview.above(image.shape, i2t, list(polygons.values()))
        seen = dice.seen_from_above(image, view, topview.region(view, list(polygons.values())), least=0.05)
        where = np.array([s.where for s in seen], np.float64).reshape(-1, 2)
        places = assign_to_locations([(0.0, 0.0)] * len(seen), polygons, i2t, 0.2, where) if seen else []
        hidden = {d.location for d in gt.dice if d.hidden} | set(gt.occluded)  # type: ignore[attr-defined]
        truth: dict[str, list[int]] = {k: [] for k in polygons if k not in hidden}
        for d in gt.dice:  # type: ignore[attr-defined]
            if d.location in truth:
                truth[d.location].append(int(d.value))
        out.append(AboveCase(view, seen, places, truth))
    return out


def score_above(cases: Sequence[AboveCase], limits: dice.Thresholds) -> str:
    """Per knight location: read right (every die's value, none in doubt), flagged (a die in doubt), or
    silently wrong (a die missed, one too many or a value wrong, and nothing in doubt)."""
    locations = right = flagged = silent = 0
    for case in cases:
        read = dice.decide(case.seen, case.view, limits)
        index = {id(s.face): k for k, s in enumerate(case.seen)}
        at: dict[str, list[dice.DieReading]] = {}
        for r in read:
            place = case.places[index[id(r.face)]]
            if place is not None:
                at.setdefault(place, []).append(r)
        for loc, values in case.truth.items():
            locations += 1
            mine = at.get(loc, [])
            if any(r.unsure for r in mine):
                flagged += 1
            elif sorted(r.value for r in mine) == sorted(values):
                right += 1
            else:
                silent += 1
    n = max(1, locations)
    return (
        f"locations {locations} right {right / n:.4f} flagged {flagged / n:.4f} "
        f"silently wrong {silent} ({silent / n:.4f})"
    )


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=Path, default=data.REAL_DICE)
    ap.add_argument("--synthetic", type=int, default=12)
    ap.add_argument(
        "--looks",
        help="instead of the threshold table: VOTE:SECOND pairs (VOTE_BELOW, SECOND_LOOK_BELOW), e.g. "
        "1.01:0.95,0.94:0.9; each reads every image again and prints the chosen thresholds' line and how "
        "many crops each network read",
    )
    ap.add_argument(
        "--above", type=int, default=0,
        help="instead: N tables seen from above (training kinds and drawn looks), location by location",
    )
    ap.add_argument("--faces", type=Path, default=faces.LIBRARY, help="the real-dice face library's folder")
    args = ap.parse_args(list(argv))
    if args.above:
        return _tune_above(args.above, faces.training_looks(args.faces))
    if args.looks:
        return _compare_looks(args.photos, args.synthetic, args.looks)
    real = cases_real(args.photos)
    synth = cases_synthetic(args.synthetic)
    print(f"{len(real)} tuning photos, {len(synth)} synthetic tables")
    grid = itertools.product(
        (0.4, 0.5), (0.6, 0.7), (0.7,), (0.0,), (0.5, 0.4, 0.35)
    )
    for detect, sure_die, sure_value, head, finder in grid:
        if sure_die < detect:
            continue
        print(
            f"DETECT {detect:.2f} SURE_DIE {sure_die:.2f} SURE_VALUE {sure_value:.2f} HEAD {head:.1f} "
            f"FINDER {finder:.2f} | real: {score(real, detect, sure_die, sure_value, head, finder)} | "
            f"synthetic: {score(synth, detect, sure_die, sure_value, head, finder)}"
        )
    return 0


def _tune_above(count: int, looks: Any) -> int:
    cases = cases_above(count, looks)
    print(f"{len(cases)} tables seen from above", flush=True)
    for detect, sure_die, sure_value, doubt in itertools.product(
        (0.4, 0.5, 0.6), (0.6, 0.7, 0.8), (0.7, 0.8, 0.9, 0.94), (0.2, 0.3, 0.4, 0.5)
    ):
        if sure_die < detect or doubt > detect:
            continue
        limits = dice.Thresholds(detect, sure_die, sure_value, doubt)
        print(
            f"DETECT {detect:.2f} SURE_DIE {sure_die:.2f} SURE_VALUE {sure_value:.2f} DOUBT {doubt:.2f} | "
            f"{score_above(cases, limits)}",
            flush=True,
        )
    return 0


def _compare_looks(photos: Path, tables: int, looks: str) -> int:
    """How the value networks' vote and second look (`dice.VOTE_BELOW`, `dice.SECOND_LOOK_BELOW`) change the
    figures at the chosen thresholds, and what they cost in crops read."""
    reads: dict[str, int] = {}
    logits = dice._value_logits

    def counted(path: Path, crops: Sequence[dice.Image]) -> Any:
        reads[path.name] = reads.get(path.name, 0) + len(crops)
        return logits(path, crops)

    dice._value_logits = counted
    try:
        for pair in looks.split(","):
            vote, second = (float(v) for v in pair.split(":"))
            dice.VOTE_BELOW, dice.SECOND_LOOK_BELOW = vote, second
            reads.clear()
            real, synth = cases_real(photos), cases_synthetic(tables)
            chosen = (dice.DETECT, dice.SURE_DIE, dice.SURE_VALUE, dice.HEAD_WEIGHT, dice.FINDER_WEIGHT)
            crops = ", ".join(f"{k} {v}" for k, v in sorted(reads.items()))
            print(
                f"VOTE_BELOW {vote:.2f} SECOND_LOOK_BELOW {second:.2f} | real: {score(real, *chosen)} | "
                f"synthetic: {score(synth, *chosen)} | crops read: {crops}",
                flush=True,
            )
    finally:
        dice._value_logits = logits
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

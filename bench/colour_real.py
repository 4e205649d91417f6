"""Players' colours on real dice: box-setup calibration (`vision.colourcheck`) and naming at play
(`vision.calibration.ColourCalibration`), on the labelled photographs of `../shared/data/real-dice/`, every
die's kind and split as the realism benchmark's face library records them (`bench/realtable/library.py`:
17 kinds, solid, translucent, pearl, swirled and marbled, white, black and coloured pips).

A *game* gives each of 2..6 players one kind of die. At set-up each player's dice (`--dice` of them, from one
photo where it holds that many, as a castle's dice lie in one frame) are measured in one light; the set-up is
refused when any measurement has a problem or two players' dice look too alike. At play, dice of the game's
kinds from other photos are named in another light, each with its own shade (0.7..1.1: a lamp's fall-off),
its box jittered as a finder's (8 %) and the photo scaled (0.6..1.0: dice of 24..50 px). Light: a colour
temperature as `vision.synth`'s (-1..1) and an exposure of 0.8..1.1, balanced by the white of the photo's
paper backdrop (`sticker_white` without stickers). Dice of kinds nobody plays are shown too ("foreign": a
spare die, a colour nobody measured).

Splits, the library's: `train` (training kinds, tuning photos: everything here was chosen on these alone),
`held_out_photo` (training kinds, the 45 photos `vision.dice_model.data.split` holds out) and `held_out_kind`
(six kinds never tuned on, one per player colour: red-white, blue-swirl-red, teal-swirl-yellow, gold-black,
ivory-black, smoke-red; from every photo), reported apart. A game's kinds and dice come from one split.

Games: `tables` (2..6 players, one kind per player colour, each kind the colour's: what a box holds),
`pairs` (every pair of kinds: the similar ones too), `any` (kinds at random).

Prints per kind: dice named right, unsure (their location is asked), named a wrong player ("silently wrong");
set-ups refused and why (pairs of kinds too alike); foreign dice named; ms to name a table of 30 dice.

Usage: python bench/colour_real.py [--only train|held_out_photo|held_out_kind] [--games tables|pairs|any]
       [--trials N] [--dice N] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

# Run as a script, this folder is sys.path[0] and its vision.py would shadow the vision package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.realtable.library import Split, load  # noqa: E402
from engine.colours import Colour  # noqa: E402
from vision.calibration import ColourCalibration, sticker_white  # noqa: E402
from vision.colourcheck import Measurement, measure, merged, separation  # noqa: E402
from vision.dice_model.data import REAL_DICE  # noqa: E402
from vision.dicecolour import FaceSamples, sample_faces  # noqa: E402

SPLITS = (Split.TRAIN, Split.HELD_OUT_PHOTO, Split.HELD_OUT_KIND)
Die = tuple[str, int, tuple[int, int, int, int], str]  # photo, index, box (as labelled), kind
View = tuple[np.ndarray, tuple[int, int, int, int], tuple[float, float, float]]  # image, box, white


class Photos:
    """The photos, lit on demand (a few hundred kept)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.raw: dict[str, np.ndarray] = {}
        self.lit: dict[tuple[str, tuple[float, ...]], tuple[np.ndarray, tuple[float, float, float]]] = {}

    def image(self, name: str, gains: np.ndarray) -> tuple[np.ndarray, tuple[float, float, float]]:
        key = (name, tuple(np.round(gains, 4)))
        if key not in self.lit:
            if len(self.lit) > 300:
                self.lit.clear()
            if name not in self.raw:
                self.raw[name] = cv2.imread(str(self.folder / name), cv2.IMREAD_COLOR)
            img = np.clip(self.raw[name].astype(np.float32) * gains[None, None, :], 0, 255).astype(np.uint8)
            self.lit[key] = (img, sticker_white(img))
        return self.lit[key]

    def view(self, die: Die, gains: np.ndarray, rng: np.random.Generator, *, play: bool) -> View:
        """The die cut out of its lit photo with room around it: shaded, its box jittered, scaled."""
        return self.view_among(die, (), gains, rng, play=play)[0]

    def labelled(self, photo: str) -> list[Die]:
        """Every labelled die of a photo (usable in the library or not): the neighbours a die's tile has."""
        dice = json.loads((self.folder / photo).with_suffix(".json").read_text())["dice"]
        return [(photo, i, (int(d["box"][0]), int(d["box"][1]), int(d["box"][2]), int(d["box"][3])), "")
                for i, d in enumerate(dice)]  # fmt: skip

    def view_among(
        self, die: Die, others: Sequence[Die], gains: np.ndarray, rng: np.random.Generator, *, play: bool
    ) -> tuple[View, list[tuple[int, int, int, int]]]:
        """`view`, and the boxes of `others` (dice of the same photo) in the cut."""
        img, white = self.image(die[0], gains)
        x0, y0, x1, y1 = die[2]
        w, h = x1 - x0, y1 - y0
        pad = int(max(w, h) * 0.8)
        cx0, cy0 = max(0, x0 - pad), max(0, y0 - pad)
        crop = img[cy0 : y1 + pad, cx0 : x1 + pad].astype(np.float32)
        shade, jitter, scale = ((0.7, 1.1), 0.08, (0.6, 1.0)) if play else ((0.9, 1.05), 0.05, (0.7, 1.0))
        crop = np.clip(crop * rng.uniform(*shade), 0, 255).astype(np.uint8)
        f = float(rng.uniform(*scale))
        crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        cx = (x0 + x1) / 2 - cx0 + rng.uniform(-jitter, jitter) * w
        cy = (y0 + y1) / 2 - cy0 + rng.uniform(-jitter, jitter) * h
        g = rng.uniform(1 - jitter, 1 + 2 * jitter)
        box = (cx - w * g / 2, cy - h * g / 2, cx + w * g / 2, cy + h * g / 2)
        b0, b1, b2, b3 = (round(v * f) for v in box)
        near = [
            (round((o[2][0] - cx0) * f), round((o[2][1] - cy0) * f), round((o[2][2] - cx0) * f),
             round((o[2][3] - cy0) * f))
            for o in others
        ]  # fmt: skip
        return (crop, (b0, b1, b2, b3), white), near


def light(rng: np.random.Generator) -> np.ndarray:
    """Per-channel gains (B, G, R): `vision.synth`'s colour temperature and an exposure."""
    t = float(rng.uniform(-1, 1))
    return np.array([1 - 0.18 * t, 1 - 0.02 * abs(t), 1 + 0.12 * t]) * rng.uniform(0.8, 1.1)


@dataclass
class Tally:
    dice: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    setups: Counter[str] = field(default_factory=Counter)
    too_alike: Counter[tuple[str, str]] = field(default_factory=Counter)
    doubts: Counter[str] = field(default_factory=Counter)
    foreign: Counter[str] = field(default_factory=Counter)
    name_ms: list[float] = field(default_factory=list)

    def lines(self, kinds: Sequence[str], title: str) -> list[str]:
        total: Counter[str] = Counter()
        rows = []
        for k in kinds:
            c = self.dice.get(k, Counter())
            n = sum(c.values())
            total.update(c)
            if n:
                right, unsure, wrong = (c[o] / n for o in ("right", "unsure", "wrong"))
                rows.append(
                    f"    {k:18s} {n:5d} dice  right {right:7.2%}  unsure {unsure:6.2%}  wrong {wrong:6.2%} "
                    f"({c['wrong']})"
                )
        n = sum(total.values())
        head = (f"  {title}: {n} dice  right {total['right'] / max(1, n):.2%}  unsure "
                f"{total['unsure'] / max(1, n):.2%}  silently wrong {total['wrong'] / max(1, n):.3%} "
                f"({total['wrong']})")  # fmt: skip
        return [head, *rows]


def dice_of(split: Split | None, folder: Path) -> list[Die]:
    """The library's usable dice of `split` (None: every usable die), with their labelled boxes."""
    out = []
    boxes: dict[str, list[Any]] = {}
    for d in load().dice:
        if d.kind is None or d.split is Split.EXCLUDED or (split is not None and d.split is not split):
            continue
        if d.photo not in boxes:
            boxes[d.photo] = json.loads((folder / d.photo).with_suffix(".json").read_text())["dice"]
        x0, y0, x1, y1 = (int(v) for v in boxes[d.photo][d.index]["box"])
        out.append((d.photo, d.index, (x0, y0, x1, y1), d.kind))
    return out


def games(kind: str, kinds: Sequence[str], trials: int, rng: np.random.Generator) -> list[list[str]]:
    if kind == "pairs":
        return [list(p) for p in itertools.combinations(kinds, 2) for _ in range(trials)]
    colour_of = {k.id: k.colour for k in load().kinds.values()}
    out = []
    for _ in range(trials):
        n = int(rng.integers(2, 7))
        if kind == "any":
            out.append([str(k) for k in rng.choice(list(kinds), n, replace=False)])
            continue
        by_colour: dict[Colour, list[str]] = defaultdict(list)
        for k in kinds:
            if colour_of[k] is not None:
                by_colour[colour_of[k]].append(k)
        colours = list(by_colour)
        chosen = rng.choice(len(colours), min(n, len(colours)), replace=False)
        out.append([str(rng.choice(by_colour[colours[int(i)]])) for i in chosen])
    return out


def calibrate(
    game: Sequence[str], pool: dict[str, list[Die]], photos: Photos, n_dice: int, rng: np.random.Generator
) -> tuple[dict[str, Measurement], set[tuple[str, int]]]:
    """Every player's dice measured in one light (each die in its own photo, as `measure` sees a castle)."""
    gains = light(rng)
    out: dict[str, Measurement] = {}
    used: set[tuple[str, int]] = set()
    for k in game:
        first = pool[k][int(rng.integers(len(pool[k])))]
        same = [d for d in pool[k] if d[0] == first[0] and d != first]
        rest = [d for d in pool[k] if d[0] != first[0]]
        picks = [first, *[same[j] for j in rng.permutation(len(same))][: n_dice - 1]]
        picks += [rest[j] for j in rng.permutation(len(rest))][: n_dice - len(picks)]
        m: Measurement | None = None
        for d in picks:
            used.add((d[0], d[1]))
            others = [o for o in photos.labelled(d[0]) if o[1] != d[1]]
            (img, box, white), near = photos.view_among(d, others, gains, rng, play=False)
            one = measure(img, [box], white, others=near)
            m = one if m is None else merged(m, one)
        assert m is not None
        out[k] = m
    return out, used


def play(
    tally: Tally,
    game: Sequence[str],
    cal: ColourCalibration,
    colour_of: dict[str, Colour],
    *,
    pool: dict[str, list[Die]],
    used: set[tuple[str, int]],
    photos: Photos,
    rng: np.random.Generator,
    per_kind: int,
    foreign: int,
) -> None:
    gains = light(rng)
    views: list[View] = []
    truth: list[str] = []
    for k in game:
        cands = [d for d in pool[k] if (d[0], d[1]) not in used]
        for j in rng.choice(len(cands), min(per_kind, len(cands)), replace=False):
            views.append(photos.view(cands[j], gains, rng, play=True))
            truth.append(k)
    others = [k for k in pool if k not in game]
    for _ in range(foreign if others else 0):
        k = others[int(rng.integers(len(others)))]
        views.append(photos.view(pool[k][int(rng.integers(len(pool[k])))], gains, rng, play=True))
        truth.append("~" + k)
    parts = [sample_faces(img, [box], white) for img, box, white in views]
    faces = FaceSamples(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("lab", "ok", "points")))
    kind_of = {c: k for k, c in colour_of.items()}
    for t, m in zip(truth, cal.name_samples(faces), strict=True):
        named = kind_of[m.colour] if m.accepted else None
        if t.startswith("~"):
            tally.foreign["named" if named else "not named"] += 1
        else:
            tally.dice[t]["unsure" if named is None else ("right" if named == t else "wrong")] += 1


def run(split: Split, kind: str, trials: int, *, n_dice: int, per_kind: int, seed: int) -> Tally:
    folder = REAL_DICE
    pool: dict[str, list[Die]] = defaultdict(list)
    for d in dice_of(split, folder):
        pool[d[3]].append(d)
    pool = {k: v for k, v in pool.items() if len(v) >= 2}  # a kind needs a die to measure and one to name
    photos = Photos(folder)
    rng = np.random.default_rng(seed)
    tally = Tally()
    for game in games(kind, sorted(pool), trials, rng):
        measured, used = calibrate(game, pool, photos, n_dice, rng)
        colour_of = dict(zip(game, Colour, strict=False))
        by_colour = {colour_of[k]: m for k, m in measured.items()}
        apart = separation(by_colour)
        refused = False
        for k, m in measured.items():
            for p in (*m.problems, *apart[colour_of[k]]):
                refused = True
                tally.doubts[p.doubt.value] += 1
                if p.other is not None:
                    other = next(kk for kk, c in colour_of.items() if c is p.other)
                    key = (min(k, other), max(k, other))
                    tally.too_alike[key] += 1
        tally.setups["refused" if refused else "accepted"] += 1
        if refused:
            continue
        cal = ColourCalibration.of_models({colour_of[k]: m.model for k, m in measured.items()})
        play(tally, game, cal, colour_of, pool=pool, used=used, photos=photos, rng=rng, per_kind=per_kind,
             foreign=4)  # fmt: skip
    tally.name_ms = time_table(photos, pool, n_dice)
    return tally


def time_table(photos: Photos, pool: dict[str, list[Die]], n_dice: int) -> list[float]:
    """Milliseconds to name 30 dice of one frame against six players' models (best of 20)."""
    kinds = sorted(pool)[:6]
    rng = np.random.default_rng(0)
    models = {}
    for c, k in zip(Colour, kinds, strict=False):
        img, box, white = photos.view(pool[k][0], np.ones(3), rng, play=False)
        models[c] = measure(img, [box], white).model
    cal = ColourCalibration.of_models(models)
    img = np.tile(photos.image(pool[kinds[0]][0][0], np.ones(3))[0], (2, 3, 1))
    boxes = [(int(x), int(y), int(x) + 40, int(y) + 40) for x, y in rng.uniform(0, 1800, (30, 2)) % 1200]
    white = (200.0, 200.0, 200.0)
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        cal.name_faces(img, boxes, white)
        times.append((time.perf_counter() - t0) * 1000.0)
    return times


def report(tally: Tally, title: str) -> None:
    s = tally.setups
    n = sum(s.values())
    print(f"{title}: {n} set-ups, {s['refused']} refused ({s['refused'] / max(1, n):.1%})")
    if tally.doubts:
        print("  refusals' doubts: " + ", ".join(f"{k} {v}" for k, v in tally.doubts.most_common()))
    if tally.too_alike:
        print(
            "  kinds too alike: " + ", ".join(f"{a}~{b} {v}" for (a, b), v in tally.too_alike.most_common(16))
        )
    for line in tally.lines(sorted(tally.dice), "kinds"):
        print(line)
    f = tally.foreign
    nf = sum(f.values())
    print(f"  foreign dice (kinds nobody plays): {nf}, named a player {f['named'] / max(1, nf):.1%}")
    if tally.name_ms:
        print(f"  naming 30 dice against 6 players: {min(tally.name_ms):.2f} ms (best of 20), "
              f"median {float(np.median(tally.name_ms)):.2f} ms")  # fmt: skip


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=[s.value for s in SPLITS], help="one split (choose on train alone)")
    parser.add_argument("--games", choices=("pairs", "tables", "any"), default="tables")
    parser.add_argument("--trials", type=int, default=0, help="games (pairs: per pair); 0: the default")
    parser.add_argument("--dice", type=int, default=3, help="dice each player shows at set-up")
    parser.add_argument("--per-kind", type=int, default=8, help="dice of each kind named per game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a few games (a look, not a figure)")
    args = parser.parse_args(list(argv))
    if not REAL_DICE.is_dir():
        print(f"missing {REAL_DICE}", file=sys.stderr)
        return 2
    trials = args.trials or (2 if args.quick else (10 if args.games == "pairs" else 300))
    for split in SPLITS:
        name = split.value
        if args.only not in (None, name):
            continue
        t0 = time.perf_counter()
        tally = run(split, args.games, trials, n_dice=args.dice, per_kind=args.per_kind, seed=args.seed)
        report(tally, f"{name} photos, {args.games}, {args.dice} dice each at set-up "
               f"({time.perf_counter() - t0:.0f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The dice reader (`vision.dice.read_dice`) on the real labelled photographs of `../shared/data/real-dice/`.

Prints, for a tuning split and a fixed held-out split separately: detection recall and precision (a reading
matches a labelled die when their boxes overlap with IoU >= 0.5, each label matched once, best IoU first),
value accuracy over matched dice, the share of matched dice reported unsure, unsure readings among all
readings, ms per image, and what would go wrong silently (readings not flagged unsure that are wrong).

Split (fixed, documented, `vision.dice_model.data.split`): photo names sorted, shuffled with
`numpy.random.default_rng(7)`, the first 70% tune, the last 30% are held out. The dice network is trained, and
its thresholds chosen, on the tuning split only.

Usage:  python bench/dice_real.py [PHOTOS_DIR] [--limit N] [--die-px] [--only tuning|held-out]
`--only tuning` while choosing anything (a threshold, a network): the held-out figures are for reporting.
`--die-px` passes each photo's median labelled die size, as a caller that knows the scale would.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

# Run as a script, this folder is sys.path[0] and its vision.py would shadow the vision package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.dice import read_dice  # noqa: E402
from vision.dice_model.data import REAL_DICE as DEFAULT  # noqa: E402
from vision.dice_model.data import SPLIT_SEED, match, split  # noqa: E402

Box = Sequence[float]


@dataclass
class Tally:
    photos: int = 0
    labelled: int = 0
    readings: int = 0
    matched: int = 0
    correct: int = 0
    unsure_matched: int = 0
    unsure_all: int = 0
    centre_found: int = 0
    sure_wrong: int = 0  # matched, not flagged unsure, wrong value
    sure_extra: int = 0  # no labelled die there, not flagged unsure
    ms: float = 0.0

    def line(self, name: str) -> str:
        return (
            f"{name:9s} photos {self.photos:3d}  dice {self.labelled:4d}  "
            f"recall {self.matched / max(1, self.labelled):.3f}  "
            f"precision {self.matched / max(1, self.readings):.3f}  "
            f"value accuracy {self.correct / max(1, self.matched):.3f}  "
            f"unsure {self.unsure_matched / max(1, self.matched):.3f} (of all readings "
            f"{self.unsure_all / max(1, self.readings):.3f})  "
            f"ms/image {self.ms / max(1, self.photos):.0f}\n"
            f"{'':9s} silently wrong: {self.sure_wrong} sure readings with a wrong value, "
            f"{self.sure_extra} sure readings of no labelled die; labelled dice with a reading's centre "
            f"inside their box "
            f"{self.centre_found / max(1, self.labelled):.3f}"
        )


def evaluate(paths: Sequence[Path], use_die_px: bool) -> Tally:
    tally = Tally()
    for path in paths:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            print(f"cannot read {path}", file=sys.stderr)
            continue
        label = json.loads(path.with_suffix(".json").read_text())
        truth = [(tuple(float(v) for v in d["box"]), int(d["value"])) for d in label["dice"]]
        die_px = None
        if use_die_px and truth:
            die_px = float(np.median([min(b[2] - b[0], b[3] - b[1]) for b, _v in truth])) * 0.8
        t0 = time.perf_counter()
        dice = read_dice(np.asarray(image, np.uint8), die_px=die_px)
        tally.ms += (time.perf_counter() - t0) * 1000.0
        found = [(tuple(float(v) for v in d.box), d.value, d.unsure) for d in dice]
        pairs = match([f[0] for f in found], [t[0] for t in truth])
        tally.photos += 1
        tally.labelled += len(truth)
        tally.readings += len(found)
        tally.unsure_all += sum(1 for f in found if f[2])
        tally.matched += len(pairs)
        tally.correct += sum(1 for i, j in pairs if found[i][1] == truth[j][1])
        tally.unsure_matched += sum(1 for i, _j in pairs if found[i][2])
        tally.sure_wrong += sum(1 for i, j in pairs if not found[i][2] and found[i][1] != truth[j][1])
        matched = {i for i, _j in pairs}
        tally.sure_extra += sum(1 for i, f in enumerate(found) if i not in matched and not f[2])
        centres = [((f[0][0] + f[0][2]) / 2, (f[0][1] + f[0][3]) / 2) for f in found]
        tally.centre_found += sum(
            1 for b, _v in truth if any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for x, y in centres)
        )
    return tally


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photos", nargs="?", default=str(DEFAULT))
    parser.add_argument("--limit", type=int, default=0, help="at most N photos per split (quick looks)")
    parser.add_argument("--die-px", action="store_true", help="pass each photo's labelled die size")
    parser.add_argument("--only", choices=("tuning", "held-out"), help="one split (choose on tuning alone)")
    args = parser.parse_args(list(argv))
    folder = Path(args.photos)
    photos = {p.name: p for p in sorted(folder.glob("*.jpg")) if p.with_suffix(".json").is_file()}
    if not photos:
        print(f"no labelled photos in {folder}", file=sys.stderr)
        return 2
    tune, held = split(list(photos))
    print(
        f"{len(photos)} photos in {folder}; split seed {SPLIT_SEED}: {len(tune)} tuning, {len(held)} held out"
    )
    for name, part in (("tuning", tune), ("held-out", held)):
        if args.only not in (None, name):
            continue
        chosen = part[: args.limit] if args.limit else part
        print(evaluate([photos[n] for n in chosen], args.die_px).line(name), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

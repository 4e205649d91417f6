"""vision.dice on real photographs (tests/data/real-dice/, BSD-3 licence beside them; all from the tuning
split of bench/dice_real.py). The reader finds only part of the dice in real photos (bench/dice_real.py
prints the figures); these tests pin down what it does get right: every die it reports is a labelled die,
read with the labelled top-face value unless flagged unsure, and it reads at least as many as today."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice import read_dice

DATA = Path(__file__).resolve().parents[1] / "data" / "real-dice"

# photo -> (labelled dice, dice the reader must find at least)
PHOTOS = {
    "byler_IMG_20191208_112609": (1, 1),
    "byler_IMG_20191209_095706": (4, 4),
    "byler_IMG_20191209_095342": (6, 4),
    "byler_IMG_20191208_111228": (22, 8),
    "byler_IMG_20191208_112332": (25, 8),
}


def test_the_licence_travels_with_the_photos() -> None:
    assert "Redistribution" in (DATA / "LICENSE").read_text()


@pytest.mark.parametrize("name", sorted(PHOTOS))
def test_every_die_reported_is_a_labelled_die_read_right_or_flagged(name: str) -> None:
    labelled, at_least = PHOTOS[name]
    image = cv2.imread(str(DATA / f"{name}.jpg"), cv2.IMREAD_COLOR)
    assert image is not None
    truth = json.loads((DATA / f"{name}.json").read_text())["dice"]
    assert len(truth) == labelled
    dice = read_dice(np.asarray(image, np.uint8))
    found: set[int] = set()
    sure = 0
    for d in dice:
        cx, cy = (d.box[0] + d.box[2]) / 2.0, (d.box[1] + d.box[3]) / 2.0
        hits = [
            i
            for i, t in enumerate(truth)
            if t["box"][0] <= cx <= t["box"][2] and t["box"][1] <= cy <= t["box"][3]
        ]
        assert len(hits) == 1, f"{d} is on no labelled die (or on two)"
        assert hits[0] not in found, f"{d} reads a die twice"
        found.add(hits[0])
        assert d.unsure or d.value == truth[hits[0]]["value"], (d, truth[hits[0]])
        sure += not d.unsure
    assert sure >= at_least

"""bench/realtable's face library: ids unique, references resolving, the split fixed in the data, stable, and
disjoint, with the hold-outs issue 22 asks for; the cube's faces as a real die's."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import numpy as np
import pytest

from bench.realtable import cube
from bench.realtable.library import (
    ATLAS_COLUMNS,
    FACE_PX,
    FACES_JSON,
    Flag,
    LibraryError,
    Split,
    _atlas,
    faces,
    load,
    parse,
)
from bench.realtable.scene import Family
from bench.realtable.tables import playable
from engine.colours import Colour
from vision.dice_model.data import split as photo_split

# sha256 of "id split kind" per die, sorted by id: changes only when someone changes the split on purpose
SPLIT_DIGEST = "d5b5fd322232202b"


def test_ids_are_unique_and_every_reference_resolves() -> None:
    lib = load()
    ids = [d.id for d in lib.dice]
    assert len(ids) == len(set(ids)) == 1046
    assert all(d.kind is None or d.kind in lib.kinds for d in lib.dice)
    atlas = [d.atlas for d in lib.dice if d.atlas is not None]
    assert atlas == list(range(len(atlas)))
    rows = -(-len(atlas) // ATLAS_COLUMNS)
    assert _atlas().shape[:2] == (rows * FACE_PX, ATLAS_COLUMNS * FACE_PX)
    assert all(1 <= d.value <= 6 for d in lib.dice)


def test_the_split_is_the_one_in_the_data_and_stable() -> None:
    lib = load()
    text = "\n".join(f"{d.id} {d.split.value} {d.kind}" for d in sorted(lib.dice, key=lambda d: d.id))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == SPLIT_DIGEST


def test_held_out_photos_are_the_dice_networks_held_out_photos() -> None:
    lib = load()
    photos = sorted({d.photo for d in lib.dice})
    assert len(photos) == 150
    assert lib.held_out_photos == frozenset(photo_split(photos)[1])


def test_the_splits_are_disjoint_and_hold_out_what_the_issue_asks() -> None:
    lib = load()
    train = faces(Split.TRAIN)
    assert train and all(not lib.kinds[d.kind].held_out for d in train if d.kind)
    assert not {d.photo for d in train} & lib.held_out_photos
    held_kinds = {k.id for k in lib.kinds.values() if k.held_out}
    assert not held_kinds & {d.kind for d in train}
    usable = [d for d in lib.dice if d.split is not Split.EXCLUDED]
    held = [d for d in usable if d.split is Split.HELD_OUT_KIND]
    assert len(held) >= len(lib.dice) / 3
    looks = {lib.kinds[k].look for k in held_kinds}
    assert looks & {"swirled", "marbled"}
    assert any(lib.kinds[k].colour is Colour.WHITE for k in held_kinds)
    assert any(lib.kinds[k].pips not in ("white", "black") for k in held_kinds)
    assert all(Flag.HAND not in d.flags and Flag.PAPER not in d.flags for d in usable)


@pytest.mark.parametrize("family", list(Family))
def test_every_player_colour_has_a_playable_kind_in_both_families(family: Family) -> None:
    lib = load()
    for colour in Colour:
        kinds = lib.kinds_of(colour, held_out=family is Family.HELD_OUT)
        assert any(playable(lib, k.id, family) for k in kinds), (colour, family)


def test_a_malformed_library_is_refused_with_every_problem() -> None:
    doc = json.loads(FACES_JSON.read_text(encoding="utf-8"))
    doc["dice"][0]["kind"] = "no-such-kind"
    doc["dice"][1]["split"] = "train" if doc["dice"][1]["split"] != "train" else "held_out_kind"
    doc["dice"].append(dict(doc["dice"][2]))
    with pytest.raises(LibraryError) as err:
        parse(doc)
    text = str(err.value)
    assert "no-such-kind" in text and "split" in text and "listed twice" in text


def test_faces_come_out_as_images_of_their_split() -> None:
    die = faces("held_out_kind", value=6)[0]
    img = die.image()
    assert img.shape == (FACE_PX, FACE_PX, 3) and img.dtype == np.uint8 and img.std() > 5
    excluded = next(d for d in load().dice if d.split is Split.EXCLUDED)
    with pytest.raises(LibraryError):
        excluded.image()


def test_a_die_shows_on_its_sides_neither_its_value_nor_the_opposite() -> None:
    for value in range(1, 7):
        ways = cube.lying(value)
        assert len({tuple(w[d] for d in cube.DIRECTIONS) for w in ways}) == 4
        for way in range(4):
            d = cube.place(0.0, 0.0, 0.3, value, way)
            assert d.values[0] == value and d.values[5] == 7 - value
            assert sorted(d.values[1:5]) == sorted(set(range(1, 7)) - {value, 7 - value})
            assert d.values[1] + d.values[3] == 7 and d.values[2] + d.values[4] == 7


def test_one_two_three_run_counter_clockwise_as_on_a_western_die() -> None:
    # looking down on a die with 1 up, the sides 2, 3 follow counter-clockwise (+x, then +y)
    counts = Counter()
    for way in cube.lying(1):
        sides = [way[d] for d in cube.DIRECTIONS[1:5]]
        i = sides.index(2)
        counts[sides[(i + 1) % 4]] += 1
    assert counts == {3: 4}

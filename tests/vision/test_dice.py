"""vision.dice: the dice reader on synthetic dice (side faces, touching dice, tile edges, glare), bad
input and the `seneschal vision dice` CLI. Real photographs are in test_dice_real.py."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from vision import dice as dice_module
from vision.calibration import default_calibration
from vision.dice import DiceInputError, DieReading, dice_main, read_dice
from vision.errors import VisionError
from vision.synth import SceneSpec, render_die, render_scene

C = Colour


def centre(d: DieReading) -> tuple[float, float]:
    return ((d.box[0] + d.box[2]) / 2.0, (d.box[1] + d.box[3]) / 2.0)


def by_x(dice: list[DieReading]) -> list[DieReading]:
    return sorted(dice, key=lambda d: d.box[0])


@pytest.mark.parametrize("colour", list(C))
@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_every_face_of_every_player_colour_is_read_straight_down(colour: Colour, value: int) -> None:
    image, truth = render_die(value, colour, seed=value, size_px=36)
    dice = read_dice(image, die_px=36)
    assert [(d.value, d.unsure) for d in dice] == [(value, False)]
    x0, y0 = truth[0].top_face.min(axis=0)
    x1, y1 = truth[0].top_face.max(axis=0)
    cx, cy = centre(dice[0])
    assert x0 <= cx <= x1 and y0 <= cy <= y1


def test_side_faces_seen_at_25_degrees_are_not_counted() -> None:
    """At 25 degrees tilt two side faces and their pips show; only the top face's pips count. Every die is
    read with its top face's value; at most one of the 24 may be flagged unsure (asked, never guessed)."""
    unsure = []
    for colour in (C.RED, C.BLUE, C.YELLOW, C.GREEN, C.WHITE, C.BLACK):
        for value in (1, 2, 5, 6):
            image, _truth = render_die(value, colour, seed=10 + value, size_px=36, tilt_deg=25.0)
            dice = read_dice(image, die_px=36)
            assert [d.value for d in dice] == [value], (colour, value, dice)
            unsure += [(colour, value)] if dice[0].unsure else []
    assert len(unsure) <= 1, unsure


@pytest.mark.parametrize("seed", range(3))
def test_touching_dice_of_one_colour_are_read_apart(seed: int) -> None:
    image, truth = render_die(
        5, C.RED, seed=seed, size_px=36, tilt_deg=15.0, neighbours=[(2, C.RED), (6, C.RED)]
    )
    dice = by_x(read_dice(image, die_px=36))
    assert [t.value for t in truth] == [5, 2, 6]
    assert [(d.value, d.unsure) for d in dice] == [(5, False), (2, False), (6, False)]


def test_touching_dice_of_different_colours_are_read_apart() -> None:
    image, _truth = render_die(
        3, C.BLUE, seed=4, size_px=32, tilt_deg=10.0, neighbours=[(4, C.YELLOW), (1, C.RED)]
    )
    dice = by_x(read_dice(image, die_px=32, calibration=default_calibration()))
    assert [(d.value, d.unsure, d.player) for d in dice] == [
        (3, False, C.BLUE),
        (4, False, C.YELLOW),
        (1, False, C.RED),
    ]


def test_a_die_across_the_regions_edge_is_found_but_flagged() -> None:
    """A region (a tile) that cuts a die in half: the die is still reported, as unsure."""
    image, truth = render_die(4, C.GREEN, seed=2, size_px=40)
    cx, _cy = truth[0].centre
    h, w = image.shape[:2]
    region = np.array([[0, 0], [int(cx), 0], [int(cx), h - 1], [0, h - 1]])
    dice = read_dice(image, region=region, die_px=40)
    assert all(d.unsure for d in dice)
    whole = read_dice(image, region=np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]), die_px=40)
    assert [(d.value, d.unsure) for d in whole] == [(4, False)]


@pytest.mark.parametrize("inside", [1, 255, True])
def test_a_mask_region_is_read_alike_whatever_marks_its_inside(inside: object) -> None:
    image, _truth = render_die(3, C.RED, seed=4, size_px=36)
    mask = np.zeros(image.shape[:2], np.uint8 if inside is not True else bool)
    mask[5:-5, 5:-5] = inside
    region = dice_module._region_mask(image.shape, mask)
    assert region is not None and region.dtype == np.uint8
    assert np.array_equal(region > 0, mask > 0)
    assert [(d.value, d.unsure) for d in read_dice(image, region=mask, die_px=36)] == [(3, False)]


def test_a_die_outside_the_region_is_not_reported() -> None:
    image, truth = render_die(6, C.BLACK, seed=3, size_px=36)
    cx, _cy = truth[0].centre
    left = np.zeros(image.shape[:2], np.uint8)
    left[:, : max(1, int(cx - 30))] = 1
    assert read_dice(image, region=left, die_px=36) == []


@pytest.mark.parametrize("seed", range(4))
def test_glare_never_gives_a_confident_wrong_value(seed: int) -> None:
    """A glare spot over the face washes out its centre: the reader may miss the die (documented weakness),
    but whatever it reports is right or flagged unsure."""
    image, _truth = render_die(5, C.RED, seed=seed, size_px=36, tilt_deg=15.0, glare=True)
    dice = read_dice(image, die_px=36)
    assert all(d.value == 5 or d.unsure for d in dice)


def test_tile_art_and_stickers_alone_give_no_dice() -> None:
    spec = SceneSpec({Hex(0, 0): "T01", Hex(1, 0): "K1", Hex(0, 1): "T03"}, {}, layout_seed=3, tilt_deg=10.0)
    image, gt = render_scene(spec, 5)
    assert gt.dice == ()
    polygons = [np.asarray(p, np.float64).reshape(-1, 2) for p in gt.tile_polygons.values()]
    mask = np.zeros(image.shape[:2], np.uint8)
    for p in polygons:
        cv2.fillPoly(mask, [np.round(p).astype(np.int32)], 1)
    assert read_dice(image, region=mask, calibration=default_calibration()) == []


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.zeros((0, 0, 3), np.uint8), "too small"),
        (np.zeros((1, 1, 3), np.uint8), "too small"),
        (np.zeros((64, 64, 3), np.float32), "dtype"),
        (np.zeros((64, 64), np.uint8), "BGR"),
        ("image.png", "numpy image"),
        (None, "numpy image"),
    ],
)
def test_bad_images_raise_a_vision_error(bad: object, message: str) -> None:
    with pytest.raises(DiceInputError, match=message) as info:
        read_dice(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, VisionError)


@pytest.mark.parametrize(
    "region",
    [
        np.zeros((5, 5), np.uint8),
        np.ones((32, 64), np.uint8),  # a mask of another size (an even number of cells), not a polygon
        np.ones((4, 6), np.int32),
        [[1, 2]],
        [[0, 0], [1, 1]],
        "tile",
        [[0, 0], [np.nan, 1], [3, 3]],
    ],
)
def test_bad_regions_raise_a_vision_error(region: object) -> None:
    image = np.full((64, 64, 3), 128, np.uint8)
    with pytest.raises(DiceInputError, match="region"):
        read_dice(image, region=region)


@pytest.mark.parametrize("die_px", [0.0, -3.0, float("nan")])
def test_a_bad_die_size_raises(die_px: float) -> None:
    with pytest.raises(DiceInputError, match="die_px"):
        read_dice(np.full((64, 64, 3), 128, np.uint8), die_px=die_px)


def test_an_empty_region_or_a_plain_image_has_no_dice() -> None:
    image = np.full((120, 160, 3), 200, np.uint8)
    assert read_dice(image) == []
    assert read_dice(image, region=np.zeros((120, 160), np.uint8)) == []


def test_cli_prints_json_and_draws(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, _truth = render_die(3, C.RED, seed=1, size_px=40)
    path = tmp_path / "die.png"
    cv2.imwrite(str(path), image)
    shown = tmp_path / "shown.png"
    assert dice_main([str(path), "--die-px", "40", "--show", str(shown)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(d["value"], d["unsure"]) for d in out["dice"]] == [(3, False)]
    assert set(out["dice"][0]) == {"box", "value", "confidence", "unsure", "colour_bgr", "player"}
    drawn = cv2.imread(str(shown))
    assert drawn is not None and drawn.shape == image.shape


def test_cli_exits_2_on_a_missing_or_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dice_main([str(tmp_path / "missing.png")]) == 2
    assert "cannot read" in capsys.readouterr().err
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not a png")
    assert dice_main([str(junk)]) == 2
    assert dice_main([]) == 2


def test_a_tilted_die_s_top_face_found_apart_from_the_whole_die_is_one_die(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At a tilt the finder can put one centre on the top face and one on the whole die (top and side face):
    boxes sharing most of the smaller one are one die, the surer reading kept. Dice side by side are not."""
    import vision.dice as dice_module

    sure_two = np.array([0.0, 0.0, 0.98, 0.0, 0.0, 0.0, 0.02], np.float32)
    head = np.full(6, 1 / 6, np.float32)
    found = [
        dice_module.Candidate((824, 256, 859, 292), 0.9, head, sure_two, False),  # top face
        dice_module.Candidate((823, 265, 866, 309), 0.6, head, sure_two, False),  # whole die, lower
        dice_module.Candidate((866, 262, 905, 306), 0.8, head, sure_two, False),  # the die beside it
    ]
    monkeypatch.setattr(dice_module, "candidates", lambda *a, **k: found)
    image = np.full((400, 1000, 3), 120, np.uint8)
    dice = read_dice(image)
    assert sorted(d.box for d in dice) == [(824, 256, 859, 292), (866, 262, 905, 306)]
    # In a castle's row at a tilt, neighbours share about half of a box: a sure neighbour stays, a doubtful
    # reading sharing as much with a sure die is that die again.
    row = [
        dice_module.Candidate((665, 126, 710, 173), 0.7, head, sure_two, False),
        dice_module.Candidate((660, 146, 706, 191), 0.66, head, sure_two, False),  # shares 0.53, sure
        dice_module.Candidate((668, 130, 712, 172), 0.2, head, sure_two, False),  # shares 0.9, doubtful
    ]
    monkeypatch.setattr(dice_module, "candidates", lambda *a, **k: row)
    assert sorted(d.box for d in read_dice(image)) == [(660, 146, 706, 191), (665, 126, 710, 173)]


def test_a_die_the_value_networks_are_sure_of_is_sure_however_weak_the_finders_peak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In a castle a die beside a stronger one gets a weak centre score (the numbers of benchmark seed 1023's
    castle, a black 1 behind a black 6); its crop, read at full resolution, is plainly a die. It is reported
    as sure and kept beside its neighbour, whose box it shares by half. A crop the networks doubt a little
    more (side faces of a die already found, seed 1025) stays a doubtful die."""
    head = np.full(6, 1 / 6, np.float32)
    six = np.array([0.004, 0.0, 0.0, 0.0, 0.0, 0.01, 0.986], np.float32)
    one = np.array([0.007, 0.94, 0.01, 0.0, 0.0, 0.0, 0.043], np.float32)
    castle = [
        dice_module.Candidate((2113, 367, 2169, 422), 0.64, head, six, False),
        dice_module.Candidate((2113, 342, 2168, 397), 0.275, head, one, False),  # shares 0.55 of its box
    ]
    monkeypatch.setattr(dice_module, "candidates", lambda *a, **k: castle)
    image = np.full((480, 2200, 3), 120, np.uint8)
    assert sorted((d.value, d.unsure) for d in read_dice(image)) == [(1, False), (6, False)]
    doubted = np.array([0.016, 0.0, 0.9, 0.0, 0.0, 0.0, 0.084], np.float32)
    castle[1] = dice_module.Candidate((2113, 342, 2168, 397), 0.275, head, doubted, False)
    assert [(d.value, d.unsure) for d in read_dice(image)] == [(6, False)]
    castle[1] = dice_module.Candidate((2113, 400, 2168, 455), 0.275, head, doubted, False)  # shares 0.4
    assert sorted((d.value, d.unsure) for d in read_dice(image)) == [(2, True), (6, False)]


def test_the_second_value_network_votes_only_where_the_first_is_not_sure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first value network decides alone on crops it is sure of (about 0.957 is "quite sure" under its
    label smoothing); the second one is asked about the rest, and their scores are averaged there; crops
    still doubtful after the vote are read again in their four turns."""
    import vision.dice as dice_module

    first, second = dice_module.value_models()  # the runtime's files
    sure = np.log(np.array([0.01, 0.0, 0.0, 0.957, 0.0, 0.0, 0.033]) + 1e-6)
    torn = np.log(np.array([0.05, 0.0, 0.0, 0.5, 0.45, 0.0, 0.0]) + 1e-6)
    other = np.log(np.array([0.02, 0.0, 0.0, 0.9, 0.08, 0.0, 0.0]) + 1e-6)
    asked: list[tuple[str, int]] = []

    def logits(path: Path, crops: list[np.ndarray]) -> np.ndarray:
        asked.append((path.name, len(crops)))
        # crop 0 is one the first network is sure of, crop 1 one it is torn about (the turns: as torn)
        rows = [sure if float(c[0, 0, 0]) == 0 else torn for c in crops]
        return np.array([other if path == second else r for r in rows])

    monkeypatch.setattr(dice_module, "_value_logits", logits)
    crops = [np.zeros((40, 40, 3), np.uint8), np.full((40, 40, 3), 9, np.uint8)]
    probs = dice_module.looked_at_twice(crops)
    assert asked[:2] == [(first.name, 2), (second.name, 1)]
    assert asked[2:] == [(first.name, 3), (second.name, 3)]  # the torn crop's three turns, both networks
    assert probs[0, 3] == pytest.approx(0.957, abs=1e-3)  # the first network's own, alone
    assert probs[1, 3] == pytest.approx((0.5 + 0.9) / 2, abs=1e-3)  # the vote, the same in every turn


def test_a_caller_that_names_players_itself_gets_no_body_colour() -> None:
    image, _truth = render_die(4, C.RED, seed=3, size_px=36)
    plain = read_dice(image, die_px=36)
    bare = read_dice(image, die_px=36, body_colours=False)
    assert [d.value for d in bare] == [d.value for d in plain] == [4]
    assert plain[0].colour_bgr is not None and bare[0].colour_bgr is None
    assert bare[0].to_json()["colour_bgr"] is None
    # asked to name the players, it measures the colour whatever `body_colours` says
    named = read_dice(image, calibration=default_calibration(), die_px=36, body_colours=False)
    assert named[0].colour_bgr is not None and named[0].player is not None


def test_the_networks_input_is_what_opencv_would_make_of_the_images() -> None:
    """`networks.blob` replaces `cv2.dnn.blobFromImages(images, 1/255)` (slow in OpenCV 5): the same numbers,
    bit for bit, for one image and for a batch."""
    from vision import networks

    rng = np.random.default_rng(4)
    one = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    batch = [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(3)]
    for images in ([one], batch):
        ours = networks.blob(np.stack(images))
        theirs = cv2.dnn.blobFromImages(images, 1.0 / 255.0)
        assert ours.dtype == np.float32 and ours.flags.c_contiguous
        assert ours.shape == theirs.shape and np.array_equal(ours, theirs)


@pytest.mark.parametrize(("scale", "sides"), [(1.0, (299, 447)), (1.01, (299, 447)), (0.8, (299, 447)),
                                             (1.3, (299, 447)), (0.4, (299, 447)), (0.4, (300, 448)),
                                             (0.3, (301, 448)), (0.3, (300, 450))])
def test_the_finder_s_input_is_the_view_resized_then_padded_with_its_edges(
    scale: float, sides: tuple[int, int]
) -> None:
    """The view is resized straight into the padded array: the same bytes as resizing, then repeating the
    edge pixels out to the runtime's size step. Bilinear above `AREA_BELOW`; below it, squares of
    `whole_shrink` pixels averaged and the rest bilinear where the sides are a multiple of it, else areas."""
    image, _truth = render_scene(SceneSpec({Hex(0, 0): "T01"}, {"T01": {C.RED: 3}}, layout_seed=1), 1)
    region = image[101 : 101 + sides[0], 203 : 203 + sides[1]]  # a view into the frame, as the reader's
    got = dice_module.finder_input(region, scale)  # first: no array just freed for it to land on
    h, w = dice_module.finder_size(region.shape, scale)
    k = dice_module.whole_shrink(scale)
    if (h, w) == region.shape[:2]:
        resized = region
    elif scale >= dice_module.AREA_BELOW:
        resized = cv2.resize(region, (w, h), interpolation=cv2.INTER_LINEAR)
    elif sides[0] % k or sides[1] % k:
        resized = cv2.resize(region, (w, h), interpolation=cv2.INTER_AREA)
    else:
        squares = cv2.resize(region, (sides[1] // k, sides[0] // k), interpolation=cv2.INTER_AREA)
        mean = region[k : 2 * k, 2 * k : 3 * k].mean(axis=(0, 1))
        assert np.array_equal(squares[1, 2], np.floor(mean + 0.5))  # each square's mean, halves rounded up
        resized = cv2.resize(squares, (w, h), interpolation=cv2.INTER_LINEAR)
    step = dice_module.networks.size_step()
    expected = cv2.copyMakeBorder(resized, 0, -h % step, 0, -w % step, cv2.BORDER_REPLICATE)
    assert got.shape == (1, *expected.shape) and got.shape[1] % step == got.shape[2] % step == 0
    assert np.array_equal(got[0], expected)
    near_one = abs(scale - 1.0) <= 0.02
    assert (h, w) == (sides if near_one else (round(sides[0] * scale), round(sides[1] * scale)))
    assert k == {0.4: 2, 0.3: 3}.get(scale, 1)


def test_the_finder_s_peaks_keep_the_strongest_of_boxes_overlapping_by_more_than_half() -> None:
    maps = np.full((11, 20, 20), -10.0, np.float32)
    maps[7:9] = np.log(30.0)  # every box 30 x 30 input px, centred in its cell (cells 4 px)
    maps[9:11] = 0.0
    for (y, x), logit in {(5, 5): 3.0, (5, 7): 2.0, (5, 11): 1.0, (15, 15): 0.5}.items():
        maps[0, y, x] = logit  # (5, 7)'s box overlaps (5, 5)'s by 0.58; (5, 11)'s by 0.11
    found = dice_module.decode(maps)
    assert [round(f.score, 3) for f in found] == [0.953, 0.731, 0.622]
    boxes = np.array([f.box for f in found] + [(0.0, 0.0, 0.0, 0.0)])
    pairwise = dice_module._ious(boxes)
    assert all(pairwise[i, j] == dice_module.iou(boxes[i], boxes[j]) for i in range(4) for j in range(4))

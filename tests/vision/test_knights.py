"""Knights per location on synthetic tables with exact ground truth.

Two layers: `read_knights` with a dice finder that returns the renderer's true dice (so assignment, colour and
sums are tested alone, under warm/cool light, glare and tilt), and end to end with the real
`vision.dice.read_dice`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from engine.hexgrid import Hex
from engine.reading import Doubt
from vision.calibration import ColourMatch, default_calibration, sticker_white
from vision.knights import (
    SAME_DIE_MM,
    TOO_CLOSE_MM,
    DieOnTable,
    assign_to_locations,
    doubt,
    find_dice,
    merged,
    occluder_mask,
    read_knights,
    seen_twice,
    side_faces,
    signed_distances,
    tally,
    too_close,
)
from vision.synth import Difficulty, GroundTruth, SceneSpec, TrueDie, random_spec, render_scene

RED, BLUE, YELLOW, GREEN = Colour.RED, Colour.BLUE, Colour.YELLOW, Colour.GREEN
WHITE, BLACK = Colour.WHITE, Colour.BLACK


def truth_reader(truth: GroundTruth):  # type: ignore[no-untyped-def]
    """A dice finder that returns the renderer's dice (whole-die boxes, as `vision.dice` reports), for testing
    everything after it."""

    def read(
        image: np.ndarray, region: np.ndarray | None = None, calibration: object = None
    ) -> list[TrueDie]:
        out = []
        for d in truth.dice:
            x0, y0, x1, y1 = d.box
            cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
            if region is not None and not region[cy, cx]:
                continue
            out.append(TrueDie((int(x0), int(y0), int(x1), int(y1)), d.value))
        return out

    return read


def knights_from_truth(image: np.ndarray, truth: GroundTruth):  # type: ignore[no-untyped-def]
    white = sticker_white(image, [t.corners for t in truth.tags if not t.covered])
    return read_knights(
        image,
        truth.tile_polygons,
        default_calibration(),
        image_to_table=np.linalg.inv(truth.homography),
        white_bgr=white,
        dice_reader=truth_reader(truth),
    )


LAYOUT = {
    Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "T03", Hex(-1, 1): "T04", Hex(-1, 0): "T05",
    Hex(0, -1): "T06", Hex(1, -1): "L1", Hex(2, -1): "K1", Hex(-2, 1): "K2", Hex(0, 2): "K3",
}
KNIGHTS = {
    "K1": {RED: 9}, "K2": {BLUE: 4, GREEN: 2}, "K3": {YELLOW: 14},
    "T01": {RED: 3}, "T02": {BLUE: 6}, "T03": {WHITE: 2}, "T04": {BLACK: 5}, "T05": {GREEN: 1},
}


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("even", {"temperature": 0.0, "tilt_deg": 0.0}),
        ("warm", {"temperature": 1.0, "unevenness": 0.4}),
        ("cool", {"temperature": -1.0, "unevenness": 0.4}),
        ("glare+tilt", {"glare_spots": 3, "tilt_deg": 30.0, "difficulty": Difficulty.HARD, "occluders": 0}),
    ],
)
def test_knights_per_location_match_the_truth(name: str, changes: dict[str, object]) -> None:
    spec = SceneSpec(LAYOUT, KNIGHTS, layout_seed=7).with_(**changes)
    image, truth = render_scene(spec, 11)
    reading = knights_from_truth(image, truth)
    assert reading.knights == truth.knights, name
    assert not reading.unsure and not reading.occluded
    assert reading.seen == {loc for loc in LAYOUT.values() if loc[0] in "TK"}


@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_random_tables_every_visible_location_right(difficulty: Difficulty) -> None:
    for seed in range(3):
        image, truth = render_scene(random_spec(difficulty, seed), seed)
        reading = knights_from_truth(image, truth)
        for loc in reading.seen - truth.occluded:
            right = reading.knights.get(loc, {}) == truth.knights.get(loc, {})
            if difficulty is Difficulty.HARD:
                # Glare can wash a die out beyond recognition: then unsure, never a wrong player.
                assert right or loc in reading.unsure, (difficulty, seed, loc)
            else:
                assert right and loc not in reading.unsure, (difficulty, seed, loc)


def test_dice_near_edges_go_to_the_tile_holding_their_centre_and_supply_dice_to_none() -> None:
    size = 50.0
    polys = {}
    angles = [60 * k - 30 for k in range(6)]
    for h, tid in ((Hex(0, 0), "T01"), (Hex(1, 0), "T02"), (Hex(0, 1), "K1")):
        cx, cy = h.to_pixel(size)
        polys[tid] = np.array(
            [[cx + size * math.cos(math.radians(a)), cy + size * math.sin(math.radians(a))] for a in angles]
        )
    edge_x = size * math.sqrt(3) / 2  # the shared edge of T01 and T02 is the vertical line x = edge_x
    centres = [(edge_x - 3, 0.0), (edge_x + 3, 0.0), (edge_x, 0.0), (0.0, 0.0), (400.0, 400.0)]
    centres.append((-edge_x - 4, 0.0))
    where = assign_to_locations(centres, polys)
    assert where[:2] == ["T01", "T02"]
    assert where[2] in ("T01", "T02")
    assert where[3] == "T01"
    assert where[4] is None  # the supply, well off the board
    assert where[5] == "T01"  # just outside the board's rim: still within the edge tolerance
    # With a homography the test happens on the table plane: a strongly scaled view changes nothing.
    scale = np.diag([3.0, 3.0, 1.0])
    img_polys = {k: v * 3.0 for k, v in polys.items()}
    img_centres = [(x * 3.0, y * 3.0) for x, y in centres]
    assert assign_to_locations(img_centres, img_polys, np.linalg.inv(scale)) == where


def test_signed_distances_are_opencvs_point_polygon_test() -> None:
    """Dice are assigned by every dice-tile distance at once; the numbers are OpenCV's one call at a time, for
    hexagons and for a polygon that is not convex, points inside, outside, on corners and on edges."""
    rng = np.random.default_rng(7)
    angles = np.radians(np.arange(6) * 60.0 + 12.0)
    hexagons = [np.stack([c[0] + r * np.cos(angles), c[1] + r * np.sin(angles)], 1) for c, r in (
        ((100.0, 80.0), 50.0), ((180.0, 130.0), 47.0), ((-20.0, 300.0), 80.0))]  # fmt: skip
    notch = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 150.0], [100.0, 60.0], [0.0, 150.0]])
    points = np.concatenate([rng.uniform(-150, 350, (300, 2)), hexagons[0], notch, [[100.0, 30.0]]])
    for polys in (np.stack(hexagons), notch[None]):
        got = signed_distances(points, polys)
        assert got.shape == (len(points), len(polys))
        for k, poly in enumerate(polys):
            contour = poly.astype(np.float32).reshape(-1, 1, 2)
            want = [cv2.pointPolygonTest(contour, (float(x), float(y)), True) for x, y in points]
            assert np.abs(got[:, k] - want).max() < 1e-3


def test_touching_dice_in_a_castle_are_summed_per_colour() -> None:
    knights = {"K1": {RED: 17, BLUE: 3}, "T01": {RED: 6}}
    spec = SceneSpec({Hex(0, 0): "T01", Hex(1, 0): "K1"}, knights, layout_seed=3, tilt_deg=10.0)
    image, truth = render_scene(spec, 5)
    assert len([d for d in truth.dice if d.location == "K1"]) == 4
    reading = knights_from_truth(image, truth)
    assert reading.knights == knights


@pytest.mark.parametrize("tilt", [0.0, 30.0])
@pytest.mark.parametrize("second_sure", [False, True])
def test_a_die_read_again_over_its_side_face_counts_once_but_a_doubtful_neighbour_stays(
    tilt: float, second_sure: bool
) -> None:
    """The finder's second, unsure box half a die below a sure one is that die again (`SAME_DIE_MM`); when
    the reader is sure of both, they cannot both be dice, and the location asks (`TOO_CLOSE_MM`). An unsure
    die a side or more from the others is a die of its own, and its location stays unsure."""
    knights = {"K1": {RED: 17, BLUE: 3}, "T01": {BLUE: 4}}
    spec = SceneSpec({Hex(0, 0): "T01", Hex(1, 0): "K1"}, knights, layout_seed=3, tilt_deg=tilt)
    image, truth = render_scene(spec, 5)
    true_reader = truth_reader(truth)
    (t01,) = [d for d in truth.dice if d.location == "T01"]
    doubtful = [d.box for d in truth.dice if d.location == "K1"][-1]

    def reader(
        image: np.ndarray, region: np.ndarray | None = None, calibration: object = None
    ) -> list[TrueDie]:
        dice = [
            TrueDie(d.box, d.value, 0.65, unsure=True) if d.box == doubtful else d
            for d in true_reader(image, region, calibration)
        ]
        x0, y0, x1, y1 = t01.box
        down = round(0.6 * float(np.linalg.norm(t01.top_face[1] - t01.top_face[0])))  # 0.6 of a side
        return [*dice, TrueDie((x0, y0 + down, x1, y1 + down), 2, 0.6, unsure=not second_sure)]

    reading = read_knights(
        image,
        truth.tile_polygons,
        default_calibration(),
        image_to_table=np.linalg.inv(truth.homography),
        white_bgr=sticker_white(image, [t.corners for t in truth.tags if not t.covered]),
        dice_reader=reader,
    )
    assert reading.knights["T01"] == {BLUE: 4}
    if second_sure:
        assert [(d.value, d.unsure) for d in reading.dice if d.location == "T01"] == [(4, False), (2, True)]
        assert "T01" in reading.unsure
    else:
        assert [d.value for d in reading.dice if d.location == "T01"] == [4]
        assert "T01" not in reading.unsure
    assert "K1" in reading.unsure  # the castle's doubtful die is kept, not taken for its neighbour
    assert len([d for d in reading.dice if d.location == "K1"]) == 4


def test_only_an_unsure_die_close_to_a_sure_one_is_taken_for_it() -> None:
    """`seen_twice` on the dice's plane (mm): two sure dice however close are two dice (the reader was sure
    of both), two unsure ones are kept (neither is known to be the die), and the distance is strict."""
    sure, doubt = TrueDie((0, 0, 1, 1), 3), TrueDie((0, 0, 1, 1), 3, 0.5, unsure=True)
    at = np.array([[0.0, 0.0], [SAME_DIE_MM - 0.01, 0.0], [0.0, SAME_DIE_MM], [40.0, 40.0]])
    assert seen_twice([sure, doubt, doubt, doubt], at) == {1}
    assert seen_twice([sure, sure, sure, sure], at) == set()
    assert seen_twice([doubt, doubt, doubt, doubt], at) == set()
    assert seen_twice([doubt, sure, doubt, sure], at) == {0}
    assert seen_twice([], np.zeros((0, 2))) == set()


def test_two_sure_dice_too_close_to_both_be_dice_leave_the_weaker_in_doubt() -> None:
    """`too_close`: of two sure dice within `TOO_CLOSE_MM`, the one of lower confidence; unsure dice are not
    compared."""
    strong, weak = TrueDie((0, 0, 1, 1), 6, 0.9), TrueDie((0, 0, 1, 1), 5, 0.8)
    doubt = TrueDie((0, 0, 1, 1), 3, 0.95, unsure=True)
    at = np.array([[0.0, 0.0], [TOO_CLOSE_MM - 0.01, 0.0], [0.0, TOO_CLOSE_MM + 0.01]])
    assert too_close([strong, weak, strong], at) == {1}
    assert too_close([weak, strong, weak], at) == {0}
    assert too_close([doubt, weak, weak], at) == set()


def _camera(tilt: float, *, turned: bool = False) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """A 1080p camera 700 mm from the table, `tilt` degrees from vertical, the camera on the table's +y side
    (`turned`: the frame upside down): table -> image, and table points with heights (mm, up) -> image px."""
    w, h = 1920, 1080
    f = (w / 2) / math.tan(math.radians(32))
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    if turned:
        k = np.array([[-1.0, 0, w], [0, -1.0, h], [0, 0, 1.0]]) @ k
    t = math.radians(tilt)
    fwd = np.array([0.0, -math.sin(t), math.cos(t)])  # world z points into the table; up is -z
    r = np.vstack([[1.0, 0, 0], np.cross(fwd, [1.0, 0, 0]), fwd])
    centre = -700.0 * fwd

    def to_image(points: np.ndarray) -> np.ndarray:
        world = np.column_stack([points[:, :2], -points[:, 2]])
        uv = (world - centre) @ r.T @ k.T
        return np.asarray(uv[:, :2] / uv[:, 2:3])

    return k @ np.column_stack([r[:, 0], r[:, 1], -r @ centre]), to_image


def _box(centre: np.ndarray, side: float = 24.0) -> tuple[int, int, int, int]:
    x, y = float(centre[0]), float(centre[1])
    return (round(x - side / 2), round(y - side / 2), round(x + side / 2), round(y + side / 2))


@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("tilt", [15.0, 30.0, 45.0])
def test_a_die_read_twice_unsure_keeps_its_top_face_not_its_side(tilt: float, *, turned: bool) -> None:
    """`side_faces`: a die on the far side of the table read twice, both boxes unsure: over its top face
    (16 mm up) and over the side facing the camera (8 mm up, 8 mm nearer). The side's box is the one left
    out, in either order, with the frame either way up; dice side by side, or a sure die, are left alone."""
    table_to_image, to_image = _camera(tilt, turned=turned)
    image_to_table = np.linalg.inv(table_to_image)
    foot = np.array([-20.0, -300.0])
    top, side = to_image(np.array([[*foot, 16.0], [foot[0], foot[1] + 8.0, 8.0]]))
    a, b = TrueDie(_box(top), 5, 0.45, unsure=True), TrueDie(_box(side), 6, 1.0, unsure=True)
    assert side_faces([a, b], image_to_table, (1920, 1080)) == {1}
    assert side_faces([b, a], image_to_table, (1920, 1080)) == {0}
    assert side_faces([dataclasses.replace(a, unsure=False), b], image_to_table, (1920, 1080)) == set()
    (beside,) = to_image(np.array([[foot[0] + 17.0, foot[1], 16.0]]))
    assert side_faces([a, TrueDie(_box(beside), 2, unsure=True)], image_to_table, (1920, 1080)) == set()


def test_unknown_colour_makes_the_location_unsure_not_wrong() -> None:
    knights = {"T01": {RED: 3}, "T02": {GREEN: 2}}
    spec = SceneSpec({Hex(0, 0): "T01", Hex(1, 0): "T02"}, knights, layout_seed=1)
    image, truth = render_scene(spec, 1)
    white = sticker_white(image, [t.corners for t in truth.tags])
    reading = read_knights(
        image,
        truth.tile_polygons,
        default_calibration([RED, BLUE]),  # nobody plays green
        white_bgr=white,
        dice_reader=truth_reader(truth),
    )
    assert reading.knights == {"T01": {RED: 3}}
    assert reading.unsure == {"T02"}


def test_hands_are_found_as_occluders() -> None:
    spec = random_spec(Difficulty.HARD, 4).with_(occluders=2)
    image, truth = render_scene(spec, 4)
    from vision.pipeline import occluder_scale

    white = sticker_white(image, [t.corners for t in truth.tags])
    mask = occluder_mask(image, white, scale=occluder_scale(truth.tile_polygons.values()))
    reading = read_knights(
        image, truth.tile_polygons, default_calibration(), occluders=mask, dice_reader=truth_reader(truth)
    )
    heavily = {
        loc
        for loc in truth.occluded
        if loc in reading.seen and any(d.hidden and d.location == loc for d in truth.dice)
    }
    assert heavily <= reading.occluded


def test_the_skin_mask_balances_the_light_as_scaling_the_frame_would() -> None:
    """The white balance is a table lookup; the mask is the one the frame scaled by the gains gives."""
    from vision.calibration import white_balance_gains

    image, _truth = render_scene(random_spec(Difficulty.HARD, 4).with_(occluders=2, temperature=0.8), 4)
    white = (236.0, 228.0, 197.0)  # warm light: every channel's gain differs
    gains = np.asarray(white_balance_gains(white), np.float32)
    balanced = np.clip(image.astype(np.float32) * gains, 0, 255).astype(np.uint8)
    # at full scale, so the balance acts on the frame's own bytes, as the reference above does
    mask = occluder_mask(image, white, scale=1.0, full_size=False)
    assert np.count_nonzero(mask) > 0  # the hands are found
    assert np.array_equal(mask, occluder_mask(balanced, None, scale=1.0, full_size=False))
    assert not np.array_equal(mask, occluder_mask(image, None, scale=1.0, full_size=False))


@pytest.mark.parametrize("tilt", [0.0, 20.0, 35.0])
def test_a_die_top_seen_from_a_tilted_camera_is_placed_over_its_footprint(tilt: float) -> None:
    """A point 16 mm above the table, seen at 35 degrees, lands ~20 mm off on the table plane uncorrected."""
    from vision.knights import centres_on_table

    table_to_image, to_image = _camera(tilt)
    feet = np.array([[0.0, 0.0], [150.0, -120.0], [-200.0, 90.0], [60.0, 200.0]])
    tops = to_image(np.column_stack([feet, np.full(len(feet), 16.0)]))
    image_pts = [(float(x), float(y)) for x, y in tops]
    image_to_table = np.linalg.inv(table_to_image)
    found = centres_on_table(image_pts, image_to_table, (1920, 1080), 16.0)
    assert np.allclose(found, feet, atol=0.5)
    naive = cv2.perspectiveTransform(np.array([image_pts]), image_to_table)[0]
    if tilt >= 35.0:
        assert np.max(np.linalg.norm(naive - feet, axis=1)) > 10.0


def test_no_dice_and_no_polygons_are_fine() -> None:
    image, truth = render_scene(SceneSpec(LAYOUT, {}, layout_seed=2), 2)
    cal = default_calibration()
    reading = read_knights(
        image, truth.tile_polygons, cal, image_to_table=np.linalg.inv(truth.homography),
        dice_reader=truth_reader(truth),
    )
    assert reading.knights == {} and reading.dice == () and len(reading.seen) == 9
    assert read_knights(image, {}, cal, dice_reader=truth_reader(truth)).seen == frozenset()


def test_die_px_is_passed_only_to_a_reader_that_takes_it() -> None:
    """The expected die face side from the tiles' size in the image (16 mm against a 90 mm-across tile)."""
    radius = 100.0  # centre-to-corner, px
    hexagon = np.array(
        [[radius * math.cos(math.radians(60 * k + 30)), radius * math.sin(math.radians(60 * k + 30))]
         for k in range(6)]
    ) + 300.0
    image = np.full((600, 600, 3), 128, np.uint8)
    calls: list[dict[str, object]] = []

    def with_size(image: np.ndarray, region: object = None, calibration: object = None, *,
                  die_px: float | None = None, body_colours: bool = True) -> list[object]:
        calls.append({"die_px": die_px, "body_colours": body_colours})
        return []

    def without_size(image: np.ndarray, region: object = None, calibration: object = None) -> list[object]:
        calls.append({})
        return []

    cal = default_calibration()
    read_knights(image, {"T01": hexagon}, cal, dice_reader=with_size)
    read_knights(image, {"T01": hexagon}, cal, dice_reader=without_size)  # no TypeError: keyword left out
    assert calls[1] == {}
    assert calls[0]["body_colours"] is False  # knights look at the faces' colours themselves
    expected = radius * 16.0 / (90.0 / math.sqrt(3.0))
    got = calls[0]["die_px"]
    assert isinstance(got, float) and got == pytest.approx(expected, rel=0.01)


def test_the_region_over_outlines_seen_before_is_drawn_once_and_follows_a_move() -> None:
    """A still table's outlines come again frame after frame, so their region is kept (read-only, as the
    readers share it); outlines that moved get a region of their own."""
    radius = 60.0
    hexagon = np.array(
        [[radius * math.cos(math.radians(60 * k + 30)), radius * math.sin(math.radians(60 * k + 30))]
         for k in range(6)]
    ) + 200.0
    image = np.full((400, 600, 3), 128, np.uint8)
    regions: list[np.ndarray] = []

    def reader(image: np.ndarray, region: np.ndarray | None = None, calibration: object = None) -> list[int]:
        assert region is not None
        regions.append(region)
        return []

    find_dice(image, {"T01": hexagon, "L1": hexagon + np.array([150.0, 0.0])}, dice_reader=reader)
    find_dice(image, {"T01": hexagon.copy(), "L1": hexagon + np.array([150.0, 0.0])}, dice_reader=reader)
    find_dice(image, {"T01": hexagon + np.array([200.0, 0.0])}, dice_reader=reader)
    first, again, moved = regions
    assert again is first and not first.flags.writeable
    assert first[200, 200] and not first[200, 400]  # the lake is no knight location
    assert moved[200, 400] and not moved[200, 200]
    with pytest.raises(ValueError, match="read-only"):
        first[0, 0] = 1


def _sure_die(location: str, colour: Colour, value: int) -> DieOnTable:
    match = ColourMatch(colour, 5.0, None, 0.0, 22.0, 8.0)
    return DieOnTable((0, 0, 10, 10), value, colour, match, location, (5.0, 5.0), 0.9, False)


def test_a_location_merged_from_an_earlier_frame_keeps_its_doubts_those_of_no_die_too() -> None:
    """A stream re-reads some locations (`looked`) and keeps the rest: a castle kept with a stranger on it
    stays asked, and so does a territory looked at again where something unread stands, though every die
    in both reads surely."""
    dice = (_sure_die("K1", Colour.BLUE, 3), _sure_die("T01", Colour.RED, 2))
    kept = doubt(tally(dice, {"K1", "T01"}, ()), {"K1"}, Doubt.STRANGER)
    fresh = doubt(tally(dice[1:], {"T01"}, ()), {"T01"}, Doubt.UNREAD)
    out = merged(kept, fresh, {"T01"})
    assert out.doubts == {"K1": Doubt.STRANGER, "T01": Doubt.UNREAD}
    assert merged(kept, tally(dice, {"K1", "T01"}, ()), {"K1", "T01"}).doubts == {}  # read again: gone

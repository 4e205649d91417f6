"""Something unread on a location (`vision.bare`): the bare look learned when the map is confirmed, and what a
later frame shows that its dice do not account for. Seeded tables with exact truth."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from engine.colours import Colour
from engine.reading import Doubt
from vision import bare
from vision.pipeline import MapMode, TableReader
from vision.synth import SceneSpec, TrueDie

from .test_tracking import APP, LAYOUT, Camera

MM_PER_PX = 0.5  # the test frames: 2 px per table millimetre
H, W = 600, 900


def hexagon(cx: float, cy: float, r: float) -> np.ndarray:
    turns = [math.pi / 3 * k for k in range(6)]
    return np.array([(cx + r * math.cos(t), cy + r * math.sin(t)) for t in turns])


OUTLINES = {"T01": hexagon(250, 300, 160), "K1": hexagon(600, 300, 160)}
I2T = np.diag([MM_PER_PX, MM_PER_PX, 1.0])


def table_image(seed: int = 3) -> np.ndarray:
    """Printed tile art: soft coloured blobs, lines and dots on a warm background."""
    rng = np.random.default_rng(seed)
    img = np.full((H, W, 3), (120, 160, 190), np.uint8)
    for _ in range(60):
        colour = tuple(int(c) for c in rng.integers(40, 220, 3))
        centre = (int(rng.integers(0, W)), int(rng.integers(0, H)))
        cv2.circle(img, centre, int(rng.integers(5, 60)), colour, -1, cv2.LINE_AA)
    for _ in range(30):
        p, q = rng.integers(0, (W, H), (2, 2))
        cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in q), (40, 60, 40), 2, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), 1.2)


def with_die(img: np.ndarray, x: int, y: int, body: tuple[int, int, int], pips: tuple[int, int, int], *,
             pip_px: int = 3) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A 16 mm die (32 px) with five pips (radius `pip_px`) drawn at (x, y), and its box."""
    out = img.copy()
    side = round(16 / MM_PER_PX)
    cv2.rectangle(out, (x, y), (x + side, y + side), body, -1, cv2.LINE_AA)
    for dx, dy in ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)):
        cv2.circle(out, (int(x + dx * side), int(y + dy * side)), pip_px, pips, -1, cv2.LINE_AA)
    return out, (x, y, x + side, y + side)


def noisy(img: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(img.astype(np.float32) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def learned() -> bare.BareTable:
    return bare.learn(noisy(table_image(), 1), I2T, OUTLINES, [])


def test_a_bare_table_under_other_light_and_noise_shows_nothing(learned: bare.BareTable) -> None:
    dimmer = np.clip(table_image().astype(np.float32) * (0.8, 0.85, 0.95) + 6, 0, 255).astype(np.uint8)
    seen = bare.look(learned, noisy(dimmer, 2), I2T, [])
    assert seen.locations == frozenset() and seen.phantoms == frozenset()


def test_a_die_nobody_read_flags_its_location_whatever_it_looks_like(learned: bare.BareTable) -> None:
    looks = (((200, 60, 150), (40, 40, 200)), ((235,) * 3, (30,) * 3), ((30,) * 3, (240,) * 3))
    for body, pips in looks:
        frame, box = with_die(table_image(), 230, 280, body, pips)
        assert bare.look(learned, noisy(frame, 4), I2T, []).locations == {"T01"}, body
        # read, it accounts for itself
        assert bare.look(learned, noisy(frame, 4), I2T, [box]).locations == frozenset()
    # only the locations looked at are judged (a stream re-reads a few at a time: only their part is warped)
    assert bare.look(learned, noisy(frame, 4), I2T, [], looked={"K1"}).locations == frozenset()
    assert bare.look(learned, noisy(frame, 4), I2T, [], looked={"T01"}).locations == {"T01"}


def test_a_die_read_on_bare_table_is_a_phantom_unless_on_a_castle(learned: bare.BareTable) -> None:
    ghost = (560.0, 280.0, 592.0, 312.0)  # on K1, where nothing is
    frame, real = with_die(table_image(), 230, 280, (200, 60, 150), (40, 40, 200))
    seen = bare.look(learned, noisy(frame, 5), I2T, [real, ghost])
    assert seen.phantoms == {1} and seen.locations == frozenset()
    on_castle = bare.look(learned, noisy(frame, 5), I2T, [real, ghost], plain=[True, False])
    assert on_castle.phantoms == frozenset()


def test_a_hand_found_by_the_reader_is_the_hands_not_something_unread(learned: bare.BareTable) -> None:
    frame = table_image()
    cv2.ellipse(frame, (200, 560), (70, 150), 0, 0, 360, (120, 150, 210), -1)  # an arm from the near edge
    hands = np.zeros((H // 4, W // 4), np.uint8)
    cv2.ellipse(hands, (50, 140), (15, 35), 0, 0, 360, 255, -1)  # found a little short of its outline
    assert bare.look(learned, noisy(frame, 6), I2T, []).locations == {"T01"}
    assert bare.look(learned, noisy(frame, 6), I2T, [], occluders=hands).locations == frozenset()


def test_a_die_beside_a_hand_is_not_the_hands(learned: bare.BareTable) -> None:
    frame = table_image()
    cv2.rectangle(frame, (150, 250), (229, 599), (120, 150, 210), -1)  # an arm over T01 from the near edge
    hands = np.zeros((H // 4, W // 4), np.uint8)
    cv2.rectangle(hands, (39, 63), (56, 149), 255, -1)  # found a little short of its outline
    assert bare.look(learned, noisy(frame, 8), I2T, [], occluders=hands).locations == frozenset()
    # a die set down against the arm: their changes touch, but the die reaches beyond the hand's reach
    frame, box = with_die(frame, 230, 300, (60, 200, 60), (250, 250, 250))
    assert bare.look(learned, noisy(frame, 8), I2T, [], occluders=hands).locations == {"T01"}
    assert bare.look(learned, noisy(frame, 8), I2T, [box], occluders=hands).locations == frozenset()


def test_something_unread_over_two_tiles_flags_each_holding_room_for_a_die() -> None:
    half = 160.0 * math.sqrt(3) / 2  # two tiles edge to edge, joined at y = 300 px
    tiles = {"T01": hexagon(250, 300 - half, 160.0), "T02": hexagon(250, 300 + half, 160.0)}
    learned = bare.learn(noisy(table_image(), 1), I2T, tiles, [])
    frame = table_image()
    cv2.rectangle(frame, (180, 200), (320, 335), (200, 200, 60), -1)  # a card on T01, 35 x 18 mm of it on T02
    assert bare.look(learned, noisy(frame, 9), I2T, []).locations == {"T01", "T02"}
    frame = table_image()
    cv2.rectangle(frame, (200, 200), (320, 290), (200, 200, 60), -1)  # on T01 alone: T02's rim gets its edge
    assert bare.look(learned, noisy(frame, 9), I2T, []).locations == {"T01"}


def test_a_die_between_dice_read_from_above_is_not_hidden_by_their_whole_die_boxes(
    learned: bare.BareTable,
) -> None:
    frame, tops = table_image(), []
    for x in (200, 240, 280):  # three dice in a row, 4 mm apart
        frame, top = with_die(frame, x, 280, (60, 200, 60), (250, 250, 250))
        tops.append(top)
    frame = noisy(frame, 10)
    # each die's box for any turn and its side faces, 10 mm round its top face
    whole = [(x0 - 20, y0 - 20, x1 + 20, y1 + 20) for x0, y0, x1, y1 in tops]
    read = [whole[0], whole[2]]  # the middle die missed
    assert bare.look(learned, frame, I2T, read).locations == frozenset()  # covered by its neighbours' boxes
    assert bare.look(learned, frame, I2T, read, tops=[tops[0], tops[2]]).locations == {"T01"}
    assert bare.look(learned, frame, I2T, whole, tops=tops).locations == frozenset()


def test_a_die_of_the_castle_s_own_colour_is_seen_by_its_pips_alone() -> None:
    def black_castle() -> np.ndarray:
        img = table_image()
        cv2.fillPoly(img, [np.round(OUTLINES["K1"]).astype(np.int32)], (45, 45, 50), cv2.LINE_AA)
        return img

    learned = bare.learn(noisy(black_castle(), 1), I2T, OUTLINES, [])
    assert bare.look(learned, noisy(black_castle(), 5), I2T, []).locations == frozenset()
    # a black die with 1 mm pips: its body is the print's, its pips change a sixth of the squares around them
    frame, box = with_die(black_castle(), 580, 280, (40, 40, 44), (235, 235, 235), pip_px=2)
    assert bare.look(learned, noisy(frame, 4), I2T, []).locations == {"K1"}
    assert bare.look(learned, noisy(frame, 4), I2T, [box]).locations == frozenset()


def test_a_set_up_die_read_from_above_hides_only_its_place_from_the_bare_look() -> None:
    frame, top = with_die(table_image(), 580, 280, (60, 200, 60), (250, 250, 250))
    x0, y0, x1, y1 = top
    whole = (x0 - 20, y0 - 20, x1 + 20, y1 + 20)  # the box of the whole die, any turn, its side faces
    by_box = bare.learn(noisy(frame, 1), I2T, OUTLINES, [whole])
    by_place = bare.learn(noisy(frame, 1), I2T, OUTLINES, [whole], tops=[top])
    inside = (round(x0 * MM_PER_PX - by_box.origin[0]) + 8, round(y0 * MM_PER_PX - by_box.origin[1]) + 8)
    beside = (inside[0] + 16, inside[1] - 12)  # in the whole-die box's corner, beyond the die's place
    for x, y in (inside, beside):
        assert by_box.hidden[y, x] and not by_box.known[y, x]
    assert by_place.hidden[inside[1], inside[0]]
    assert by_place.known[beside[1], beside[0]] and not by_place.hidden[beside[1], beside[0]]
    assert by_place.hidden.sum() < 0.6 * by_box.hidden.sum()


def test_a_camera_moved_since_the_bare_look_changes_nothing(learned: bare.BareTable) -> None:
    shift = np.array([[1.0, 0.0, 12.0], [0.0, 1.0, -7.0], [0.0, 0.0, 1.0]])  # the frame moved 12, -7 px
    moved = cv2.warpAffine(table_image(), shift[:2], (W, H), borderMode=cv2.BORDER_REFLECT)
    i2t = I2T @ np.linalg.inv(shift)
    assert bare.look(learned, noisy(moved, 7), i2t, []).locations == frozenset()
    frame, _ = with_die(table_image(), 560, 280, (60, 200, 60), (250, 250, 250))
    moved = cv2.warpAffine(frame, shift[:2], (W, H), borderMode=cv2.BORDER_REFLECT)
    assert bare.look(learned, noisy(moved, 7), i2t, []).locations == {"K1"}


def test_nothing_to_learn_is_refused() -> None:
    with pytest.raises(ValueError, match="no knight locations"):
        bare.learn(table_image(), I2T, {}, [])


def spec(**kw: object) -> SceneSpec:
    base = SceneSpec(LAYOUT, {"K1": {}, "K2": {}}, {}, layout_seed=11, tilt_deg=25.0, yaw_deg=8.0)
    return base.with_(**kw)


def test_the_table_reader_flags_a_location_whose_die_it_did_not_read() -> None:
    knights = {"T01": {Colour.RED: 3}, "T05": {Colour.BLUE: 2}}
    sees_all = Camera()
    reader = sees_all.reader()
    reader.read(sees_all.frame(spec(knights={}), 1))
    assert reader.confirm_map(APP) is MapMode.TRACKING
    result = reader.read(sees_all.frame(spec(knights=knights), 2))
    assert result.raw is not None and not (result.raw.unsure & {"T01", "T05"})
    assert dict(result.raw.knights_at("T01")) == {Colour.RED: 3}

    blind = Camera()
    reader = TableReader(hold_frames=2, dice_reader=lambda image, **kw: _without(blind, "T01"))
    reader.read(blind.frame(spec(knights={}), 1))
    reader.confirm_map(APP)
    result = reader.read(blind.frame(spec(knights=knights), 2))
    assert result.raw is not None
    assert "T01" in result.raw.unsure and not result.raw.knights_at("T01")
    assert "T05" not in result.raw.unsure


def _without(camera: Camera, location: str) -> list[TrueDie]:
    truth = camera.truth
    assert truth is not None
    polygon = truth.tile_polygons[location].astype(np.float32)
    kept = []
    for d in truth.dice:
        centre = ((d.box[0] + d.box[2]) / 2.0, (d.box[1] + d.box[3]) / 2.0)
        if not d.hidden and cv2.pointPolygonTest(polygon, centre, False) < 0:
            kept.append(TrueDie(d.box, d.value))
    return kept


def test_the_bare_look_is_never_learned_from_a_frame_with_a_hand_over_the_map() -> None:
    """A frame with a hand over the map, read just before the confirmation, does not teach the bare look: the
    clean frame before it does, so the hand's place is still judged (here: a die nobody reads there)."""
    camera = Camera()
    reader = TableReader(hold_frames=2, dice_reader=lambda image, **kw: _without(camera, "T05"))
    reader.read(camera.frame(spec(knights={}), 1))
    handed = reader.read(camera.frame(spec(knights={}, occluders=2), 2))
    assert handed.occluded, "the second frame should show a hand over the map"
    assert reader.confirm_map(APP) is MapMode.TRACKING
    knights = {"T01": {Colour.RED: 3}, "T05": {Colour.BLUE: 2}}
    result = reader.read(camera.frame(spec(knights=knights), 3))
    assert result.raw is not None and not result.occluded
    assert "T05" in result.raw.unsure and "T01" not in result.raw.unsure


def test_locations_placed_later_are_carried_onto_the_frame_the_bare_look_is_learned_from() -> None:
    """The frame kept before the confirmation may not have read every tile (a far row's codes at a steep
    angle): the first frame after it, with the whole map placed, lends its outlines through the table."""
    from vision.pipeline import _BareSource

    then = I2T @ np.array([[1.0, 0.02, 5.0], [0.0, 1.0, -8.0], [0.0, 0.0, 1.0]])  # the kept frame's camera
    kept = _BareSource(table_image(), then, {}, [], None)
    now = I2T  # the later frame's camera sees the outlines as OUTLINES
    carried = kept.over(OUTLINES, now).outlines
    for loc, poly in OUTLINES.items():
        on_table = cv2.perspectiveTransform(poly.reshape(-1, 1, 2), now).reshape(-1, 2)
        seen_then = cv2.perspectiveTransform(carried[loc].reshape(-1, 1, 2), then).reshape(-1, 2)
        assert np.allclose(on_table, seen_then, atol=1e-6)
    assert set(bare.learn(kept.frame, then, carried, []).ids) == set(OUTLINES)


def test_where_the_set_up_s_dice_stood_an_earlier_frame_lends_the_bare_look() -> None:
    """The frame the bare look is learned from has the set-up's die on the castle: nothing shows there. A
    frame from before the dice were set down, in other light, fills it in for the locations that lay as
    they lie now."""
    setup, box = with_die(table_image(), 560, 280, (60, 200, 60), (250, 250, 250))
    before = np.clip(table_image().astype(np.float32) * (0.8, 0.85, 0.95) + 6, 0, 255).astype(np.uint8)
    blind = bare.learn(noisy(setup, 1), I2T, OUTLINES, [box])
    earlier = [bare.Earlier(noisy(before, 8), I2T, [], {"K1"})]
    filled = bare.learn(noisy(setup, 1), I2T, OUTLINES, [box], earlier=earlier)
    middle = (round(288 - blind.origin[0]), round(148 - blind.origin[1]))  # the die's middle, bare px (1/mm)
    assert not blind.known[middle[1], middle[0]] and filled.known[middle[1], middle[0]]
    later, there = with_die(table_image(), 560, 280, (200, 60, 150), (40, 40, 200))  # a die nobody read
    assert bare.look(filled, noisy(later, 9), I2T, []).locations == {"K1"}
    assert bare.look(filled, noisy(table_image(), 10), I2T, []).locations == frozenset()  # bare: nothing
    # Where the bare look is blind, a die missed would change nothing it can tell: the spot is asked while no
    # die read stands on it, bare or not.
    assert bare.look(blind, noisy(later, 9), I2T, []).locations == {"K1"}
    assert bare.look(blind, noisy(table_image(), 10), I2T, []).locations == {"K1"}
    assert bare.look(blind, noisy(later, 9), I2T, [there]).locations == frozenset()
    not_laid_so = bare.learn(
        noisy(setup, 1), I2T, OUTLINES, [box], earlier=[bare.Earlier(noisy(before, 8), I2T, [], {"T01"})]
    )
    assert bare.look(not_laid_so, noisy(table_image(), 10), I2T, []).locations == {"K1"}


def test_the_table_reader_sees_under_the_set_up_s_dice_from_a_frame_before_them() -> None:
    """The map laid, then the set-up's dice on the castle, then the game confirmed: a die the finder misses
    where the set-up's die stood is flagged, because the reader kept the frame from before the dice came, or
    because it never saw the spot bare. Only the frame from before the dice lets the castle be stated once
    the die is gone."""
    at_setup = {"K1": {Colour.RED: 3}}

    def flagged(saw_it_bare: bool, now: dict[str, dict[Colour, int]] = at_setup) -> Doubt | None:
        camera = Camera()
        blind: list[bool] = []

        def find(image: np.ndarray, **_kw: object) -> list[TrueDie]:
            return _without(camera, "K1") if blind else camera.dice(image)

        reader = TableReader(hold_frames=2, dice_reader=find)
        if saw_it_bare:
            reader.read(camera.frame(spec(knights={}), 1))
        reader.read(camera.frame(spec(knights=at_setup), 2))
        assert reader.confirm_map(APP) is MapMode.TRACKING
        blind.append(True)
        result = reader.read(camera.frame(spec(knights=now), 3))  # the same die, the finder misses it
        assert result.raw is not None and not result.raw.knights_at("K1")
        assert ("K1" in result.raw.unsure) == (result.raw.doubt("K1") is not None)
        return result.raw.doubt("K1")

    assert flagged(saw_it_bare=True) is Doubt.UNREAD
    assert flagged(saw_it_bare=False) is Doubt.NEVER_BARE  # its castle's middle was never seen bare
    assert flagged(saw_it_bare=True, now={}) is None  # the die taken away: an empty castle
    assert flagged(saw_it_bare=False, now={}) is Doubt.NEVER_BARE


def test_a_spot_never_seen_bare_is_learned_from_a_frame_that_shows_it_bare() -> None:
    setup, box = with_die(table_image(), 560, 280, (60, 200, 60), (250, 250, 250))
    blind = bare.learn(noisy(setup, 1), I2T, OUTLINES, [box])
    seen = bare.look(blind, noisy(table_image(), 10), I2T, [])
    assert seen.locations == seen.blind == {"K1"}
    dimmer = np.clip(table_image().astype(np.float32) * (0.8, 0.85, 0.95) + 6, 0, 255).astype(np.uint8)
    learned = bare.seen_bare(blind, noisy(dimmer, 11), I2T, {"K1"})  # in other light
    assert not learned.hidden.any() and learned.known.sum() > blind.known.sum()
    assert bare.look(learned, noisy(table_image(), 12), I2T, []).locations == frozenset()
    later, _ = with_die(table_image(), 560, 280, (200, 60, 150), (40, 40, 200))  # a die nobody read, there
    seen = bare.look(learned, noisy(later, 9), I2T, [])
    assert seen.locations == {"K1"} and seen.blind == frozenset()  # seen: it changed
    assert bare.seen_bare(blind, noisy(dimmer, 11), I2T, {"T01"}) is blind  # nothing hidden there


def test_the_table_reader_learns_a_castle_it_never_saw_bare_once_its_dice_are_lifted() -> None:
    """The set-up's die stood on the castle in every frame before the confirmation: the castle is asked while
    that spot is free of dice read, until a frame shows the castle with no die on it; from then on a die the
    finder misses there is flagged by what it changes."""
    camera = Camera()
    missing: list[bool] = []

    def find(image: np.ndarray, **_kw: object) -> list[TrueDie]:
        return _without(camera, "K1") if missing else camera.dice(image)

    reader = TableReader(hold_frames=2, dice_reader=find)
    reader.read(camera.frame(spec(knights={"K1": {Colour.RED: 3}}), 2))
    assert reader.confirm_map(APP) is MapMode.TRACKING

    def asked(knights: dict[str, dict[Colour, int]], index: int) -> bool:
        result = reader.read(camera.frame(spec(knights=knights), index))
        assert result.raw is not None
        said = "never seen without dice, so asked while none is read there: K1" in result.message
        assert said == (index == 3)  # the status line says why, while that is why
        return "K1" in result.raw.unsure

    assert asked({}, 3)  # lifted: the spot is free, never seen bare (and now seen)
    assert not asked({}, 4)
    assert not asked({"K1": {Colour.RED: 3}}, 5)  # read
    missing.append(True)
    assert asked({"K1": {Colour.RED: 3}}, 6)  # missed: it changes the castle


def test_an_earlier_frame_is_carried_onto_this_frame_s_table_without_a_tile_laid_anew() -> None:
    """Each frame read alone numbers the map's lattice its own way: the earlier frame's table is fitted onto
    this one's over the locations both place; a tile moved in between is left out of the fill."""
    from vision.pipeline import _BareSource

    outlines = {f"T0{i}": hexagon(150 + 200 * i, 300, 90) for i in range(1, 5)}
    c, s = math.cos(0.3), math.sin(0.3)
    numbered_apart = np.array([[c, -s, 40.0], [s, c, -15.0], [0.0, 0.0, 1.0]]) @ I2T  # turned and shifted
    now = _BareSource(table_image(), I2T, outlines, [], None)
    onto, same = now.aligned(_BareSource(table_image(), numbered_apart, outlines, [], None))
    assert same == set(outlines)
    assert np.allclose(onto / onto[2, 2], I2T, atol=1e-6)
    nudged = {**outlines, "T04": outlines["T04"] + (20.0, 0.0)}  # 10 mm
    _, same = now.aligned(_BareSource(table_image(), numbered_apart, nudged, [], None))
    assert same == {"T01", "T02", "T03"}
    _, same = now.aligned(_BareSource(table_image(), I2T, {"T01": outlines["T01"]}, [], None))
    assert same == frozenset()  # too little in common to tell

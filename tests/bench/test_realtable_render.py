"""bench/realtable's renderer: its truth agrees with what it drew (a die's top face lands on its tile, side
faces are a real die's, dice hidden behind others and under hands are marked), seeds reproduce, and the
benchmark counts right, flagged, silent and off-map locations as documented. Small frames (960 x 540) keep
it to seconds."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from bench.realtable.cube import place
from bench.realtable.library import load
from bench.realtable.protocol import Tally, score
from bench.realtable.render import draw, render
from bench.realtable.scene import Card, DieSpec, Family, Frame, Hand, Level, Scene, Truth
from bench.realtable.tables import bare_frame, game_frame, make_scene, setup_frame
from engine.colours import Colour
from engine.reading import TableReading

SMALL = (960, 540)


@pytest.fixture(scope="module")
def scene() -> Scene:
    return make_scene(Level.SWEEP, 7, Family.HELD_OUT, SMALL, tilt=40.0, players=3)


def test_seeds_reproduce(scene: Scene) -> None:
    a, ta = render(setup_frame(scene))
    again = make_scene(Level.SWEEP, 7, Family.HELD_OUT, SMALL, tilt=40.0, players=3)
    b, tb = render(setup_frame(again))
    assert again == scene and np.array_equal(a, b) and ta == tb
    assert game_frame(scene, 3) == game_frame(again, 3) != game_frame(scene, 4)


def test_top_faces_land_on_their_tiles_and_the_truth_sums_the_dice(scene: Scene) -> None:
    frame = game_frame(scene, 1)
    canvas, truth = draw(frame)
    knights = [(i, d) for i, d in enumerate(frame.dice) if d.location is not None]
    assert knights and any(d.location is None for d in frame.dice)  # reserve or stray dice too
    sums: dict[str, dict[Colour, int]] = {}
    for i, d in knights:
        pose = scene.pose(d.location)
        hexagon = pose.hexagon()
        # every corner of the die's footprint on its tile
        path = [tuple(p) for p in hexagon]
        for x, y in d.die.footprint():
            assert cv2.pointPolygonTest(np.float32(path), (float(x), float(y)), False) >= 0
        # the top face as drawn lies inside the tile's outline raised to the dice's height
        ys, xs = np.nonzero(canvas.labels == 2 * i + 1)
        assert len(xs) > 20
        raised, _ = scene.camera.project(np.column_stack([hexagon, np.full(6, d.die.size)]), canvas.k)
        assert (
            cv2.pointPolygonTest(raised.astype(np.float32), (float(xs.mean()), float(ys.mean())), False) > 0
        )
        sums.setdefault(d.location, {}).setdefault(d.colour, 0)
        sums[d.location][d.colour] += d.die.value
    assert truth.knights == sums == frame.knights()


def test_side_faces_are_a_real_dies_and_textured_with_the_right_values(scene: Scene) -> None:
    lib = load()
    value_of = {d.atlas: d.value for d in lib.dice if d.atlas is not None}
    kind_of = {d.atlas: d.kind for d in lib.dice if d.atlas is not None}
    for index in (1, 2):
        for d in game_frame(scene, index).dice:
            v = d.die.value
            assert v not in d.die.values[1:5] and 7 - v not in d.die.values[1:5]
            if d.colour is not None:
                assert [value_of[a] for a in d.faces] == list(d.die.values[:5])
                assert {kind_of[a] for a in d.faces} == {d.kind} == {scene.kinds[d.colour]}


def _two_dice(scene: Scene, tilt: float) -> Frame:
    """Two dice touching on a castle, one behind the other as the camera looks."""
    cam = replace(scene.camera, tilt=tilt)
    scene = replace(scene, camera=cam)
    castle = next(t for t in scene.tiles if t.tile.startswith("K"))
    yaw = math.radians(cam.yaw)
    ahead = np.array([math.cos(yaw), math.sin(yaw)])  # away from the camera, across the table
    far = place(castle.x + 9 * ahead[0], castle.y + 9 * ahead[1], yaw, 5, 0)
    near = place(castle.x - 9 * ahead[0], castle.y - 9 * ahead[1], yaw, 3, 0)
    colour = next(c for c in scene.colours if scene.kinds[c])
    frame = setup_frame(scene)
    base = next(d for d in frame.dice)
    dice = tuple(
        DieSpec(scene.kinds[colour], colour, die, castle.tile, base.faces, base.face_turns)
        for die in (far, near)
    )
    return replace(frame, scene=scene, dice=dice)


def test_a_die_behind_another_is_marked_hidden_only_at_an_angle(scene: Scene) -> None:
    steep = _two_dice(scene, 60.0)
    _, truth = draw(steep)
    loc = steep.dice[0].location
    assert loc in truth.hidden
    seen = [b[4] for b in truth.boxes]
    assert seen[0] < 0.5 < seen[1]  # the far die shows under half of itself, the near one all of it
    _, flat = draw(_two_dice(scene, 0.0))
    assert loc not in flat.hidden


def test_a_hand_over_a_tile_covers_its_location(scene: Scene) -> None:
    frame = game_frame(scene, 1)
    cam = scene.camera
    middle = np.array([cam.width / 2, cam.height / 2])

    def off_centre(loc: str) -> float:
        p = scene.pose(loc)
        uv, _ = cam.project(np.array([[p.x, p.y, 0.0]]))
        return float(np.linalg.norm(uv[0] - middle))

    loc = min((d.location for d in frame.dice if d.location is not None), key=off_centre)
    pose = scene.pose(loc)
    # reaching across the table from the camera's side, fingertips over the tile
    hand = Hand((pose.x, pose.y), math.radians(cam.yaw), 30.0, 2, 1, 0.5, 70.0, 85.0, 0.0)
    _, truth = draw(replace(frame, hands=(hand,)))
    assert loc in truth.covered
    _, bare = draw(replace(frame, hands=()))
    assert not bare.covered


def test_blurred_frames_are_marked_in_the_truth() -> None:
    s = make_scene(Level.BLURRED, 3, Family.TRAIN, SMALL)
    frames = [game_frame(s, i) for i in range(1, 5)]
    assert all(f.optics.blurred for f in frames)
    assert not setup_frame(s).optics.blurred


def _result(knights: dict[str, dict[Colour, int]], unsure: set[str], tiles: dict) -> SimpleNamespace:
    return SimpleNamespace(raw=TableReading(tiles=tiles, knights=knights, unsure=frozenset(unsure)))


def test_the_score_counts_right_flagged_silent_and_off_the_map() -> None:
    from engine.hexgrid import Hex

    tiles = {Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(2, 0): "K1", Hex(3, 0): "T03", Hex(4, 0): "T04"}
    truth = Truth(
        tiles,
        {"T01": {Colour.RED: 3}, "T02": {Colour.RED: 2}, "K1": {Colour.RED: 9}, "T04": {Colour.BLUE: 1}},
        covered=frozenset({"T04"}),
    )
    read_tiles = {h: t for h, t in tiles.items() if t != "T03"}
    result = _result(
        {"T01": {Colour.RED: 3}, "T02": {Colour.RED: 5}, "K1": {Colour.RED: 8}, "T03": {}}, {"K1"}, read_tiles
    )
    t = Tally()
    misses: list = []
    score(result, truth, t, misses, ("g", "m", 1, 1))
    assert (t.locations, t.right, t.flagged, t.silent, t.unread) == (4, 2, 1, 1, 0)  # T03 empty: right
    assert (t.hand, t.map_exact, t.tiles_right) == (1, 0, 4)
    assert {m.location for m in misses} == {"T02", "K1"}
    blurred = Truth(tiles, truth.knights, blurred=True)
    score(result, blurred, t, misses, ("g", "m", 1, 2))
    assert (t.blurred, t.blurred_read, t.blurred_stated, t.blurred_stated_wrong) == (1, 1, 3, 2)  # T02, T04


def test_every_tile_shows_both_its_stickers_as_printed(scene: Scene) -> None:
    """The table texture, seen from straight above, decodes to two codes per tile (nothing over them)."""
    import zxingcpp

    from bench.realtable import tabletop

    k = scene.camera.intrinsics(1.3)
    to_world, _, size = tabletop.texture_frame(scene, k)
    colour, _ = tabletop.static_layer(scene, to_world, size)
    found: dict[str, int] = {}
    for code in zxingcpp.read_barcodes(colour):
        found[code.text] = found.get(code.text, 0) + 1
    assert found == {f"MM1:{t.tile}": 2 for t in scene.tiles}


def test_a_card_counts_as_in_view_only_with_nothing_over_its_sticker(scene: Scene) -> None:
    """Cards down the frame's left margin, beside the map: one clear, one another card was laid over (its
    sticker under that card), one with a die standing on its sticker, one face down; the score counts each."""
    frame = game_frame(scene, 2)
    to_table = np.linalg.inv(scene.camera.plane_homography())

    def on_table(u: float, v: float) -> np.ndarray:
        p = to_table @ np.array([u, v, 1.0])
        return np.asarray(p[:2] / p[2])

    down = on_table(70, 400) - on_table(70, 100)
    turn = math.atan2(down[1], down[0]) - math.pi / 2  # the cards' long side down the margin

    def card(v: float, aid: str, up: bool = True) -> Card:
        x, y = on_table(70, v)
        return Card("artefact", float(x), float(y), turn, up, aid)

    over = card(105, "A02")  # laid after A01, over its sticker
    cards = (card(80, "A01"), over, card(230, "A03"), card(350, "A04", up=False), card(470, "A05"))
    x, y = on_table(70, 470)
    first = frame.dice[0]
    die = DieSpec(first.kind, None, place(float(x), float(y), 0.3, 4, 0), None, first.faces, first.face_turns)
    frame = replace(frame, cards=(*scene.decks, *cards), dice=(die,), hands=())
    _, truth = draw(frame)
    assert truth.artefacts == {"A02": True, "A03": True, "A04": False}
    assert truth.artefacts_covered == {"A01": True, "A05": True}
    t = Tally()
    read = TableReading(tiles=dict(truth.tiles), artefacts={"A02": True, "A04": True, "A05": True})
    score(SimpleNamespace(raw=read), truth, t, [], ("g", "m", 1, 1))
    assert (t.cards_up, t.cards_up_read, t.cards_down, t.cards_false_up) == (2, 1, 1, 1)
    assert (t.cards_covered_up, t.cards_covered_up_read) == (2, 1)


def test_the_bare_map_frame_has_the_tiles_and_no_dice(scene: Scene) -> None:
    frame = bare_frame(scene)
    assert frame.dice == () and frame.hands == () and not frame.optics.blurred
    image, truth = render(frame)
    assert not truth.knights and image.shape == render(setup_frame(scene))[0].shape

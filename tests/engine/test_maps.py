"""Maps (page 4), set-up step 2 (page 3), lakes and line of supply (pages 2, 10, 11); rulings R10-R15."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.catalogue import Catalogue, TerritoryKind, TileKind, load_box_catalogue, load_default_catalogue
from engine.colours import Colour
from engine.errors import MapError
from engine.hexgrid import Hex
from engine.maps import Board, Layout, default_board, default_layouts, parse_layouts, render_picture


@pytest.fixture(scope="module")
def cat() -> Catalogue:
    return load_default_catalogue()


def _slot_counts(layout: Layout) -> Counter[str]:
    counts = Counter(k for _, k in layout.cells)
    counts["K"] = len(layout.seats)
    return counts


def test_there_is_a_layout_for_two_to_six_players() -> None:
    assert sorted(default_layouts()) == [2, 3, 4, 5, 6]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_layout_shape_respects_what_is_known(players: int) -> None:
    layout = default_layouts()[players]
    counts = _slot_counts(layout)
    assert counts["K"] == players
    assert counts["L"] >= 1  # one or more lakes inside
    assert counts["1"] + counts["2"] + counts["3"] == 5 * players  # R11: five territories per player
    cells = dict(layout.cells)
    all_hexes = set(cells) | set(layout.seats)
    for seat in layout.seats:
        near = [cells[n] for n in seat.neighbours() if n in cells]
        # Value-1 territories lie outside near the castles; at most two of them, so at most two homelands.
        assert near.count("1") == 2, (players, seat, near)
        assert set(near) <= {"1", "2"}, (players, seat, near)
    # Value-3 in the middle, value-2 further in than value-1: compare mean distance from the centre of mass.
    pts = [h.to_pixel(1.0) for h in all_hexes]
    cx, cy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)

    def mean_dist(kind: str) -> float:
        ds = [math.hypot(h.to_pixel(1.0)[0] - cx, h.to_pixel(1.0)[1] - cy)
              for h, k in layout.cells if k == kind]
        return sum(ds) / len(ds)

    # (In the 2-player map both sit around the central lake, so value-3 is only "no further out".)
    assert mean_dist("3") <= mean_dist("2") < mean_dist("1")
    # Lakes are inside: each borders at least four tiles.
    for h, k in layout.cells:
        if k == "L":
            assert sum(n in all_hexes for n in h.neighbours()) >= 4


def test_two_player_map_uses_at_most_ten_territories_and_one_lake() -> None:
    counts = _slot_counts(default_layouts()[2])
    assert counts["1"] + counts["2"] + counts["3"] <= 10 and counts["L"] == 1


def test_simultaneous_games_fit_in_one_box(cat: Catalogue) -> None:
    """Maps page 4: three 2-player games, two 3-player games, or a 2-player and a 4-player game at once."""
    box = Counter({str(v): len(cat.territories_of_value(v)) for v in (1, 2, 3)})
    box["L"] = len(cat.lakes)
    box["K"] = len(cat.castles)
    layouts = default_layouts()
    for combo in ((2, 2, 2), (3, 3), (2, 4), (6,), (5,)):
        need: Counter[str] = Counter()
        for n in combo:
            need += _slot_counts(layouts[n])
        for key, n in need.items():
            assert n <= box[key], (combo, key, n, box[key])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_picture_in_the_data_matches_the_cells(players: int) -> None:
    layout = default_layouts()[players]
    cells = dict(layout.cells)
    cells.update({h: "K" for h in layout.seats})
    assert render_picture(cells) == "\n".join(layout.picture)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_default_board_is_valid_for_many_shuffles(players: int, cat: Catalogue) -> None:
    layout = default_layouts()[players]
    slot_value = {h: k for h, k in layout.cells}
    for seed in range(25):
        board = default_board(players, cat, random.Random(seed))
        assert len(board.castles) == players
        assert board.colours == tuple(cat.castles[i].colour for i in range(players))
        for h, tid in board.tiles.items():
            if board.is_territory(tid):
                assert str(board.value(tid)) == slot_value[h]  # each value shuffled into its own slots
        for castle in board.castles:
            assert len(board.homelands_next_to(castle)) <= 2
            assert any(board.is_territory(t) for t in board.reach(castle))
        assert Board.from_layout(board.tiles, cat) .tiles == board.tiles


def test_shuffle_is_seeded_and_varies(cat: Catalogue) -> None:
    a = default_board(4, cat, random.Random(7))
    b = default_board(4, cat, random.Random(7))
    c = default_board(4, cat, random.Random(8))
    assert a == b and a.tiles == b.tiles
    assert a.tiles != c.tiles
    # All 30 territories are used by the six-player map, each exactly once.
    six = default_board(6, cat, random.Random(1))
    assert sorted(six.territories) == sorted(t.id for t in cat.territories)
    assert six.total_value() == sum(t.value for t in cat.territories)


def test_colours_choose_the_castles_and_seating(cat: Catalogue) -> None:
    board = default_board(3, cat, random.Random(0), colours=[Colour.GREEN, Colour.RED, Colour.BLACK])
    assert board.colours == (Colour.GREEN, Colour.RED, Colour.BLACK)
    assert board.castle_of(Colour.GREEN) == cat.castle_of(Colour.GREEN).id
    assert board.colour_of(board.castle_of(Colour.BLACK)) is Colour.BLACK
    with pytest.raises(KeyError, match="blue"):
        board.castle_of(Colour.BLUE)
    with pytest.raises(MapError, match="different colours"):
        default_board(3, cat, random.Random(0), colours=[Colour.RED, Colour.RED, Colour.BLUE])


@pytest.mark.parametrize("players", [1, 7, 0])
def test_player_count_out_of_range(players: int) -> None:
    with pytest.raises(MapError, match="2 to 6 players"):
        default_board(players)


def test_box_with_too_few_tiles_of_a_value_cannot_make_the_six_player_map() -> None:
    box = load_box_catalogue({"format": "seneschal-box", "version": 1,
                              "territories": [{"id": "T25", "value": 2}]})
    with pytest.raises(MapError, match="needs 6 territories of value 3"):
        default_board(6, box, random.Random(0))
    assert len(default_board(4, box, random.Random(0)).territories) == 20


# --- adjacency ------------------------------------------------------------------------------------------

def _line_board() -> Board:
    """K1 T07 L1 L2 T08 K2 in a row, plus T09 below L1 and T13 above L2 and T08."""
    tiles = {Hex(0, 0): "K1", Hex(1, 0): "T07", Hex(2, 0): "L1", Hex(3, 0): "L2", Hex(4, 0): "T08",
             Hex(5, 0): "K2", Hex(2, 1): "T09", Hex(4, -1): "T13"}
    return Board.from_layout(tiles)


def test_adjacency_is_by_shared_edge() -> None:
    board = _line_board()
    assert board.adjacent("T07") == {"K1", "L1"}
    assert board.adjacent("T09") == {"L1", "L2"}
    assert board.adjacent("K2") == {"T08"}
    assert board.adjacent("T13") == {"L2", "T08"}
    for a, b in itertools.permutations(board.tiles.values(), 2):
        touching = board.hex_of(a).is_adjacent(board.hex_of(b))
        assert (b in board.adjacent(a)) == (a in board.adjacent(b)) == touching


def test_lakes_link_every_bordering_tile_and_touching_lakes_link_as_one() -> None:
    """Lakes page 2 and make an advance page 11; R15 for a chain of lakes."""
    board = _line_board()
    assert board.lake_linked("T07") == {"T09", "T08", "T13"}  # across L1 and L2
    assert board.lake_linked("T13") == {"T07", "T09", "T08"}
    assert board.lake_linked("K1") == frozenset()
    assert board.reach("T07") == {"K1", "T09", "T08", "T13"}
    assert "L1" not in board.reach("T07")
    assert board.kind("L1") is TileKind.LAKE and not board.is_location("L1")
    assert board.is_location("K1") and board.is_location("T07")


def test_lookups_on_a_board(cat: Catalogue) -> None:
    board = _line_board()
    assert board.hex_of("T08") == Hex(4, 0) and board.tile_at(Hex(4, 0)) == "T08"
    assert board.tile_at(Hex(9, 9)) is None
    assert board.spec("T07") is cat.territory("T07")
    assert board.capacity("T07") == 6 and board.value("T13") == 2
    assert board.territories == ("T07", "T08", "T09", "T13") and board.lakes == ("L1", "L2")
    assert board.locations == ("T07", "T08", "T09", "T13", "K1", "K2")
    assert board.name("K1") == "Nivernais"
    with pytest.raises(KeyError, match="T30"):
        board.adjacent("T30")
    with pytest.raises(KeyError, match="not on this map"):
        board.spec("L1")
    with pytest.raises(AttributeError, match="immutable"):
        board.seats = ()


def test_seats_default_to_clockwise_from_the_bottom() -> None:
    board = default_board(4)
    again = Board.from_layout(board.tiles)
    assert again.seats == board.seats


def test_json_round_trip_with_and_without_box(cat: Catalogue) -> None:
    board = default_board(5, cat, random.Random(3))
    doc = json.loads(json.dumps(board.to_json()))
    assert "catalogue" not in doc
    assert Board.from_json(doc) == board
    box = load_box_catalogue({"format": "seneschal-box", "version": 1,
                              "territories": [{"id": "T23", "capacity": 3}]})
    boxed = default_board(5, box, random.Random(3))
    doc = json.loads(json.dumps(boxed.to_json()))
    assert "catalogue" in doc
    again = Board.from_json(doc)
    assert again == boxed and again.catalogue.territory("T23").capacity == 3
    assert eval(repr(board), {"Board": Board, "Hex": Hex}) == board


# --- custom layouts that are not playable -----------------------------------------------------------------

def _problems(tiles: dict[Hex, str]) -> str:
    with pytest.raises(MapError) as info:
        Board.from_layout(tiles)
    return "\n".join(info.value.problems)


def test_unknown_ids_and_a_card_used_as_a_tile() -> None:
    text = _problems({Hex(0, 0): "K1", Hex(1, 0): "T31", Hex(2, 0): "A01", Hex(0, 1): "K2", Hex(1, 1): "T07"})
    assert "unknown tile id 'T31'" in text and "'A01' (a card, not a tile)" in text


def test_same_tile_on_two_hexes() -> None:
    text = _problems({Hex(0, 0): "K1", Hex(1, 0): "T07", Hex(2, 0): "T07", Hex(3, 0): "K2"})
    assert "'T07' is on two hexes" in text


def test_duplicate_hex_in_a_document() -> None:
    with pytest.raises(MapError, match="two tiles on hex"):
        Board.from_json({"tiles": [[0, 0, "K1"], [0, 0, "T07"], [1, 0, "K2"]]})


def test_not_connected() -> None:
    text = _problems({Hex(0, 0): "K1", Hex(1, 0): "T07", Hex(5, 5): "T08", Hex(6, 5): "K2"})
    assert "not form one connected map: 2 separate groups" in text and "{K2, T08}" in text


def test_castle_without_a_reachable_territory() -> None:
    text = _problems({Hex(0, 0): "K1", Hex(1, 0): "K2", Hex(2, 0): "T07"})
    assert "castle K1 (Nivernais) has no territory to advance into" in text
    # ...but a lake between castle and territory is enough.
    Board.from_layout({Hex(0, 0): "K1", Hex(1, 0): "L1", Hex(2, 0): "T07", Hex(3, 0): "K2"})


def test_castle_with_three_homelands(cat: Catalogue) -> None:
    assert all(cat.territory(t).kind is TerritoryKind.HOMELANDS for t in ("T01", "T02", "T03"))
    text = _problems({Hex(0, 0): "K1", Hex(1, 0): "T01", Hex(1, -1): "T02", Hex(0, -1): "T03",
                      Hex(2, 0): "T07", Hex(3, 0): "K2"})
    assert "adjacent to 3 homelands" in text and "page 3" in text


def test_too_few_castles_and_no_territories() -> None:
    text = _problems({Hex(0, 0): "K1", Hex(1, 0): "L1"})
    assert "at least 2 castles" in text and "needs territories" in text


def test_every_problem_reported_at_once() -> None:
    text = _problems({Hex(0, 0): "K1", Hex(1, 0): "T99", Hex(9, 9): "T07"})
    assert "T99" in text and "connected" in text and "at least 2 castles" in text


def test_bad_seats_and_bad_documents() -> None:
    tiles = {Hex(0, 0): "K1", Hex(1, 0): "T07", Hex(2, 0): "K2"}
    with pytest.raises(MapError, match="seats"):
        Board.from_layout(tiles, seats=["K1", "K3"])
    for doc, needle in (([], "JSON object"), ({"tiles": "x"}, "'tiles' must be a list"),
                        ({"tiles": [[0, 0]]}, "a tile is"), ({"tiles": [], "version": 9}, "newer"),
                        ({"tiles": [["a", 0, "K1"]]}, "hex is"), ({"format": "x", "tiles": []}, "'format'")):
        with pytest.raises(MapError, match=needle):
            Board.from_json(doc)


def test_malformed_maps_document() -> None:
    with pytest.raises(MapError):
        parse_layouts({"format": "nope"})
    with pytest.raises(MapError) as info:
        parse_layouts({"format": "seneschal-maps", "version": 1, "layouts": [
            {"players": 2, "seats": [[0, 0]], "cells": [[0, 0, "1"], [0, 0, "2"], [1, 0, "9"]]},
            {"players": 9}]})
    text = "\n".join(info.value.problems)
    assert "'players' must be 2..6" in text and "listed twice" in text and "needs 2" in text
    assert "also a cell" in text and "[1, 0, '9']" in text


def test_mangled_documents_never_crash() -> None:
    """Box catalogues, boards, readings and map layouts with junk in them: a clear error, never a crash."""
    import random

    from engine.catalogue import default_catalogue_json
    from engine.errors import EngineError
    from engine.reading import TableReading
    from tests.engine.test_scenario import mutate

    rng = random.Random(7)
    box = {"format": "seneschal-box", "version": 1, "territories": [{"id": "T23", "capacity": 3}],
           "castles": [{"id": "K1", "colour": "red", "confirmed": ["colour"]}]}
    reading = {"format": "seneschal-reading", "version": 1, "tiles": [[0, 0, "K1"], [1, 0, "T07"]],
               "knights": {"K1": {"red": 3}}, "artefacts": {"A01": True}, "unsure": ["T07"], "frame_index": 3}
    maps = json.loads(json.dumps({"format": "seneschal-maps", "version": 1, "layouts": [
        {"players": 2, "seats": [[0, 0], [3, 0]], "cells": [[1, 0, "1"], [2, 0, "L"]]}]}))
    targets: list[tuple[Any, Callable[[Any], object]]] = [
        (default_catalogue_json(), load_box_catalogue), (box, load_box_catalogue),
        (default_board(4, None, random.Random(1)).to_json(), Board.from_json),
        (reading, TableReading.from_json), (maps, parse_layouts)]
    for _ in range(600):
        doc, parse = rng.choice(targets)
        with contextlib.suppress(EngineError, ValueError):
            parse(mutate(doc, rng))


_TILE_IDS = [*(f"T{i:02d}" for i in range(1, 31)), "L1", "L2", "L3", *(f"K{i}" for i in range(1, 7)),
             "A01", "X"]


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.builds(Hex, st.integers(-3, 3), st.integers(-3, 3)), st.sampled_from(_TILE_IDS),
                       max_size=14))
def test_any_layout_is_a_board_or_a_map_error(tiles: dict[Hex, str]) -> None:
    """R13: a custom layout either becomes a playable board (symmetric adjacency, castles reaching a
    territory) or is refused with MapError naming the problems; nothing else."""
    try:
        board = Board.from_layout(tiles)
    except MapError as exc:
        assert exc.problems
        return
    for a in board.tiles.values():
        for b in board.reach(a):
            assert a in board.reach(b)
    for castle in board.castles:
        assert any(board.is_territory(t) for t in board.reach(castle))
        assert len(board.homelands_next_to(castle)) <= 2

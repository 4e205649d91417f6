"""Hex geometry (ENGINE-API: axial, pointy-top; tiles are adjacent when sharing an edge, key terms p. 15)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.hexgrid import DIRECTIONS, ORIGIN, SQRT3, Hex

coords = st.integers(min_value=-50, max_value=50)
hexes = st.builds(Hex, coords, coords)


def test_directions_are_the_contracts_order() -> None:
    assert [(d.q, d.r) for d in DIRECTIONS] == [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]


def test_six_neighbours_each_at_distance_one() -> None:
    h = Hex(2, -3)
    assert len(set(h.neighbours())) == 6
    assert all(h.distance(n) == 1 and h.is_adjacent(n) for n in h.neighbours())
    assert not h.is_adjacent(h)
    assert h.neighbour(0) == Hex(3, -3) and h.neighbour(6) == h.neighbour(0)


def test_pixel_centre_formula_pointy_top() -> None:
    x, y = Hex(1, 2).to_pixel(10.0)
    assert x == pytest.approx(10 * SQRT3 * (1 + 2 / 2))
    assert y == pytest.approx(10 * 1.5 * 2)
    # Neighbours' centres are sqrt(3)*size apart (pointy-top: E/W neighbours on the same row).
    for n in ORIGIN.neighbours():
        nx, ny = n.to_pixel(10.0)
        assert math.hypot(nx, ny) == pytest.approx(10 * SQRT3)
    assert Hex(1, 0).to_pixel(1.0)[1] == 0.0


def test_corners_are_at_size_from_centre_and_shared_with_neighbours() -> None:
    a, b = Hex(0, 0), Hex(1, 0)
    ca = {(round(x, 6), round(y, 6)) for x, y in a.corners(5.0)}
    cb = {(round(x, 6), round(y, 6)) for x, y in b.corners(5.0)}
    assert len(ca & cb) == 2  # one shared edge
    for x, y in a.corners(5.0):
        assert math.hypot(x, y) == pytest.approx(5.0)


@given(hexes, hexes)
def test_distance_is_a_metric(a: Hex, b: Hex) -> None:
    assert a.distance(b) == b.distance(a) >= 0
    assert (a.distance(b) == 0) == (a == b)
    assert a.distance(b) <= a.distance(ORIGIN) + ORIGIN.distance(b)


@given(hexes, st.floats(min_value=1.0, max_value=200.0))
def test_pixel_round_trip(h: Hex, size: float) -> None:
    x, y = h.to_pixel(size)
    assert Hex.from_pixel(x, y, size) == h
    # A point a little off-centre still lands in the same hex.
    assert Hex.from_pixel(x + size * 0.4, y - size * 0.3, size) == h


def test_rings_and_spiral() -> None:
    assert ORIGIN.ring(0) == (ORIGIN,)
    for k in range(1, 5):
        ring = ORIGIN.ring(k)
        assert len(ring) == 6 * k == len(set(ring))
        assert all(ORIGIN.distance(h) == k for h in ring)
    assert len(list(ORIGIN.spiral(3))) == 37
    with pytest.raises(ValueError, match="radius"):
        ORIGIN.ring(-1)


def test_json_round_trip_and_bad_input() -> None:
    assert Hex.from_json(Hex(-2, 5).to_json()) == Hex(-2, 5)
    assert Hex.from_json({"q": 1, "r": 2}) == Hex(1, 2)
    for bad in ([1], [1, 2, 3], ["1", 2], [1.5, 2], [True, 0], "1,2", None, {"q": 1}):
        with pytest.raises(ValueError, match="hex is"):
            Hex.from_json(bad)
    with pytest.raises(TypeError):
        Hex(1.0, 2)  # type: ignore[arg-type]


def test_repr_pastes_back_and_ordering_is_stable() -> None:
    h = Hex(3, -1)
    assert eval(repr(h)) == h
    assert sorted([Hex(1, 0), Hex(0, 1), Hex(0, 0)]) == [Hex(0, 0), Hex(0, 1), Hex(1, 0)]
    assert Hex(1, 2) + Hex(1, -1) == Hex(2, 1) and Hex(1, 2) - Hex(1, 2) == ORIGIN
    assert Hex(1, 2).s == -3

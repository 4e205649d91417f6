"""TableReading: what the camera saw (issue 4; ENGINE-API "Table reading"; R80)."""

from __future__ import annotations

import json

import pytest

from engine.catalogue import load_default_catalogue
from engine.colours import Colour
from engine.errors import ReadingError
from engine.hexgrid import Hex
from engine.reading import TableReading

R, B = Colour.RED, Colour.BLUE


def _reading() -> TableReading:
    return TableReading(
        tiles={Hex(0, 0): "K1", Hex(1, 0): "T07", Hex(2, 0): "L1"},
        knights={"K1": {R: 4}, "T07": {R: 3, B: 0}},
        artefacts={"A01": True, "A07": False},
        unsure=frozenset({"T07"}),
        frame_index=12,
    )


def test_zero_counts_are_dropped_and_queries() -> None:
    r = _reading()
    assert dict(r.knights_at("T07")) == {R: 3}
    assert dict(r.knights_at("T08")) == {}
    assert r.total(R) == 7 and r.total(B) == 0
    assert not r.is_sure("T07") and r.is_sure("K1")
    assert r == TableReading(tiles=dict(r.tiles), knights={"K1": {R: 4}, "T07": {R: 3}},
                             artefacts={"A07": False, "A01": True}, unsure=frozenset({"T07"}), frame_index=12)
    assert hash(r) == hash(TableReading.from_json(r.to_json()))


def test_immutable() -> None:
    r = _reading()
    with pytest.raises(TypeError):
        r.knights["T08"] = {R: 1}  # type: ignore[index]
    with pytest.raises(AttributeError):
        r.frame_index = 3  # type: ignore[misc]


def test_json_round_trip_and_repr() -> None:
    r = _reading()
    doc = json.loads(json.dumps(r.to_json()))
    assert doc["knights"] == {"K1": {"red": 4}, "T07": {"red": 3}}
    assert doc["tiles"] == [[0, 0, "K1"], [1, 0, "T07"], [2, 0, "L1"]]
    assert TableReading.from_json(doc) == r
    assert eval(repr(r), {"TableReading": TableReading, "Hex": Hex, "Colour": Colour}) == r


@pytest.mark.parametrize("doc, needle", [
    ([], "JSON object"),
    ({"knights": {"T07": {"purple": 2}}}, "unknown colour 'purple'"),
    ({"knights": {"T07": {"red": -1}}}, "whole number >= 0"),
    ({"knights": {"T07": {"red": 1.5}}}, "whole number >= 0"),
    ({"knights": {"T07": 3}}, "must map colours to counts"),
    ({"knights": []}, "'knights' must map"),
    ({"tiles": [[0, 0, "T07"], [0, 0, "T08"]]}, "two tiles on hex"),
    ({"tiles": [[0, 0, "T07"], [1, 0, "T07"]]}, "seen on two hexes"),
    ({"tiles": [[0, "x", "T07"]]}, "hex is"),
    ({"tiles": {"0,0": "T07"}}, "'tiles' must be a list"),
    ({"unsure": "T07"}, "'unsure' must be a list"),
    ({"artefacts": {"A01": "up"}}, "face up"),
    ({"frame_index": -1}, "frame_index"),
    ({"version": 2}, "newer"),
    ({"format": "seneschal-save"}, "'format'"),
])
def test_malformed_readings(doc: object, needle: str) -> None:
    with pytest.raises(ReadingError, match=needle):
        TableReading.from_json(doc)


def test_every_problem_at_once() -> None:
    with pytest.raises(ReadingError) as info:
        TableReading.from_json({"knights": {"T07": {"purple": 1, "red": -2}}, "unsure": 5})
    text = str(info.value)
    assert "purple" in text and "-2" in text and "unsure" in text


def test_constructor_validates_too() -> None:
    with pytest.raises(ReadingError, match="not a player colour"):
        TableReading(knights={"T07": {"red": 2}})  # type: ignore[dict-item]
    with pytest.raises(ReadingError, match="set of location ids"):
        TableReading(unsure="T07")  # type: ignore[arg-type]


def test_problems_against_the_box() -> None:
    r = TableReading(tiles={Hex(0, 0): "T31", Hex(1, 0): "L1"}, knights={"L1": {R: 2}, "X9": {B: 1}},
                     artefacts={"A19": True})
    problems = "\n".join(r.problems_against(load_default_catalogue()))
    assert "'T31'" in problems and "lake L1" in problems and "'X9'" in problems and "'A19'" in problems
    assert _reading().problems_against(load_default_catalogue()) == []

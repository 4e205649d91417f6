"""TableReading: what the camera saw (issue 4; ENGINE-API "Table reading"; R80)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from engine.catalogue import load_default_catalogue
from engine.colours import Colour
from engine.errors import ReadingError
from engine.hexgrid import Hex
from engine.reading import Doubt, TableReading, merge_doubts

R, B = Colour.RED, Colour.BLUE


def _reading() -> TableReading:
    return TableReading(
        tiles={Hex(0, 0): "K1", Hex(1, 0): "T07", Hex(2, 0): "L1"},
        knights={"K1": {R: 4}, "T07": {R: 3, B: 0}},
        artefacts={"A01": True, "A07": False},
        unsure=frozenset({"T07", "K1"}),
        frame_index=12,
        doubts={"T07": Doubt.COLOUR},
    )


def test_zero_counts_are_dropped_and_queries() -> None:
    r = _reading()
    assert dict(r.knights_at("T07")) == {R: 3}
    assert dict(r.knights_at("T08")) == {}
    assert r.total(R) == 7 and r.total(B) == 0
    assert not r.is_sure("T07") and not r.is_sure("K1") and r.is_sure("T08")
    assert r.doubt("T07") is Doubt.COLOUR and r.doubt("K1") is None and r.doubt("T08") is None
    same = TableReading(tiles=dict(r.tiles), knights={"K1": {R: 4}, "T07": {R: 3}},
                        artefacts={"A07": False, "A01": True}, unsure=frozenset({"T07", "K1"}),
                        frame_index=12, doubts={"T07": Doubt.COLOUR})
    assert r == same and r != replace(same, doubts={"T07": Doubt.PIPS})
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
    assert doc["doubts"] == {"T07": "colour"}
    assert TableReading.from_json(doc) == r
    assert eval(repr(r), {"TableReading": TableReading, "Hex": Hex, "Colour": Colour, "Doubt": Doubt}) == r
    del doc["doubts"]  # a reading saved before doubts were told: the places are unsure, for no reason given
    assert TableReading.from_json(doc) == replace(r, doubts={})


def test_doubts_most_useful_first() -> None:
    """A location doubted for several reasons keeps the one the players can best act on: `Doubt`'s order."""
    assert Doubt.first(Doubt.PIPS, None, Doubt.HAND, Doubt.COLOUR) is Doubt.HAND
    assert Doubt.first(None) is None and Doubt.first() is None
    merged = merge_doubts(
        {"T01": Doubt.CHANGING, "T02": Doubt.PIPS}, {"T01": Doubt.UNMEASURED, "K1": Doubt.HAND}
    )
    assert merged == {"T01": Doubt.UNMEASURED, "T02": Doubt.PIPS, "K1": Doubt.HAND}


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
    ({"unsure": ["T07"], "doubts": {"T07": "ghost"}}, "unknown doubt 'ghost'"),
    ({"unsure": ["T07"], "doubts": ["T07"]}, "'doubts' must map"),
    ({"unsure": [], "doubts": {"T07": "hand"}}, "'T07' has a doubt \\(hand\\) but is not unsure"),
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
    with pytest.raises(ReadingError, match="'T07' -> 'colour' is not a Doubt"):
        TableReading(unsure=frozenset({"T07"}), doubts={"T07": "colour"})  # type: ignore[dict-item]


def test_problems_against_the_box() -> None:
    r = TableReading(tiles={Hex(0, 0): "T31", Hex(1, 0): "L1"}, knights={"L1": {R: 2}, "X9": {B: 1}},
                     artefacts={"A19": True})
    problems = "\n".join(r.problems_against(load_default_catalogue()))
    assert "'T31'" in problems and "lake L1" in problems and "'X9'" in problems and "'A19'" in problems
    assert _reading().problems_against(load_default_catalogue()) == []

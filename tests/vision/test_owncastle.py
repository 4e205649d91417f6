"""A player the box setup did not measure, measured during the game on their own castle (`vision.owncastle`,
`TableReader.confirm_map(..., castles)`): a castle holds its owner's knights alone (Components, p. 2; Castle,
p. 8) and every player starts with knights on it (Setting Up, step 6, p. 3)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from engine.colours import Colour
from tests.vision.test_tracking import APP, Camera, table
from vision.calibration import ColourCalibration, default_calibration
from vision.colourcheck import Doubt, Measurement, Problem, apart_from
from vision.owncastle import measured_on_castles
from vision.pipeline import TableReader

RED, BLUE, BLACK = Colour.RED, Colour.BLUE, Colour.BLACK
DEFAULT = default_calibration([RED, BLUE, BLACK]).models
MEASURED = ColourCalibration.of_models({RED: DEFAULT[RED], BLACK: DEFAULT[BLACK]})  # blue never measured
CASTLES = {"K1": RED, "K2": BLUE}
KNIGHTS = {"K1": {RED: 2}, "K2": {BLUE: 4}, "T01": {RED: 2}, "T05": {BLUE: 3}}


@pytest.fixture(scope="module")
def camera() -> Camera:
    return Camera()


def read_game(
    camera: Camera, knights: dict[str, dict[Colour, int]], castles: dict[str, Colour] | None = CASTLES
) -> tuple[TableReader, Any]:
    reader = TableReader(hold_frames=2, dice_reader=camera.dice, calibration=MEASURED)
    reader.read(camera.frame(table(knights={}), 1))
    reader.confirm_map(APP, (RED, BLUE), castles)
    return reader, reader.read(camera.frame(table(knights=knights), 3))


def test_an_unmeasured_player_is_measured_on_their_castle_and_named_from_then_on(camera: Camera) -> None:
    reader, result = read_game(camera, KNIGHTS)
    raw = result.raw
    assert set(reader.measured_in_play) == {BLUE} and reader.calibration.stand_ins == frozenset()
    # the frame it was measured in names blue's dice already, on the castle and away from it
    assert raw.knights["K2"] == {BLUE: 4} and raw.knights["T05"] == {BLUE: 3}
    assert not {"K2", "T05"} & raw.unsure
    assert raw.knights["T01"] == {RED: 2}  # the measured players as before
    later = reader.read(camera.frame(table(knights={"T05": {BLUE: 3}, "K1": {RED: 2}}), 5)).raw
    assert later.knights["T05"] == {BLUE: 3} and "T05" not in later.unsure


def test_the_measurement_is_kept_for_the_next_game_but_never_saved(camera: Camera) -> None:
    reader, _result = read_game(camera, KNIGHTS)
    reader.forget_map()
    assert BLUE in reader.calibration.measured
    assert ColourCalibration.from_json(MEASURED.to_json()).to_json() == MEASURED.to_json()


def test_without_the_castles_owners_nothing_is_measured_and_the_dice_are_asked(camera: Camera) -> None:
    reader, result = read_game(camera, KNIGHTS, castles=None)
    assert reader.measured_in_play == {} and reader.calibration.stand_ins == {BLUE}
    assert "T05" in result.raw.unsure and BLUE not in result.raw.knights.get("T05", {})


def test_a_castle_holding_another_players_die_teaches_nothing(camera: Camera) -> None:
    reader, result = read_game(camera, {"K1": {RED: 2}, "K2": {RED: 1}, "T05": {BLUE: 3}})
    assert reader.measured_in_play == {} and "T05" in result.raw.unsure


def test_a_castle_under_a_hand_out_of_view_or_empty_teaches_nothing(camera: Camera) -> None:
    reader, _result = read_game(camera, {"K1": {RED: 2}, "T05": {BLUE: 3}})  # blue's castle empty
    assert reader.measured_in_play == {}
    image = camera.frame(table(knights=KNIGHTS), 3)
    knights = reader.read(image).knights
    playing = MEASURED.playing([RED, BLUE])
    white = reader.read(image).white
    assert set(measured_on_castles(image, knights, CASTLES, playing, white)) == {BLUE}
    assert measured_on_castles(image, knights, CASTLES, playing, white, hands={"K2"}) == {}
    assert measured_on_castles(image, knights, {"K2": BLUE}, MEASURED, white) == {}  # no stand-in for blue
    unsure = type(knights)(knights.knights, tuple(d for d in knights.dice), knights.seen - {"K2"},
                           knights.occluded, knights.unsure)  # fmt: skip
    assert measured_on_castles(image, unsure, CASTLES, playing, white) == {}


def test_a_die_read_unsure_on_the_castle_is_left_out_and_the_others_measured(camera: Camera) -> None:
    reader, _result = read_game(camera, {"K1": {RED: 2}, "T05": {BLUE: 3}})  # blue's castle empty
    image = camera.frame(table(knights={"K1": {RED: 2}, "K2": {BLUE: 9}, "T05": {BLUE: 3}}), 3)
    result = reader.read(image)
    knights, playing = result.knights, MEASURED.playing([RED, BLUE])
    on_castle = [k for k, d in enumerate(knights.dice) if d.location == "K2"]
    assert len(on_castle) == 2

    def unsure(which: list[int]) -> Any:
        dice = tuple(dataclasses.replace(d, unsure=k in which) for k, d in enumerate(knights.dice))
        return dataclasses.replace(knights, dice=dice)

    one = measured_on_castles(image, unsure(on_castle[:1]), CASTLES, playing, result.white)
    assert set(one) == {BLUE} and len(one[BLUE].faces) == 1  # the die it is sure of alone
    assert measured_on_castles(image, unsure(on_castle), CASTLES, playing, result.white) == {}


def test_dice_too_like_a_measured_players_are_not_kept() -> None:
    def faces(colour: Colour) -> tuple[np.ndarray, ...]:
        lab = np.asarray(DEFAULT[colour].colours[0].lab, np.float64)
        return tuple(np.tile(lab, (40, 1)) for _ in range(4))

    like_red = Measurement(DEFAULT[RED], faces(RED))
    problems = apart_from(like_red, {RED: DEFAULT[RED], BLACK: DEFAULT[BLACK]})
    assert [(p.doubt, p.other) for p in problems] == [(Doubt.LIKE_OTHER, RED)]
    others = {RED: DEFAULT[RED], BLACK: DEFAULT[BLACK]}
    assert apart_from(Measurement(DEFAULT[BLUE], faces(BLUE)), others) == []
    assert apart_from(like_red, {}) == []


def test_dice_refused_on_a_castle_are_measured_there_again_only_some_frames_later(
    camera: Camera, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision import pipeline

    calls: list[int] = []

    def refused(image: Any, knights: Any, castles: Any, *args: Any, **kw: Any) -> dict[Colour, Measurement]:
        calls.append(len(castles))
        return {BLUE: Measurement(DEFAULT[BLUE], (), (Problem(Doubt.GLARE, "test"),))}

    monkeypatch.setattr(pipeline, "measured_on_castles", refused)
    reader, result = read_game(camera, KNIGHTS)
    assert calls == [1] and reader.measured_in_play == {} and "T05" in result.raw.unsure
    for k in (4, 5):  # frames whose dice changed: read whole
        reader.read(camera.frame(table(knights={**KNIGHTS, "T07": {RED: k}}), k))
    assert calls == [1]
    reader.read(camera.frame(table(knights=KNIGHTS), 6), 3 + pipeline.OWNER_RETRY_FRAMES)
    assert calls == [1, 1]


def test_with_models_replaces_the_stand_in_and_keeps_the_rest() -> None:
    playing = MEASURED.playing([RED, BLUE])
    assert playing.stand_ins == {BLUE}
    learned = playing.with_models({BLUE: DEFAULT[BLUE]})
    assert learned.stand_ins == frozenset() and set(learned.measured) == {RED, BLACK, BLUE}
    assert learned.threshold == playing.threshold and learned.margin == playing.margin
    assert playing.with_models({}) is playing


def test_a_measurement_that_reaches_another_castles_dice_is_a_misfit() -> None:
    from vision.calibration import ColourMatch
    from vision.knights import DieOnTable, KnightsReading
    from vision.owncastle import misfits

    def die(location: str, nearest: Colour, runner_up: Colour = BLACK, *, named: bool = False) -> DieOnTable:
        match = ColourMatch(nearest, 15.0, runner_up, 18.0, 22.0, 8.0)
        colour = nearest if named else None
        return DieOnTable((0, 0, 10, 10), 3, colour, match, location, (5.0, 5.0), 0.9, False)

    def reading(*dice: DieOnTable) -> KnightsReading:
        return KnightsReading({}, dice, frozenset(), frozenset(), {})

    calm = reading(die("K2", BLUE), die("K1", RED, named=True))
    # blue measured on blue's castle; red's castle holds a die now nearest blue: the measurement is refused
    assert misfits(calm, reading(die("K2", BLUE), die("K1", BLUE)), CASTLES, {BLUE}) == {BLUE}
    fine = reading(die("K2", BLUE), die("K1", RED, named=True), die("T05", BLUE))
    assert misfits(calm, fine, CASTLES, {BLUE}) == set()
    assert misfits(calm, reading(die("K1", BLACK)), CASTLES, {BLUE}) == set()  # nearest a colour not learned
    # ... or red's die, named red before, is no longer named: blue came within the margin
    assert misfits(calm, reading(die("K1", RED, BLUE)), CASTLES, {BLUE}) == {BLUE}
    assert misfits(calm, reading(die("K1", RED, BLACK)), CASTLES, {BLUE}) == set()  # not blue's doing
    unnamed = reading(die("K1", RED))
    assert misfits(unnamed, reading(die("K1", RED, BLUE)), CASTLES, {BLUE}) == set()  # never named before


def test_a_misfit_is_not_kept_and_the_frame_is_named_as_before(
    camera: Camera, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision import pipeline

    monkeypatch.setattr(pipeline, "misfits", lambda before, after, castles, learned: set(learned))
    reader, result = read_game(camera, KNIGHTS)
    assert reader.measured_in_play == {} and reader.calibration.stand_ins == {BLUE}
    assert "T05" in result.raw.unsure and BLUE not in result.raw.knights.get("T05", {})

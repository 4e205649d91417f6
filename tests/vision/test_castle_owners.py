"""A castle holds its owner's knights alone (rulebook, Components, p. 2; only the optional castle siege,
p. 14, brings another player's there for a battle): a die on a castle named another player is asked about,
never stated (`TableReader.confirm_map(..., castles)`, `vision.pipeline._strangers`), and a die there whose
likeliest player is the owner is the owner's (`vision.knights.player_of`)."""

from __future__ import annotations

import dataclasses

import pytest

from engine.colours import Colour
from engine.reading import Doubt
from tests.vision.test_tracking import APP, Camera, table
from vision.calibration import ColourCalibration, ColourMatch
from vision.dicecolour import FaceSamples
from vision.framecolours import name_together
from vision.knights import player_of
from vision.pipeline import TableReader

RED, BLUE = Colour.RED, Colour.BLUE


def read_game(knights: dict[str, dict[Colour, int]], castles: dict[str, Colour] | None) -> object:
    camera = Camera()
    reader = TableReader(hold_frames=2, dice_reader=camera.dice)
    reader.read(camera.frame(table(knights={}), 1))
    reader.confirm_map(APP, (RED, BLUE), castles)
    return reader.read(camera.frame(table(knights=knights), 3)).raw


def test_a_die_named_another_player_on_a_castle_is_asked_about() -> None:
    strange = {"K1": {BLUE: 3}, "K2": {BLUE: 2}}  # a blue die on red's castle K1
    raw = read_game(strange, {"K1": RED, "K2": BLUE})
    assert "K1" in raw.unsure and raw.doubt("K1") is Doubt.STRANGER  # type: ignore[attr-defined]
    assert "K2" not in raw.unsure and dict(raw.knights_at("K2")) == {BLUE: 2}  # type: ignore[attr-defined]
    # not told whose castle is whose (a reader used alone): the die is stated as read
    raw = read_game(strange, None)
    assert "K1" not in raw.unsure and dict(raw.knights_at("K1")) == {BLUE: 3}  # type: ignore[attr-defined]


def test_the_owners_dice_on_their_castle_are_stated() -> None:
    raw = read_game({"K1": {RED: 3}, "T01": {BLUE: 2}}, {"K1": RED, "K2": BLUE})
    assert not ({"K1", "T01"} & raw.unsure)  # type: ignore[attr-defined]
    assert dict(raw.knights_at("K1")) == {RED: 3}  # type: ignore[attr-defined]


def test_a_die_on_its_owners_castle_is_theirs_though_too_far_from_their_dice_to_be_named_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def far(calibration: ColourCalibration, faces: FaceSamples) -> list[ColourMatch]:
        return [dataclasses.replace(m, distance=m.threshold + 1.0) for m in name_together(calibration, faces)]

    monkeypatch.setattr("vision.knights.name_together", far)
    raw = read_game({"K1": {RED: 3}, "T01": {RED: 2}, "K2": {BLUE: 4}}, {"K1": RED, "K2": BLUE})
    assert dict(raw.knights_at("K1")) == {RED: 3} and "K1" not in raw.unsure  # type: ignore[attr-defined]
    assert dict(raw.knights_at("K2")) == {BLUE: 4} and "K2" not in raw.unsure  # type: ignore[attr-defined]
    assert "T01" in raw.unsure  # type: ignore[attr-defined]  # away from a castle it stays asked


def match(colour: Colour, runner_up: Colour | None, *, far: bool = False, **flags: bool) -> ColourMatch:
    return ColourMatch(colour, 30.0 if far else 5.0, runner_up, 40.0, 20.0, 6.0, **flags)


def test_only_the_owners_likeliest_dice_are_named_the_owner_on_a_castle() -> None:
    owners = {"K1": RED}
    assert player_of(match(BLUE, RED), "K1", owners) is BLUE  # named surely: as named (and the castle asked)
    assert player_of(match(RED, BLUE, far=True), "K1", owners) is RED
    assert player_of(match(RED, BLUE, far=True), "T01", owners) is None
    assert player_of(match(RED, BLUE, far=True), "K1", {}) is None  # owners not known
    assert player_of(match(BLUE, RED, far=True), "K1", owners) is None  # likeliest another player's
    assert player_of(match(RED, BLUE, far=True, stand_in=True), "K1", owners) is None  # red never measured
    assert player_of(match(RED, BLUE, refuted=True), "K1", owners) is None  # its pips say it is not red
    assert player_of(match(RED, None, far=True), None, owners) is None

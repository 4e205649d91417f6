"""A castle holds its owner's knights alone (rulebook, Components, p. 2; only the optional castle siege,
p. 14, brings another player's there for a battle): a die on a castle named another player is asked about,
never stated (`TableReader.confirm_map(..., castles)`, `vision.pipeline._strangers`)."""

from __future__ import annotations

from engine.colours import Colour
from tests.vision.test_tracking import APP, Camera, table
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
    assert "K1" in raw.unsure  # type: ignore[attr-defined]
    assert "K2" not in raw.unsure and dict(raw.knights_at("K2")) == {BLUE: 2}  # type: ignore[attr-defined]
    # not told whose castle is whose (a reader used alone): the die is stated as read
    raw = read_game(strange, None)
    assert "K1" not in raw.unsure and dict(raw.knights_at("K1")) == {BLUE: 3}  # type: ignore[attr-defined]


def test_the_owners_dice_on_their_castle_are_stated() -> None:
    raw = read_game({"K1": {RED: 3}, "T01": {BLUE: 2}}, {"K1": RED, "K2": BLUE})
    assert not ({"K1", "T01"} & raw.unsure)  # type: ignore[attr-defined]
    assert dict(raw.knights_at("K1")) == {RED: 3}  # type: ignore[attr-defined]

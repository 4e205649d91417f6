"""A player whose dice the set-up never measured (their castle's die not found): their dice are asked about,
never named another player's (`ColourCalibration.playing`, `TableReader.confirm_map(..., players)`)."""

from __future__ import annotations

import pytest

from engine.colours import Colour
from engine.reading import Doubt
from tests.vision.test_tracking import APP, Camera, table
from vision.calibration import ColourCalibration, default_calibration
from vision.dicecolour import DieColour, DieModel
from vision.pipeline import TableReader

RED, BLUE, BLACK, WHITE = Colour.RED, Colour.BLUE, Colour.BLACK, Colour.WHITE
DEFAULT = default_calibration([RED, BLACK]).models
# A navy die with white pips, measured as blue: a black die is nearer it than any other measured model.
NAVY = DieModel(
    (DieColour((18.0, 6.0, -18.0), 0.85), DieColour(DEFAULT[BLACK].colours[1].lab, 0.15, pips=True)),
    spread=2.0,
    dice=3,
)
MEASURED = ColourCalibration.of_models({RED: DEFAULT[RED], BLUE: NAVY})
KNIGHTS = {"K1": {RED: 2}, "T01": {BLACK: 3}}


@pytest.fixture(scope="module")
def camera() -> Camera:
    return Camera()


def read_game(camera: Camera, players: tuple[Colour, ...]) -> tuple[TableReader, object]:
    reader = TableReader(hold_frames=2, dice_reader=camera.dice, calibration=MEASURED)
    reader.read(camera.frame(table(knights={}), 1))
    reader.confirm_map(APP, players)
    return reader, reader.read(camera.frame(table(knights=KNIGHTS), 3)).raw


def test_a_player_whose_dice_were_not_measured_has_their_dice_asked_about(camera: Camera) -> None:
    _reader, raw = read_game(camera, (RED, BLUE, BLACK))
    assert "T01" in raw.unsure and BLUE not in raw.knights.get("T01", {})  # type: ignore[attr-defined]
    assert raw.doubt("T01") is Doubt.UNMEASURED  # type: ignore[attr-defined]  # the app says whose to measure
    assert raw.knights["K1"] == {RED: 2} and "K1" not in raw.unsure  # type: ignore[attr-defined]


def test_without_the_games_players_the_unmeasured_dice_would_be_named_another_players(camera: Camera) -> None:
    # what the stand-in prevents: the black dice scored against the measured models alone
    _reader, raw = read_game(camera, ())
    assert raw.knights["T01"] == {BLUE: 3} and "T01" not in raw.unsure  # type: ignore[attr-defined]


def test_stand_ins_are_the_default_models_of_the_missing_players_and_never_saved() -> None:
    playing = MEASURED.playing([RED, BLUE, BLACK, WHITE])
    assert playing.stand_ins == {BLACK, WHITE} and playing.measured == (RED, BLUE)
    assert playing.models[WHITE] == default_calibration([WHITE]).models[WHITE]
    saved = ColourCalibration.from_json(playing.to_json())
    assert saved.to_json() == MEASURED.to_json() and not saved.stand_ins
    assert MEASURED.playing([RED, BLUE]) is MEASURED
    # a game of other players drops stand-ins no longer playing, and a measured player is never stood in for
    again = playing.playing([RED, WHITE])
    assert again.stand_ins == {WHITE} and set(again.colours) == {RED, BLUE, WHITE}


def test_a_stand_in_nearest_is_not_accepted_however_close() -> None:
    playing = MEASURED.playing([RED, BLUE, BLACK])
    match = playing.match_lab(DEFAULT[BLACK].main)
    assert match.colour is BLACK and match.stand_in and match.distance < 1.0 and not match.accepted


def test_the_reader_keeps_the_stand_ins_through_a_new_calibration_and_drops_them_with_the_map(
    camera: Camera,
) -> None:
    reader, _raw = read_game(camera, (RED, BLUE, BLACK))
    assert reader.calibration.stand_ins == {BLACK}
    reader.calibration = ColourCalibration.of_models({RED: DEFAULT[RED], BLACK: DEFAULT[BLACK]})
    assert reader.calibration.stand_ins == {BLUE}  # the app measured again mid-game: blue now missing
    reader.forget_map()
    assert reader.calibration.stand_ins == frozenset()


def test_a_real_camera_with_no_dice_measured_asks_about_every_die(camera: Camera) -> None:
    from vision.calibration import unmeasured_calibration

    none = unmeasured_calibration()
    assert none.measured == () and none.playing([RED, BLUE]).stand_ins == {RED, BLUE}
    assert none.playing([]) is none
    reader = TableReader(hold_frames=2, dice_reader=camera.dice, calibration=none)
    reader.read(camera.frame(table(knights={}), 1))
    reader.confirm_map(APP, (RED, BLACK))
    raw = reader.read(camera.frame(table(knights=KNIGHTS), 3)).raw
    assert raw.knights == {} and {"K1", "T01"} <= raw.unsure  # type: ignore[attr-defined]

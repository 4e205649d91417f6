"""A frame's dice named together (`vision.framecolours`): each player's dice as the frame shows them, learned
from the dice named surely, name a die turned away for its distance alone; they never change a die's player
nor settle an ambiguous one."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from vision.calibration import ColourCalibration, ColourMatch
from vision.dicecolour import DieColour, DieModel, FaceSamples
from vision.framecolours import far_only, frame_models, name_together

RED, BLUE, YELLOW = Colour.RED, Colour.BLUE, Colour.YELLOW
PIPS = (92.0, 0.0, 0.0)
RED_BODY, SHEEN, YELLOW_BODY = (45.0, 60.0, 40.0), (62.0, 38.0, 22.0), (80.0, 5.0, 75.0)


def model(body: tuple[float, float, float]) -> DieModel:
    return DieModel((DieColour(body, 0.85), DieColour(PIPS, 0.15, pips=True)), spread=2.0, dice=1)


def face(rng: np.random.Generator, *parts: tuple[tuple[float, float, float], int]) -> npt.NDArray[np.float32]:
    """A face's pixels (balanced Lab): so many of each colour, a little noise."""
    return np.concatenate([np.asarray(c, np.float32) + rng.normal(0, 1.5, (n, 3)) for c, n in parts]).astype(
        np.float32
    )


def red_dice_with_a_sheen(rng: np.random.Generator, sure: int) -> list[npt.NDArray[np.float32]]:
    """`sure` red dice a glossy sheen touches a little, and one it covers mostly."""
    dice = [face(rng, (RED_BODY, 100), (SHEEN, 20), (PIPS, 24)) for _ in range(sure)]
    return [*dice, face(rng, (RED_BODY, 40), (SHEEN, 80), (PIPS, 24))]


def test_a_die_too_far_from_its_set_up_model_is_named_by_its_players_dice_in_this_frame() -> None:
    cal = ColourCalibration.of_models({RED: model(RED_BODY), BLUE: model((35.0, 10.0, -45.0))})
    faces = FaceSamples.of_pixels(red_dice_with_a_sheen(np.random.default_rng(1), 3))
    alone = cal.name_samples(faces)
    assert [m.accepted for m in alone] == [True, True, True, False] and alone[3].colour is RED
    together = name_together(cal, faces)
    assert together[3].accepted and together[3].colour is RED and together[3].distance < alone[3].distance
    assert together[:3] == alone[:3]


def test_one_sure_die_is_not_enough_to_learn_from() -> None:
    cal = ColourCalibration.of_models({RED: model(RED_BODY), BLUE: model((35.0, 10.0, -45.0))})
    faces = FaceSamples.of_pixels(red_dice_with_a_sheen(np.random.default_rng(2), 1))
    assert frame_models(cal, faces, cal.name_samples(faces)) == {}
    assert not name_together(cal, faces)[1].accepted


def test_the_frames_dice_never_change_a_dies_player() -> None:
    # yellow dice with a sheen teach a yellow model the sheen; a die all sheen was nearest red at first
    cal = ColourCalibration.of_models({RED: model(RED_BODY), YELLOW: model(YELLOW_BODY)})
    rng = np.random.default_rng(3)
    yellow = [face(rng, (YELLOW_BODY, 100), (SHEEN, 25), (PIPS, 24)) for _ in range(3)]
    faces = FaceSamples.of_pixels([*yellow, face(rng, (SHEEN, 120), (PIPS, 24))])
    alone = cal.name_samples(faces)
    assert alone[3].colour is RED and not alone[3].accepted and all(m.accepted for m in alone[:3])
    seen = frame_models(cal, faces, alone)
    assert set(seen) == {YELLOW}
    again = ColourCalibration.of_models({RED: cal.models[RED], YELLOW: seen[YELLOW]}).name_samples(faces)
    assert again[3].colour is YELLOW and again[3].accepted  # what a looser rule would have said
    assert not name_together(cal, faces)[3].accepted


def test_only_a_measured_players_die_turned_away_for_its_distance_alone_is_looked_at_again() -> None:
    def match(distance: float, runner_up: float, *, stand_in: bool = False) -> ColourMatch:
        return ColourMatch(RED, distance, BLUE, runner_up, threshold=22.0, margin=10.0, stand_in=stand_in)

    assert far_only(match(25.0, 40.0))
    assert not far_only(match(25.0, 33.0))  # ambiguous: the frame's dice do not settle it
    assert not far_only(match(25.0, 40.0, stand_in=True))  # a player never measured
    assert not far_only(match(15.0, 40.0))  # named already

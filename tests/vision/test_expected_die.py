"""Box setup asks for one die on each castle: where the reader reports none, the likeliest die there is taken
as it (`vision.dice.read_expected`), if the networks give it the die score `EXPECTED_DIE`, and never as
sure."""

from __future__ import annotations

import numpy as np
import pytest

from vision import dice

from .test_stated_values import IMAGE_TO_TABLE, SCALE, _view  # the camera straight above a 480 px square


def _candidate(where: tuple[float, float], die_score: float) -> dice.Seen:
    """A 3 at `where` (mm) whose finder and value networks together give it `die_score`."""
    scores = np.zeros(7, np.float32)
    scores[0] = 1.0 - die_score  # P(die) = the finder's centre score = die_score
    scores[3] = die_score
    x, y = where[0] * SCALE, where[1] * SCALE
    box = (int(x - 32), int(y - 32), int(x + 32), int(y + 32))
    candidate = dice.Candidate(box, die_score, np.full(6, 1 / 6, np.float32), scores, False)
    return dice.Seen(candidate, dice.Look(where, np.zeros((40, 40, 3), np.uint8), scores))


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[dice.Seen]:
    found: list[dice.Seen] = []
    monkeypatch.setattr(dice, "seen_from_above", lambda *_a, **_k: found)
    return found


def test_the_strongest_candidate_over_the_floor_is_the_expected_die_and_is_asked(
    seen: list[dice.Seen],
) -> None:
    seen += [_candidate((40.0, 40.0), 0.32), _candidate((80.0, 60.0), 0.45)]
    assert dice.decide(seen, _view()) == []  # under `DOUBT`: nothing is a die unprompted
    (die,) = dice.read_expected(np.zeros((1080, 1920, 3), np.uint8), _view())
    assert die.where == (80.0, 60.0) and die.unsure and die.value == 3


def test_no_candidate_over_the_floor_is_no_die(seen: list[dice.Seen]) -> None:
    seen += [_candidate((40.0, 40.0), dice.EXPECTED_DIE - 0.02)]
    assert dice.read_expected(np.zeros((1080, 1920, 3), np.uint8), _view()) == []


def test_a_die_the_reader_is_sure_of_is_still_asked_when_read_as_the_expected_one(
    seen: list[dice.Seen],
) -> None:
    seen += [_candidate((40.0, 40.0), 0.99)]
    (die,) = dice.read_expected(np.zeros((1080, 1920, 3), np.uint8), _view())
    assert die.unsure


def test_a_location_not_on_the_map_is_refused_by_name() -> None:
    from vision.knights import expected_die

    outline = np.array([[0.0, 0.0], [480.0, 0.0], [480.0, 480.0], [0.0, 480.0]])
    with pytest.raises(ValueError, match="'K7'"):
        expected_die(np.zeros((1080, 1920, 3), np.uint8), {"K1": outline}, "K7", IMAGE_TO_TABLE)

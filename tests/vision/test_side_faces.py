"""A die's side face read as a die of its own, seen steeply (`vision.dice._maybe_side_faces`): a die found
where another's side faces would show is doubted unless the value networks are as sure of it as they get and
of the place its own side faces would show."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from vision import dice, topview

VIEW: Any = SimpleNamespace(camera=(0.0, 0.0, 400.0))  # the camera over the table's origin, 400 mm up
HERE = (0.0, 80.0)  # mm; away from the camera is +y here
BEHIND = (0.0, HERE[1] + topview.side_behind(VIEW, HERE))  # where a die's side faces show at HERE


def look(p_die: float) -> dice.Look:
    scores = np.array([1.0 - p_die, p_die, 0, 0, 0, 0, 0], np.float32)
    return dice.Look(HERE, np.zeros((40, 40, 3), np.uint8), scores)


def seen(p_die: float, front: float | None) -> dice.Seen:
    return dice.Seen(None, look(p_die), None, None if front is None else look(front))  # type: ignore[arg-type]


def test_a_die_where_anothers_side_faces_show_is_a_die_when_its_own_side_faces_show() -> None:
    assert not dice._maybe_side_faces(seen(0.999, 0.97), [BEHIND], VIEW)
    assert dice._maybe_side_faces(seen(0.999, 0.1), [BEHIND], VIEW)  # sure of it alone: counted twice once
    assert dice._maybe_side_faces(seen(0.9, 0.97), [BEHIND], VIEW)  # not as sure as they get: doubted


def test_a_die_with_no_die_behind_it_is_not_doubted() -> None:
    assert not dice._maybe_side_faces(seen(0.9, None), [(0.0, HERE[1] + 40.0)], VIEW)
    in_front = (0.0, HERE[1] - topview.side_behind(VIEW, HERE))  # its own side faces' place: no die behind
    assert not dice._maybe_side_faces(seen(0.9, None), [in_front], VIEW)
    assert dice._at_side_place(HERE, [BEHIND], VIEW) and not dice._at_side_place(HERE, [HERE], VIEW)

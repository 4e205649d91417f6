"""The fast record machinery behind `apply` (engine/records.py, engine/flow.py): same records, same errors,
and a state handed out is never changed afterwards."""

from __future__ import annotations

import dataclasses
import inspect
import random

import pytest

from engine import actions as A
from engine import events as E
from engine.colours import Colour
from engine.errors import IllegalActionError
from engine.playout import random_playout
from engine.rules import apply, check
from engine.speed import fast_init
from engine.speed import replace_fields as fast_replace
from engine.state import ArtefactHolding, Need, Pending
from engine.work import Work

CLASSES = [*A.ACTION_TYPES.values(), *E.EVENT_TYPES.values(), Pending, ArtefactHolding]


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
def test_the_faster_init_keeps_the_dataclass_signature(cls: type) -> None:
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default
        elif f.default_factory is dataclasses.MISSING:
            assert p.default is inspect.Parameter.empty


def test_records_built_fast_are_the_same_records() -> None:
    a = A.ProsperityChoice(Colour.RED, True)
    assert a == A.ProsperityChoice(player=Colour.RED, discard=True, card=None)
    assert hash(a) == hash(A.ProsperityChoice(Colour.RED, True, None))
    assert repr(a) == "ProsperityChoice(player=Colour.RED, discard=True, card=None)"
    assert A.Action.from_json(a.to_json()) == a
    with pytest.raises(TypeError):
        A.Advance(Colour.RED, "T01")  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.card = "C01"  # type: ignore[misc]
    p = Pending(Need.DICE, n=2)
    assert p == dataclasses.replace(Pending(Need.DICE), n=2)


def test_fast_init_refuses_what_it_cannot_copy() -> None:
    @dataclasses.dataclass
    class Loose:
        x: int

    with pytest.raises(TypeError, match="not a slotted dataclass"):
        fast_init(Loose)


def test_fast_replace_refuses_unknown_fields() -> None:
    p = Pending(Need.DICE)
    assert fast_replace(p, {"n": 3}) == Pending(Need.DICE, n=3)
    with pytest.raises(TypeError, match=r"Pending has no field\(s\) \['actors'\]"):
        fast_replace(p, {"actors": 1})


def test_a_view_is_never_changed_by_later_work() -> None:
    """Records are changed in place after their first copy; a snapshot taken with `view` keeps its values."""
    state = random_playout(random.Random(3), players=3, max_actions=40).final
    colour = state.order[0]
    w = Work(state)
    w.set_player(colour, castle=1)
    snapshot = w.view()
    w.set_player(colour, castle=2)
    assert snapshot.players[colour].castle == 1
    assert w.freeze().players[colour].castle == 2
    assert state.players[colour] is not snapshot.players[colour]
    w.occ.clear()
    assert snapshot.occupants == state.occupants


def test_apply_after_check_of_other_objects_still_checks() -> None:
    """`apply` reuses a verdict only for the very objects `check` accepted."""
    p = random_playout(random.Random(5), players=2, max_actions=30)
    state = p.initial
    assert check(state, p.actions[0]).ok
    bad = A.EndTurn(next(c for c in state.order if c is not state.current))
    with pytest.raises(IllegalActionError):
        apply(state, bad)

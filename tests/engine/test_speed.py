"""The speed tricks (engine/speed.py): the records they build are the same records, a state handed out is
never changed afterwards, and games play out identically with the tricks switched off."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import inspect
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import actions as A
from engine import events as E
from engine import speed
from engine.colours import Colour
from engine.decisions import DECISION_TYPES, DicePurpose, DiceRoll
from engine.errors import IllegalActionError
from engine.playout import random_config, random_playout
from engine.rules import apply, check
from engine.setup import Variant
from engine.state import ArtefactHolding, Battle, BattleStage, GameState, Knowledge, PlayerState
from engine.work import Work

ROOT = Path(__file__).resolve().parents[2]
CLASSES = [*A.ACTION_TYPES.values(), *E.EVENT_TYPES.values(), *DECISION_TYPES.values(), ArtefactHolding,
           PlayerState, Battle, GameState]


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
def test_the_faster_init_keeps_the_dataclass_signature(cls: type) -> None:
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = sorted(dataclasses.fields(cls), key=lambda f: f.kw_only)  # keyword-only ones come last
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        assert (p.kind is inspect.Parameter.KEYWORD_ONLY) == f.kw_only
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
    d = DiceRoll(Colour.RED, 2, DicePurpose.MAYHEM)
    assert d == dataclasses.replace(DiceRoll(Colour.RED, 1, DicePurpose.MAYHEM), n=2)


def test_fast_init_refuses_what_it_cannot_copy() -> None:
    @dataclasses.dataclass
    class Loose:
        x: int

    with pytest.raises(TypeError, match="not a slotted dataclass"):
        speed.fast_init(Loose)


def test_replace_fields_refuses_unknown_fields() -> None:
    d = DiceRoll(Colour.RED, 1, DicePurpose.ARENA)
    assert speed.replace_fields(d, {"n": 3}) == DiceRoll(Colour.RED, 3, DicePurpose.ARENA)
    with pytest.raises(TypeError, match="actors"):
        speed.replace_fields(d, {"actors": 1})


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
    before = dict(state.occupants)
    for territory in list(w.occ):
        w.vacate(territory)
    assert not w.freeze().occupants
    assert snapshot.occupants == state.occupants == before


def test_drafted_records_are_their_class() -> None:
    """States, players and battles are built and copied through drafts; what comes out is the record itself,
    still frozen, and a subclass's instance keeps its own class."""
    assert {speed.draft_of(cls) is not None for cls in (GameState, PlayerState, Battle)} == {True}
    assert speed.draft_of(DiceRoll) is None  # a record with a base class: built the setter way
    state = random_playout(random.Random(4), players=3, max_actions=60).final
    values = [getattr(state, f.name) for f in dataclasses.fields(GameState)]
    built = [GameState(*values), speed.builder(GameState)(*values), speed.replace_fields(state, {})]
    for other in built:
        assert type(other) is GameState and other == state and repr(other) == repr(state)
        with pytest.raises(dataclasses.FrozenInstanceError):
            other.turn = 0  # type: ignore[misc]
    battle = Battle("T01", Colour.RED, Colour.BLUE, 3, BattleStage.DRAW)
    copied = speed.replace_fields(battle, {"margin": 2})
    assert type(copied) is Battle and copied == dataclasses.replace(battle, margin=2)
    with pytest.raises(TypeError, match="margins"):
        speed.replace_fields(battle, {"margins": 2})

    @dataclasses.dataclass(frozen=True, slots=True)
    class Later(PlayerState):
        note: str = ""

    later = Later(Colour.RED, 1, (), 0, (), 0, (), (), note="x")
    assert type(later) is Later and later.castle == 1 and later.note == "x"


def test_playing_makes_no_reference_cycles() -> None:
    """Everything a game allocates is freed by reference counting alone, so the cyclic collector never finds
    anything to do while games are played (which is why bench/engine.py may freeze what it keeps)."""
    gc.collect()
    gc.disable()
    try:
        for i, variant in enumerate(_VARIANTS):
            rng = random.Random(i)
            random_playout(rng, config=random_config(rng, 4, variant, Knowledge.TABLE), max_actions=300)
            random_playout(rng, config=random_config(rng, 4, variant, Knowledge.FULL), max_actions=300)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_apply_refuses_what_check_refuses() -> None:
    p = random_playout(random.Random(5), players=2, max_actions=30)
    state = p.initial
    assert check(state, p.actions[0]).ok
    bad = A.EndTurn(next(c for c in state.order if c is not state.current))
    with pytest.raises(IllegalActionError):
        apply(state, bad)


_VARIANTS = [Variant(), Variant(mayhem=True, cut_throat=True), Variant(castle_siege=True, skirmish=True),
             Variant(allegiance=((Colour.RED, Colour.YELLOW), (Colour.BLUE, Colour.GREEN)))]


def _digest() -> str:
    """Every action and final state of a few seeded random games (each variant, both knowledge modes)."""
    h = hashlib.sha256()
    for i, variant in enumerate(_VARIANTS):
        for knowledge in Knowledge:
            rng = random.Random(i)
            config = random_config(rng, 4, variant, knowledge)
            p = random_playout(rng, config=config, max_actions=400)
            h.update(json.dumps([a.to_json() for a in p.actions]).encode())
            h.update(json.dumps(p.final.to_json(), sort_keys=True).encode())
    return h.hexdigest()


def test_games_play_out_identically_with_the_tricks_switched_off() -> None:
    assert speed.ENABLED  # the suite runs with them on
    env = {**os.environ, "SENESCHAL_ENGINE_SPEED": "0"}
    code = "from tests.engine.test_speed import _digest; from engine import speed; "
    code += "print(speed.ENABLED, _digest())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", _digest()]

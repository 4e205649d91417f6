"""Each move's prompt, history line and kind (`Move.prompt`, `Move.history`, `Move.kind`): declared with the
move, naming only fields of its action class."""

from __future__ import annotations

import typing
from dataclasses import fields
from typing import Any

import pytest

from engine import actions as A
from engine.actions import ACTION_TYPES
from engine.colours import Colour
from engine.moves import Move, MoveKind, Prompt, Slot, placeholders
from engine.rules import MOVE_OF, MOVES

# The field types each kind of placeholder can say.
_TYPES: dict[Slot, tuple[object, ...]] = {
    Slot.NUMBER: (int,),
    Slot.PLACE: (str,),
    Slot.ARTEFACT: (str,),
    Slot.CARD: (str, str | None),
    Slot.PLAYER: (Colour, Colour | None),
    Slot.CARDS: (tuple[str, ...],),
    Slot.DICE: (tuple[int, ...],),
    Slot.LAYOUT: (tuple[tuple[str, int], ...],),
    Slot.CROWN: (Colour,),
}


def test_every_action_class_has_one_move_with_a_prompt() -> None:
    assert set(MOVE_OF) == set(ACTION_TYPES.values()) and len(MOVES) == len(MOVE_OF)
    for move in MOVES:
        assert isinstance(move.prompt, Prompt) and move.prompt.text.strip(), move.action
        assert bool(move.prompt.when) == bool(move.prompt.absent), move.prompt  # both or neither


@pytest.mark.parametrize("move", MOVES, ids=lambda m: m.action.__name__)
def test_every_placeholder_names_a_field_of_its_action_of_a_type_its_kind_says(move: Move[Any, Any]) -> None:
    hints = typing.get_type_hints(move.action)
    names = {f.name for f in fields(move.action)}
    # A button is the acting player's own: it never names them; a history line says who did it.
    for prompt, may_name_player in ((move.prompt, False), (move.history, True)):
        if prompt is None:
            continue
        for template in prompt.templates():
            for name, slot in placeholders(template):
                assert name in names and (may_name_player or name != "player"), (template, name)
                assert hints[name] in _TYPES[slot], (template, name, hints[name])
        if prompt.when:
            assert prompt.when in names
        assert bool(prompt.when) == bool(prompt.absent), prompt
    if move.history is not None:
        assert all("{player:player}" in t for t in move.history.templates()), move.history


def test_every_move_declares_its_kind() -> None:
    kinds = {m.action: m.kind for m in MOVES}
    assert kinds[A.PlayCallToArms] is kinds[A.PlayTacticalAdvance] is MoveKind.RESOURCE
    assert kinds[A.EndTurn] is kinds[A.SkipAdvance] is MoveKind.END_STEP
    assert kinds[A.DeclareAuthority] is MoveKind.SIMPLE
    assert {m.kind for m in MOVES} | {MoveKind.PASS_ALL} == set(MoveKind)  # every kind is some move's
    round_pass = MOVE_OF[A.PassFractureRound]
    assert round_pass.kind_of(A.PassFractureRound(Colour.RED, Colour.BLUE)) is MoveKind.PASS
    assert round_pass.kind_of(A.PassFractureRound(Colour.RED)) is MoveKind.PASS_ALL
    assert MOVE_OF[A.EndTurn].kind_of(A.EndTurn(Colour.RED)) is MoveKind.END_STEP


def test_a_placeholder_kinds_and_the_template_an_action_gets() -> None:
    assert placeholders("{knights} into {target:place}") == (("knights", Slot.NUMBER), ("target", Slot.PLACE))
    with pytest.raises(ValueError, match="'colour'"):
        placeholders("{target:colour}")
    prompt = MOVE_OF[A.DiscardCard].prompt
    assert prompt.template(A.DiscardCard(Colour.RED, "C04")) == "Discard {card:card}"
    assert prompt.template(A.DiscardCard(Colour.RED, None)) == "Keep my cards"
    assert MOVE_OF[A.Equalise].prompt.template(A.Equalise(Colour.RED, False)) == "Keep my knights"


def test_a_move_whose_prompt_names_no_field_of_its_action_is_refused_where_it_is_declared() -> None:
    m = MOVE_OF[A.Advance]
    with pytest.raises(ValueError, match=r"Advance's prompt .* names no field \['castle'\]"):
        Move(A.Advance, m.check, m.effect, m.options, m.not_now, Prompt("{castle} into {target:place}"))
    with pytest.raises(ValueError, match=r"names no field \['amount'\]"):
        Move(A.Advance, m.check, m.effect, m.options, m.not_now, Prompt("x", "y", when="amount"))

    with pytest.raises(ValueError, match=r"Advance's history .* names no field \['mover'\]"):
        Move(A.Advance, m.check, m.effect, m.options, m.not_now, m.prompt, history=Prompt("{mover:player}"))
    with pytest.raises(ValueError, match="kind_absent needs a prompt that says when"):
        Move(A.Advance, m.check, m.effect, m.options, m.not_now, m.prompt, kind_absent=MoveKind.PASS_ALL)

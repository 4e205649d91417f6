"""A move: one kind of action, declared once with everything the referee needs about it.

Each topic module (cards, artefacts, battle, turn) declares the moves it owns as `Move` records; the referee
(`engine.rules`) reads only these declarations, like boardgame.io's game object, so a move is changed in one
place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.actions import Action
from engine.state import GameState, Need, Pending, TurnStep
from engine.verdict import Verdict
from engine.work import Work

A = TypeVar("A", bound=Action)


@dataclass(frozen=True, slots=True)
class Move(Generic[A]):
    """`action`: the action class. `answers`: the decision it answers (None: none). `on_turn`: the steps of
    the turn in which the player whose turn it is may play it while nothing is waiting (empty: never).
    `check(state, action, decision)` says whether it is legal once it is this player's to play (the decision
    waited for, or None on the turn). `effect(work, action)` applies an accepted one. `options(state,
    decision)` generates the legal ones."""

    action: type[A]
    check: Callable[[GameState, A, Pending | None], Verdict]
    effect: Callable[[Work, A], None]
    options: Callable[[GameState, Pending | None], Iterable[A]]
    answers: Need | None = None
    on_turn: frozenset[TurnStep] = frozenset()


# The steps of a turn in which nothing is waiting for a decision (steps 2-3 and 7-8, and 5 after a
# redistribution): where moves of the player whose turn it is are played.
OPEN_STEPS = frozenset({TurnStep.PREPARE, TurnStep.FOLLOW_UP})
ANY_OPEN_STEPS = frozenset({TurnStep.PREPARE, TurnStep.ADVANCE, TurnStep.FOLLOW_UP})

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
from engine.decisions import Decision
from engine.state import GameState, TurnStep
from engine.verdict import Verdict
from engine.work import Work

A = TypeVar("A", bound=Action)
D = TypeVar("D", bound=Decision | None)


@dataclass(frozen=True, slots=True)
class Move(Generic[A, D]):
    """One kind of action.

    - `action`: its class.
    - `check(state, action, decision)`: whether it is legal once it is this player's to play: `decision` is
      the decision it answers, or None when played on the player's own turn.
    - `effect(work, action, decision)`: applies an accepted one (answering `decision` closes or moves it on).
    - `options(state, decision)`: the legal ones, lazily, for the player(s) who may play it now.
    - `answers`: the class of decision it answers (None: none).
    - `on_turn`: the steps of the turn in which the player whose turn it is may play it while nothing is
      waiting (empty: never).
    """

    action: type[A]
    check: Callable[[GameState, A, D], Verdict]
    effect: Callable[[Work, A, D], None]
    options: Callable[[GameState, D], Iterable[A]]
    answers: type[Decision] | None = None
    on_turn: frozenset[TurnStep] = frozenset()


# The steps of a turn in which nothing is waiting for a decision (steps 2-3 and 7-8, and 5 after a
# redistribution): where moves of the player whose turn it is are played.
OPEN_STEPS = frozenset({TurnStep.PREPARE, TurnStep.FOLLOW_UP})
ANY_OPEN_STEPS = frozenset({TurnStep.PREPARE, TurnStep.ADVANCE, TurnStep.FOLLOW_UP})

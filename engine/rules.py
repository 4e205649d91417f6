"""The referee: `legal_actions(state)`, `check(state, action) -> Verdict`, `apply(state, action)`.

Every kind of action is a `Move` declared once in its topic module (cards, artefacts, battle, turn); the
referee only reads those declarations. One check order for every action: game over -> who may act (whose
turn, or whose decision a window waits for) -> the step of the turn or battle -> the move's own rule. A
refused action changes nothing: `apply` works on a copy and raises IllegalActionError carrying the verdict.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

from engine import actions as A
from engine import events as ev
from engine.artefacts import (
    ARRANGE_TOP,
    DESTROY_ARTEFACT,
    EQUALISE,
    PASS_FRACTURE,
    PASS_FRACTURE_ROUND,
    PLAY_FRACTURE,
    PROSPERITY_CHOICE,
    RETURN_CARD,
    USE_CROWN,
)
from engine.battle import PLAY_CONFLICT, PLAY_SUPPORT, ROLL_DICE
from engine.cards import CALL_TO_ARMS, DECLARE_AUTHORITY, DISCARD_CARD, DISCARD_RANDOM, TACTICAL_ADVANCE
from engine.colours import Colour
from engine.decisions import DECISION_TYPES, Decision, DiceRoll, RandomDiscard
from engine.errors import EngineError, IllegalActionError
from engine.moves import Move
from engine.rulebook import Rule
from engine.state import DiceSource, GameState, TurnStep
from engine.turn import ADVANCE, END_TURN, REDISTRIBUTE, SKIP_ADVANCE, layouts, settle
from engine.verdict import Reason, Verdict, refuse, who
from engine.work import Work

# Every move, in the order `legal_actions` lists them.
MOVES: tuple[Move[Any, Any], ...] = (
    CALL_TO_ARMS,
    TACTICAL_ADVANCE,
    PASS_FRACTURE,
    PASS_FRACTURE_ROUND,
    PLAY_FRACTURE,
    USE_CROWN,
    REDISTRIBUTE,
    SKIP_ADVANCE,
    ADVANCE,
    END_TURN,
    ROLL_DICE,
    EQUALISE,
    DISCARD_RANDOM,
    PLAY_CONFLICT,
    PLAY_SUPPORT,
    DISCARD_CARD,
    DECLARE_AUTHORITY,
    ARRANGE_TOP,
    RETURN_CARD,
    DESTROY_ARTEFACT,
    PROSPERITY_CHOICE,
)
MOVE_OF: dict[type[A.Action], Move[Any, Any]] = {m.action: m for m in MOVES}
# The moves that answer each kind of decision, in `MOVES` order.
ANSWERING: dict[type[Decision], tuple[Move[Any, Any], ...]] = {
    cls: tuple(m for m in MOVES if m.answers is cls) for cls in DECISION_TYPES.values()
}
# The moves the player whose turn it is may play at each step while nothing is waiting, in `MOVES` order.
ON_TURN: dict[TurnStep, tuple[Move[Any, Any], ...]] = {
    step: tuple(m for m in MOVES if step in m.on_turn) for step in TurnStep
}


# --- the checks --------------------------------------------------------------------------------------------


def check(state: GameState, action: A.Action) -> Verdict:
    """Whether `action` is legal now: a verdict with a reason code, one sentence and the rule that decided it
    (for an accepted action too: what it does and what allows it).

    One order for every action: the game over; then whether this kind of action can be played at this point
    of the game at all, by anyone (the most specific rule against it when not); then whether it is this
    player's to play (their turn, or the decision waits for them); then the move's own rule."""
    if state.winner is not None:
        won = ", ".join(who(c) for c in state.winner)
        return refuse(Reason.GAME_OVER, f"The game is over: {won} won.", Rule.AIM)
    if not isinstance(action, A.Action) or action.player not in state.players:
        player = getattr(action, "player", None)
        return refuse(Reason.UNKNOWN_PLAYER, f"{player!r} is not playing in this game.", Rule.SETTING_UP)
    move = MOVE_OF[type(action)]
    if state.pending:
        head = state.pending[0]
        if move.answers is not type(head):
            return move.not_now(state, action)
        if action.player not in head.actors():
            waiting = " and ".join(who(c) for c in head.actors())
            return refuse(
                Reason.NOT_YOUR_DECISION,
                f"The game is waiting for {waiting} {head.ASKS}, not for {who(action.player)}.",
                head.rule,
            )
        return move.check(state, action, head)
    if state.step not in move.on_turn:
        return move.not_now(state, action)
    if action.player is not state.current:
        return refuse(
            Reason.NOT_YOUR_TURN,
            f"It is {who(state.current)}'s turn, not {who(action.player)}'s.",
            Rule.TURN,
        )
    return move.check(state, action, None)


# --- applying ----------------------------------------------------------------------------------------------


def apply(state: GameState, action: A.Action) -> tuple[GameState, tuple[ev.Event, ...]]:
    """Apply a legal action; raises IllegalActionError (with the verdict) and changes nothing otherwise."""
    verdict = check(state, action)
    if not verdict.ok:
        raise IllegalActionError(verdict)
    return apply_unchecked(state, action)


def apply_unchecked(state: GameState, action: A.Action) -> tuple[GameState, tuple[ev.Event, ...]]:
    """Apply an action `check` has accepted (used by `apply` and by replays of already-checked logs)."""
    w = Work(state)
    MOVE_OF[type(action)].effect(w, action, state.pending[0] if state.pending else None)
    settle(w)
    return w.freeze(), tuple(w.events)


# --- enumerating -------------------------------------------------------------------------------------------


class LegalActions:
    """Every action the player(s) to act may take now, as a lazy view (like python-chess's
    `board.legal_moves`): nothing is listed until asked for.

    - `action in legal` is exactly `check(state, action).ok`.
    - Iterating yields every legal action once, lazily, in canonical form: a redistribution lists only the
      places that change, by location id; support cards and Insight's order as tuples (every combination of
      support cards once, every order of Insight's cards); a crown that affects its owner names nobody; dice
      as rolls with source SIMULATION (rolls are equal whatever their source). Every action `check` accepts
      equals one of these up to that form. There can be very many (a mayhem roll of n dice has 6**n results,
      a redistribution thousands of layouts): take what you need.
    - `of(*kinds)` iterates only the actions of some classes; `capped(n)` at most `n` of each class;
      `legal[i]` is the i-th in iteration order.
    - `bool(legal)` is False only when the game is over.

    >>> import random
    >>> from engine import Advance, EndTurn, legal_actions, new_game, random_config
    >>> state = new_game(random_config(random.Random(7), 3))
    >>> legal = legal_actions(state)
    >>> EndTurn(state.current) in legal
    True
    >>> all(isinstance(a, Advance) for a in legal.of(Advance))
    True
    """

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __contains__(self, action: object) -> bool:
        return isinstance(action, A.Action) and check(self.state, action).ok

    def __iter__(self) -> Iterator[A.Action]:
        for move, decision in self._moves():
            yield from move.options(self.state, decision)

    def __bool__(self) -> bool:
        return self.state.winner is None

    def __eq__(self, other: object) -> bool:
        """Equal to a list or tuple of the same actions in the same order (compared lazily)."""
        if isinstance(other, LegalActions):
            return other.state is self.state
        if isinstance(other, list | tuple):
            missing = object()
            pairs = itertools.zip_longest(self, other, fillvalue=missing)
            return all(a == b for a, b in pairs)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, so unhashable like them

    def __getitem__(self, index: int) -> A.Action:
        """The legal action at `index` in the order iteration gives (enumerating up to it)."""
        if index < 0:
            return list(self)[index]
        for action in itertools.islice(self, index, None):
            return action
        raise IndexError(f"there are fewer than {index + 1} legal actions")

    def __repr__(self) -> str:
        return f"<LegalActions for {', '.join(c.value for c in self.state.actors()) or 'nobody'}>"

    def of(self, *kinds: type[A.Action]) -> Iterator[A.Action]:
        """The legal actions of these classes only."""
        for move, decision in self._moves():
            if move.action in kinds:
                yield from move.options(self.state, decision)

    def capped(self, n: int) -> Iterator[A.Action]:
        """At most `n` legal actions of each class (the first ones in canonical order)."""
        for move, decision in self._moves():
            yield from itertools.islice(move.options(self.state, decision), n)

    def count(self) -> int:
        """How many there are (by enumerating them all)."""
        return sum(1 for _ in self)

    def _moves(self) -> list[tuple[Move[Any, Any], Decision | None]]:
        s = self.state
        if s.winner is not None:
            return []
        if s.pending:
            head = s.pending[0]
            return [(move, head) for move in ANSWERING[type(head)]]
        return [(move, None) for move in ON_TURN[s.step]]


def legal_actions(state: GameState) -> LegalActions:
    """Every action the player(s) to act may take now: a lazy view (`LegalActions`) whose `in` is `check`."""
    return LegalActions(state)


def redistributions(state: GameState, colour: Colour | None = None) -> Iterator[A.Redistribute]:
    """Every legal redistribution of `colour` (default: the player to act), lazily: each distinct final layout
    once, as the places that change (castle first, then territories by id), starting with the empty one.
    The count grows fast with knights and territories, so take what you need from the iterator. Yields
    nothing when a redistribution is not allowed now."""
    me = colour if colour is not None else (state.actors() or (state.current,))[0]
    if check(state, A.Redistribute(me, ())).ok:
        yield from layouts(state, me)


# --- chance ------------------------------------------------------------------------------------------------


def is_chance(state: GameState) -> bool:
    """Whether the game waits for chance rather than a choice: dice (the arena, an ambush, mayhem) or a card
    taken at random from a hand (Sceptres of Influence and Defiance). The engine never rolls: the result is an
    action like any other (R44).

    >>> import random
    >>> from engine import is_chance, new_game, random_config
    >>> is_chance(new_game(random_config(random.Random(7), 3)))
    False
    """
    return bool(state.pending) and isinstance(state.pending[0], (DiceRoll, RandomDiscard))


def chance_outcomes(state: GameState) -> Iterator[tuple[A.Action, float]]:
    """At a chance point (`is_chance`), every outcome with its probability, lazily: each result of the dice
    (1/6 per die), or each card of the hand equally likely. In a TABLE game the hand is unknown: every card
    that could be in it is taken as equally likely. Nothing when it is not a chance point."""
    if not is_chance(state):
        return
    head = state.pending[0]
    if isinstance(head, DiceRoll):
        p = (1 / 6) ** head.n
        for action in LegalActions(state):
            yield action, p
        return
    cards = list(LegalActions(state).of(A.DiscardRandom))
    for action in cards:
        yield action, 1 / len(cards)


def sample_chance(state: GameState, rng: random.Random) -> A.Action:
    """One outcome of the chance point the game waits for, drawn with its probability from `rng` (which is
    how a simulation rolls: the engine never does). Raises EngineError when it is not a chance point."""
    if not is_chance(state):
        raise EngineError("the game is not waiting for chance: nothing to roll or draw")
    head = state.pending[0]
    if isinstance(head, DiceRoll):
        values = tuple(rng.randint(1, 6) for _ in range(head.n))
        return A.RollDice(head.actor, values, DiceSource.SIMULATION)
    return rng.choice(list(LegalActions(state).of(A.DiscardRandom)))

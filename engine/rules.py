"""The referee: `legal_actions(state)`, `check(state, action) -> Verdict`, `apply(state, action)`.

Every kind of action is a `Move` declared once in its topic module (cards, artefacts, battle, turn); the
referee only reads those declarations. One check order for every action: game over -> who may act (whose
turn, or whose decision a window waits for) -> the step of the turn or battle -> the move's own rule. A
refused action changes nothing: `apply` works on a copy and raises IllegalActionError carrying the verdict.
"""

from __future__ import annotations

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
from engine.decisions import DECISION_TYPES, Decision
from engine.errors import IllegalActionError
from engine.moves import Move
from engine.rulebook import Rule
from engine.state import GameState
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


def legal_actions(state: GameState) -> list[A.Action]:
    """Every action the player(s) to act may take now, each accepted by `check`.

    Two deliberate abbreviations: a redistribution is listed as every single move of knights between two
    places (`check` accepts any legal layout; `redistributions` generates them all, R24), and a need for
    three or more dice (mayhem) lists one result per face value (`check` accepts any results, R44)."""
    s = state
    if s.winner is not None:
        return []
    out: list[A.Action] = []
    if s.pending:
        head = s.pending[0]
        for move in ANSWERING[type(head)]:
            out.extend(move.options(s, head))
        return out
    step = s.step
    for move in MOVES:
        if step in move.on_turn:
            out.extend(move.options(s, None))
    return out


def redistributions(state: GameState, colour: Colour | None = None) -> Iterator[A.Redistribute]:
    """Every legal redistribution of `colour` (default: the player to act), lazily: each distinct final layout
    once, as the places that change (castle first, then territories by id), starting with the empty one.

    Complete, unlike `legal_actions` (which lists single moves, R24): the app's manual entry can offer any
    of these. The count grows fast with knights and territories, so take what you need from the iterator.
    Yields nothing when a redistribution is not allowed now."""
    me = colour if colour is not None else (state.actors() or (state.current,))[0]
    if check(state, A.Redistribute(me, ())).ok:
        yield from layouts(state, me)


"""A move: one kind of action, declared once with everything the referee needs about it.

Each topic module (cards, artefacts, battle, turn) declares the moves it owns as `Move` records; the referee
(`engine.rules`) reads only these declarations, like boardgame.io's game object, so a move is changed in one
place.

A move's `prompt` is how a player is offered it, in English, as data: a template whose placeholders name the
action's fields and say what kind of value each holds (`"{knights} into {target:place}"`); its `history` is
how the game's history tells it once played (`"{player:player} ended the turn"`). The app looks each template
up in its catalogues (it is the msgid) and puts each value into words by its kind. A move's `kind` says what
kind of choice it is (a resource card, a crown, a pass...), for a front end to group moves and ask for the
right input. The engine knows nothing of languages or screens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from enum import Enum
from typing import Generic, TypeVar

from engine.actions import Action
from engine.decisions import Decision
from engine.rulebook import Rule
from engine.state import GameState, TurnStep
from engine.verdict import Reason, Verdict, refuse, who
from engine.work import Work

A = TypeVar("A", bound=Action)
D = TypeVar("D", bound=Decision | None)


class Slot(Enum):
    """What kind of value a prompt's placeholder holds, so the app knows how to say it."""

    NUMBER = "number"  # an int, as it is (the default: "{knights}")
    PLACE = "place"  # a territory, castle or lake id
    PLAYER = "player"  # a Colour: the player's name
    CARD = "card"  # a card id (None: no card)
    CARDS = "cards"  # a tuple of card ids
    ARTEFACT = "artefact"  # an artefact id
    LAYOUT = "layout"  # a redistribution's (place id, knights) pairs
    DICE = "dice"  # a tuple of die values
    CROWN = "crown"  # a Colour: the crown that player holds (said from the state the action was played in)


_PLACEHOLDER = re.compile(r"\{(?P<name>\w+)(?::(?P<slot>\w+))?\}")


def placeholders(template: str) -> tuple[tuple[str, Slot], ...]:
    """The fields a template names, with their kinds: `"{knights} into {target:place}"` ->
    `(("knights", Slot.NUMBER), ("target", Slot.PLACE))`. Raises ValueError for an unknown kind."""
    return tuple((m["name"], Slot(m["slot"] or Slot.NUMBER.value)) for m in _PLACEHOLDER.finditer(template))


@dataclass(frozen=True, slots=True)
class Prompt:
    """How a move is offered to a player, in English: `text`, or `absent` for an action whose field `when`
    is empty, None or False ("Discard {card:card}" / "Keep my cards" by `DiscardCard.card`)."""

    text: str
    absent: str = ""
    when: str = ""

    def template(self, action: Action) -> str:
        """The template that says `action`."""
        return self.absent if self.when and not getattr(action, self.when) else self.text

    def templates(self) -> tuple[str, ...]:
        return (self.text, self.absent) if self.when else (self.text,)


class MoveKind(Enum):
    """What kind of choice a move is: for a front end to group the moves offered and give each the input it
    needs."""

    RESOURCE = "resource"  # a resource card played on one's own turn
    CROWN = "crown"  # a crown used, or a choice its ability asks for
    REDISTRIBUTE = "redistribute"
    ADVANCE = "advance"
    END_STEP = "end_step"  # the advance declined, or the turn ended
    FRACTURE = "fracture"  # a fracture card on an artefact
    PASS = "pass"  # no fracture card: from one player, or from each player up to a named one
    PASS_ALL = "pass_all"  # no fracture card from anybody still to decide in the window: one answer for all
    CONFLICT = "conflict"  # a conflict card, face down
    SUPPORT = "support"  # support cards
    ROLL = "roll"  # dice: chance, an input
    SCEPTRE = "sceptre"  # a sceptre's choice
    ABILITY = "ability"  # a card discarded by an ability
    SIMPLE = "simple"  # anything else: played as it is


@dataclass(frozen=True, slots=True)
class Move(Generic[A, D]):
    """One kind of action.

    - `action`: its class.
    - `check(state, action, decision)`: whether it is legal once it is this player's to play: `decision` is
      the decision it answers, or None when played on the player's own turn.
    - `effect(work, action, decision)`: applies an accepted one (answering `decision` closes or moves it on).
    - `options(state, decision)`: the legal ones, lazily, for the player(s) who may play it now.
    - `not_now(state, action)`: the most specific rule against it when it cannot be played at this point of
      the game at all, by anyone.
    - `prompt`: how a player is offered it (a `Prompt`: English templates naming the action's fields).
    - `kind`: what kind of choice it is; `kind_absent`, when set, is the kind of an action whose field the
      prompt's `when` names is empty (a fracture pass naming nobody passes for everyone left).
    - `history`: how the history tells it once played (a `Prompt` whose templates may name the player too);
      None: the player's name and the prompt.
    - `answers`: the class of decision it answers (None: none).
    - `on_turn`: the steps of the turn in which the player whose turn it is may play it while nothing is
      waiting (empty: never).
    """

    action: type[A]
    check: Callable[[GameState, A, D], Verdict]
    effect: Callable[[Work, A, D], None]
    options: Callable[[GameState, D], Iterable[A]]
    not_now: Callable[[GameState, A], Verdict]
    prompt: Prompt
    kind: MoveKind = MoveKind.SIMPLE
    kind_absent: MoveKind | None = None
    history: Prompt | None = None
    answers: type[Decision] | None = None
    on_turn: frozenset[TurnStep] = frozenset()

    def __post_init__(self) -> None:
        names = {f.name for f in fields(self.action)}
        for what, prompt in (("prompt", self.prompt), ("history", self.history)):
            if prompt is None:
                continue
            wanted = [name for t in prompt.templates() for name, _slot in placeholders(t)]
            wanted += [prompt.when] if prompt.when else []
            unknown = [name for name in wanted if name not in names]
            if unknown:
                raise ValueError(f"{self.action.__name__}'s {what} {prompt!r} names no field {unknown}")
        if self.kind_absent is not None and not self.prompt.when:
            raise ValueError(f"{self.action.__name__}'s kind_absent needs a prompt that says when (`when`)")

    def kind_of(self, action: A) -> MoveKind:
        """The kind of choice `action` is."""
        if self.kind_absent is not None and not getattr(action, self.prompt.when):
            return self.kind_absent
        return self.kind


# The steps of a turn in which nothing is waiting for a decision (steps 2-3 and 7-8, and 5 after a
# redistribution): where moves of the player whose turn it is are played.
OPEN_STEPS = frozenset({TurnStep.PREPARE, TurnStep.FOLLOW_UP})
ANY_OPEN_STEPS = frozenset({TurnStep.PREPARE, TurnStep.ADVANCE, TurnStep.FOLLOW_UP})


def waiting_first(s: GameState, a: Action) -> Verdict:
    """The game waits for a decision this action does not answer."""
    head = s.pending[0]
    if a.player not in head.actors():
        waiting = " and ".join(who(c) for c in head.actors())
        return refuse(
            Reason.NOT_YOUR_DECISION,
            f"The game is waiting for {waiting} {head.ASKS}, not for {who(a.player)}.",
            head.rule,
        )
    return refuse(
        Reason.WRONG_STEP, f"{who(a.player)} must first answer: the game is waiting {head.ASKS}.", head.rule
    )


def on_turn_only(
    during_battle: str, battle_rule: Rule, during_advance: str = "", advance_rule: Rule = Rule.R24
) -> Callable[[GameState, Action], Verdict]:
    """`not_now` of a move played on the player's own turn: why not during a battle, why not between a
    redistribution and its advance, and otherwise what the game waits for."""

    def not_now(s: GameState, a: Action) -> Verdict:
        if s.battle is not None:
            return refuse(Reason.WRONG_STEP, during_battle, battle_rule)
        if not s.pending and s.step is TurnStep.ADVANCE:
            return refuse(Reason.WRONG_STEP, during_advance, advance_rule)
        return waiting_first(s, a)

    return not_now

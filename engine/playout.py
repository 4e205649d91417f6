"""Seeded random legal play, for property tests and the engine benchmark.

The policy is random but purposeful enough to finish games: it prefers advancing and battling over ending the
turn, and answers every decision the engine waits for with a random legal answer. Chance (dice, random
discards) comes from the same seeded `random.Random`, recorded on the actions with source SIMULATION.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from engine import actions as A
from engine.colours import Colour
from engine.decisions import Decision, VitalityRedistribution
from engine.events import Event
from engine.rules import ANSWERING, ON_TURN, apply_unchecked, is_chance, sample_chance
from engine.setup import GameConfig, PlayerConfig, new_game
from engine.state import GameState, Knowledge
from engine.turn import advance_options, single_moves
from engine.variants import Variant

COLOURS = (Colour.RED, Colour.BLUE, Colour.YELLOW, Colour.GREEN, Colour.WHITE, Colour.BLACK)


@dataclass(frozen=True, slots=True)
class Playout:
    initial: GameState
    actions: tuple[A.Action, ...]
    final: GameState

    @property
    def finished(self) -> bool:
        return self.final.winner is not None


def random_config(
    rng: random.Random, players: int, variant: Variant | None = None, knowledge: Knowledge = Knowledge.FULL
) -> GameConfig:
    colours = COLOURS[:players]
    return GameConfig(
        players=tuple(PlayerConfig(c, c.value) for c in colours),
        variant=variant or Variant(),
        knowledge=knowledge,
        seed=rng.randrange(2**31),
    )


def choose(state: GameState, rng: random.Random) -> A.Action:
    """One random legal action, weighted towards advances and away from ending the turn early; chance drawn
    with its probabilities. A redistribution moves knights once between two places (the policy's own
    choice: there can be thousands of layouts)."""
    if state.winner is not None:
        raise ValueError("no legal action: the game is over")
    if is_chance(state):
        return sample_chance(state, rng)
    if state.pending:
        head = state.pending[0]
        if isinstance(head, VitalityRedistribution):
            return A.Redistribute(head.actor, rng.choice(list(single_moves(state, head.actor))))
        return rng.choice(_answers(state, head))
    options_by_target = advance_options(state, state.current)
    if options_by_target and rng.random() < 0.85:
        # Prefer bigger advances: between half and all of the most that fit.
        best = max(counts[-1] for _, counts in options_by_target)
        strong = [(t, k) for t, counts in options_by_target for k in counts if k * 2 >= best]
        target, knights = rng.choice(strong)
        return A.Advance(state.current, target, knights)
    # Something else than ending the turn half the time there is something else: listed only then.
    others = _other_turn_actions(state)
    first = next(others, None)
    if first is not None and rng.random() < 0.5:
        return rng.choice([first, *others])
    return A.EndTurn(state.current)


def _answers(state: GameState, head: Decision) -> list[A.Action]:
    """The legal answers to the decision the game waits for (`legal_actions`, in its order), but the
    whole-round pass (R47): a shortcut for the app, while the policy answers each player in turn."""
    out: list[A.Action] = []
    for move in ANSWERING[type(head)]:
        if move.action is not A.PassFractureRound:
            out.extend(move.options(state, head))
    return out


def _single_moves(state: GameState, colour: Colour) -> Iterator[A.Action]:
    return (A.Redistribute(colour, layout) for layout in single_moves(state, colour))


def _other_turn_actions(state: GameState) -> Iterator[A.Action]:
    """What the player whose turn it is may do now but advance (the policy weighs advances itself) or end the
    turn, lazily."""
    for move in ON_TURN[state.step]:
        if move.action is A.Advance or move.action is A.EndTurn:
            continue
        if move.action is A.Redistribute:
            if state.manoeuvres > 0:
                yield from _single_moves(state, state.current)
        else:
            yield from move.options(state, None)


def random_playout(
    rng: random.Random,
    players: int = 4,
    variant: Variant | None = None,
    knowledge: Knowledge = Knowledge.FULL,
    *,
    max_actions: int = 3000,
    config: GameConfig | None = None,
    observe: Callable[[GameState, A.Action, GameState, Sequence[Event]], None] | None = None,
) -> Playout:
    """Play one random legal game (up to `max_actions`) and return its actions and final state."""
    cfg = config or random_config(rng, players, variant, knowledge)
    return play_on(new_game(cfg), rng, max_actions=max_actions, observe=observe)


def play_on(
    state: GameState,
    rng: random.Random,
    *,
    max_actions: int = 3000,
    observe: Callable[[GameState, A.Action, GameState, Sequence[Event]], None] | None = None,
) -> Playout:
    """Play a game on from `state` with random legal actions to its end (or `max_actions`): one playout of
    a move hint's search."""
    initial = state
    taken: list[A.Action] = []
    while state.winner is None and len(taken) < max_actions:
        action = choose(state, rng)
        nxt, events = apply_unchecked(state, action)
        if observe is not None:
            observe(state, action, nxt, events)
        taken.append(action)
        state = nxt
    return Playout(initial, tuple(taken), state)

"""Random legal play from random seeds, 2..6 players, every variant and both knowledge modes; the invariants
hold after every action (hypothesis)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import actions as A
from engine import events as ev
from engine.colours import Colour
from engine.errors import IllegalActionError
from engine.history import History
from engine.playout import choose, play_on, random_config, random_playout
from engine.rules import apply, check, legal_actions, redistributions
from engine.save import dumps, loads, state_from_json
from engine.setup import Variant, new_game
from engine.state import GameState, Knowledge

COLOURS = list(Colour)


@st.composite
def variants(draw: st.DrawFn, players: int) -> Variant:
    mayhem = draw(st.booleans())
    skirmish = draw(st.booleans())
    cut_throat = draw(st.booleans())
    allegiance: tuple[tuple[Colour, ...], ...] = ()
    siege = False
    if players in (4, 6) and draw(st.booleans()):
        size = draw(st.sampled_from([2, 3] if players == 6 else [2]))
        colours = COLOURS[:players]
        n_teams = players // size
        # Seat teammates apart: player i joins team i % n_teams.
        allegiance = tuple(
            tuple(colours[i] for i in range(players) if i % n_teams == t) for t in range(n_teams)
        )
    else:
        siege = draw(st.booleans())
    return Variant(
        allegiance=allegiance, castle_siege=siege, cut_throat=cut_throat, skirmish=skirmish, mayhem=mayhem
    )


@st.composite
def games(draw: st.DrawFn) -> tuple[int, Variant, Knowledge, int]:
    players = draw(st.integers(2, 6))
    return (
        players,
        draw(variants(players)),
        draw(st.sampled_from(list(Knowledge))),
        draw(st.integers(0, 2**31)),
    )


def knights_total(s: GameState) -> int:
    return sum(s.knights_on_map(c) for c in s.order)


def check_invariants(before: GameState, events: tuple[ev.Event, ...], s: GameState) -> None:
    gained = sum(e.count for e in events if isinstance(e, ev.KnightsGained))
    lost = sum(e.count for e in events if isinstance(e, ev.KnightsLost))
    assert knights_total(s) == knights_total(before) + gained - lost
    data = s.data
    for t, (_, n) in s.occupants.items():
        if t in data.territories:
            assert 1 <= n <= data.capacity[t], (t, n)
    if s.battle is not None and s.battle.territory in data.territories:
        assert s.battle.attacker_knights <= data.capacity[s.battle.territory]
    for loc in data.territories:
        at = s.knights_at(loc)
        if s.battle is None or s.battle.territory != loc:
            assert len(at) <= 1
    for c in s.order:
        assert s.dice_in_use(c) <= data.dice_per_player
        expected = sum(
            data.value[t]
            for t, (o, _) in s.occupants.items()
            if o is c and t in data.territories and not (s.config.variant.skirmish and data.is_homeland(t))
        )
        assert s.score(c) == expected
        p = s.players[c]
        assert p.hand_size >= 0 and p.deck_size >= 0
        assert p.hand_size + p.deck_size + len(p.discard) + len(_in_play(s, c)) == 18
        if s.knowledge is Knowledge.FULL:
            assert len(p.hand) == p.hand_size and len(p.deck) == p.deck_size
        # Supply is what a fresh search finds.
        assert s.supply.get(c, frozenset()) == _supply(s, c)
    if s.winner is None:
        assert s.actors()


def _in_play(s: GameState, c: Colour) -> list[str]:
    from engine.cards import in_play

    return sorted(in_play(s, c))


def _supply(s: GameState, c: Colour) -> frozenset[str]:
    seen: set[str] = set()
    frontier = [s.data.castle_of[c]]
    while frontier:
        here = frontier.pop()
        for t in s.data.reach[here]:
            if t not in seen and s.controller(t) is c:
                seen.add(t)
                frontier.append(t)
    return frozenset(seen)


def _illegal_probe(s: GameState, rng: random.Random) -> A.Action:
    """An action that must be refused now."""
    outsider = next((c for c in Colour if c not in s.players), None)
    probes: list[A.Action] = [A.Advance(s.current, "T99", 1), A.Redistribute(s.current, (("T00", -1),))]
    if outsider is not None:
        probes.append(A.EndTurn(outsider))
    waiting = [c for c in s.order if c not in s.actors()]
    if waiting:
        probes.append(A.EndTurn(rng.choice(waiting)))
    return rng.choice(probes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_random_playouts_keep_every_invariant(game: tuple[int, Variant, Knowledge, int]) -> None:
    players, variant, knowledge, seed = game
    rng = random.Random(seed)
    cfg = random_config(rng, players, variant, knowledge)
    state = new_game(cfg)
    history = History(state)
    for step in range(500):
        if state.winner is not None:
            break
        action = choose(state, rng)
        assert check(state, action).ok
        snapshot = state.to_json() if step % 25 == 0 else None
        events = history.play(action)
        new = history.state
        check_invariants(state, events, new)
        if snapshot is not None:
            assert state.to_json() == snapshot  # applying never touches the input state
        if step % 5 == 0 or new.pending:
            # (every kind, a bounded number each: a mayhem roll alone has 6**n results)
            assert all(check(new, a).ok for a in legal_actions(new).capped(60))
        if step % 7 == 0:
            layouts = list(itertools.islice(redistributions(new), 40))
            assert all(check(new, a).ok for a in layouts)
            assert len({frozenset(a.layout) for a in layouts}) == len(layouts)
        # Undo restores the previous state exactly, then replay.
        history.undo()
        assert history.state == state
        history.play(action)
        assert history.state == new
        # A refused action changes nothing.
        probe = _illegal_probe(new, rng)
        assert not check(new, probe).ok
        with pytest.raises(IllegalActionError):
            apply(new, probe)
        state = new
    loaded = loads(dumps(history))
    assert loaded.state == history.state
    assert state_from_json(json.loads(json.dumps(state.to_json()))) == state


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_playouts_finish_with_a_winner(players: int) -> None:
    from engine.playout import random_playout

    finished = sum(random_playout(random.Random(players * 100 + i), players).finished for i in range(3))
    assert finished >= 2


def _random_action(rng: random.Random, s: GameState) -> A.Action:
    """Any kind of action with plausible and implausible fields: unknown ids, bad counts, wrong players."""
    places = [*s.data.territories, *s.data.castle_owner, "K3", "K6", "L1", "T99", ""]
    cards = [*s.data.cards, "C99", "A01", None]
    arts = [*s.data.artefacts, "A99", "C01"]
    colours = [*Colour, *s.actors(), *s.actors()]
    cls = rng.choice(list(A.ACTION_TYPES.values()))
    fields: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        name = f.name
        if name == "player":
            continue
        if name == "target":
            fields[name] = rng.choice(places + arts)
        elif name == "knights":
            fields[name] = rng.randint(-2, 12)
        elif name == "layout":
            fields[name] = tuple((rng.choice(places), rng.randint(-1, 12)) for _ in range(rng.randint(0, 4)))
        elif name == "card":
            fields[name] = rng.choice(cards)
        elif name in ("cards", "order"):
            fields[name] = tuple(rng.choice(cards[:-1]) for _ in range(rng.randint(0, 5)))
        elif name == "values":
            fields[name] = tuple(rng.randint(0, 7) for _ in range(rng.randint(0, 4)))
        elif name in ("use", "drawn", "discard"):
            fields[name] = rng.random() < 0.5
        elif name in ("affected", "upto"):
            fields[name] = rng.choice([*Colour, None])
        elif name == "artefact":
            fields[name] = rng.choice(arts)
    action: A.Action = cls(rng.choice(colours), **fields)  # type: ignore[arg-type]
    return action


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31), st.integers(2, 4), st.sampled_from(list(Knowledge)), st.booleans())
def test_random_actions_never_crash_the_referee(
    seed: int, players: int, knowledge: Knowledge, siege: bool
) -> None:
    """Whatever is proposed, `check` answers and `apply` of an accepted action works; a refusal changes
    nothing. On the hand-made map, whose unused castles once crashed the advance list."""
    from tests.engine.helpers import config

    rng = random.Random(seed)
    colours = tuple(Colour)[:players]
    variant = Variant(castle_siege=siege, mayhem=rng.random() < 0.5, cut_throat=rng.random() < 0.5)
    state = new_game(config(colours, variant=variant, knowledge=knowledge, seed=seed))
    for _ in range(120):
        if state.winner is not None:
            break
        for _ in range(6):
            action = _random_action(rng, state)
            if check(state, action).ok:
                apply(state, action)
            else:
                with pytest.raises(IllegalActionError):
                    apply(state, action)
        state, _ = apply(state, choose(state, rng))


def test_play_on_continues_a_game_from_any_position_with_legal_actions() -> None:
    """A move hint's playouts: from the middle of a game, each playout is legal and reaches an end, and the
    same seed gives the same playout."""
    game = random_playout(random.Random(4), players=4, max_actions=60)
    middle = game.initial
    for action in game.actions[:30]:
        middle, _ = apply(middle, action)
    first = play_on(middle, random.Random(1))
    assert first.initial is middle and first.finished
    state = middle
    for action in first.actions:
        assert check(state, action).ok, action
        state, _ = apply(state, action)
    assert state == first.final
    assert play_on(middle, random.Random(1)).actions == first.actions

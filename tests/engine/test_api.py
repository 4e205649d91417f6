"""The package's re-exports (ENGINE-API): the names the app and vision import from `engine` itself."""

from __future__ import annotations

import importlib
import random

import engine
from engine import catalogue, hexgrid, maps, reading, rules


def test_reexports_are_the_modules_own_objects() -> None:
    assert engine.Hex is hexgrid.Hex
    assert engine.Board is maps.Board
    assert engine.default_board is maps.default_board
    assert engine.TableReading is reading.TableReading
    # The function shadows its module as an attribute of the package (as the API asks); the module itself is
    # still imported by its full name (`from engine.reconcile import ...`).
    assert engine.reconcile is importlib.import_module("engine.reconcile").reconcile
    assert engine.load_default_catalogue is catalogue.load_default_catalogue
    assert engine.load_box_catalogue is catalogue.load_box_catalogue
    assert engine.redistributions is rules.redistributions
    assert sorted(engine.__all__) == engine.__all__
    assert all(hasattr(engine, name) for name in engine.__all__)


def test_the_reexports_work_together() -> None:
    board = engine.default_board(4, engine.load_default_catalogue(), random.Random(3))
    assert isinstance(board.hex_of(board.castles[0]), engine.Hex)
    players = tuple(engine.PlayerConfig(c) for c in board.colours)
    state = engine.new_game(engine.GameConfig(players=players, board=board, seed=3))
    table = engine.TableReading(knights={loc: dict(state.knights_at(loc))
                                         for loc in (*state.data.territories, *state.data.castle_owner)})
    assert engine.reconcile(state, table).matches


# --- the bot-grade API (issue 25) --------------------------------------------------------------------------

import doctest  # noqa: E402
import itertools  # noqa: E402

import pytest  # noqa: E402

from engine import actions as A  # noqa: E402
from engine import view  # noqa: E402
from engine.playout import choose, random_config  # noqa: E402
from engine.state import Knowledge  # noqa: E402
from tests.engine.test_playout_properties import _random_action  # noqa: E402


@pytest.mark.parametrize("module", [engine, rules, view], ids=lambda m: m.__name__)
def test_the_docstring_examples_run(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_every_action_class_is_exported_from_engine() -> None:
    assert {cls.__name__ for cls in A.ACTION_TYPES.values()} <= set(engine.__all__)
    assert all(getattr(engine, cls.__name__) is cls for cls in A.ACTION_TYPES.values())


def _states(seed: int, knowledge: Knowledge, n: int = 160) -> list[engine.GameState]:
    rng = random.Random(seed)
    state = engine.new_game(random_config(rng, 3, engine.Variant(mayhem=True), knowledge))
    out = [state]
    for _ in range(n):
        if state.winner is not None:
            break
        state, _ = engine.apply(state, choose(state, rng))
        out.append(state)
    return out


@pytest.mark.parametrize("knowledge", list(Knowledge))
def test_legal_actions_in_is_check_and_enumerates_every_accepted_action(knowledge: Knowledge) -> None:
    rng = random.Random(11)
    for state in _states(4, knowledge):
        legal = engine.legal_actions(state)
        listed = set(itertools.islice(iter(legal), 3000))
        complete = len(listed) < 3000
        assert all(engine.check(state, a).ok for a in itertools.islice(iter(listed), 200))
        for _ in range(25):
            action = _random_action(rng, state)
            ok = engine.check(state, action).ok
            assert (action in legal) is ok
            canonical = isinstance(action, A.Redistribute | A.PlaySupport | A.ArrangeTop | A.UseCrown)
            if ok and complete and not canonical:
                assert action in listed, action
        for action in list(listed)[:40]:  # what is listed is legal, and `in` says so
            assert action in legal


def test_chance_points_list_their_outcomes_with_probabilities() -> None:
    seen = 0
    for state in _states(5, Knowledge.FULL, 400):
        if not engine.is_chance(state):
            assert list(engine.chance_outcomes(state)) == []
            continue
        head = state.pending[0]
        if isinstance(head, engine.DiceRoll) and head.n > 4:
            continue
        outcomes = list(engine.chance_outcomes(state))
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
        assert all(engine.check(state, a).ok for a, _ in outcomes)
        assert engine.sample_chance(state, random.Random(1)) in {a for a, _ in outcomes}
        seen += 1
    assert seen >= 3


def test_a_player_view_hides_other_hands_and_every_deck() -> None:
    for state in _states(6, Knowledge.FULL, 120)[::7]:
        me = state.actors()[0] if state.actors() else state.current
        seen = engine.player_view(state, me)
        for c, p in seen.players.items():
            real = state.players[c]
            assert p.deck == () and p.deck_size == real.deck_size and p.hand_size == real.hand_size
            assert p.hand == (real.hand if c is me else ())
        assert seen.score(me) == state.score(me) and seen.occupants == state.occupants
        b = seen.battle
        if b is not None and not b.revealed:
            hidden = (b.attacker_conflict, b.defender_conflict) == (None, None)
            assert me in (b.attacker, b.defender) or hidden
        mine = {a for a in itertools.islice(iter(engine.legal_actions(seen)), 500) if a.player is me}
        assert all(engine.check(state, a).ok for a in mine)  # my own choices, from my real hand
    with pytest.raises(engine.EngineError):
        engine.player_view(state, engine.Colour.BLACK)


def test_the_ten_line_bot_of_docs_engine_api_plays_a_whole_game() -> None:
    import contextlib
    import io
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "engine-api.md").read_text(encoding="utf-8")
    code = re.search(r"## A bot in ten lines\n\n```python\n(.*?)```", doc, re.S)
    assert code is not None
    body = code.group(1).split("\n\n", 1)[1]  # after the imports
    assert len([line for line in body.splitlines() if line.strip() and "print" not in line]) == 10
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "docs/engine-api.md", "exec"), {})
    assert out.getvalue().startswith("won: (Colour.")

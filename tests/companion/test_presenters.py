"""Presenter tests: every flow of the app driven without a window, against fake services."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from companion.presenters.battle import BattlePresenter, Ritual
from companion.presenters.camera import DOUBT_WORDS, CameraPresenter, Unsure
from companion.presenters.dice import DicePresenter
from companion.presenters.history import HistoryPresenter
from companion.presenters.newgame import MapSource, NewGameConfig, NewGamePresenter
from companion.presenters.referee import RefereePresenter
from companion.presenters.table import PendingState, TablePresenter
from companion.presenters.turn import TurnPresenter
from companion.services import ManualClock, OptionKind, Proposal, RollerStatus
from engine.colours import Colour
from tests.companion.fakes import B, FakeFeed, FakeRoller, FakeSession, R, Y, battle, discrepancy, opt


def pending(t: TablePresenter) -> PendingState:
    return t.pending  # through a call, so mypy does not narrow the state across presenter calls


class Reading:
    def __init__(self, frame: int) -> None:
        self.frame_index = frame


# ------------------------------------------------------------------------------------------------ table


def test_table_scores_and_turn_text() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    lines = t.scores()
    assert [(x.name, x.score, x.target, x.current) for x in lines] == [
        ("Ann", 1, 13, True),
        ("Bob", 3, 13, False),
        ("Cy", 0, 13, False),
    ]
    assert "Ann" in t.turn_text() and "Place three knights" in t.turn_text()


def test_camera_proposal_is_confirmed_with_one_tap() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    s.next_proposal = Proposal(options=(opt("advance 3 into T03", OptionKind.ADVANCE, target="T03"),))
    t.on_reading(Reading(1))
    assert pending(t) is PendingState.PROPOSAL
    assert t.highlighted_tiles() == {"T03": "proposal"}
    assert "advance 3 into T03" in t.proposal_text()
    events = t.confirm()
    assert s.applied == ["advance 3 into T03"] and len(events) == 1
    assert pending(t) is PendingState.NONE


def test_demo_auto_confirms_after_a_pause_but_not_a_superseded_proposal() -> None:
    s = FakeSession()
    clock = ManualClock()
    t = TablePresenter(s, clock, auto_confirm=1.5)
    s.next_proposal = Proposal(options=(opt("first", target="T03"),))
    t.on_reading(Reading(1))
    clock.advance(1.0)
    t.dismiss_proposal()  # a player waved it away before the pause ended
    clock.advance(1.0)
    assert s.applied == []
    s.next_proposal = Proposal(options=(opt("second", target="T03"),))
    t.on_reading(Reading(2))
    clock.advance(1.5)
    assert s.applied == ["second"]


def test_no_pause_confirms_in_the_frame_the_proposal_arrives() -> None:
    s = FakeSession()
    clock = ManualClock()
    t = TablePresenter(s, clock, auto_confirm=0.0)
    s.next_proposal = Proposal(options=(opt("advance", target="T03"),))
    t.on_reading(Reading(1))
    assert s.applied == ["advance"] and pending(t) is PendingState.NONE  # no clock tick needed


def test_discrepancy_flow_fix_the_table() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    s.next_proposal = discrepancy()
    t.on_reading(Reading(7))
    assert pending(t) is PendingState.DISCREPANCY
    assert t.highlighted_tiles()["T02"] == "discrepancy"
    assert "game: 2" in t.proposal_text()
    assert t.confirm() == [] and s.applied == []  # a discrepancy is never applied
    t.fix_table()
    assert pending(t) is PendingState.WAITING_FOR_TABLE
    s.next_proposal = Proposal()  # the players put the knight back: the table matches the game
    t.on_reading(Reading(8))
    assert pending(t) is PendingState.NONE and t.proposal is None


def test_discrepancy_flow_camera_is_wrong_stays_quiet_until_table_changes() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    s.next_proposal = discrepancy()
    t.on_reading(Reading(7))
    t.camera_wrong()
    assert pending(t) is PendingState.CAMERA_IGNORED and t.proposal is None
    t.on_reading(Reading(8))  # same misreading again: not shown again
    assert t.proposal is None
    s.next_proposal = Proposal(options=(opt("advance", target="T03"),))
    t.on_reading(Reading(9))  # a real move: shown
    assert pending(t) is PendingState.PROPOSAL


def test_a_tapped_move_rejudges_the_last_reading_so_the_map_says_what_to_move() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    t.rejudge()  # no reading yet: nothing to judge
    assert pending(t) is PendingState.NONE
    s.next_proposal = Proposal()
    t.on_reading(Reading(1))  # the table matches the game
    assert pending(t) is PendingState.NONE
    s.apply("battle ends")  # tapped: the attacker lost a knight the table still shows
    lag = "camera: 3 red knights on Marsh; game: 2 red (the table has not caught up: take 1 red knight off"
    s.next_proposal = Proposal(discrepancies=(replace(discrepancy().discrepancies[0], sentence=lag),))
    t.rejudge()
    assert pending(t) is PendingState.DISCREPANCY and "take 1 red knight off" in t.proposal_text()
    s.next_proposal = Proposal()
    t.on_reading(Reading(2))  # the players took it off
    assert pending(t) is PendingState.NONE


def test_refused_confirm_shows_the_verdict() -> None:
    s = FakeSession()
    s.refuse.add("bad")
    t = TablePresenter(s, ManualClock())
    s.next_proposal = Proposal(options=(opt("bad"),))
    t.on_reading(Reading(1))
    t.confirm()
    assert t.message is not None and "refused" in t.message.sentence
    assert s.applied == []


def test_game_over_callback() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    seen: list[bool] = []
    t.on_game_over = lambda: seen.append(True)
    s.snap = replace(s.snap, winner=(R,))
    t.refresh()
    assert seen == [True] and "Ann" in t.turn_text()


# ------------------------------------------------------------------------------------------ turn guidance


def test_turn_stepper_and_greyed_option_explains() -> None:
    s = FakeSession()
    s.snap = replace(s.snap, step=4)
    s.offered = [
        opt("redistribute", OptionKind.REDISTRIBUTE),
        opt(
            "advance T03",
            OptionKind.ADVANCE,
            enabled=False,
            sentence="T03 has no line of supply.",
            citation="Line of supply, p. 10",
            target="T03",
        ),
        opt("advance T02 x3", OptionKind.ADVANCE, target="T02", value=3),
        opt("conflict 4", OptionKind.CONFLICT),
    ]  # battle options are not the stepper's
    p = TurnPresenter(s)
    assert [x.state for x in p.steps()][:5] == ["done", "done", "done", "current", "todo"]
    kinds = [g.kind for g in p.groups()]
    assert kinds == [OptionKind.REDISTRIBUTE, OptionKind.ADVANCE]
    p.select_group(OptionKind.ADVANCE)
    assert [o.key for o in p.visible_options()] == ["advance T03", "advance T02 x3"]
    assert p.groups()[1].targets() == ["T03", "T02"]
    greyed = p.visible_options()[0]
    assert p.tap(greyed) == []
    assert p.explanation is not None and p.explanation.citation == "Line of supply, p. 10"
    assert s.applied == []
    p.select_target("T02")
    assert [o.key for o in p.visible_options()] == ["advance T02 x3"]
    p.tap(p.visible_options()[0])
    assert s.applied == ["advance T02 x3"] and p.explanation is None and p.selected_group is None


def test_turn_refused_by_engine_after_state_moved() -> None:
    s = FakeSession()
    s.offered = [opt("place", OptionKind.PLACE)]
    s.refuse.add("place")
    p = TurnPresenter(s)
    p.tap(s.offered[0])
    assert p.explanation is not None and not p.explanation.ok


# ------------------------------------------------------------------------------------------------ battle


def _battle_session(stage: int, waiting: tuple[Colour, ...]) -> FakeSession:
    s = FakeSession()
    s.snap = replace(s.snap, step=6, battle=battle(stage, waiting))
    return s


def _conflict_session(hands_in_app: bool) -> FakeSession:
    s = _battle_session(4, (R, B))
    s.snap = replace(s.snap, hands_in_app=hands_in_app)
    s.offered = [
        opt("R plays 4", OptionKind.CONFLICT, R, value=4),
        opt("R plays 2", OptionKind.CONFLICT, R, value=2),
        opt("B plays 3", OptionKind.CONFLICT, B, value=3),
    ]

    def to_support(sess: FakeSession) -> None:
        sess.snap = replace(sess.snap, battle=battle(5, (B,), 10, 9, ("Charge = 4", "Skirmish = 3")))
        sess.offered = [opt("B no support", OptionKind.SUPPORT, B)]

    s.effects["B plays 3"] = to_support
    return s


def test_battle_with_cards_held_by_the_app_passes_the_tablet_and_reveals_together() -> None:
    """R94: each player chooses behind a cover, nothing is applied or shown until both have chosen."""
    s = _conflict_session(hands_in_app=True)
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    assert p.ritual() is None  # the app holds the cards: no table ritual
    assert p.prompted() is R and p.cover_for() is R  # nobody's hand shows before the tablet is passed
    p.uncover()
    assert p.cover_for() is None
    assert [o.key for o in p.options_for_prompted()] == ["R plays 4", "R plays 2"]
    p.tap(s.offered[0])
    assert s.applied == []  # face-down: nothing applied, nothing shown
    assert p.conflict_status() == [(R, "card face down"), (B, "no conflict card yet")]
    assert p.prompted() is B and p.cover_for() is B  # Red's choice made: covered until Blue has the tablet
    p.take_back_conflict(R)
    assert p.prompted() is R and p.cover_for() is R
    p.uncover()
    p.tap(s.offered[0])
    p.uncover()
    p.tap(s.offered[2])
    assert s.applied == ["R plays 4", "B plays 3"]  # revealed together, attacker first
    assert p.conflict_status() == [(R, "Charge = 4"), (B, "Skirmish = 3")]
    assert p.battle is not None and p.battle.stage == 5 and p.prompted() is B
    assert [x.state for x in p.stages()][3:6] == ["done", "current", "todo"]


def test_battle_with_real_cards_follows_the_tables_ritual() -> None:
    """A TABLE game: both lay a card face down, reveal together, then both values are entered."""
    s = _conflict_session(hands_in_app=False)
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    assert p.cover_for() is None  # real cards: nothing on the tablet to hide
    assert p.ritual() is Ritual.LAY
    p.lay_cards()
    assert p.ritual() is Ritual.ENTER
    choices = dict(p.conflict_choices())
    assert list(choices) == [R, B] and [o.key for o in choices[B]] == ["B plays 3"]
    p.enter_cards()  # nothing picked yet: refused with a sentence, nothing applied
    assert s.applied == [] and p.explanation is not None
    p.tap(s.offered[1])
    p.tap(s.offered[0])  # tapped the wrong card first: the second tap corrects it
    assert p.picked == {R: s.offered[0]} and not p.can_enter()
    p.pick(s.offered[2])
    assert p.can_enter()
    p.enter_cards()
    assert s.applied == ["R plays 4", "B plays 3"]  # attacker first
    assert p.ritual() is None and p.picked == {} and not p.cards_down


def test_battle_summary_after_the_battle_then_gone_with_the_next_move() -> None:
    from companion.services import BattleOutcome

    s = _battle_session(5, (B,))
    s.offered = [opt("B no support", OptionKind.SUPPORT, B)]

    def ends(sess: FakeSession) -> None:
        outcome = BattleOutcome(
            "T02", "Fort", R, B, R, 9, 6, 3, "Charge (4)", "Skirmish (3)", ((B, 2),), ((B, 1),), True, 1
        )
        sess.snap = replace(sess.snap, battle=None, last_battle=outcome)

    s.effects["B no support"] = ends
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    assert p.summary is None
    p.tap(s.offered[0])
    summary = p.summary
    assert summary is not None and summary.winner is R
    assert summary.headline == "Ann wins the battle for Fort"
    assert summary.attacker == (R, "Ann", 9) and summary.defender == (B, "Bob", 6)
    assert summary.lines == (
        "Conflict cards: Ann Charge (4) · Bob Skirmish (3)",
        "Bob loses 2 knights",
        "Bob retreats 1 knight to the castle",
        "Ann conquers Fort",
    )
    p.dismiss_summary()
    assert p.summary is None


def test_battle_window_prompts_only_players_who_can_act_in_order() -> None:
    s = _battle_session(3, (Y, R))
    s.offered = [
        opt("Y fractures", OptionKind.FRACTURE, Y),
        opt("Y passes", OptionKind.PASS, Y),
        opt("R passes", OptionKind.PASS, R),
    ]
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    assert p.prompted() is Y
    assert [o.key for o in p.options_for_prompted()] == ["Y fractures", "Y passes"]


def test_battle_arena_roll_via_roller_posts_through_clock() -> None:
    s = _battle_session(1, (R, B))
    roll = opt("arena", OptionKind.ROLL, None, value=2)
    s.offered = [roll]
    clock = ManualClock()
    roller = FakeRoller((3, 5))
    p = BattlePresenter(s, roller, clock, threaded_rolls=False)
    p.tap(roll)
    assert p.rolling and s.applied == []  # nothing happens off the UI thread
    clock.advance()
    assert roller.calls == [2] and s.completed == [((3, 5), "simulated #1")]
    assert s.applied == ["arena:3-5"] and not p.rolling and p.last_roll is not None


def test_battle_roller_failure_is_shown_never_a_silent_screen_roll() -> None:
    s = _battle_session(4, (R,))
    roll = opt("ambush", OptionKind.ROLL, R, value=1)
    s.offered = [roll]
    clock = ManualClock()
    p = BattlePresenter(s, FakeRoller(fail=True), clock, threaded_rolls=False)
    p.roll(roll)
    clock.advance()
    assert s.completed == [] and s.applied == [] and not p.rolling
    assert p.roll_problem and "unplugged" in p.roll_problem and p.explanation is not None
    p.screen_roll(roll)  # the players chose to roll on the tablet: a roll that says where it came from
    assert s.completed and s.completed[0][1] == "screen" and not p.roll_problem


def test_battle_roll_not_taken_asks_to_roll_again() -> None:
    from companion.errors import RollNotTakenError

    s = _battle_session(1, (R, B))
    roll = opt("arena", OptionKind.ROLL, None, value=2)
    s.offered = [roll]
    clock = ManualClock()
    roller = FakeRoller((3, 5), error=RollNotTakenError("restarted during ROLL"))
    p = BattlePresenter(s, roller, clock, threaded_rolls=False)
    p.tap(roll)
    clock.advance()
    assert s.completed == [] and not p.rolling  # the device may have shown dice: nothing is taken
    assert p.explanation is not None and p.explanation.sentence == RollNotTakenError.SENTENCE
    roller.error = None
    p.tap(roll)  # "roll again" works at once
    clock.advance()
    assert s.completed == [((3, 5), "simulated #1")] and p.explanation is None


def test_battle_roll_not_taken_is_said_in_dutch() -> None:
    from companion.errors import RollNotTakenError
    from companion.i18n import Translator

    s = _battle_session(1, (R, B))
    roll = opt("arena", OptionKind.ROLL, None, value=2)
    s.offered = [roll]
    clock = ManualClock()
    p = BattlePresenter(
        s, FakeRoller(error=RollNotTakenError()), clock, Translator("nl"), threaded_rolls=False
    )
    p.tap(roll)
    clock.advance()
    assert p.explanation is not None and p.explanation.sentence != RollNotTakenError.SENTENCE


def test_battle_takes_a_button_roll_of_the_right_size() -> None:
    from companion.services import RollResult

    s = _battle_session(1, (R, B))
    roll = opt("arena", OptionKind.ROLL, None, value=2)
    s.offered = [roll]
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    assert not p.button_roll(RollResult((6,), "device 00aa button #4"))
    assert s.completed == [] and p.explanation is not None and "2" in p.explanation.sentence
    assert p.button_roll(RollResult((6, 1), "device 00aa button #5"))
    assert s.completed == [((6, 1), "device 00aa button #5")] and s.applied == ["arena:6-1"]
    s.offered = []
    p.reload()
    assert not p.button_roll(RollResult((2, 2), "device 00aa button #6"))  # no roll asked: panel only


def test_fracture_window_offers_one_tap_for_everyone_else() -> None:
    s = _battle_session(3, (Y, R))
    s.offered = [
        opt("Y passes", OptionKind.PASS, Y),
        opt("Y fractures", OptionKind.FRACTURE, Y),
        opt("nobody else", OptionKind.PASS_ALL, Y),
    ]
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    assert p.options_for_prompted()[0].key == "nobody else"
    p.tap(p.options_for_prompted()[0])
    assert s.applied == ["nobody else"]
    t = TurnPresenter(s)
    assert [o.key for o in t.quick()] == ["nobody else"]
    assert all(g.kind is not OptionKind.PASS_ALL for g in t.groups())


def test_battle_typed_dice_are_checked() -> None:
    s = _battle_session(1, (R, B))
    roll = opt("arena", OptionKind.ROLL, None, value=2)
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    assert p.enter_roll(roll, (7, 1)) == [] and p.explanation is not None
    p.enter_roll(roll, (2, 6))
    assert s.completed[-1] == ((2, 6), "typed")


def test_battle_greyed_support_on_mountains_explains() -> None:
    s = _battle_session(5, (R,))
    s.offered = [
        opt(
            "support +2",
            OptionKind.SUPPORT,
            R,
            enabled=False,
            sentence="No support cards on mountains.",
            citation="Iconography, p. 7",
        )
    ]
    p = BattlePresenter(s, FakeRoller(), ManualClock(), threaded_rolls=False)
    p.tap(s.offered[0])
    assert p.explanation is not None and "mountains" in p.explanation.sentence and s.applied == []


# ------------------------------------------------------------------------------------------- history


def test_history_undo_and_rewind_with_confirmation() -> None:
    s = FakeSession()
    for a in ("a", "b", "c", "d"):
        s.apply(a)
    changed: list[int] = []
    h = HistoryPresenter(s, on_changed_game=lambda: changed.append(1))
    h.undo()
    assert s.applied == ["a", "b", "c"] and len(h.lines) == 3
    question = h.ask_rewind(h.lines[0])
    assert "2" in question and s.applied == ["a", "b", "c"]  # nothing happens before "yes"
    h.cancel_rewind()
    assert s.applied == ["a", "b", "c"]
    h.ask_rewind(h.lines[0])
    h.confirm_rewind()
    assert s.applied == ["a"] and changed == [1, 1]


# ------------------------------------------------------------------------------------------- referee


def test_referee_verdict_and_rulebook_search() -> None:
    s = FakeSession()
    s.refuse.add("advance T03")
    r = RefereePresenter(s)
    v = r.ask(r.topics[0])
    assert not v.ok and v.citation == "Make an advance, p. 11"
    sec = r.cited_section()
    assert sec is not None and sec.page == 11 and sec.key == "advance"
    r.set_query("lake supply")
    assert [x.key for x in r.sections()] == ["supply"]
    r.set_query("")
    assert len(r.sections()) > 15


# ------------------------------------------------------------------------------------------ dice, camera


def test_dice_panel_rolls_and_records_sources() -> None:
    clock = ManualClock()
    d = DicePresenter(FakeRoller((6, 2)), clock, threaded=False)
    assert d.status is RollerStatus.SIMULATED
    d.roll(2)
    assert d.busy
    clock.advance()
    assert not d.busy and d.rolls[0].values == (6, 2)
    bad = DicePresenter(FakeRoller(fail=True), clock, threaded=False)
    bad.roll(1)
    clock.advance()
    assert "unplugged" in bad.error and not bad.busy


def test_dice_panel_roll_not_taken_and_status_changes() -> None:
    from companion.errors import RollNotTakenError

    clock = ManualClock()
    roller = FakeRoller(error=RollNotTakenError("device restarted"))
    d = DicePresenter(roller, clock, threaded=False)
    redraws: list[int] = []
    d.subscribe(lambda: redraws.append(1))
    d.roll(3)
    clock.advance()
    assert d.error == RollNotTakenError.SENTENCE and not d.rolls and not d.busy
    redraws.clear()
    d.roller_changed()  # a ConnectionEvent, posted by the roller to the UI thread
    assert redraws == [1]


def test_camera_panel_posts_worker_callbacks_through_clock() -> None:
    clock = ManualClock()
    feed = FakeFeed()
    got: list[object] = []
    c = CameraPresenter(feed, clock, on_reading=got.append)
    c.start()
    feed.on_reading("reading-1")  # called from the worker
    feed.on_status(c.status.LOST, "camera unplugged")
    assert got == []
    clock.advance()
    assert got == ["reading-1"] and c.status_text == "camera unplugged"
    c.reconnect()
    assert feed.stopped == 1 and feed.started == 2
    assert not CameraPresenter(None, clock).enabled


# ------------------------------------------------------------------------------------------- new game


def test_new_game_players_colours_variants_and_first_player() -> None:
    import random

    n = NewGamePresenter(random.Random(3))
    assert len(n.players) == 3
    n.add_player()
    n.add_player()
    n.add_player()
    n.add_player()  # a seventh is not possible
    assert len(n.players) == 6
    n.remove_player(Colour.BLACK)
    n.toggle_variant("allegiance")
    assert not n.ready and "4 or 6" in n.problems[0]
    n.remove_player(Colour.WHITE)
    assert n.ready and n.teams() == ((R, Y), (B, Colour.GREEN))
    n.cycle_colour(R)
    assert n.players[0].colour is Colour.WHITE and n.players[0].name == "White"
    n.rename(Colour.WHITE, "  Ann  ")
    n.set_map_source(MapSource.CAMERA)
    cfg = n.config()
    assert cfg.first in {p.colour for p in cfg.players}
    assert NewGameConfig.from_json(cfg.to_json()) == cfg
    with pytest.raises(ValueError, match="unknown optional rule"):
        n.toggle_variant("chess")
    for _ in range(2):
        n.remove_player(n.players[-1].colour)
    assert len(n.players) == 2
    n.remove_player(n.players[-1].colour)
    assert len(n.players) == 2


def test_reconciliation_runs_off_the_ui_thread_and_judges_only_the_newest_reading() -> None:
    s = FakeSession()
    clock = ManualClock()
    jobs: list[Callable[[], None]] = []
    t = TablePresenter(s, clock, runner=jobs.append)
    calls: list[int] = []
    real = s.propose

    def counting(reading: object) -> Proposal:
        calls.append(int(getattr(reading, "frame_index", 0)))
        return real(reading)

    s.propose = counting  # type: ignore[method-assign]
    s.next_proposal = Proposal(options=(opt("advance", target="T03"),))
    t.on_reading(Reading(1))
    t.on_reading(Reading(2))  # arrives while the first is being judged
    t.on_reading(Reading(3))
    assert len(jobs) == 1 and pending(t) is PendingState.NONE  # nothing decided on the UI thread
    jobs.pop()()
    assert calls == [1] and pending(t) is PendingState.NONE  # the result waits for the UI clock
    clock.advance()
    assert len(jobs) == 1  # reading 1 is stale: the newest (3) is judged, 2 is skipped
    jobs.pop()()
    clock.advance()
    assert calls == [1, 3] and pending(t) is PendingState.PROPOSAL


def test_a_reading_judged_while_the_game_moved_is_judged_again() -> None:
    s = FakeSession()
    clock = ManualClock()
    jobs: list[Callable[[], None]] = []
    t = TablePresenter(s, clock, runner=jobs.append)
    s.next_proposal = Proposal(options=(opt("advance", target="T03"),))
    t.on_reading(Reading(1))
    jobs.pop()()
    s.apply("a tap on the turn panel")  # the game moves before the answer is shown
    clock.advance()
    assert len(jobs) == 1 and pending(t) is PendingState.NONE
    jobs.pop()()
    clock.advance()
    assert pending(t) is PendingState.PROPOSAL


def test_setup_check_lists_what_each_player_takes_and_places_until_dismissed() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    lines = t.setup_lines()
    assert len(lines) == 3 and lines[0].startswith("Ann:") and "Homelands 3" in lines[0]
    t.dismiss_setup()
    assert t.setup_lines() == []
    s.apply("a move")
    t2 = TablePresenter(s, ManualClock())
    t2.refresh()
    assert t2.setup_lines() == []  # only before the first move


def test_redistribution_editor_with_a_refusal() -> None:
    s = FakeSession()
    s.offered = [opt("move 1", OptionKind.REDISTRIBUTE)]
    p = TurnPresenter(s)
    p.select_group(OptionKind.REDISTRIBUTE)
    assert [r[0] for r in p.editor_rows()] == ["K1", "T01"]  # the castle first, then held territories
    p.adjust("K1", 2)
    p.adjust("T01", -2)
    s.refuse.add("redistribute K1=7 T01=1")
    assert not p.redistribution_verdict().ok
    assert p.apply_redistribution() == [] and s.applied == []
    p.adjust("T01", +1)
    p.adjust("K1", -1)
    p.apply_redistribution()
    assert s.applied == ["redistribute K1=6 T01=2"] and p.editing is None


def test_end_of_game_saves_once_and_charts_every_player() -> None:
    from companion.presenters.endgame import EndGamePresenter
    from companion.storage import SqliteStorage

    s = FakeSession()
    s.snap = replace(s.snap, winner=(R,))
    storage = SqliteStorage(":memory:")
    gid = storage.create_game({}, {})
    e = EndGamePresenter(s, storage, gid)
    assert e.winners() == ["Ann"]
    assert set(e.curves()) == {R, B, Y} and e.chart_bounds() == (4, 13)
    first = e.save()
    again = e.save()  # a second visit to the screen does not count the game twice
    assert first == again and (first[0].name, first[0].games, first[0].wins) == ("Ann", 1, 1)


def test_score_history_calls_colour_named_players_in_the_screens_language() -> None:
    from companion.i18n import Translator
    from companion.presenters.endgame import EndGamePresenter
    from companion.services import PlayerRecord
    from companion.storage import SqliteStorage

    storage = SqliteStorage(":memory:")
    for names, scores, winner in (
        ({"blue": "Blue", "red": "Ann"}, {"blue": 13, "red": 9}, "blue"),  # played in English
        ({"blue": "Blauw", "red": "Ann"}, {"blue": 8, "red": 13}, "red"),  # played in Dutch
        ({"blue": "Blå", "red": "Bluebell"}, {"blue": 11, "red": 13}, "red"),  # in Swedish
    ):
        storage.finish(storage.create_game({}, {}), scores, names, [winner])
    history = EndGamePresenter(FakeSession(), storage, 99, Translator("nl")).history()
    assert history == [
        PlayerRecord("Bluebell", 1, 1, 13.0),
        PlayerRecord("Ann", 2, 1, 11.0),
        PlayerRecord("Blauw", 3, 1, 32 / 3),
    ]


def test_end_of_game_words_are_singular_for_one() -> None:
    from companion.presenters.endgame import EndGamePresenter
    from companion.services import PlayerRecord
    from companion.storage import SqliteStorage

    s = FakeSession()
    s.snap = replace(s.snap, winner=(B,))
    e = EndGamePresenter(s, SqliteStorage(":memory:"), 1)
    assert e.record_text(PlayerRecord("Ann", 1, 1, 7.0)) == "1 game, 1 win, 7.0 points on average"
    assert e.record_text(PlayerRecord("Ann", 2, 0, 7.5)) == "2 games, 0 wins, 7.5 points on average"
    assert [(place, name) for place, _c, name, _p in e.ranking()] == [(1, "Bob"), (2, "Ann"), (3, "Cy")]
    assert e.headline() == "Winner: Bob"


# --------------------------------------------------------------------------------------- table extras


def test_table_names_the_step_shows_the_last_move_and_a_battle_under_way() -> None:
    s = FakeSession()
    s.snap = replace(s.snap, step=2, turn=4)
    t = TablePresenter(s, ManualClock())
    assert t.turn_title() == "Ann's turn, turn 4"
    assert t.step_name() == "Step 2 of 9: Play resources" and t.next_step_name() == "Next: Use crowns"
    assert t.last_move() is None and t.battle_banner() is None
    s.apply("advance 3 into T02")
    move = t.last_move()
    assert move is not None and move.text == "did advance 3 into T02"
    s.snap = replace(s.snap, battle=battle(5, (B,), 7, 9))
    t.refresh()  # e.g. a game resumed in the middle of a battle
    banner = t.battle_banner()
    assert banner is not None and banner.title == "Battle for Fort"
    assert banner.attacker == (R, "Ann", 7) and banner.defender == (B, "Bob", 9)
    assert banner.stage == "Step 5 of 9: Support cards" and banner.waiting == "Waiting for Bob"


def test_a_tap_on_the_map_tells_everything_about_a_tile() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    assert t.tile_detail() is None
    t.select_tile("T04")
    d = t.tile_detail()
    assert d is not None and d.title == "Marsh" and d.kind == "Marshlands"
    assert d.facts == ("Worth 1 victory point", "Holds up to 6 knights", "Held by Bob")
    assert d.abilities == ("Whoever conquers it loses 1 knight there.",)
    assert d.knights == ((B, "Bob", 1),) and "No line of supply" in d.warning
    t.select_tile("T02")
    fort = t.tile_detail()
    assert fort is not None and fort.abilities == ("The defender adds 1 to their combat score.",)
    assert "Worth 2 victory points" in fort.facts
    t.select_tile("K1")
    castle = t.tile_detail()
    assert castle is not None and castle.kind == "Castle" and castle.knights == ((R, "Ann", 5),)
    t.select_tile("K1")  # the same tile again closes it
    assert t.tile_detail() is None
    t.select_tile("L1")
    lake = t.tile_detail()
    assert lake is not None and lake.kind == "Lake" and "cannot be conquered" in lake.facts[0]


def test_the_map_says_where_camera_and_game_disagree_in_players_names() -> None:
    s = FakeSession()
    t = TablePresenter(s, ManualClock())
    s.next_proposal = discrepancy()
    t.on_reading(Reading(3))
    assert t.callouts() == [("T02", "Camera: Bob 1 · game: Bob 2")]


def test_every_tile_kind_has_a_name_and_its_abilities_in_words() -> None:
    from companion.i18n import TERRITORY_KINDS
    from companion.presenters.tiles import ABILITIES
    from engine.catalogue import TerritoryKind

    kinds = {k.value for k in TerritoryKind}
    assert kinds <= set(TERRITORY_KINDS) and set(ABILITIES) == kinds
    assert all(ABILITIES[k] for k in kinds)


# ------------------------------------------------------------------------------------------ dice extras


def test_dice_panel_says_who_rolled_for_what_and_where_the_dice_came_from() -> None:
    from companion.presenters.dice import RollSource
    from companion.services import RollResult

    d = DicePresenter(FakeRoller(), ManualClock(), threaded=False)
    d.record(RollResult((6, 1), "device 53454e4553494d31 #12"), R, "Roll 2 dice for mayhem")
    d.record(RollResult((3,), "device 53454e4553494d31 button #13"))
    d.record(RollResult((2,), "screen"), B, "Roll a die for the arena")
    d.record(RollResult((5,), "typed"))
    d.record(RollResult((4,), "camera"))
    sources = [e.source for e in d.entries]
    assert sources == [
        RollSource.CAMERA,
        RollSource.TYPED,
        RollSource.SCREEN,
        RollSource.BUTTON,
        RollSource.ROLLER,
    ]
    first = d.entries[-1]
    assert (first.values, first.who, first.purpose) == ((6, 1), R, "Roll 2 dice for mayhem")
    assert d.source_words(first) == "Dice roller #12"  # the roll's number, not the hex device id
    assert d.source_words(d.entries[2]) == "Rolled on the tablet"


def test_dice_fairness_is_a_chi_squared_test_over_the_rollers_dice() -> None:
    from companion.presenters.dice import chi2_p_value_5df, fairness
    from companion.services import RollResult

    assert fairness([1, 2, 3, 4, 5, 6] * 10).chi2 == 0.0
    f = fairness([6] * 60)
    assert f.chi2 == 300.0 and f.suspicious and f.p_value < 1e-6
    assert abs(chi2_p_value_5df(11.07) - 0.05) < 0.001 and abs(chi2_p_value_5df(4.35) - 0.5) < 0.002
    d = DicePresenter(FakeRoller(), ManualClock(), threaded=False)
    d.record(RollResult((1, 2), "screen"))  # not the roller: not in its fairness
    for v in range(1, 7):
        d.record(RollResult((v, v), "device X #1"))
    f = d.fairness()
    assert f.dice == 12 and f.counts == (2, 2, 2, 2, 2, 2) and not f.enough
    assert "at least 30" in d.fairness_sentence(f)
    for _ in range(3):
        for v in range(1, 7):
            d.record(RollResult((v, v), "device X #2"))
    assert "no sign of a biased die" in d.fairness_sentence(d.fairness())


def test_camera_panel_says_why_it_is_unsure_of_each_place_most_useful_first() -> None:
    """The players read why a place is asked (a hand, a player not measured yet, ...), places grouped per
    reason, in `Doubt`'s order, a place the camera gave no reason for last; in the table's language."""
    from companion.i18n import Translator
    from engine.reading import Doubt, TableReading

    clock = ManualClock()
    feed = FakeFeed()
    c = CameraPresenter(feed, clock)
    c.start()
    feed.on_reading(
        TableReading(
            knights={"T01": {R: 3}},
            unsure=frozenset({"T01", "T02", "T03", "K1", "T04"}),
            doubts={"T03": Doubt.COLOUR, "K1": Doubt.UNMEASURED, "T01": Doubt.HAND, "T02": Doubt.COLOUR},
        )
    )
    clock.advance()
    names = {"T01": "Homelands", "T02": "Fort", "T03": "Abbey", "T04": "Cave", "K1": "Red castle"}
    c.place_name = names.__getitem__
    summary = c.summary()
    assert summary is not None
    assert summary.unsure == (
        Unsure(Doubt.HAND, ("Homelands",)),
        Unsure(Doubt.UNMEASURED, ("Red castle",)),
        Unsure(Doubt.COLOUR, ("Abbey", "Fort")),
        Unsure(None, ("Cave",)),
    )
    lines = c.unsure_lines(summary)
    assert lines[0] == "Under a hand: Homelands"
    assert lines[2] == "Whose die it is, unclear: Abbey, Fort"
    assert lines[3] == "Unsure: Cave"
    c.tr = Translator("nl")
    dutch = c.unsure_lines(summary)
    assert dutch[0] != lines[0] and dutch[0].endswith("Homelands")


def test_every_doubt_has_words_for_the_players() -> None:
    from engine.reading import Doubt

    assert set(DOUBT_WORDS) == {*Doubt, None}
    assert all("{places}" in words for words in DOUBT_WORDS.values())


def test_camera_panel_says_what_it_is_doing_and_what_it_read() -> None:
    from companion.services import FeedStatus
    from engine.hexgrid import Hex
    from engine.reading import TableReading

    clock = ManualClock()
    feed = FakeFeed()
    c = CameraPresenter(feed, clock)
    c.start()
    assert c.headline() == "The camera is looking for the map..." and c.detail() == ""
    feed.on_reading(
        TableReading(
            tiles={Hex(0, 0): "T01", Hex(1, 0): "T02"},
            knights={"T01": {R: 3}, "T02": {B: 1, R: 1}},
            unsure=frozenset({"T02"}),
        )
    )
    clock.advance()
    c.place_name = {"T01": "Homelands", "T02": "Fort"}.get  # type: ignore[assignment]
    summary = c.summary()
    assert summary is not None and summary.tiles == 2 and summary.knights == ((R, 4), (B, 1))
    assert summary.unsure == (Unsure(None, ("Fort",)),) and c.unsure_lines(summary) == ["Unsure: Fort"]
    assert c.headline() == "Reading the table: 2 tiles and 5 knights seen." and c.tone() == "good"
    feed.on_status(FeedStatus.NO_MAP, "half a board")
    clock.advance()
    assert "No map in view" in c.headline() and c.detail() == "half a board" and c.tone() == "warn"
    feed.on_status(FeedStatus.LOST, "camera lost")
    clock.advance()
    assert "Reconnect" in c.headline() and c.tone() == "bad"
    assert "No camera" in CameraPresenter(None, clock).headline()


# ---------------------------------------------------------------------------------------- box setup


class _Box:
    def __init__(self) -> None:
        from companion.presenters.boxsetup import BoxRow

        self.saved: list[Any] = []
        self.printed = 0
        self.fail = ""
        self._rows = [BoxRow("T01", "Morvan Homelands", "homelands", 1, 6, True)]

    def rows(self) -> list[Any]:
        return list(self._rows)

    def save(self, document: Any) -> list[str]:
        self.saved.append(document)
        return []

    def print_stickers(self) -> str:
        if self.fail:
            raise OSError(self.fail)
        self.printed += 1
        return "/data/stickers.pdf"

    def calibration_status(self) -> Any:
        from companion.presenters.boxsetup import CalibrationStatus

        return CalibrationStatus()

    def measure_dice(self) -> Any:
        raise NotImplementedError

    def save_calibration(self) -> Any:
        raise NotImplementedError


def test_box_setup_prints_the_saved_box_off_the_ui_thread_saving_changes_first() -> None:
    from companion.presenters.boxsetup import BoxSetupPresenter

    box = _Box()
    clock = ManualClock()
    jobs: list[Callable[[], None]] = []
    p = BoxSetupPresenter(box, clock, runner=jobs.append)
    p.adjust("T01", "value", +1)
    assert p.dirty and p.unconfirmed() == 0
    p.print_stickers()  # the change is saved first: the sheet is printed from the box as saved
    assert len(box.saved) == 1 and not p.dirty and p.printing and box.printed == 0
    jobs.pop()()
    clock.advance()
    assert box.printed == 1 and not p.printing and p.tone == "good" and "/data/stickers.pdf" in p.status
    box.fail = "disk full"
    p.print_stickers()
    jobs.pop()()
    clock.advance()
    assert p.tone == "warn" and "disk full" in p.status

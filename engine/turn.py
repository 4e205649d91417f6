"""Taking a turn (pp.8-13): the turn's nine steps as data, its start and end (step 1, place three knights;
step 9, restore artefacts), the manoeuvre of redistributing knights (p.9) and making an advance (p.11), and
`settle`, which runs everything automatic after an action until a player has to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from engine import actions as A
from engine import events as ev
from engine.artefacts import apply_crown, nobody_to_fracture, restore_artefacts
from engine.battle import no_conflict_card, nobody_with_support, run_phases, start_battle
from engine.cards import authority_not_possible, no_card_to_discard
from engine.catalogue import TileKind
from engine.colours import Colour
from engine.decisions import (
    AuthorityDraw,
    ConflictCards,
    CrownEffect,
    Decision,
    FractureWindow,
    OptionalDiscard,
    RandomDiscard,
    SupportTurns,
    VitalityRedistribution,
)
from engine.knights import gain_castle
from engine.moves import ANY_OPEN_STEPS, OPEN_STEPS, Move, MoveKind, Prompt, on_turn_only
from engine.rulebook import Rule, Step
from engine.speed import memo
from engine.state import GameState, TurnStep, dice_for
from engine.supply import advance_route, advance_targets, conquer, refresh_control
from engine.verdict import Reason, Verdict, accept, name_of, refuse, who
from engine.work import Work

PLACED_EACH_TURN = 3  # step 1


# The turn overview (p.8). Steps 1 and 9 happen by themselves when a turn starts and ends; the others are
# played in the turn's open windows (R20): steps 2-4 before the manoeuvre, 5 after a redistribution, 6 while
# a battle lasts, 7-8 once every advance is spent.
TURN_STEPS: tuple[Step, ...] = (
    Step(1, "Place three knights", Rule.PLACE_KNIGHTS),
    Step(2, "Play resource cards", Rule.RESOURCES),
    Step(3, "Use crowns", Rule.CROWNS),
    Step(4, "Redistribute knights", Rule.REDISTRIBUTE),
    Step(5, "Make an advance", Rule.ADVANCE),
    Step(6, "Battle", Rule.BATTLE),
    Step(7, "Play resource cards", Rule.RESOURCES),
    Step(8, "Use crowns", Rule.CROWNS),
    Step(9, "Restore artefacts", Rule.RESTORE),
)
# Which of the nine steps each window of the turn is.
STEPS_OF: dict[TurnStep, tuple[Step, ...]] = {
    TurnStep.PREPARE: TURN_STEPS[1:4],
    TurnStep.ADVANCE: TURN_STEPS[4:5],
    TurnStep.BATTLE: TURN_STEPS[5:6],
    TurnStep.FOLLOW_UP: TURN_STEPS[6:8],
    TurnStep.GAME_OVER: (),
}


def _place_knights(w: Work) -> None:
    gain_castle(w, w.current, PLACED_EACH_TURN, "place knights", Rule.PLACE_KNIGHTS)


def _restore(w: Work) -> None:
    restore_artefacts(w, w.current)


# What steps 1 and 9 do by themselves.
AUTOMATIC_STEPS: dict[int, Callable[[Work], None]] = {1: _place_knights, 9: _restore}


def start_turn(w: Work, colour: Colour) -> None:
    w.turn += 1
    w.current = colour
    w.manoeuvres = 1
    w.crown_used = False
    w.in_advance = False
    w.emit(ev.TurnStarted(colour, w.turn, rule=Rule.TURN))
    AUTOMATIC_STEPS[1](w)


def end_turn(w: Work) -> None:
    colour = w.current
    AUTOMATIC_STEPS[9](w)
    w.emit(ev.TurnEnded(colour, w.turn, rule=Rule.RESTORE))
    order = w.s.order
    start_turn(w, order[(order.index(colour) + 1) % len(order)])


def advance(w: Work, colour: Colour, target: str, knights: int) -> None:
    w.in_advance = False
    w.manoeuvres -= 1
    p = w.players[colour]
    w.set_player(colour, castle=p.castle - knights)
    route = advance_route(w, colour, target)
    lake = None if route is None else route[1]
    w.emit(ev.Advanced(colour, target, knights, lake, rule=Rule.ADVANCE if lake is None else Rule.LAKES))
    owner = w.data.castle_owner.get(target)
    occ = w.occ.get(target)
    if owner is not None:
        start_battle(w, colour, owner, target, knights, siege=True)
    elif occ is None:
        w.occupy(target, colour, knights)
        w.control_dirty.add(colour)
        w.emit(ev.Conquered(colour, target, rule=Rule.ADVANCE))
        conquer(w, colour, target)
    else:
        start_battle(w, colour, occ[0], target, knights, siege=False)


# Decisions the engine settles by itself: a crown's effect once its window is over, and windows nobody can
# answer but one way (no card that could answer them). Each returns True when something changed and the
# game should look again.
AUTOMATIC: dict[type[Decision], Callable[[Work, Any], bool]] = {
    CrownEffect: apply_crown,
    FractureWindow: nobody_to_fracture,
    SupportTurns: nobody_with_support,
    ConflictCards: no_conflict_card,
    OptionalDiscard: no_card_to_discard,
    RandomDiscard: no_card_to_discard,
    AuthorityDraw: authority_not_possible,
}


def settle(w: Work) -> None:
    """Run what needs nobody's decision (control and victory, automatic decisions, the battle's phases) until
    the game waits for a player, or is over."""
    w.flush()
    while w.winner is None:
        if w.control_dirty:
            refresh_control(w)
            if w.winner is not None:
                break
        if w.pending:
            head = w.pending[0]
            automatic = AUTOMATIC.get(type(head))
            if automatic is not None and automatic(w, head):
                w.flush()
                continue
            break
        if w.battle is not None:
            run_phases(w)
            w.flush()
            continue
        break
    if w.control_dirty:
        refresh_control(w)


def _check_redistribute(s: GameState, a: A.Redistribute, d: VitalityRedistribution | None) -> Verdict:
    if d is None and s.manoeuvres <= 0:
        return refuse(
            Reason.NO_ADVANCE_LEFT,
            "A redistribution comes before the advance, and this turn's advance is over: a tactical advance "
            "card allows one more redistribution and advance.",
            Rule.REDISTRIBUTE,
        )
    refused = check_layout(s, a.player, a.layout)
    if refused is not None:
        return refused
    if d is not None:
        return accept(
            f"{who(a.player)} redistributes once more (Crown of Vitality); no advance follows.", Rule.R42
        )
    if not a.layout:
        return accept(
            f"{who(a.player)} leaves their knights where they are; the advance comes next.", Rule.R24
        )
    n = s.knights_on_map(a.player) - (s.battle.attacker_knights if s.battle else 0)
    return accept(
        f"{who(a.player)} redistributes their knights, {n} before and after; the advance comes next.",
        Rule.REDISTRIBUTE,
    )


def _check_advance(s: GameState, a: A.Advance, _: None) -> Verdict:
    data = s.data
    if s.manoeuvres <= 0:
        return refuse(
            Reason.NO_ADVANCE_LEFT,
            "This turn's advance is over (made or declined): a tactical advance card allows one more.",
            Rule.ADVANCE,
        )
    target = a.target
    is_castle = target in data.castle_owner
    if target not in data.territories and not is_castle:
        if data.catalogue.tile_kind(target) is TileKind.CASTLE:
            return refuse(
                Reason.CASTLE_NOT_ALLOWED,
                f"{name_of(s, target)} belongs to nobody in this game: only territories and, with the castle "
                "siege rule, the players' castles can be advanced into.",
                Rule.CASTLE_SIEGE,
            )
        return refuse(Reason.UNKNOWN_LOCATION, f"{target!r} is not a territory on this map.", Rule.ADVANCE)
    if not isinstance(a.knights, int) or a.knights <= 0:
        return refuse(
            Reason.BAD_COUNT, f"An advance moves at least one knight, not {a.knights!r}.", Rule.ADVANCE
        )
    variant = s.config.variant
    if is_castle:
        if not variant.castle_siege:
            return refuse(
                Reason.CASTLE_NOT_ALLOWED,
                "Castles cannot be conquered (only with the castle siege rule).",
                Rule.PLACE_KNIGHTS,
            )
        if data.castle_owner[target] is a.player:
            return refuse(Reason.ALREADY_CONTROLLED, "You cannot advance into your own castle.", Rule.ADVANCE)
        if a.knights > 6:
            return refuse(
                Reason.SIEGE_LIMIT,
                f"You can advance into a castle with at most 6 knights, not {a.knights}.",
                Rule.CASTLE_SIEGE,
            )
    else:
        occ = s.occupants.get(target)
        if occ is not None and occ[0] is a.player:
            return refuse(
                Reason.ALREADY_CONTROLLED,
                f"You already control {name_of(s, target)}; moving knights "
                "there is a redistribution, not an advance.",
                Rule.ADVANCE,
            )
        if occ is not None and variant.allegiance and occ[0] in variant.team_of(a.player):
            return refuse(
                Reason.TEAMMATE_TERRITORY,
                f"{name_of(s, target)} belongs to your teammate {who(occ[0])}.",
                Rule.ALLEGIANCE,
            )
        if a.knights > data.capacity[target]:
            return refuse(
                Reason.OVER_CAPACITY,
                f"{name_of(s, target)} holds at most {data.capacity[target]} knights, not {a.knights}.",
                Rule.ADVANCE,
            )
    route = advance_route(s, a.player, target)
    if route is None or target not in advance_targets(s, a.player):
        castle_id = data.castle_of[a.player]
        if target in data.reach[castle_id] or target in data.reach_castles[castle_id]:
            lake = sorted(data.lakes[castle_id])[0]
            return refuse(
                Reason.NOT_ADJACENT,
                f"{name_of(s, target)} lies across {name_of(s, lake)} from your castle, but a castle gives "
                "no advance across a lake: that takes a territory of yours on it.",
                Rule.R21,
            )
        return refuse(
            Reason.NOT_ADJACENT,
            f"{name_of(s, target)} is not next to your castle or to a territory "
            "of yours with a line of supply (lakes link the tiles around them).",
            Rule.SUPPLY,
        )
    castle = s.players[a.player].castle
    if a.knights > castle:
        return refuse(
            Reason.NOT_ENOUGH_KNIGHTS,
            f"Advances start from the castle, which holds {castle} knights, not {a.knights}.",
            Rule.ADVANCE,
        )
    dice = s.dice_in_use(a.player) - dice_for(castle) + dice_for(castle - a.knights) + dice_for(a.knights)
    if dice > s.data.dice_per_player:
        return refuse(
            Reason.DICE_EXHAUSTED,
            f"All {s.data.dice_per_player} of your dice are in use; the "
            "advancing knights would need another die.",
            Rule.R22,
        )
    return _advance_accepted(s, a, route)


def _advance_accepted(s: GameState, a: A.Advance, route: tuple[str, str | None]) -> Verdict:
    """Why the advance may go there: the place it borders, or the lake it crosses."""
    source, lake = route
    knights = f"{a.knights} knight" + ("" if a.knights == 1 else "s")
    moves = f"{who(a.player)} advances {knights} into {name_of(s, a.target)}"
    if lake is not None:
        return accept(
            f"{moves}: it lies across {name_of(s, lake)} from {name_of(s, source)}, and a lake links the "
            "territories around it.",
            Rule.LAKES,
        )
    if source == s.data.castle_of[a.player]:
        return accept(f"{moves}: it borders their castle.", Rule.ADVANCE)
    return accept(f"{moves}: it borders {name_of(s, source)}, theirs with a line of supply.", Rule.ADVANCE)


def _check_skip(s: GameState, a: A.SkipAdvance, _: None) -> Verdict:
    if not s.in_advance:
        return refuse(
            Reason.WRONG_STEP,
            "There is no advance to decline: you have not just redistributed.",
            Rule.ADVANCE,
        )
    return accept(f"{who(a.player)} makes no advance after the redistribution.", Rule.R24)


def _check_end(s: GameState, a: A.EndTurn, _: None) -> Verdict:
    order = s.order
    nxt = order[(order.index(a.player) + 1) % len(order)]
    return accept(
        f"{who(a.player)} ends the turn: their artefacts destroyed on an earlier turn are restored, and "
        f"{who(nxt)} places three knights.",
        Rule.RESTORE,
    )


def _redistribute(w: Work, a: A.Redistribute, d: VitalityRedistribution | None) -> None:
    castle = w.data.castle_of[a.player]
    for loc, n in a.layout:
        if loc == castle:
            w.set_player(a.player, castle=n)
        else:
            w.occupy(loc, a.player, n)
    w.emit(ev.Redistributed(a.player, a.layout, rule=Rule.REDISTRIBUTE if d is None else Rule.R42))
    if d is not None:  # the Crown of Vitality's: not a manoeuvre (R42)
        w.pending.pop(0)
    else:
        w.in_advance = True


def _advance(w: Work, a: A.Advance, _: None) -> None:
    advance(w, a.player, a.target, a.knights)


def _skip(w: Work, a: A.SkipAdvance | A.EndTurn, _: None) -> None:
    w.in_advance = False
    w.manoeuvres -= 1
    w.emit(ev.AdvanceDeclined(a.player, rule=Rule.R24))


def _end(w: Work, a: A.EndTurn, _: None) -> None:
    if w.in_advance:
        _skip(w, a, None)
    end_turn(w)


def single_moves(s: GameState, colour: Colour) -> Iterator[tuple[tuple[str, int], ...]]:
    """The empty redistribution and every legal move of k knights from one place to another, lazily."""
    yield ()
    castle = s.data.castle_of[colour]
    places: dict[str, int] = {castle: s.players[colour].castle}
    for t in sorted(s.supply.get(colour, frozenset())):
        places[t] = s.occupants[t][1]
    dice = s.dice_in_use(colour)
    limit = s.data.dice_per_player
    capacity = s.data.capacity
    for src, have in places.items():
        spare = have if src == castle else have - 1
        for dst, there in places.items():
            if dst == src:
                continue
            room = spare if dst == castle else min(spare, capacity[dst] - there)
            others = dice - dice_for(have) - dice_for(there)  # the dice of every other place
            for k in range(1, room + 1):
                if others + dice_for(have - k) + dice_for(there + k) <= limit:
                    yield (src, have - k), (dst, there + k)


def layouts(s: GameState, me: Colour) -> Iterator[A.Redistribute]:
    """Every legal redistribution of `me`'s knights, lazily: each distinct final layout once, as the places
    that change (castle first, then territories by id), starting with the empty one (R24). Assumes that `me`
    may redistribute now."""
    castle = s.data.castle_of[me]
    places = [castle, *sorted(s.supply.get(me, frozenset()))]
    old = [s.players[me].castle, *(s.occupants[t][1] for t in places[1:])]
    caps = [0, *(s.data.capacity[t] for t in places[1:])]
    total = sum(old)
    limit = s.data.dice_per_player - (s.dice_in_use(me) - sum(dice_for(n) for n in old))
    n = len(places)
    new = [0] * n

    def fill(i: int, left: int, dice: int) -> Iterator[A.Redistribute]:
        if i == 0:  # the castle takes whatever is left (unlimited capacity)
            if dice + dice_for(left) > limit:
                return
            new[0] = left
            layout = tuple((places[j], new[j]) for j in range(n) if new[j] != old[j])
            if layout:
                yield A.Redistribute(me, layout)
            return
        # every territory keeps 1..capacity; the territories before it need at least one each
        for k in range(1, min(caps[i], left - (i - 1)) + 1):
            if dice + dice_for(k) > limit:
                break
            new[i] = k
            yield from fill(i - 1, left - k, dice + dice_for(k))

    yield A.Redistribute(me, ())
    yield from fill(n - 1, total, 0)


def advance_options(s: GameState, me: Colour) -> list[tuple[str, tuple[int, ...]]]:
    """For each place `me` may advance into now, the knight counts allowed (as `_check_advance`)."""
    out: list[tuple[str, tuple[int, ...]]] = []
    if s.manoeuvres <= 0 or s.winner is not None or s.pending or s.battle is not None:
        return out
    castle = s.players[me].castle
    if castle <= 0:
        return out
    data = s.data
    variant = s.config.variant
    team = variant.team_of(me) if variant.allegiance else (me,)
    dice = s.dice_in_use(me) - dice_for(castle)
    owners = data.castle_owner
    occupants = s.occupants
    for t in advance_targets(s, me):
        if t in owners:
            if owners[t] is me:
                continue
            cap = 6
        else:
            occ = occupants.get(t)
            if occ is not None and occ[0] in team:
                continue
            cap = data.capacity[t]
        counts = _counts_that_fit(castle, dice, data.dice_per_player, cap)
        if counts:
            out.append((t, counts))
    return out


@memo(1024)
def _counts_that_fit(castle: int, dice: int, limit: int, cap: int) -> tuple[int, ...]:
    """The knight counts an advance can take from a castle of `castle` knights into a place holding `cap`,
    the player's other places standing on `dice` dice and `limit` dice in all (R22)."""
    counts = range(1, min(castle, cap) + 1)
    return tuple(k for k in counts if dice + dice_for(castle - k) + dice_for(k) <= limit)


def advances(s: GameState, me: Colour) -> list[A.Advance]:
    """Every legal advance of `me` now."""
    return [A.Advance(me, t, k) for t, counts in advance_options(s, me) for k in counts]



def check_layout(s: GameState, colour: Colour, layout: tuple[tuple[str, int], ...]) -> Verdict | None:
    data = s.data
    castle = data.castle_of[colour]
    seen: set[str] = set()
    before = 0
    after = 0
    dice = s.dice_in_use(colour)
    for loc, n in layout:
        if loc in seen:
            return refuse(
                Reason.BAD_COUNT, f"{loc!r} is listed twice in the redistribution.", Rule.REDISTRIBUTE
            )
        seen.add(loc)
        if loc != castle and loc not in data.territories:
            return refuse(
                Reason.UNKNOWN_LOCATION,
                f"{loc!r} is not a territory or your castle on this map.",
                Rule.REDISTRIBUTE,
            )
        if not isinstance(n, int) or n < 0:
            return refuse(
                Reason.BAD_COUNT, f"Knight counts cannot be negative: {loc} -> {n!r}.", Rule.REDISTRIBUTE
            )
        if loc == castle:
            old = s.players[colour].castle
        else:
            occ = s.occupants.get(loc)
            if occ is None or occ[0] is not colour:
                return refuse(
                    Reason.NOT_CONTROLLED,
                    f"{who(colour)} does not control {name_of(s, loc)}; "
                    "redistribution only moves knights among your castle and your territories.",
                    Rule.REDISTRIBUTE,
                )
            if loc not in s.supply.get(colour, frozenset()):
                return refuse(
                    Reason.NO_SUPPLY,
                    f"{name_of(s, loc)} has no line of supply: its knights cannot be "
                    "moved and no knights can be moved into it.",
                    Rule.SUPPLY,
                )
            old = occ[1]
            if n == 0:
                return refuse(
                    Reason.TERRITORY_EMPTIED,
                    f"{name_of(s, loc)} must keep at least one knight.",
                    Rule.REDISTRIBUTE,
                )
            if n > data.capacity[loc]:
                return refuse(
                    Reason.OVER_CAPACITY,
                    f"{name_of(s, loc)} holds at most {data.capacity[loc]} knights, not {n}.",
                    Rule.REDISTRIBUTE,
                )
        before += old
        after += n
        dice += dice_for(n) - dice_for(old)
    if before != after:
        return refuse(
            Reason.TOTAL_CHANGED,
            f"A redistribution keeps the same number of knights: {before} before, {after} after.",
            Rule.REDISTRIBUTE,
        )
    if dice > data.dice_per_player:
        return refuse(
            Reason.DICE_EXHAUSTED,
            f"That layout needs {dice} dice; each player has {data.dice_per_player}.",
            Rule.R22,
        )
    return None



def _redistribute_options(s: GameState, d: VitalityRedistribution | None) -> Iterator[A.Redistribute]:
    """Every legal layout once: first leaving them as they are and every move of knights from one place to
    another (the usual choices), then every other layout (R24)."""
    me = s.current if d is None else d.actor
    if d is None and s.manoeuvres <= 0:
        return
    simple = [tuple(sorted(move)) for move in single_moves(s, me)]
    yield from (A.Redistribute(me, layout) for layout in simple)
    listed = set(simple)
    yield from (r for r in layouts(s, me) if r.layout not in listed)


def _skip_options(s: GameState, _: None) -> Iterator[A.SkipAdvance]:
    if s.in_advance:
        yield A.SkipAdvance(s.current)


def _advance_options(s: GameState, _: None) -> Iterator[A.Advance]:
    yield from advances(s, s.current)


def _end_options(s: GameState, _: None) -> Iterator[A.EndTurn]:
    yield A.EndTurn(s.current)


_AFTER_THE_BATTLE = "The battle must be fought to its end first; then the attacking player's turn goes on."

REDISTRIBUTE = Move(
    A.Redistribute,
    _check_redistribute,
    _redistribute,
    _redistribute_options,
    on_turn_only(
        "Knights cannot be redistributed during a battle.",
        Rule.REDISTRIBUTE,
        "You have just redistributed: make your advance, or decline it, first.",
        Rule.R24,
    ),
    prompt=Prompt("Move to: {layout:layout}", absent="Leave knights as they are", when="layout"),
    kind=MoveKind.REDISTRIBUTE,
    history=Prompt("{player:player} redistributed: {layout:layout}"),
    answers=VitalityRedistribution,
    on_turn=OPEN_STEPS,
)
SKIP_ADVANCE = Move(
    A.SkipAdvance, _check_skip, _skip, _skip_options, on_turn_only(_AFTER_THE_BATTLE, Rule.BATTLE_9),
    prompt=Prompt("No advance"), kind=MoveKind.END_STEP, on_turn=ANY_OPEN_STEPS,
)
ADVANCE = Move(
    A.Advance, _check_advance, _advance, _advance_options, on_turn_only(_AFTER_THE_BATTLE, Rule.BATTLE_9),
    prompt=Prompt("{knights} into {target:place}"),
    kind=MoveKind.ADVANCE,
    history=Prompt("{player:player} advanced {knights} knights into {target:place}"),
    on_turn=ANY_OPEN_STEPS,
)
END_TURN = Move(
    A.EndTurn, _check_end, _end, _end_options, on_turn_only(_AFTER_THE_BATTLE, Rule.BATTLE_9),
    prompt=Prompt("End turn"),
    kind=MoveKind.END_STEP,
    history=Prompt("{player:player} ended the turn"),
    on_turn=ANY_OPEN_STEPS,
)

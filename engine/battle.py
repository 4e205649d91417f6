"""Battle (p.11) and the order of battle (p.12): the nine steps as data the battle walks through, what each
does, and the moves a battle asks for (conflict cards, support cards, dice).

A battle in progress records the next thing it does (`Battle.stage`, a `BattleStage`); `run_phases` walks
`BATTLE_STEPS` from there. A phase that needs a decision stages it, and the battle goes on once it is answered
(`engine.turn.settle`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine import actions as A
from engine import events as ev
from engine.artefacts import apply_orb, apply_sceptre, at_stake, battle_artefacts, fracture_window
from engine.cards import (
    CONFLICT_KINDS,
    SUPPORT_KINDS,
    cards_of,
    declare_no_conflict_card,
    draw,
    hand_known,
    holds,
    kind_is,
    may_hold_conflict,
    may_hold_kind,
    remove_from_hand,
    table_conflict_bound,
)
from engine.catalogue import Ability, ArtefactType, CardKind
from engine.colours import Colour
from engine.decisions import ConflictCards, DicePurpose, DiceRoll, FractureMoment, SupportTurns
from engine.knights import lose_in_territory, retreat
from engine.moves import Move, MoveKind, Prompt, waiting_first
from engine.rulebook import Rule, Step
from engine.state import (
    Battle,
    BattleStage,
    DiceSource,
    GameState,
    Knowledge,
    combat_scores,
    defender_knights,
)
from engine.supply import conquer, declare_winner
from engine.variants import ask_mayhem_dice, mayhem_roll, support_players
from engine.verdict import Reason, Verdict, accept, name_of, refuse, who
from engine.work import Work

HAND_LIMIT = 5  # order of battle step 2


def start_battle(
    w: Work, attacker: Colour, defender: Colour, territory: str, knights: int, *, siege: bool
) -> None:
    """An advance into a territory (or, with castle siege, a castle) held by another player (p.11)."""
    w.battle = Battle(territory, attacker, defender, knights, BattleStage.TERRITORY, siege=siege)
    d_knights = defender_knights(w, w.battle)
    w.emit(ev.BattleStarted(territory, attacker, defender, knights, d_knights, rule=Rule.BATTLE))


# --- the phases of the nine steps --------------------------------------------------------------------------


def _territory(w: Work) -> None:
    """Step 1: the territory's start-of-battle abilities (p.7): +1 to one side, or the arena's dice."""
    b = w.battle
    assert b is not None
    spec = w.data.territories.get(b.territory)
    if spec is None:
        return
    a_bonus = 1 if Ability.ATTACKER_PLUS_ONE in spec.abilities else 0
    d_bonus = 1 if Ability.DEFENDER_PLUS_ONE in spec.abilities else 0
    if a_bonus or d_bonus:
        w.set_battle(attacker_bonus=a_bonus, defender_bonus=d_bonus)
        w.emit_scores(spec.kind.value, Rule.GRASSLANDS if a_bonus else Rule.FORTIFIED)
    if Ability.ARENA_ROLL in spec.abilities:
        w.stage(DiceRoll(b.attacker, 1, DicePurpose.ARENA), DiceRoll(b.defender, 1, DicePurpose.ARENA))


def _arena(w: Work) -> None:
    """Arena (p.7): the lower roll loses a knight, a tie costs both; an empty side ends the battle (R37)."""
    b = w.battle
    assert b is not None
    spec = w.data.territories.get(b.territory)
    if spec is None or Ability.ARENA_ROLL not in spec.abilities:
        return
    a_roll, d_roll = b.attacker_arena_roll, b.defender_arena_roll
    if a_roll <= d_roll:
        lose_in_territory(w, b.attacker, b.territory, 1, "arena", rule=Rule.ARENA)
    if d_roll <= a_roll:
        lose_in_territory(w, b.defender, b.territory, 1, "arena", rule=Rule.ARENA)
    b = w.battle
    assert b is not None
    d_left = defender_knights(w, b)
    if b.attacker_knights == 0 or d_left == 0:
        # R37: the battle ends with no result; whoever still has knights in the arena holds it.
        if b.attacker_knights > 0:
            w.occupy(b.territory, b.attacker, b.attacker_knights)
            w.control_dirty.update((b.attacker, b.defender))
            w.set_battle(attacker_knights=0, winner=b.attacker, ended_early=True)
            w.emit(ev.Conquered(b.attacker, b.territory, rule=Rule.R37))
        else:
            w.set_battle(winner=b.defender if d_left else None, ended_early=True)
        end_battle(w, "arena", Rule.R37)
    else:
        w.emit_scores("arena", Rule.ARENA)


def _draw_up(w: Work) -> None:
    """Step 2: both players draw up to five cards (authority drawn is played at once)."""
    b = w.battle
    assert b is not None
    for colour in (b.attacker, b.defender):
        need = HAND_LIMIT - w.players[colour].hand_size
        if need > 0:
            draw(w, colour, need, "battle", Rule.BATTLE_2)


def _artefact_window(a_type: ArtefactType, moment: FractureMoment) -> Callable[[Work], None]:
    def open_window(w: Work) -> None:
        """Steps 3 and 7: from the attacker clockwise, each player may fracture an artefact at stake."""
        b = w.battle
        assert b is not None
        fracture_window(w, b.attacker, at_stake(w, a_type), moment, skip_start=False)

    return open_window


_sceptre_window = _artefact_window(ArtefactType.SCEPTRE, FractureMoment.SCEPTRES)
_orb_window = _artefact_window(ArtefactType.ORB, FractureMoment.ORBS)


def _apply_sceptres(w: Work) -> None:
    """Step 3: the sceptres that survived their window apply, the attacker's first (R35)."""
    for owner, art in battle_artefacts(w, ArtefactType.SCEPTRE):
        apply_sceptre(w, owner, art)


def _ask_conflict(w: Work) -> None:
    """Step 4: both players choose a conflict card face down."""
    b = w.battle
    assert b is not None
    w.stage(ConflictCards((b.attacker, b.defender)))


def _reveal(w: Work) -> None:
    """Step 4: both conflict cards are revealed together; an ambush adds a die roll (p.2)."""
    b = w.battle
    assert b is not None
    cards = w.data.cards
    values = []
    for card in (b.attacker_conflict, b.defender_conflict):
        spec = cards[card] if card is not None else None
        values.append(spec.value or 0 if spec is not None and spec.kind is CardKind.CONFLICT else 0)
    w.set_battle(revealed=True, attacker_conflict_value=values[0], defender_conflict_value=values[1])
    w.emit(ev.ConflictRevealed(b.attacker_conflict, b.defender_conflict, rule=Rule.BATTLE_4))
    for colour, card in ((b.attacker, b.attacker_conflict), (b.defender, b.defender_conflict)):
        if card is not None and cards[card].kind is CardKind.AMBUSH:
            w.stage(DiceRoll(colour, 1, DicePurpose.AMBUSH))


def _ask_support(w: Work) -> None:
    """Step 5: support cards, lowest combat score first (a tie: the attacker, R32), none over mountains."""
    b = w.battle
    assert b is not None
    w.emit_scores("conflict cards", Rule.BATTLE_4)
    spec = w.data.territories.get(b.territory)
    if spec is not None and Ability.NO_SUPPORT in spec.abilities:
        return  # mountains: nobody plays support cards (p.7)
    a, d = combat_scores(w, b)
    starter = b.defender if d < a else b.attacker
    w.stage(SupportTurns(support_players(w, starter)))


def _result(w: Work) -> None:
    """Step 6: the higher combat score wins by the difference; a tie goes to the defender by one."""
    b = w.battle
    assert b is not None
    a, d = combat_scores(w, b)
    if a == d:
        w.set_battle(winner=b.defender, margin=1)
        tie = "tie: the defender wins by one"
        w.emit(ev.BattleResult(b.defender, b.attacker, a, d, 1, tie, rule=Rule.BATTLE_6))
        return
    winner, margin = (b.attacker, a - d) if a > d else (b.defender, d - a)
    w.set_battle(winner=winner, margin=margin)
    w.emit(ev.BattleResult(winner, b.rival(winner), a, d, margin, "combat scores", rule=Rule.BATTLE_6))


def _apply_orbs(w: Work) -> None:
    """Step 7: the orbs that survived their window apply, the attacker's first (R35)."""
    for owner, art in battle_artefacts(w, ArtefactType.ORB):
        apply_orb(w, owner, art)


def _conquest(w: Work) -> None:
    """Step 9: an attacker who won conquers the territory and applies its abilities (p.7)."""
    b = w.battle
    assert b is not None
    if b.winner is b.attacker and not b.siege and w.occ.get(b.territory, (None, 0))[0] is b.attacker:
        w.emit(ev.Conquered(b.attacker, b.territory, rule=Rule.BATTLE_9))
        conquer(w, b.attacker, b.territory)
        w.control_dirty.add(b.attacker)  # (an attacker who lost holds what they held)


def _over(w: Work) -> None:
    end_battle(w, "battle over", Rule.BATTLE_9)


def _losses(w: Work) -> None:
    """Step 8: the loser loses the margin from the disputed place only, then retreats the rest to their
    castle."""
    b = w.battle
    assert b is not None and b.winner is not None
    loser = b.rival(b.winner)
    if b.margin:
        lost = lose_in_territory(w, loser, b.territory, b.margin, "battle", rule=Rule.BATTLE_8)
        if lost < b.margin:
            w.emit(ev.LossesCapped(loser, b.territory, b.margin, lost, rule=Rule.BATTLE_8))
    b = w.battle
    assert b is not None
    if b.siege:
        if b.winner is b.attacker:
            declare_winner(w, (b.attacker,), f"conquered the castle {b.territory}", Rule.CASTLE_SIEGE)
            return
        if b.attacker_knights:
            retreat(w, b.attacker, b.attacker_knights)
            w.set_battle(attacker_knights=0)
        return
    if loser is b.attacker:
        if b.attacker_knights:
            retreat(w, b.attacker, b.attacker_knights)
            w.set_battle(attacker_knights=0)
        return
    occ = w.occ.get(b.territory)
    if occ is not None:
        retreat(w, b.defender, occ[1])
        w.vacate(b.territory)
        w.emit(ev.ControlLost(b.defender, b.territory, rule=Rule.BATTLE_8))
    if b.attacker_knights:
        w.occupy(b.territory, b.attacker, b.attacker_knights)
        w.set_battle(attacker_knights=0)
    # The attacker's conquest is complete once step 9 has applied the territory's abilities (R45): only then
    # is their control judged (marshlands taken with one knight is never held).
    w.control_dirty.add(b.defender)


def end_battle(w: Work, cause: str, rule: Rule) -> None:
    b = w.battle
    assert b is not None
    played: dict[Colour, list[str]] = {}
    for colour, card in ((b.attacker, b.attacker_conflict), (b.defender, b.defender_conflict)):
        if card is not None:
            played.setdefault(colour, []).append(card)
    for by, card, _ in b.support:
        played.setdefault(by, []).append(card)
    for colour, cards in played.items():
        p = w.players[colour]
        w.set_player(colour, discard=(*p.discard, *((c, w.turn) for c in cards)))
    if b.attacker_knights:
        # Only when the battle ended early with the attacker still outside control (defensive).
        retreat(w, b.attacker, b.attacker_knights)
    w.battle = None
    if w.s.config.variant.cut_throat:
        # The disputed territory is judged now (R31); control itself was refreshed when it changed.
        w.control_dirty.update((b.attacker, b.defender))
    w.emit(ev.BattleEnded(b.territory, b.winner, cause, rule=rule))


def record_conflict(w: Work, colour: Colour, card: str | None) -> None:
    b = w.battle
    assert b is not None
    if card is not None:
        remove_from_hand(w, colour, card)
    elif not w.full:
        # R46: the claim is recorded; a conflict card that cannot have been drawn since is refused later.
        declare_no_conflict_card(w, colour)
    if colour is b.attacker:
        w.set_battle(attacker_conflict=card, attacker_played=True)
    else:
        w.set_battle(defender_conflict=card, defender_played=True)
    w.emit(ev.ConflictPlayed(colour, rule=Rule.BATTLE_4))




@dataclass(frozen=True, slots=True)
class Phase:
    """One thing a step of the battle does; `stage` names it in a saved battle."""

    stage: BattleStage
    run: Callable[[Work], None]


@dataclass(frozen=True, slots=True)
class BattleStep:
    step: Step
    phases: tuple[Phase, ...]


S = BattleStage
BATTLE_STEPS: tuple[BattleStep, ...] = (
    BattleStep(Step(1, "Apply territory abilities", Rule.BATTLE_1), (
        Phase(S.TERRITORY, _territory),
        Phase(S.ARENA, _arena),
    )),
    BattleStep(Step(2, "Draw up to five cards", Rule.BATTLE_2), (
        Phase(S.DRAW, _draw_up),
    )),
    BattleStep(Step(3, "Apply sceptre abilities", Rule.BATTLE_3), (
        Phase(S.SCEPTRE_WINDOW, _sceptre_window),
        Phase(S.SCEPTRES, _apply_sceptres),
    )),
    BattleStep(Step(4, "Play conflict cards", Rule.BATTLE_4), (
        Phase(S.CONFLICT, _ask_conflict),
        Phase(S.REVEAL, _reveal),
    )),
    BattleStep(Step(5, "Play support cards", Rule.BATTLE_5), (
        Phase(S.SUPPORT, _ask_support),
    )),
    BattleStep(Step(6, "Battle result", Rule.BATTLE_6), (
        Phase(S.RESULT, _result),
        Phase(S.MAYHEM, ask_mayhem_dice),
    )),
    BattleStep(Step(7, "Apply orb abilities", Rule.BATTLE_7), (
        Phase(S.ORB_WINDOW, _orb_window),
        Phase(S.ORBS, _apply_orbs),
    )),
    BattleStep(Step(8, "Lose knights and retreat", Rule.BATTLE_8), (
        Phase(S.LOSSES, _losses),
    )),
    BattleStep(Step(9, "Apply territory abilities", Rule.BATTLE_9), (
        Phase(S.CONQUEST, _conquest),
        Phase(S.END, _over),
    )),
)
_PHASES = tuple(phase for step in BATTLE_STEPS for phase in step.phases)
_PHASE = {phase.stage: phase for phase in _PHASES}
_NEXT = {phase.stage: later.stage for phase, later in itertools.pairwise(_PHASES)}
STEP_OF: dict[BattleStage, Step] = {phase.stage: bs.step for bs in BATTLE_STEPS for phase in bs.phases}


def run_phases(w: Work) -> None:
    """Walk the battle's phases in order from its stage until one needs the game to look again: a decision
    staged, control changed, the game or the battle over. The battle then records the phase it does next."""
    b = w.battle
    assert b is not None
    stage = b.stage
    while True:
        phase = _PHASE[stage]
        phase.run(w)
        if w.battle is None:
            return
        stage = _NEXT[stage]
        if w.staged or w.control_dirty or w.winner is not None:
            w.set_battle(stage=stage)
            return


# --- moves -------------------------------------------------------------------------------------------------


def _check_dice(s: GameState, a: A.RollDice, d: DiceRoll) -> Verdict:
    if len(a.values) != d.n:
        return refuse(
            Reason.BAD_DICE,
            f"{d.n} dice are needed for the {d.purpose.value}, got {len(a.values)}.",
            Rule.BATTLE,
        )
    for v in a.values:
        if not isinstance(v, int) or not 1 <= v <= 6:
            return refuse(Reason.BAD_DICE, f"A die shows 1 to 6, not {v!r}.", Rule.BATTLE)
    rolled = " ".join(str(v) for v in a.values)
    return accept(f"{who(a.player)} rolls {rolled} for the {d.purpose.value}.", d.rule)


def _check_conflict(s: GameState, a: A.PlayConflict, _: ConflictCards) -> Verdict:
    if a.card is None:
        if hand_known(s, a.player) and may_hold_kind(s, a.player, CONFLICT_KINDS):
            return refuse(
                Reason.MUST_PLAY_CONFLICT,
                "You hold a conflict card, so you must play one; only a "
                "player without one battles with a conflict value of 0.",
                Rule.BATTLE_4,
            )
        if not hand_known(s, a.player):
            fewest = table_conflict_bound(s, a.player)[0]
            if fewest > 0:
                p = s.players[a.player]
                return refuse(
                    Reason.MUST_PLAY_CONFLICT,
                    f"{who(a.player)} holds {p.hand_size} cards, and at most {p.hand_size - fewest} of the "
                    "cards not yet discarded are not conflict cards, so they must hold a conflict card.",
                    Rule.R46,
                )
        return accept(
            f"{who(a.player)} has no conflict card and battles as though with a conflict card of 0.",
            Rule.BATTLE_4,
        )
    return (
        holds(s, a.player, a.card, Rule.BATTLE_4)
        or kind_is(s, a.card, (CardKind.CONFLICT, CardKind.AMBUSH), "a conflict card", Rule.BATTLE_4)
        or accept(f"{who(a.player)} plays a conflict card face down.", Rule.BATTLE_4)
    )


def _check_support(s: GameState, a: A.PlaySupport, _: SupportTurns) -> Verdict:
    if len(set(a.cards)) != len(a.cards):
        return refuse(Reason.DUPLICATE_CARD, "Each card can be played only once.", Rule.BATTLE_5)
    for card in a.cards:
        v = holds(s, a.player, card, Rule.BATTLE_5) or kind_is(
            s, card, (CardKind.SUPPORT,), "a support card", Rule.BATTLE_5
        )
        if v is not None:
            return v
    # (R46's "must hold conflict cards" never limits this further: the support cards named are distinct
    # cards that are not face up, so there are never more of them than the hand's non-conflict places.)
    if s.knowledge is Knowledge.TABLE:
        size = s.players[a.player].hand_size
        if len(a.cards) > size:
            return refuse(Reason.EMPTY_HAND, f"{who(a.player)} holds only {size} cards.", Rule.BATTLE_5)
    if not a.cards:
        return accept(f"{who(a.player)} plays no more support cards for now.", Rule.R33)
    total = sum(s.data.cards[c].value or 0 for c in a.cards)
    names = " and ".join(name_of(s, c) for c in a.cards)
    return accept(f"{who(a.player)} plays {names}: +{total}.", Rule.BATTLE_5)



def _rolled(w: Work, a: A.RollDice, d: DiceRoll) -> None:
    w.pending.pop(0)
    w.emit(ev.DiceRolled(a.player, a.values, a.source, d.purpose.value, rule=d.rule))
    b = w.battle
    assert b is not None
    attacker = a.player is b.attacker
    if d.purpose is DicePurpose.ARENA:  # resolved by the arena phase once both dice are in
        if attacker:
            w.set_battle(attacker_arena_roll=a.values[0])
        else:
            w.set_battle(defender_arena_roll=a.values[0])
    elif d.purpose is DicePurpose.AMBUSH:
        if attacker:
            w.set_battle(attacker_conflict_value=a.values[0])
        else:
            w.set_battle(defender_conflict_value=a.values[0])
        w.emit_scores("ambush", Rule.COMPONENTS)
    elif mayhem_roll(w, a.values):
        end_battle(w, "mayhem", Rule.R38)


def _conflict(w: Work, a: A.PlayConflict, d: ConflictCards) -> None:
    record_conflict(w, a.player, a.card)
    left = tuple(c for c in d.players if c is not a.player)
    if left:
        w.pending[0] = ConflictCards(left)
    else:
        w.pending.pop(0)


def _support_played(w: Work, a: A.PlaySupport, d: SupportTurns) -> None:
    rotated = (*d.players[1:], d.players[0])
    if not a.cards:
        passes = d.passes + 1
        if passes >= len(d.players):
            w.pending.pop(0)
        else:
            w.pending[0] = SupportTurns(rotated, passes)
        return
    b = w.battle
    assert b is not None
    for_player = a.player
    if a.player not in (b.attacker, b.defender):
        team = w.s.config.variant.team_of(a.player)
        for_player = b.attacker if b.attacker in team else b.defender
    total = 0
    for card in a.cards:
        remove_from_hand(w, a.player, card)
        total += w.data.cards[card].value or 0
    support = b.support + tuple((a.player, card, for_player) for card in a.cards)
    if for_player is b.attacker:
        w.set_battle(support=support, attacker_support=b.attacker_support + total)
    else:
        w.set_battle(support=support, defender_support=b.defender_support + total)
    rule = Rule.BATTLE_5 if for_player is a.player else Rule.ALLEGIANCE
    w.emit(ev.SupportPlayed(a.player, for_player, a.cards, total, rule=rule))
    w.emit_scores("support cards", rule)
    w.pending[0] = SupportTurns(rotated, 0)


def _dice_options(s: GameState, d: DiceRoll) -> Iterator[A.RollDice]:
    """Every result of the dice, lazily (6**n of them)."""
    for values in itertools.product(range(1, 7), repeat=d.n):
        yield A.RollDice(d.actor, values, DiceSource.SIMULATION)


def _conflict_options(s: GameState, d: ConflictCards) -> Iterator[A.PlayConflict]:
    for colour in d.players:
        if hand_known(s, colour):
            cards = cards_of(s, colour, CONFLICT_KINDS)
            none_ok = not cards
        else:
            fewest, most = table_conflict_bound(s, colour)
            cards = cards_of(s, colour, CONFLICT_KINDS) if most > 0 else []
            none_ok = fewest == 0
        yield from (A.PlayConflict(colour, c) for c in cards)
        if none_ok:
            yield A.PlayConflict(colour, None)


def _support_options(s: GameState, d: SupportTurns) -> Iterator[A.PlaySupport]:
    actor = d.players[0]
    yield A.PlaySupport(actor, ())
    cards = cards_of(s, actor, SUPPORT_KINDS)
    most = min(len(cards), s.players[actor].hand_size)
    for n in range(1, most + 1):
        yield from (A.PlaySupport(actor, combo) for combo in itertools.combinations(cards, n))


def _run(b: Battle, stage: BattleStage) -> bool:
    """Whether the battle has done phase `stage` already (`b.stage` is the next one it does)."""
    return _ORDER[b.stage] > _ORDER[stage]


_ORDER = {stage: i for i, stage in enumerate(BattleStage)}


def _dice_not_now(s: GameState, a: A.RollDice) -> Verdict:
    if s.pending:
        return waiting_first(s, a)
    return refuse(
        Reason.WRONG_STEP,
        "No dice are needed now: they are rolled for the arena, an ambush or mayhem.",
        Rule.R44,
    )


def _conflict_not_now(s: GameState, a: A.PlayConflict) -> Verdict:
    b = s.battle
    if b is None:
        sentence = "Conflict cards are played only in a battle, at step 4."
    elif _run(b, BattleStage.REVEAL):
        sentence = "Both conflict cards of this battle have been played: step 4 is over."
    elif s.pending:
        return waiting_first(s, a)
    else:
        sentence = "Conflict cards come at step 4, after the sceptres."
    return refuse(Reason.WRONG_STEP, sentence, Rule.BATTLE_4)


def _support_not_now(s: GameState, a: A.PlaySupport) -> Verdict:
    b = s.battle
    if b is None:
        sentence = "Support cards are played only in a battle, at step 5."
        return refuse(Reason.WRONG_STEP, sentence, Rule.BATTLE_5)
    spec = s.data.territories.get(b.territory)
    if spec is not None and Ability.NO_SUPPORT in spec.abilities:
        return refuse(
            Reason.NO_SUPPORT_ALLOWED,
            f"{name_of(s, b.territory)} is mountains: nobody plays support cards in a battle over it.",
            Rule.MOUNTAINS,
        )
    if _run(b, BattleStage.SUPPORT):
        sentence = "The support cards of this battle have been played: step 5 is over."
    elif s.pending:
        return waiting_first(s, a)
    else:
        sentence = "Support cards come at step 5, once both conflict cards are revealed."
    return refuse(Reason.WRONG_STEP, sentence, Rule.BATTLE_5)


ROLL_DICE = Move(
    A.RollDice,
    _check_dice,
    _rolled,
    _dice_options,
    _dice_not_now,
    prompt=Prompt("Dice: {values:dice}"),
    kind=MoveKind.ROLL,
    history=Prompt("{player:player} rolled {values:dice}"),
    answers=DiceRoll,
)
PLAY_CONFLICT = Move(
    A.PlayConflict,
    _check_conflict,
    _conflict,
    _conflict_options,
    _conflict_not_now,
    prompt=Prompt("{card:card}", absent="No conflict card (0)", when="card"),
    kind=MoveKind.CONFLICT,
    history=Prompt("{player:player} played a conflict card face-down"),  # the card stays secret
    answers=ConflictCards,
)
PLAY_SUPPORT = Move(
    A.PlaySupport,
    _check_support,
    _support_played,
    _support_options,
    _support_not_now,
    prompt=Prompt("{cards:cards}", absent="No more support", when="cards"),
    kind=MoveKind.SUPPORT,
    answers=SupportTurns,
)


# --- decisions nobody can answer otherwise -----------------------------------------------------------------


def nobody_with_support(w: Work, d: SupportTurns) -> bool:
    """A player who cannot hold a support card passes without being asked; True when the window closed."""
    players, passes = d.players, d.passes
    while passes < len(players) and not may_hold_kind(w, players[0], SUPPORT_KINDS):
        players = (*players[1:], players[0])
        passes += 1
    if passes >= len(players):
        w.pending.pop(0)
        return True
    if players != d.players:
        w.pending[0] = SupportTurns(players, passes)
    return False


def no_conflict_card(w: Work, d: ConflictCards) -> bool:
    """A player who cannot hold a conflict card battles with 0 without being asked (R34, R46); True when
    something changed."""
    stuck = tuple(c for c in d.players if not may_hold_conflict(w, c))
    if not stuck:
        return False
    for colour in stuck:
        record_conflict(w, colour, None)
    left = tuple(c for c in d.players if c not in stuck)
    if left:
        w.pending[0] = ConflictCards(left)
    else:
        w.pending.pop(0)
    return True

"""Battle (p.11) and the order of battle (p.12): starting a battle, its stages from the territory's
start-of-battle abilities to the conquest, and the moves a battle asks for (conflict cards, support cards,
dice).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from engine import actions as A
from engine import events as ev
from engine.artefacts import apply_orb, apply_sceptre, battle_artefacts, fracture_window
from engine.cards import (
    CONFLICT_KINDS,
    cards_of,
    declare_no_conflict_card,
    draw,
    holds,
    kind_is,
    may_hold_kind,
    remove_from_hand,
    table_conflict_bound,
)
from engine.catalogue import Ability, ArtefactType, CardKind
from engine.colours import Colour
from engine.knights import lose_in_territory, retreat
from engine.moves import Move
from engine.rulebook import Rule
from engine.state import (
    Battle,
    BattleStage,
    DiceSource,
    GameState,
    Knowledge,
    Need,
    Pending,
    combat_scores,
    defender_knights,
)
from engine.supply import conquer, declare_winner
from engine.variants import support_players
from engine.verdict import ACCEPTED, Reason, Verdict, refuse, who
from engine.work import Work

HAND_LIMIT = 5  # order of battle step 2


def start_battle(
    w: Work, attacker: Colour, defender: Colour, territory: str, knights: int, *, siege: bool
) -> None:
    w.battle = Battle(territory, attacker, defender, knights, BattleStage.DRAW, siege=siege)
    w.battle_owned = True
    d_knights = defender_knights(w, w.battle)
    w.emit(ev.BattleStarted(territory, attacker, defender, knights, d_knights))
    spec = w.data.territories.get(territory)
    if spec is None:
        return
    a_bonus = 1 if Ability.ATTACKER_PLUS_ONE in spec.abilities else 0
    d_bonus = 1 if Ability.DEFENDER_PLUS_ONE in spec.abilities else 0
    if a_bonus or d_bonus:
        w.set_battle(attacker_bonus=a_bonus, defender_bonus=d_bonus)
        w.emit_scores(spec.kind.value)
    if Ability.ARENA_ROLL in spec.abilities:
        w.set_battle(stage=BattleStage.ARENA)
        w.stage(
            Pending(Need.DICE, actor=attacker, n=1, tag="arena"),
            Pending(Need.DICE, actor=defender, n=1, tag="arena"),
        )


def run_stage(w: Work) -> None:
    b = w.battle
    assert b is not None
    stage = b.stage
    if stage is BattleStage.ARENA:
        _arena(w)
    elif stage is BattleStage.DRAW:
        w.set_battle(stage=BattleStage.SCEPTRE_WINDOW)
        for colour in (b.attacker, b.defender):
            need = HAND_LIMIT - w.players[colour].hand_size
            if need > 0:
                draw(w, colour, need, "battle")
    elif stage is BattleStage.SCEPTRE_WINDOW:
        w.set_battle(stage=BattleStage.SCEPTRES)
        targets = tuple(a for _, a in battle_artefacts(w, ArtefactType.SCEPTRE))
        fracture_window(w, b.attacker, targets, "sceptre", skip_start=False)
    elif stage is BattleStage.SCEPTRES:
        w.set_battle(stage=BattleStage.CONFLICT)
        for owner, art in battle_artefacts(w, ArtefactType.SCEPTRE):
            apply_sceptre(w, owner, art)
    elif stage is BattleStage.CONFLICT:
        w.set_battle(stage=BattleStage.REVEAL)
        w.stage(Pending(Need.CONFLICT, players=(b.attacker, b.defender)))
    elif stage is BattleStage.REVEAL:
        _reveal(w)
    elif stage is BattleStage.SUPPORT:
        _support(w)
    elif stage is BattleStage.RESULT:
        _result(w)
    elif stage is BattleStage.MAYHEM:
        w.set_battle(stage=BattleStage.ORB_WINDOW)
        assert b.winner is not None
        n = b.attacker_knights if b.winner is b.attacker else defender_knights(w, b)
        if n > 0:
            w.stage(Pending(Need.DICE, actor=b.winner, n=n, tag="mayhem"))
    elif stage is BattleStage.ORB_WINDOW:
        w.set_battle(stage=BattleStage.ORBS)
        targets = tuple(a for _, a in battle_artefacts(w, ArtefactType.ORB))
        fracture_window(w, b.attacker, targets, "orb", skip_start=False)
    elif stage is BattleStage.ORBS:
        w.set_battle(stage=BattleStage.LOSSES)
        for owner, art in battle_artefacts(w, ArtefactType.ORB):
            apply_orb(w, owner, art)
    elif stage is BattleStage.LOSSES:
        _losses(w)
    elif stage is BattleStage.CONQUEST:
        w.set_battle(stage=BattleStage.END)
        if b.winner is b.attacker and not b.siege and w.occ.get(b.territory, (None, 0))[0] is b.attacker:
            w.emit(ev.Conquered(b.attacker, b.territory))
            conquer(w, b.attacker, b.territory)
        w.control_dirty.add(b.attacker)
    elif stage is BattleStage.END:
        end_battle(w, "battle over")


def _arena(w: Work) -> None:
    """Arena (p.7): the lower roll loses a knight, a tie costs both; an empty side ends the battle."""
    b = w.battle
    assert b is not None
    a_roll, d_roll = b.attacker_arena_roll, b.defender_arena_roll
    w.set_battle(stage=BattleStage.DRAW)
    if a_roll <= d_roll:
        lose_in_territory(w, b.attacker, b.territory, 1, "arena")
    if d_roll <= a_roll:
        lose_in_territory(w, b.defender, b.territory, 1, "arena")
    b = w.battle
    assert b is not None
    d_left = defender_knights(w, b)
    if b.attacker_knights == 0 or d_left == 0:
        # R37: the battle ends with no result; whoever still has knights in the arena holds it.
        if b.attacker_knights > 0:
            w.occ[b.territory] = (b.attacker, b.attacker_knights)
            w.control_dirty.update((b.attacker, b.defender))
            w.set_battle(attacker_knights=0, winner=b.attacker, ended_early=True)
            w.emit(ev.Conquered(b.attacker, b.territory))
        else:
            w.set_battle(winner=b.defender if d_left else None, ended_early=True)
        end_battle(w, "arena")
    else:
        w.emit_scores("arena")


def _reveal(w: Work) -> None:
    b = w.battle
    assert b is not None
    cards = w.data.cards
    values = []
    for card in (b.attacker_conflict, b.defender_conflict):
        spec = cards[card] if card is not None else None
        values.append(spec.value or 0 if spec is not None and spec.kind is CardKind.CONFLICT else 0)
    w.set_battle(
        revealed=True,
        attacker_conflict_value=values[0],
        defender_conflict_value=values[1],
        stage=BattleStage.SUPPORT,
    )
    w.emit(ev.ConflictRevealed(b.attacker_conflict, b.defender_conflict))
    for colour, card in ((b.attacker, b.attacker_conflict), (b.defender, b.defender_conflict)):
        if card is not None and cards[card].kind is CardKind.AMBUSH:
            w.stage(Pending(Need.DICE, actor=colour, n=1, tag="ambush"))


def _support(w: Work) -> None:
    b = w.battle
    assert b is not None
    w.emit_scores("conflict cards")
    w.set_battle(stage=BattleStage.RESULT)
    spec = w.data.territories.get(b.territory)
    if spec is not None and Ability.NO_SUPPORT in spec.abilities:
        return  # mountains: nobody plays support cards (p.7)
    a, d = combat_scores(w, b)
    starter = b.defender if d < a else b.attacker  # lowest starts; a tie: the attacker (R32, Swedish p.12)
    w.stage(Pending(Need.SUPPORT, players=support_players(w, starter)))


def _result(w: Work) -> None:
    b = w.battle
    assert b is not None
    a, d = combat_scores(w, b)
    if a > d:
        winner, margin = b.attacker, a - d
    else:
        winner, margin = b.defender, max(1, d - a)  # a tie: the defender wins by one (step 6)
    w.set_battle(
        winner=winner,
        margin=margin,
        stage=BattleStage.MAYHEM if w.s.config.variant.mayhem else BattleStage.ORB_WINDOW,
    )
    w.emit(ev.BattleResult(winner, b.rival(winner), a, d, margin, "combat scores"))


def mayhem_roll(w: Work, values: tuple[int, ...]) -> None:
    """Mayhem (p.14): the winner loses a knight per 1 rolled; with none left, they lose the battle instead."""
    b = w.battle
    assert b is not None and b.winner is not None
    ones = sum(1 for v in values if v == 1)
    if ones:
        lose_in_territory(w, b.winner, b.territory, ones, "mayhem")
    b = w.battle
    assert b is not None and b.winner is not None
    left = b.attacker_knights if b.winner is b.attacker else defender_knights(w, b)
    if left == 0:
        new_winner = b.rival(b.winner)
        other_left = b.attacker_knights if new_winner is b.attacker else defender_knights(w, b)
        a, d = combat_scores(w, b)
        if other_left == 0:
            w.set_battle(winner=None, margin=0, ended_early=True)
            end_battle(w, "mayhem")
            return
        # R38: the new winner keeps every knight (no retreat, no losses); orbs follow the new result.
        new_loser = b.winner
        w.set_battle(winner=new_winner, margin=0)
        w.emit(ev.BattleResult(new_winner, new_loser, a, d, 0, "mayhem"))


def _losses(w: Work) -> None:
    """Step 8: the loser loses the margin from the disputed place only, then retreats the rest to their
    castle."""
    b = w.battle
    assert b is not None and b.winner is not None
    w.set_battle(stage=BattleStage.CONQUEST)
    loser = b.rival(b.winner)
    if b.margin:
        lose_in_territory(w, loser, b.territory, b.margin, "battle")
    b = w.battle
    assert b is not None
    if b.siege:
        if b.winner is b.attacker:
            declare_winner(w, (b.attacker,), f"conquered the castle {b.territory}")
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
        del w.occ[b.territory]
        w.emit(ev.ControlLost(b.defender, b.territory))
    if b.attacker_knights:
        w.occ[b.territory] = (b.attacker, b.attacker_knights)
        w.set_battle(attacker_knights=0)
    # The attacker's conquest is complete once step 9 has applied the territory's abilities (R45): only then
    # is their control judged (marshlands taken with one knight is never held).
    w.control_dirty.add(b.defender)


def end_battle(w: Work, cause: str) -> None:
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
    w.emit(ev.BattleEnded(b.territory, b.winner, cause))


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
    w.emit(ev.ConflictPlayed(colour))


def _check_dice(s: GameState, a: A.RollDice, head: Pending | None) -> Verdict:
    assert head is not None
    if len(a.values) != head.n:
        return refuse(
            Reason.BAD_DICE, f"{head.n} dice are needed for the {head.tag}, got {len(a.values)}.", Rule.BATTLE
        )
    for v in a.values:
        if not isinstance(v, int) or not 1 <= v <= 6:
            return refuse(Reason.BAD_DICE, f"A die shows 1 to 6, not {v!r}.", Rule.BATTLE)
    return ACCEPTED


def _check_conflict(s: GameState, a: A.PlayConflict, head: Pending | None) -> Verdict:
    if a.card is None:
        if s.knowledge is Knowledge.FULL and may_hold_kind(s, a.player, CONFLICT_KINDS):
            return refuse(
                Reason.MUST_PLAY_CONFLICT,
                "You hold a conflict card, so you must play one; only a "
                "player without one battles with a conflict value of 0.",
                Rule.BATTLE_4,
            )
        if s.knowledge is Knowledge.TABLE:
            fewest = table_conflict_bound(s, a.player)[0]
            if fewest > 0:
                p = s.players[a.player]
                return refuse(
                    Reason.MUST_PLAY_CONFLICT,
                    f"{who(a.player)} holds {p.hand_size} cards, and at most {p.hand_size - fewest} of the "
                    "cards not yet discarded are not conflict cards, so they must hold a conflict card.",
                    Rule.R46,
                )
        return ACCEPTED
    return (
        holds(s, a.player, a.card, Rule.BATTLE_4)
        or kind_is(s, a.card, (CardKind.CONFLICT, CardKind.AMBUSH), "a conflict card", Rule.BATTLE_4)
        or ACCEPTED
    )


def _check_support(s: GameState, a: A.PlaySupport, head: Pending | None) -> Verdict:
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
    return ACCEPTED


def _dice(w: Work, a: A.RollDice) -> None:
    head = w.pending.pop(0)
    w.emit(ev.DiceRolled(a.player, a.values, a.source, head.tag))
    b = w.battle
    assert b is not None
    attacker = a.player is b.attacker
    if head.tag == "arena":  # resolved by the ARENA stage once both dice are in
        if attacker:
            w.set_battle(attacker_arena_roll=a.values[0])
        else:
            w.set_battle(defender_arena_roll=a.values[0])
    elif head.tag == "ambush":
        if attacker:
            w.set_battle(attacker_conflict_value=a.values[0])
        else:
            w.set_battle(defender_conflict_value=a.values[0])
        w.emit_scores("ambush")
    elif head.tag == "mayhem":
        mayhem_roll(w, a.values)


def _conflict(w: Work, a: A.PlayConflict) -> None:
    head = w.pending[0]
    record_conflict(w, a.player, a.card)
    left = tuple(c for c in head.players if c is not a.player)
    if left:
        w.pending[0] = Pending(Need.CONFLICT, players=left)
    else:
        w.pending.pop(0)


def _support_played(w: Work, a: A.PlaySupport) -> None:
    head = w.pending[0]
    rotated = (*head.players[1:], head.players[0])
    if not a.cards:
        passes = head.n + 1
        if passes >= len(head.players):
            w.pending.pop(0)
        else:
            w.pending[0] = Pending(Need.SUPPORT, players=rotated, n=passes)
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
    w.emit(ev.SupportPlayed(a.player, for_player, a.cards, total))
    w.emit_scores("support cards")
    w.pending[0] = Pending(Need.SUPPORT, players=rotated, n=0)



def _dice_options(s: GameState, head: Pending | None) -> Iterator[A.RollDice]:
    """Every result of up to two dice; for three or more (mayhem) one result per face value (R44)."""
    assert head is not None and head.actor is not None
    if head.n <= 2:
        for values in itertools.product(range(1, 7), repeat=head.n):
            yield A.RollDice(head.actor, values, DiceSource.SIMULATION)
    else:
        for v in range(1, 7):
            yield A.RollDice(head.actor, (v,) * head.n, DiceSource.SIMULATION)


def _conflict_options(s: GameState, head: Pending | None) -> Iterator[A.PlayConflict]:
    assert head is not None
    for colour in head.players:
        if s.knowledge is Knowledge.FULL:
            cards = cards_of(s, colour, CONFLICT_KINDS)
            none_ok = not cards
        else:
            fewest, most = table_conflict_bound(s, colour)
            cards = cards_of(s, colour, CONFLICT_KINDS) if most > 0 else []
            none_ok = fewest == 0
        yield from (A.PlayConflict(colour, c) for c in cards)
        if none_ok:
            yield A.PlayConflict(colour, None)


def _support_options(s: GameState, head: Pending | None) -> Iterator[A.PlaySupport]:
    assert head is not None
    actor = head.players[0]
    yield A.PlaySupport(actor, ())
    cards = cards_of(s, actor, frozenset({CardKind.SUPPORT}))
    most = len(cards) if s.knowledge is Knowledge.FULL else min(len(cards), s.players[actor].hand_size)
    for n in range(1, most + 1):
        yield from (A.PlaySupport(actor, combo) for combo in itertools.combinations(cards, n))


ROLL_DICE = Move(A.RollDice, _check_dice, _dice, _dice_options, answers=Need.DICE)
PLAY_CONFLICT = Move(A.PlayConflict, _check_conflict, _conflict, _conflict_options, answers=Need.CONFLICT)
PLAY_SUPPORT = Move(A.PlaySupport, _check_support, _support_played, _support_options, answers=Need.SUPPORT)

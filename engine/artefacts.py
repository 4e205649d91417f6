"""Artefacts (Iconography pp.6-7, Fracture and Use Crowns p.8, Restore Artefacts p.13): who holds what, the
fracture windows, destroying and restoring, the six crowns, and the sceptres and orbs a battle applies.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from engine import actions as A
from engine import events as ev
from engine.cards import (
    discard_card,
    draw,
    holds_resource,
    may_hold,
    possible_cards,
    reshuffle_discard,
    shuffle_seeded,
    to_discard,
)
from engine.catalogue import Affected, ArtefactSpec, ArtefactTiming, ArtefactType, CardKind, Effect
from engine.colours import Colour
from engine.decisions import (
    CorruptionTarget,
    CrownEffect,
    FractureMoment,
    FractureWindow,
    InsightArrangement,
    OptionalDiscard,
    OrderReturn,
    ProsperityChoiceWindow,
    RandomDiscard,
    SceptreChoice,
    VitalityRedistribution,
)
from engine.knights import gain_castle, lose_in_territory
from engine.moves import OPEN_STEPS, Move, MoveKind, Prompt, on_turn_only, waiting_first
from engine.rulebook import Rule
from engine.state import ArtefactHolding, GameState, defender_knights
from engine.verdict import Reason, Verdict, accept, name_of, refuse, who
from engine.work import Work

SIX = 6  # Greed, Resurgence: draw until six cards in hand

def find_artefact(w: Work | GameState, artefact: str) -> tuple[Colour, ArtefactHolding] | None:
    """Who holds an artefact, and how (face up or destroyed); None when nobody does."""
    for c, p in w.players.items():
        for a in p.artefacts:
            if a.id == artefact:
                return c, a
    return None


def artefact_owner(w: Work | GameState, artefact: str) -> Colour | None:
    found = find_artefact(w, artefact)
    return None if found is None else found[0]


def holding(
    w: Work | GameState, colour: Colour, a_type: ArtefactType
) -> tuple[ArtefactHolding, ArtefactSpec] | None:
    for a in w.players[colour].artefacts:
        spec = w.data.artefacts[a.id]
        if spec.type is a_type:
            return a, spec
    return None


def face_up(w: Work | GameState, artefact: str) -> bool:
    found = find_artefact(w, artefact)
    return found is not None and found[1].face_up


def destroy(w: Work, artefact: str, by: Colour, cause: str, rule: Rule) -> None:
    owner = artefact_owner(w, artefact)
    assert owner is not None
    p = w.players[owner]
    arts = tuple(ArtefactHolding(a.id, w.turn) if a.id == artefact else a for a in p.artefacts)
    w.set_player(owner, artefacts=arts)
    w.emit(ev.ArtefactDestroyed(owner, artefact, by, cause, rule=rule))


def restore_artefacts(w: Work, colour: Colour) -> None:
    """End of turn: restore artefacts destroyed on a previous turn, not those destroyed this turn (p.13)."""
    p = w.players[colour]
    if all(a.destroyed_on is None or a.destroyed_on >= w.turn for a in p.artefacts):
        return
    arts: list[ArtefactHolding] = []
    for a in p.artefacts:
        if a.destroyed_on is not None and a.destroyed_on < w.turn:
            arts.append(ArtefactHolding(a.id))
            w.emit(ev.ArtefactRestored(colour, a.id, rule=Rule.RESTORE))
        else:
            arts.append(a)
    w.set_player(colour, artefacts=tuple(arts))


def fracture_window(
    w: Work, start: Colour, targets: tuple[str, ...], moment: FractureMoment, skip_start: bool
) -> None:
    """Open a fracture window on `targets`: each player in turn clockwise from `start` (p.8)."""
    order = w.clockwise_from(start)
    if skip_start:
        order = order[1:]
    if targets:
        w.stage(FractureWindow(order, targets, moment))


def can_fracture(w: Work | GameState, colour: Colour, targets: tuple[str, ...]) -> bool:
    fracture = w.data.card_of_kind.get(CardKind.FRACTURE)
    if fracture is None or not may_hold(w, colour, fracture):
        return False
    for t in targets:
        found = find_artefact(w, t)
        if found is not None and found[0] is not colour and found[1].face_up:
            return True
    return False


def apply_crown(w: Work, d: CrownEffect) -> bool:
    """Once the crown's fracture window has closed: its effect, unless a fracture destroyed it."""
    w.pending.pop(0)
    crown, owner, affected = d.crown, d.actor, d.affected
    if not face_up(w, crown):
        return True  # negated by a fracture
    spec = w.data.artefacts[crown]
    w.emit(ev.ArtefactApplied(owner, crown, affected, rule=Rule.ICONS))
    effect = spec.effect
    if effect is Effect.REDISTRIBUTE_AGAIN:
        w.stage(VitalityRedistribution(owner))
    elif effect is Effect.LOOK_TOP_FOUR:
        p = w.players[affected]
        if p.deck_size < 4:
            reshuffle_discard(w, affected, "crown of insight", Rule.CROWNS, under=True)  # its note, p.8
            p = w.players[affected]
        n = min(4, p.deck_size)
        top = p.deck[:n] if w.full else ()
        w.emit(ev.TopCardsLooked(owner, affected, n, top, rule=Rule.ICONS))
        if n:
            w.stage(InsightArrangement(owner, affected, top, n))
    elif effect is Effect.SHUFFLE_DISCARD_INTO_DECK:
        p = w.players[affected]
        eligible = tuple(sorted({c for c, t in p.discard if t < w.turn}))
        if eligible:
            w.stage(OrderReturn(owner, affected, eligible))
    elif effect is Effect.DISCARD_ANY_CARD:
        if w.players[affected].hand_size:
            w.stage(OptionalDiscard(affected, "fury"))
    elif effect is Effect.DESTROY_ARTEFACT:
        targets = tuple(a.id for a in w.players[affected].artefacts if a.face_up)
        if targets:
            w.stage(CorruptionTarget(owner, affected, targets))
    elif effect is Effect.LOOK_TOP_CARD:
        p = w.players[affected]
        if p.deck_size == 0:
            reshuffle_discard(w, affected, "crown of prosperity", Rule.R28)
            p = w.players[affected]
        if p.deck_size:
            top = p.deck[:1] if w.full else ()
            w.emit(ev.TopCardsLooked(owner, affected, 1, top, rule=Rule.ICONS))
            w.stage(ProsperityChoiceWindow(owner, affected, top))
    return True


def _sceptre_applies(spec: ArtefactSpec, attacking: bool) -> bool:
    want = ArtefactTiming.BEFORE_CONFLICT_ATTACKING if attacking else ArtefactTiming.BEFORE_CONFLICT_DEFENDING
    return spec.timing is want


def _orb_applies(spec: ArtefactSpec, won: bool) -> bool:
    want = ArtefactTiming.AFTER_RESULT_WIN if won else ArtefactTiming.AFTER_RESULT_LOSE
    return spec.timing is want


def battle_artefacts(w: Work, a_type: ArtefactType) -> list[tuple[Colour, str]]:
    """The participants' artefacts of a type whose ability applies now, attacker first (R35)."""
    b = w.battle
    assert b is not None
    out: list[tuple[Colour, str]] = []
    for colour in (b.attacker, b.defender):
        h = holding(w, colour, a_type)
        if h is None or not h[0].face_up:
            continue
        sceptre = a_type is ArtefactType.SCEPTRE and _sceptre_applies(h[1], colour is b.attacker)
        orb = a_type is ArtefactType.ORB and b.winner is not None and _orb_applies(h[1], colour is b.winner)
        if sceptre or orb:
            out.append((colour, h[0].id))
    return out


def at_stake(w: Work, a_type: ArtefactType) -> tuple[str, ...]:
    """What a battle's fracture window can hit (steps 3 and 7, R25): every face-up sceptre (or orb) of the
    attacker and the defender, attacker first, whether or not its ability is about to apply. (The first
    edition of R25: only those about to apply.)"""
    if w.config.rulings < 2:
        return tuple(a for _, a in battle_artefacts(w, a_type))
    b = w.battle
    assert b is not None
    out = []
    for colour in (b.attacker, b.defender):
        h = holding(w, colour, a_type)
        if h is not None and h[0].face_up:
            out.append(h[0].id)
    return tuple(out)


def apply_sceptre(w: Work, owner: Colour, art: str) -> None:
    b = w.battle
    assert b is not None
    spec = w.data.artefacts[art]
    rival = b.rival(owner)
    affected = rival if spec.affected is Affected.RIVAL else owner
    w.emit(ev.ArtefactApplied(owner, art, affected, rule=Rule.BATTLE_3))
    if spec.effect is Effect.PLUS_ONE:
        if owner is b.attacker:
            w.set_battle(attacker_bonus=b.attacker_bonus + 1)
        else:
            w.set_battle(defender_bonus=b.defender_bonus + 1)
        w.emit_scores(spec.name, Rule.ICONS)
    elif spec.effect is Effect.MATCH_RIVAL_KNIGHTS:
        w.stage(SceptreChoice(owner, art))
    elif spec.effect is Effect.DISCARD_RANDOM_CARD and w.players[rival].hand_size:
        w.stage(RandomDiscard(rival, spec.name))


def apply_orb(w: Work, owner: Colour, art: str) -> None:
    b = w.battle
    assert b is not None
    spec = w.data.artefacts[art]
    rival = b.rival(owner)
    affected = rival if spec.affected is Affected.RIVAL else owner
    w.emit(ev.ArtefactApplied(owner, art, affected, rule=Rule.BATTLE_7))
    effect = spec.effect
    if effect is Effect.DRAW_TO_SIX:
        need = SIX - w.players[owner].hand_size
        if need > 0:
            draw(w, owner, need, spec.name, Rule.ICONS)
    elif effect is Effect.DISCARD_ANY_CARD:
        if w.players[owner].hand_size:
            w.stage(OptionalDiscard(owner, spec.name))
    elif effect is Effect.LOSE_KNIGHT:
        lose_in_territory(w, rival, b.territory, 1, spec.name, rule=Rule.ICONS)
    elif effect is Effect.PLACE_KNIGHT_IN_CASTLE:
        gain_castle(w, owner, 1, spec.name, Rule.ICONS)



def _fracture_target(s: GameState, a: A.PlayFracture, targets: tuple[str, ...] | None) -> Verdict | None:
    if a.target not in s.data.artefacts:
        return refuse(Reason.UNKNOWN_ARTEFACT, f"{a.target!r} is not an artefact (A01..A18).", Rule.FRACTURE)
    owner = artefact_owner(s, a.target)
    if owner is None:
        return refuse(
            Reason.NOT_A_TARGET, f"Nobody in this game holds {name_of(s, a.target)}.", Rule.FRACTURE
        )
    if owner is a.player:
        return refuse(
            Reason.OWN_ARTEFACT,
            "A fracture card destroys another player's artefact, not your own.",
            Rule.FRACTURE,
        )
    if not face_up(s, a.target):
        return refuse(
            Reason.ARTEFACT_DESTROYED, f"{name_of(s, a.target)} is already destroyed.", Rule.FRACTURE
        )
    if targets is not None and a.target not in targets:
        names = ", ".join(name_of(s, t) for t in targets)
        return refuse(
            Reason.NOT_A_TARGET, f"In this window a fracture card can only hit {names}.", Rule.FRACTURE
        )
    return None




def _check_use_crown(s: GameState, a: A.UseCrown, _: None) -> Verdict:
    if s.crown_used:
        return refuse(
            Reason.CROWN_ALREADY_USED, "A crown can be used only once during each of your turns.", Rule.CROWNS
        )
    h = holding(s, a.player, ArtefactType.CROWN)
    if h is None:
        return refuse(Reason.NOT_APPLICABLE, f"{who(a.player)} holds no crown.", Rule.CROWNS)
    crown, spec = h
    if not crown.face_up:
        return refuse(
            Reason.ARTEFACT_DESTROYED, f"{spec.name} is destroyed until it is restored.", Rule.RESTORE
        )
    if spec.affected is Affected.ANY:
        if a.affected is None:
            return refuse(
                Reason.NOT_APPLICABLE, f"{spec.name} needs an affected player: name any player.", Rule.ICONS
            )
        if a.affected not in s.players:
            return refuse(
                Reason.UNKNOWN_PLAYER, f"{a.affected.value!r} is not playing in this game.", Rule.ICONS
            )
    elif a.affected not in (None, a.player):
        return refuse(Reason.NOT_APPLICABLE, f"{spec.name} always affects its owner.", Rule.ICONS)
    on = f" on {who(a.affected)}" if spec.affected is Affected.ANY and a.affected is not None else ""
    return accept(
        f"{who(a.player)} announces the {spec.name}{on}: from the next player on, anyone may fracture it "
        "before it applies.",
        Rule.CROWNS,
    )


def _check_fracture(s: GameState, a: A.PlayFracture, d: FractureWindow | None) -> Verdict:
    targets = None if d is None else d.targets
    refused = _fracture_target(s, a, targets) or holds_resource(s, a.player, CardKind.FRACTURE)
    if refused is not None:
        return refused
    owner = artefact_owner(s, a.target)
    assert owner is not None
    hit = f"{who(a.player)} plays a fracture card on {who(owner)}'s {name_of(s, a.target)}"
    if d is None:
        return accept(f"{hit}: it is destroyed.", Rule.R23)
    if d.moment is FractureMoment.CROWN:
        return accept(f"{hit}: it is destroyed and its ability negated.", Rule.FRACTURE)
    return accept(f"{hit}: it is destroyed and does not apply in this battle.", d.rule)


def _check_pass(s: GameState, a: A.PassFracture, d: FractureWindow) -> Verdict:
    return accept(f"{who(a.player)} plays no fracture card.", d.rule)


def _check_pass_round(s: GameState, a: A.PassFractureRound, head: FractureWindow) -> Verdict:
    if a.upto is not None and a.upto not in head.players[1:]:
        still = ", ".join(who(c) for c in head.players[1:]) or "nobody"
        return refuse(
            Reason.NOT_ELIGIBLE,
            f"{who(a.upto)} is not still to decide in this fracture window (after "
            f"{who(a.player)}: {still}).",
            Rule.R47,
        )
    if a.upto is not None and not can_fracture(s, a.upto, head.targets):
        return refuse(
            Reason.NOT_ELIGIBLE,
            f"{who(a.upto)} cannot play a fracture card on any artefact at stake here (no fracture card "
            "that could be in their hand, or only their own artefacts are at stake).",
            Rule.R47,
        )
    if a.upto is None:
        return accept("Nobody else plays a fracture card in this window.", Rule.R47)
    return accept(f"Nobody plays a fracture card before {who(a.upto)}.", Rule.R47)


def _check_equalise(s: GameState, a: A.Equalise, d: SceptreChoice) -> Verdict:
    name = name_of(s, d.artefact)
    if a.use:
        return accept(f"{who(a.player)} battles as though with their rival's number of knights ({name}).",
                      Rule.R36)
    return accept(f"{who(a.player)} keeps their own number of knights ({name}).", Rule.R36)


def _check_arrange(s: GameState, a: A.ArrangeTop, d: InsightArrangement) -> Verdict:
    if not d.cards:  # a TABLE game: the engine never saw them
        if a.order:
            return refuse(
                Reason.BAD_ORDER,
                "In a table game the cards stay secret: confirm with an empty order.",
                Rule.ICONS,
            )
        return accept(f"{who(a.player)} puts the cards back in the order they chose.", Rule.ICONS)
    if sorted(a.order) != sorted(d.cards):
        return refuse(
            Reason.BAD_ORDER,
            f"Put back exactly the cards looked at ({', '.join(d.cards)}), "
            f"got {', '.join(a.order) or 'none'}.",
            Rule.ICONS,
        )
    return accept(f"{who(a.player)} puts the cards back in the order they chose.", Rule.ICONS)


def _check_return(s: GameState, a: A.ReturnCard, d: OrderReturn) -> Verdict:
    if a.card not in d.eligible:
        return refuse(
            Reason.NOT_ELIGIBLE,
            f"{name_of(s, a.card)} is not in the discard pile from a previous turn; "
            "the Crown of Order takes a card discarded before this turn.",
            Rule.R29,
        )
    return accept(f"{name_of(s, a.card)} is shuffled back into {who(d.subject)}'s deck.", Rule.R29)


def _check_destroy(s: GameState, a: A.DestroyArtefact, d: CorruptionTarget) -> Verdict:
    if a.artefact not in d.artefacts:
        return refuse(
            Reason.NOT_A_TARGET,
            f"{name_of(s, a.artefact)} is not a face-up artefact of {who(d.subject)}.",
            Rule.ICONS,
        )
    return accept(f"{who(a.player)} destroys {who(d.subject)}'s {name_of(s, a.artefact)}.", Rule.ICONS)


def _check_prosperity(s: GameState, a: A.ProsperityChoice, d: ProsperityChoiceWindow) -> Verdict:
    subject = d.subject
    if not a.discard:
        if a.card is not None:
            return refuse(Reason.BAD_ORDER, "Leaving the card on top names no card.", Rule.ICONS)
        return accept(f"The top card of {who(subject)}'s deck stays on top.", Rule.ICONS)
    if d.top:  # the engine knows the card (FULL games)
        if a.card not in (None, d.top[0]):
            return refuse(
                Reason.NOT_A_TARGET,
                f"The top card is {name_of(s, d.top[0])}, not {name_of(s, a.card or '')}.",
                Rule.ICONS,
            )
        return accept(f"The top card of {who(subject)}'s deck is discarded.", Rule.ICONS)
    if a.card is None:
        return refuse(Reason.UNKNOWN_CARD, "Name the card discarded from the top of the deck.", Rule.ICONS)
    if a.card not in s.data.cards:
        return refuse(Reason.UNKNOWN_CARD, f"{a.card!r} is not a card of the deck.", Rule.COMPONENTS)
    if a.card not in possible_cards(s, subject):
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{name_of(s, a.card)} is in {who(subject)}'s discard pile or "
            "in play, so it cannot be on top of their deck.",
            Rule.R40,
        )
    return accept(f"The top card of {who(subject)}'s deck is discarded.", Rule.ICONS)


def _fracture(w: Work, a: A.PlayFracture, d: FractureWindow | None) -> None:
    card = w.data.card_of_kind[CardKind.FRACTURE]
    discard_card(w, a.player, card, None)
    w.emit(ev.CardPlayed(a.player, card, CardKind.FRACTURE.value, rule=Rule.FRACTURE))
    destroy(w, a.target, a.player, "fracture", Rule.FRACTURE)
    if d is not None:  # the window moves on to the next player, without the artefact just destroyed
        targets = tuple(t for t in d.targets if t != a.target)
        w.pending[0] = FractureWindow(d.players[1:], targets, d.moment)


def _pass_fracture(w: Work, a: A.PassFracture, d: FractureWindow) -> None:
    w.pending[0] = FractureWindow(d.players[1:], d.targets, d.moment)
    w.emit(ev.FracturePassed(a.player, rule=d.rule))


def _pass_fracture_round(w: Work, a: A.PassFractureRound, d: FractureWindow) -> None:
    cut = len(d.players) if a.upto is None else d.players.index(a.upto)
    for colour in d.players[:cut]:
        w.emit(ev.FracturePassed(colour, rule=Rule.R47))
    if cut >= len(d.players):
        w.pending.pop(0)
    else:
        w.pending[0] = FractureWindow(d.players[cut:], d.targets, d.moment)


def _use_crown(w: Work, a: A.UseCrown, _: None) -> None:
    h = holding(w, a.player, ArtefactType.CROWN)
    assert h is not None
    crown = h[0].id
    affected = a.affected if h[1].affected is Affected.ANY else a.player
    w.crown_used = True
    w.emit(ev.CrownAnnounced(a.player, crown, affected, rule=Rule.CROWNS))
    # The fracture window opens from the crown's owner clockwise; the owner cannot fracture their own crown.
    fracture_window(w, a.player, (crown,), FractureMoment.CROWN, skip_start=True)
    w.stage(CrownEffect(a.player, crown, affected or a.player))


def _equalise(w: Work, a: A.Equalise, _: SceptreChoice) -> None:
    w.pending.pop(0)
    b = w.battle
    assert b is not None
    if not a.use:
        return
    if a.player is b.attacker:
        w.set_battle(attacker_equal=True)
        w.emit(ev.KnightsMatched(a.player, 8 if b.siege else defender_knights(w, b), rule=Rule.R36))
    else:
        w.set_battle(defender_equal=True)
        w.emit(ev.KnightsMatched(a.player, b.attacker_knights, rule=Rule.R36))
    w.emit_scores("matched knights", Rule.ICONS)


def _arrange(w: Work, a: A.ArrangeTop, d: InsightArrangement) -> None:
    w.pending.pop(0)
    if w.full and a.order:
        p = w.players[d.subject]
        w.set_player(d.subject, deck=(*a.order, *p.deck[len(a.order) :]))


def _return(w: Work, a: A.ReturnCard, d: OrderReturn) -> None:
    w.pending.pop(0)
    subject = d.subject
    p = w.players[subject]
    discard = list(p.discard)
    for i, (card, turn) in enumerate(discard):
        if card == a.card and turn < w.turn:
            del discard[i]
            break
    if w.full:
        deck = shuffle_seeded(w, subject, [*p.deck, a.card])
        w.set_player(subject, discard=tuple(discard), deck=tuple(deck), deck_size=len(deck))
    else:
        w.set_player(subject, discard=tuple(discard), deck_size=p.deck_size + 1)
    w.emit(ev.CardReturned(subject, a.card, rule=Rule.R29))
    w.emit(ev.DeckShuffled(subject, w.players[subject].deck_size, "crown of order", rule=Rule.ICONS))


def _destroy(w: Work, a: A.DestroyArtefact, _: CorruptionTarget) -> None:
    w.pending.pop(0)
    destroy(w, a.artefact, a.player, "crown of corruption", Rule.ICONS)


def _prosperity(w: Work, a: A.ProsperityChoice, d: ProsperityChoiceWindow) -> None:
    w.pending.pop(0)
    if not a.discard:
        return
    subject = d.subject
    p = w.players[subject]
    if w.full:
        card = p.deck[0]
        w.set_player(subject, deck=p.deck[1:], deck_size=p.deck_size - 1)
    else:
        assert a.card is not None
        card = a.card
        w.set_player(subject, deck_size=p.deck_size - 1)
    to_discard(w, subject, card)
    w.emit(ev.CardDiscarded(subject, card, "crown of prosperity", rule=Rule.ICONS))



# --- generators --------------------------------------------------------------------------------------------


def _fracture_options(s: GameState, d: FractureWindow | None) -> Iterator[A.PlayFracture]:
    if d is None:  # on your own turn: any face-up artefact of another player (R23)
        me = s.current
        if may_hold(s, me, s.data.card_of_kind[CardKind.FRACTURE]):
            for c in s.order:
                if c is not me:
                    yield from (A.PlayFracture(me, a.id) for a in s.players[c].artefacts if a.face_up)
        return
    actor = d.players[0]
    if can_fracture(s, actor, d.targets):
        for t in d.targets:
            if artefact_owner(s, t) is not actor and face_up(s, t):
                yield A.PlayFracture(actor, t)


def _pass_options(s: GameState, d: FractureWindow) -> Iterator[A.PassFracture]:
    yield A.PassFracture(d.players[0])


def _pass_round_options(s: GameState, d: FractureWindow) -> Iterator[A.PassFractureRound]:
    actor = d.players[0]
    if len(d.players) > 1:
        yield A.PassFractureRound(actor)
        for later in d.players[1:]:
            if can_fracture(s, later, d.targets):
                yield A.PassFractureRound(actor, later)


def _crown_options(s: GameState, _: None) -> Iterator[A.UseCrown]:
    me = s.current
    if s.crown_used:
        return
    h = holding(s, me, ArtefactType.CROWN)
    if h is None or not h[0].face_up:
        return
    if h[1].affected is Affected.ANY:
        yield from (A.UseCrown(me, c) for c in s.order)
    else:
        yield A.UseCrown(me)


def _equalise_options(s: GameState, d: SceptreChoice) -> Iterator[A.Equalise]:
    yield A.Equalise(d.actor, True)
    yield A.Equalise(d.actor, False)


def _arrange_options(s: GameState, d: InsightArrangement) -> Iterator[A.ArrangeTop]:
    if d.cards:
        for order in sorted(set(itertools.permutations(d.cards))):
            yield A.ArrangeTop(d.actor, order)
    else:
        yield A.ArrangeTop(d.actor, ())


def _return_options(s: GameState, d: OrderReturn) -> Iterator[A.ReturnCard]:
    yield from (A.ReturnCard(d.actor, c) for c in d.eligible)


def _destroy_options(s: GameState, d: CorruptionTarget) -> Iterator[A.DestroyArtefact]:
    yield from (A.DestroyArtefact(d.actor, t) for t in d.artefacts)


def _prosperity_options(s: GameState, d: ProsperityChoiceWindow) -> Iterator[A.ProsperityChoice]:
    yield A.ProsperityChoice(d.actor, False)
    if d.top:
        yield A.ProsperityChoice(d.actor, True)
    else:
        yield from (A.ProsperityChoice(d.actor, True, c) for c in sorted(possible_cards(s, d.subject)))


# --- moves -------------------------------------------------------------------------------------------------


def _no_window(s: GameState, a: A.Action) -> Verdict:
    if s.pending:
        return waiting_first(s, a)
    return refuse(Reason.WRONG_STEP, "No fracture window is open now.", Rule.FRACTURE)


def _only_after(crown: str) -> Callable[[GameState, A.Action], Verdict]:
    def not_now(s: GameState, a: A.Action) -> Verdict:
        if s.pending:
            return waiting_first(s, a)
        return refuse(Reason.WRONG_STEP, f"That is decided only when the {crown} applies.", Rule.ICONS)

    return not_now


def _equalise_not_now(s: GameState, a: A.Equalise) -> Verdict:
    if s.pending:
        return waiting_first(s, a)
    return refuse(
        Reason.WRONG_STEP,
        "The Sceptres of Fear and Vigour apply at step 3 of a battle, before the conflict cards.",
        Rule.BATTLE_3,
    )


PLAY_FRACTURE = Move(
    A.PlayFracture,
    _check_fracture,
    _fracture,
    _fracture_options,
    on_turn_only(
        "In a battle a fracture card is played only in its windows, just before the sceptres or the orbs "
        "apply.",
        Rule.FRACTURE,
        "A fracture card cannot be played between your redistribution and your advance.",
        Rule.FRACTURE,
    ),
    prompt=Prompt("Fracture {target:artefact}"), kind=MoveKind.FRACTURE, answers=FractureWindow,
    on_turn=OPEN_STEPS,
)
PASS_FRACTURE = Move(
    A.PassFracture,
    _check_pass,
    _pass_fracture,
    _pass_options,
    _no_window,
    prompt=Prompt("No fracture"),
    kind=MoveKind.PASS,
    answers=FractureWindow,
)
PASS_FRACTURE_ROUND = Move(
    A.PassFractureRound,
    _check_pass_round,
    _pass_fracture_round,
    _pass_round_options,
    _no_window,
    prompt=Prompt(
        "Nobody plays a fracture card before {upto:player}",
        absent="Nobody else plays a fracture card",
        when="upto",
    ),
    kind=MoveKind.PASS,
    kind_absent=MoveKind.PASS_ALL,  # nobody named: everyone still to decide passes, in one answer
    answers=FractureWindow,
)
USE_CROWN = Move(
    A.UseCrown,
    _check_use_crown,
    _use_crown,
    _crown_options,
    on_turn_only(
        "Crowns cannot be used during a battle.",
        Rule.CROWNS,
        "Crowns cannot be used between your redistribution and your advance.",
        Rule.CROWNS,
    ),
    prompt=Prompt("Use crown → {affected:player}", absent="Use crown", when="affected"),
    kind=MoveKind.CROWN,
    history=Prompt(
        "{player:player} used the {player:crown} → {affected:player}",
        absent="{player:player} used the {player:crown}",
        when="affected",
    ),
    on_turn=OPEN_STEPS,
)
EQUALISE = Move(
    A.Equalise,
    _check_equalise,
    _equalise,
    _equalise_options,
    _equalise_not_now,
    prompt=Prompt("Battle as equals", absent="Keep my knights", when="use"),
    kind=MoveKind.SCEPTRE,
    answers=SceptreChoice,
)
ARRANGE_TOP = Move(
    A.ArrangeTop, _check_arrange, _arrange, _arrange_options, _only_after("Crown of Insight"),
    prompt=Prompt("Cards put back"), kind=MoveKind.CROWN, answers=InsightArrangement,
)
RETURN_CARD = Move(
    A.ReturnCard,
    _check_return,
    _return,
    _return_options,
    _only_after("Crown of Order"),
    prompt=Prompt("Return {card:card}"),
    kind=MoveKind.CROWN,
    answers=OrderReturn,
)
DESTROY_ARTEFACT = Move(
    A.DestroyArtefact, _check_destroy, _destroy, _destroy_options, _only_after("Crown of Corruption"),
    prompt=Prompt("Destroy {artefact:artefact}"), kind=MoveKind.CROWN, answers=CorruptionTarget,
)
PROSPERITY_CHOICE = Move(
    A.ProsperityChoice,
    _check_prosperity,
    _prosperity,
    _prosperity_options,
    _only_after("Crown of Prosperity"),
    prompt=Prompt("Discard the top card", absent="Leave the top card", when="discard"),
    kind=MoveKind.CROWN,
    answers=ProsperityChoiceWindow,
)


# --- decisions nobody can answer otherwise -----------------------------------------------------------------


def nobody_to_fracture(w: Work, d: FractureWindow) -> bool:
    """Skip the players who cannot play a fracture card on anything still at stake (R25); close the window
    when nobody is left. True when the window closed."""
    targets = tuple(t for t in d.targets if face_up(w, t))
    players = d.players
    while players and not can_fracture(w, players[0], targets):
        players = players[1:]
    if not players or not targets:
        w.pending.pop(0)
        return True
    if players != d.players or targets != d.targets:
        w.pending[0] = FractureWindow(players, targets, d.moment)
    return False

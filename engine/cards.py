"""Cards (Components p.2, Play Resources p.8, Order of Battle step 2): hands, decks and discard piles,
drawing (authority is played as soon as a draw is over), what a hand can hold in a TABLE game (R40, R46), and
the moves of the resource cards and of discarding.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import actions as A
from engine import events as ev
from engine.catalogue import CardKind
from engine.colours import Colour
from engine.decisions import AuthorityDraw, OptionalDiscard, RandomDiscard
from engine.knights import gain_castle
from engine.moves import OPEN_STEPS, Move, MoveKind, Prompt, on_turn_only, waiting_first
from engine.rulebook import Rule
from engine.state import GameState, Knowledge
from engine.verdict import Reason, Verdict, accept, name_of, refuse, who
from engine.work import Work

CONFLICT_KINDS = frozenset({CardKind.CONFLICT, CardKind.AMBUSH})
SUPPORT_KINDS = frozenset({CardKind.SUPPORT})


ALL_KINDS = frozenset(CardKind)


def in_play(w: Work | GameState, colour: Colour) -> set[str]:
    b = w.battle
    out: set[str] = set()
    if b is None:
        return out
    if b.attacker is colour and b.attacker_conflict is not None:
        out.add(b.attacker_conflict)
    if b.defender is colour and b.defender_conflict is not None:
        out.add(b.defender_conflict)
    for by, card, _ in b.support:
        if by is colour:
            out.add(card)
    return out


def possible_cards(s: Work | GameState, colour: Colour) -> set[str]:
    """TABLE mode: the cards that can still be in a player's hand or deck (not in the public discard or in
    play)."""
    p = s.players[colour]
    out = set(s.data.deck)
    out.difference_update(c for c, _ in p.discard)
    out.difference_update(in_play(s, colour))
    return out


def hand_known(s: Work | GameState, colour: Colour) -> bool:
    """Whether the cards in a hand are known: always in FULL games, and in a player's view their own
    (`engine.view.player_view`); in TABLE games only what is public is (R40)."""
    if s.knowledge is Knowledge.FULL:
        return True
    p = s.players[colour]
    return len(p.hand) == p.hand_size > 0


def may_hold(s: Work | GameState, colour: Colour, card: str) -> bool:
    p = s.players[colour]
    if hand_known(s, colour):
        return card in p.hand
    return p.hand_size > 0 and card in possible_cards(s, colour)


def may_hold_kind(s: Work | GameState, colour: Colour, kinds: frozenset[CardKind]) -> bool:
    p = s.players[colour]
    cards = s.data.cards
    if hand_known(s, colour):
        return any(cards[c].kind in kinds for c in p.hand)
    return p.hand_size > 0 and any(cards[c].kind in kinds for c in possible_cards(s, colour))


def may_hold_conflict(s: Work | GameState, colour: Colour) -> bool:
    if hand_known(s, colour):
        return may_hold_kind(s, colour, CONFLICT_KINDS)
    return table_conflict_bound(s, colour)[1] > 0


def shuffle_seeded(w: Work, colour: Colour, cards: list[str]) -> list[str]:
    """FULL mode shuffles come from the game's seed and the deck's shuffle count: explicit, replayable."""
    p = w.players[colour]
    rng = random.Random(f"{w.s.config.seed}/{colour.value}/{p.shuffles}")
    rng.shuffle(cards)
    w.set_player(colour, shuffles=p.shuffles + 1)
    return cards


def reshuffle_discard(w: Work, colour: Colour, cause: str, rule: Rule, under: bool = False) -> None:
    """The discard pile becomes the deck (or goes under the remaining deck: Crown of Insight's note)."""
    p = w.players[colour]
    if not p.discard:
        return
    if w.full:
        cards = shuffle_seeded(w, colour, [c for c, _ in p.discard])
        p = w.players[colour]
        deck = (*p.deck, *cards) if under else tuple(cards)
        w.set_player(colour, deck=deck, deck_size=len(deck), discard=())
    else:
        size = p.deck_size + len(p.discard) if under else len(p.discard)
        w.set_player(colour, deck_size=size, discard=())
    w.emit(ev.DeckShuffled(colour, w.players[colour].deck_size, cause, rule=rule))


def draw(w: Work, colour: Colour, n: int, cause: str, rule: Rule) -> None:
    """Draw `n` cards (reshuffling the discard pile when the deck runs out); authority drawn is played at
    once."""
    drawn: list[str] = []
    count = 0
    while count < n:
        p = w.players[colour]
        if p.deck_size == 0:
            if not p.discard:
                break
            reshuffle_discard(w, colour, "deck empty", Rule.BATTLE_2)  # as step 2 says, for every draw
            continue
        take = min(n - count, p.deck_size)
        if w.full:
            cards = p.deck[:take]
            drawn.extend(cards)
            w.set_player(
                colour,
                deck=p.deck[take:],
                deck_size=p.deck_size - take,
                hand=(*p.hand, *cards),
                hand_size=p.hand_size + take,
            )
        else:
            bound = p.conflict_bound
            w.set_player(
                colour,
                deck_size=p.deck_size - take,
                hand_size=p.hand_size + take,
                conflict_bound=None if bound is None else _bound(bound + take, p.hand_size + take),
            )
        count += take
    if count == 0:
        return
    w.emit(ev.CardsDrawn(colour, count, tuple(drawn), rule=rule))
    authority = w.data.card_of_kind.get(CardKind.AUTHORITY)
    if authority is None:
        return
    if w.full:
        if authority in drawn:
            play_authority(w, colour, authority)
    elif authority in possible_cards(w, colour):
        w.stage(AuthorityDraw(colour, count, cause))


def play_authority(w: Work, colour: Colour, authority: str) -> None:
    """Authority: played as soon as the draw is finished, to draw two more cards (p.8, R27)."""
    discard_card(w, colour, authority, None)
    w.emit(ev.CardPlayed(colour, authority, CardKind.AUTHORITY.value, rule=Rule.AUTHORITY))
    draw(w, colour, 2, "authority", Rule.AUTHORITY)


def _bound(bound: int, hand_size: int) -> int | None:
    """A conflict-card bound that says nothing (at least the whole hand) is dropped (R46)."""
    return bound if bound < hand_size else None


def remove_from_hand(w: Work, colour: Colour, card: str) -> None:
    p = w.players[colour]
    if w.full:
        hand = list(p.hand)
        hand.remove(card)
        w.set_player(colour, hand=tuple(hand), hand_size=p.hand_size - 1)
    else:
        size = max(0, p.hand_size - 1)
        bound = p.conflict_bound
        if bound is not None:
            # R46: a conflict card can only be one drawn since the "no conflict card" declaration.
            bound = max(0, bound - 1) if w.data.cards[card].kind in CONFLICT_KINDS else min(bound, size)
            bound = _bound(bound, size)
        w.set_player(colour, hand_size=size, conflict_bound=bound)


def declare_no_conflict_card(w: Work, colour: Colour) -> None:
    """TABLE (R46): the player said they hold no conflict card; remember it against later claims."""
    w.set_player(colour, conflict_bound=_bound(0, w.players[colour].hand_size))


def table_conflict_bound(s: Work | GameState, colour: Colour) -> tuple[int, int]:
    """TABLE (R46): (fewest, most) conflict cards the hand can hold given everything public: the cards that
    can still be in hand or deck, and the player's own earlier "no conflict card" declaration."""
    p = s.players[colour]
    possible = possible_cards(s, colour)
    cards = s.data.cards
    conflict = sum(1 for c in possible if cards[c].kind in CONFLICT_KINDS)
    other = len(possible) - conflict
    most = min(p.hand_size, conflict)
    if p.conflict_bound is not None:
        most = min(most, p.conflict_bound)
    fewest = max(0, p.hand_size - other)
    return fewest, most


def discard_card(w: Work, colour: Colour, card: str, cause: str | None, rule: Rule | None = None) -> None:
    """Move a card from the hand to the discard pile; `cause` None: played (the caller emits CardPlayed)."""
    remove_from_hand(w, colour, card)
    p = w.players[colour]
    w.set_player(colour, discard=(*p.discard, (card, w.turn)))
    if cause is not None:
        w.emit(ev.CardDiscarded(colour, card, cause, rule=rule))


def to_discard(w: Work, colour: Colour, card: str) -> None:
    p = w.players[colour]
    w.set_player(colour, discard=(*p.discard, (card, w.turn)))


def holds(s: GameState, colour: Colour, card: str, rule: Rule) -> Verdict | None:
    """The card must be in the hand (FULL) or possibly in it given everything public (TABLE)."""
    if card not in s.data.cards:
        return refuse(
            Reason.UNKNOWN_CARD, f"{card!r} is not a card of the deck (C01..C18).", Rule.COMPONENTS
        )
    p = s.players[colour]
    if hand_known(s, colour):
        if card not in p.hand:
            return refuse(
                Reason.CARD_NOT_IN_HAND, f"{who(colour)} does not hold {name_of(s, card)}.", rule
            )
        return None
    if p.hand_size == 0:
        return refuse(Reason.EMPTY_HAND, f"{who(colour)} has no cards in hand.", rule)
    if card in in_play(s, colour):
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{name_of(s, card)} is already in play in this battle, so {who(colour)} cannot hold it.",
            Rule.R40,
        )
    if card in p.discard_ids():
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{name_of(s, card)} is face up in {who(colour)}'s discard pile, so it cannot be in their hand.",
            Rule.R40,
        )
    if p.conflict_bound == 0 and s.data.cards[card].kind in CONFLICT_KINDS:
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{who(colour)} declared holding no conflict card and has drawn none since that could be "
            f"{name_of(s, card)}.",
            Rule.R46,
        )
    return None


def kind_is(
    s: GameState, card: str, kinds: tuple[CardKind, ...], what: str, rule: Rule
) -> Verdict | None:
    if s.data.cards[card].kind not in kinds:
        return refuse(Reason.WRONG_CARD_KIND, f"{name_of(s, card)} is not {what}.", rule)
    return None


def holds_resource(s: GameState, colour: Colour, kind: CardKind) -> Verdict | None:
    """The player must (be able to) hold their one card of a resource kind."""
    return holds(s, colour, s.data.card_of_kind[kind], Rule.RESOURCES)


def may_hold_resource(s: GameState, colour: Colour, kind: CardKind) -> bool:
    """Whether `holds_resource` accepts (a resource card is never a conflict card: `may_hold` says it)."""
    return may_hold(s, colour, s.data.card_of_kind[kind])


def cards_of(s: GameState, colour: Colour, kinds: frozenset[CardKind]) -> list[str]:
    cards = s.data.cards
    if hand_known(s, colour):
        pool = sorted(set(s.players[colour].hand))
    else:
        if s.players[colour].hand_size == 0:
            return []
        pool = sorted(possible_cards(s, colour))
        if s.players[colour].conflict_bound == 0:
            kinds = kinds - CONFLICT_KINDS  # R46
    return [c for c in pool if cards[c].kind in kinds]



# --- moves -------------------------------------------------------------------------------------------------


def _check_call_to_arms(s: GameState, a: A.PlayCallToArms, _: None) -> Verdict:
    return holds_resource(s, a.player, CardKind.CALL_TO_ARMS) or accept(
        f"{who(a.player)} plays call to arms: two more knights in their castle.", Rule.CALL_TO_ARMS
    )


def _call_to_arms(w: Work, a: A.PlayCallToArms, _: None) -> None:
    card = w.data.card_of_kind[CardKind.CALL_TO_ARMS]
    discard_card(w, a.player, card, None)
    w.emit(ev.CardPlayed(a.player, card, CardKind.CALL_TO_ARMS.value, rule=Rule.CALL_TO_ARMS))
    gain_castle(w, a.player, 2, "call to arms", Rule.CALL_TO_ARMS)


def _call_to_arms_options(s: GameState, _: None) -> Iterator[A.PlayCallToArms]:
    if may_hold_resource(s, s.current, CardKind.CALL_TO_ARMS):
        yield A.PlayCallToArms(s.current)


CALL_TO_ARMS = Move(
    A.PlayCallToArms,
    _check_call_to_arms,
    _call_to_arms,
    _call_to_arms_options,
    on_turn_only(
        "A call to arms cannot be played during a battle, only before or after your redistribution and "
        "advance.",
        Rule.RESOURCES,
        "A call to arms cannot be played between your redistribution and your advance.",
        Rule.RESOURCES,
    ),
    prompt=Prompt("Call to arms (+2 knights)"), kind=MoveKind.RESOURCE, on_turn=OPEN_STEPS,
)


def _check_tactical(s: GameState, a: A.PlayTacticalAdvance, _: None) -> Verdict:
    return holds_resource(s, a.player, CardKind.TACTICAL_ADVANCE) or accept(
        f"{who(a.player)} plays tactical advance: one more redistribution and advance this turn.",
        Rule.TACTICAL_ADVANCE,
    )


def _tactical(w: Work, a: A.PlayTacticalAdvance, _: None) -> None:
    card = w.data.card_of_kind[CardKind.TACTICAL_ADVANCE]
    discard_card(w, a.player, card, None)
    w.emit(ev.CardPlayed(a.player, card, CardKind.TACTICAL_ADVANCE.value, rule=Rule.TACTICAL_ADVANCE))
    w.manoeuvres += 1
    w.emit(ev.ManoeuvreGained(a.player, w.manoeuvres, rule=Rule.TACTICAL_ADVANCE))


def _tactical_options(s: GameState, _: None) -> Iterator[A.PlayTacticalAdvance]:
    if may_hold_resource(s, s.current, CardKind.TACTICAL_ADVANCE):
        yield A.PlayTacticalAdvance(s.current)


TACTICAL_ADVANCE = Move(
    A.PlayTacticalAdvance,
    _check_tactical,
    _tactical,
    _tactical_options,
    on_turn_only(
        "A tactical advance cannot be played during a battle, only before or after your redistribution and "
        "advance.",
        Rule.RESOURCES,
        "A tactical advance cannot be played between your redistribution and your advance.",
        Rule.RESOURCES,
    ),
    prompt=Prompt("Tactical advance"), kind=MoveKind.RESOURCE, on_turn=OPEN_STEPS,
)


def _check_authority(s: GameState, a: A.DeclareAuthority, _: AuthorityDraw) -> Verdict:
    if a.drawn:
        return holds_resource(s, a.player, CardKind.AUTHORITY) or accept(
            f"{who(a.player)} drew their authority card and plays it at once to draw two more.",
            Rule.AUTHORITY,
        )
    return accept(f"{who(a.player)} did not draw their authority card.", Rule.R27)


def _authority(w: Work, a: A.DeclareAuthority, _: AuthorityDraw) -> None:
    w.pending.pop(0)
    if a.drawn:
        play_authority(w, a.player, w.data.card_of_kind[CardKind.AUTHORITY])


def _authority_options(s: GameState, d: AuthorityDraw) -> Iterator[A.DeclareAuthority]:
    yield A.DeclareAuthority(d.actor, False)
    if may_hold_resource(s, d.actor, CardKind.AUTHORITY):
        yield A.DeclareAuthority(d.actor, True)


def _authority_not_now(s: GameState, a: A.DeclareAuthority) -> Verdict:
    if s.pending:
        return waiting_first(s, a)
    return refuse(
        Reason.WRONG_STEP,
        "Authority is declared only right after a draw that could have brought it.",
        Rule.R27,
    )


DECLARE_AUTHORITY = Move(
    A.DeclareAuthority, _check_authority, _authority, _authority_options, _authority_not_now,
    prompt=Prompt("Drew authority", absent="No authority drawn", when="drawn"), answers=AuthorityDraw,
)


def _check_discard(s: GameState, a: A.DiscardCard, d: OptionalDiscard) -> Verdict:
    if a.card is None:
        return accept(f"{who(a.player)} keeps their cards.", d.rule)
    discards = f"{who(a.player)} discards {name_of(s, a.card)}."
    return holds(s, a.player, a.card, d.rule) or accept(discards, d.rule)


def _discard(w: Work, a: A.DiscardCard, d: OptionalDiscard) -> None:
    w.pending.pop(0)
    if a.card is not None:
        discard_card(w, a.player, a.card, d.cause, d.rule)


def _discard_options(s: GameState, d: OptionalDiscard) -> Iterator[A.DiscardCard]:
    yield A.DiscardCard(d.actor, None)
    for card in cards_of(s, d.actor, ALL_KINDS):
        yield A.DiscardCard(d.actor, card)


def _discard_not_now(s: GameState, a: A.DiscardCard) -> Verdict:
    if s.pending:
        return waiting_first(s, a)
    return refuse(
        Reason.WRONG_STEP,
        "Nothing lets anyone discard a card now: the Crown of Fury, the Orbs of Cleansing and Preparation, "
        "and conquering ruins, an abbey or a fortress do.",
        Rule.ICONS,
    )


DISCARD_CARD = Move(
    A.DiscardCard,
    _check_discard,
    _discard,
    _discard_options,
    _discard_not_now,
    prompt=Prompt("Discard {card:card}", absent="Keep my cards", when="card"),
    kind=MoveKind.ABILITY,
    answers=OptionalDiscard,
)


def _check_random_discard(s: GameState, a: A.DiscardRandom, d: RandomDiscard) -> Verdict:
    return holds(s, a.player, a.card, d.rule) or accept(
        f"{name_of(s, a.card)} is taken at random from {who(a.player)}'s hand.", d.rule
    )


def _random_discard(w: Work, a: A.DiscardRandom, d: RandomDiscard) -> None:
    w.pending.pop(0)
    discard_card(w, a.player, a.card, d.cause, d.rule)


def _random_discard_options(s: GameState, d: RandomDiscard) -> Iterator[A.DiscardRandom]:
    for card in cards_of(s, d.actor, ALL_KINDS):
        yield A.DiscardRandom(d.actor, card)


def _random_discard_not_now(s: GameState, a: A.DiscardRandom) -> Verdict:
    if s.pending:
        return waiting_first(s, a)
    return refuse(
        Reason.WRONG_STEP,
        "No card is taken at random now: the Sceptres of Influence and Defiance do that in a battle.",
        Rule.ICONS,
    )


DISCARD_RANDOM = Move(
    A.DiscardRandom,
    _check_random_discard,
    _random_discard,
    _random_discard_options,
    _random_discard_not_now,
    prompt=Prompt("Discard {card:card}"), kind=MoveKind.ABILITY, answers=RandomDiscard,
)


# --- decisions nobody can answer otherwise -----------------------------------------------------------------


def no_card_to_discard(w: Work, d: OptionalDiscard | RandomDiscard) -> bool:
    """A discard from an empty hand is skipped; True when the window closed."""
    if w.players[d.actor].hand_size == 0:
        w.pending.pop(0)
        return True
    return False


def authority_not_possible(w: Work, d: AuthorityDraw) -> bool:
    """TABLE: nobody is asked about an authority card that cannot be in the hand; True when closed."""
    if w.data.card_of_kind[CardKind.AUTHORITY] not in possible_cards(w, d.actor):
        w.pending.pop(0)
        return True
    return False

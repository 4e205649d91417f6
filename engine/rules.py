"""The referee: `legal_actions(state)`, `check(state, action) -> Verdict`, `apply(state, action)`.

One check order for every action: game over -> who may act (whose turn, or whose decision a window waits for)
-> the step of the turn or battle -> the rule itself. A refused action changes nothing: `apply` works on a
copy and raises IllegalActionError carrying the verdict.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from engine import actions as A
from engine import events as ev
from engine import flow
from engine.catalogue import Affected, ArtefactType, CardKind, TileKind
from engine.colours import Colour
from engine.errors import IllegalActionError
from engine.state import DiceSource, GameState, Knowledge, Need, Pending, defender_knights
from engine.verdict import ACCEPTED, Reason, Verdict, refuse

# Citations (English edition pages).
P_PLACE = "Place Knights, p.8"
P_RESOURCES = "Play Resources, p.8"
P_FRACTURE = "Fracture, p.8"
P_CROWNS = "Use Crowns, p.8"
P_REDISTRIBUTE = "Redistribute Knights, p.9"
P_SUPPLY = "Line of Supply, p.10"
P_ADVANCE = "Make an Advance, p.11"
P_BATTLE = "Battle, p.11"
P_RESTORE = "Restore Artefacts, p.13"
P_AIM = "Aim of the Game, p.13"
P_ICONS = "Iconography, pp.6-7"
P_TURN = "Taking a Turn, p.8"
P_ALLEGIANCE = "Allegiance, p.14"
P_SIEGE = "Castle Siege, p.14"
P_DRAW = "Order of Battle §2, p.12"
P_SCEPTRES = "Order of Battle §3, p.12"
P_CONFLICT = "Order of Battle §4, p.12"
P_SUPPORT = "Order of Battle §5, p.12"
P_ORBS = "Order of Battle §7, p.12"
P_AMBUSH = "Components, p.2"

# Which pending decision each answering action belongs to.
ANSWERS: dict[Need, tuple[type[A.Action], ...]] = {
    Need.FRACTURE: (A.PlayFracture, A.PassFracture, A.PassFractureRound),
    Need.DICE: (A.RollDice,),
    Need.EQUALISE: (A.Equalise,),
    Need.RANDOM_DISCARD: (A.DiscardRandom,),
    Need.CONFLICT: (A.PlayConflict,),
    Need.SUPPORT: (A.PlaySupport,),
    Need.OPTIONAL_DISCARD: (A.DiscardCard,),
    Need.AUTHORITY: (A.DeclareAuthority,),
    Need.REDISTRIBUTE: (A.Redistribute,),
    Need.ARRANGE: (A.ArrangeTop,),
    Need.RETURN_CARD: (A.ReturnCard,),
    Need.DESTROY: (A.DestroyArtefact,),
    Need.PROSPERITY: (A.ProsperityChoice,),
}
FREE_ACTIONS: tuple[type[A.Action], ...] = (
    A.PlayCallToArms,
    A.PlayTacticalAdvance,
    A.PlayFracture,
    A.UseCrown,
    A.Redistribute,
    A.Advance,
    A.SkipAdvance,
    A.EndTurn,
)
ASKS: dict[Need, str] = {
    Need.FRACTURE: "to decide on a fracture card",
    Need.DICE: "for a dice roll",
    Need.EQUALISE: "to decide on their sceptre",
    Need.RANDOM_DISCARD: "for the random discard",
    Need.CONFLICT: "for conflict cards",
    Need.SUPPORT: "for support cards",
    Need.OPTIONAL_DISCARD: "to decide on a discard",
    Need.AUTHORITY: "to say whether authority was drawn",
    Need.REDISTRIBUTE: "for the Crown of Vitality redistribution",
    Need.ARRANGE: "to put the cards back",
    Need.RETURN_CARD: "to choose a card for the Crown of Order",
    Need.DESTROY: "to choose the artefact to destroy",
    Need.PROSPERITY: "to leave or discard the top card",
}


def _name(s: GameState, item: str) -> str:
    cat = s.data.catalogue
    try:
        return f"{cat.get(item).name} ({item})"
    except KeyError:
        return repr(item)


def _who(c: Colour) -> str:
    return c.value.capitalize()


# --- the checks --------------------------------------------------------------------------------------------


# The last (state, action) pair `check` accepted: `apply` right after `check` on the very same objects (the
# referee's usual "check, then apply") need not check twice. Both are immutable, so the verdict still holds;
# compared by identity, and kept as one tuple so that threads can only miss the shortcut, never misuse it.
_ACCEPTED: tuple[GameState, A.Action] | None = None


def check(state: GameState, action: A.Action) -> Verdict:
    """Whether `action` is legal now, and if not, why (one sentence and a citation)."""
    global _ACCEPTED  # noqa: PLW0603 -- a one-entry cache of the last accepted check (see above)
    verdict = _check(state, action)
    if verdict.ok:
        _ACCEPTED = (state, action)
    return verdict


def _check(state: GameState, action: A.Action) -> Verdict:
    if state.winner is not None:
        won = ", ".join(_who(c) for c in state.winner)
        return refuse(Reason.GAME_OVER, f"The game is over: {won} won.", P_AIM)
    if not isinstance(action, A.Action) or action.player not in state.players:
        player = getattr(action, "player", None)
        return refuse(Reason.UNKNOWN_PLAYER, f"{player!r} is not playing in this game.", "Setting Up, p.3")
    kind = type(action)
    if state.pending:
        head = state.pending[0]
        if action.player not in head.actors():
            waiting = " and ".join(_who(c) for c in head.actors())
            return refuse(
                Reason.NOT_YOUR_DECISION,
                f"The game is waiting for {waiting} {ASKS[head.need]}, not for {_who(action.player)}.",
                _need_citation(head),
            )
        if kind not in ANSWERS[head.need]:
            return refuse(
                Reason.WRONG_STEP,
                f"{_who(action.player)} must first answer: the game is waiting {ASKS[head.need]}.",
                _need_citation(head),
            )
        return _ANSWER_CHECKS[kind](state, action, head)
    if action.player is not state.current:
        return refuse(
            Reason.NOT_YOUR_TURN, f"It is {_who(state.current)}'s turn, not {_who(action.player)}'s.", P_TURN
        )
    if kind not in FREE_ACTIONS:
        return refuse(
            Reason.WRONG_STEP, f"Nothing is waiting for a {kind.TYPE.replace('_', ' ')} action now.", P_TURN
        )
    if state.in_advance and kind not in (A.Advance, A.SkipAdvance, A.EndTurn):
        return refuse(
            Reason.WRONG_STEP,
            "After redistributing, make the advance (or decline it) before playing "
            "cards or crowns: they cannot be used between redistribution and the advance.",
            "R24",
        )
    return _FREE_CHECKS[kind](state, action)


def _need_citation(head: Pending) -> str:
    return {
        Need.FRACTURE: P_FRACTURE,
        Need.DICE: P_BATTLE,
        Need.CONFLICT: P_CONFLICT,
        Need.SUPPORT: P_SUPPORT,
        Need.EQUALISE: P_SCEPTRES,
        Need.RANDOM_DISCARD: P_ICONS,
        Need.AUTHORITY: P_RESOURCES,
    }.get(head.need, P_ICONS)


def _holds(s: GameState, colour: Colour, card: str, citation: str) -> Verdict | None:
    """The card must be in the hand (FULL) or possibly in it given everything public (TABLE)."""
    if card not in s.data.cards:
        return refuse(
            Reason.UNKNOWN_CARD, f"{card!r} is not a card of the deck (C01..C18).", "Components, p.2"
        )
    p = s.players[colour]
    if s.knowledge is Knowledge.FULL:
        if card not in p.hand:
            return refuse(
                Reason.CARD_NOT_IN_HAND, f"{_who(colour)} does not hold {_name(s, card)}.", citation
            )
        return None
    if p.hand_size == 0:
        return refuse(Reason.EMPTY_HAND, f"{_who(colour)} has no cards in hand.", citation)
    if card in flow.in_play(s, colour):
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{_name(s, card)} is already in play in this battle, so {_who(colour)} cannot hold it.",
            "R40",
        )
    if card in p.discard_ids():
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{_name(s, card)} is face up in {_who(colour)}'s discard pile, so it cannot be in their hand.",
            "R40",
        )
    if p.conflict_bound == 0 and s.data.cards[card].kind in flow.CONFLICT_KINDS:
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{_who(colour)} declared holding no conflict card and has drawn none since that could be "
            f"{_name(s, card)}.",
            "R46",
        )
    return None


def _kind_is(
    s: GameState, card: str, kinds: tuple[CardKind, ...], what: str, citation: str
) -> Verdict | None:
    if s.data.cards[card].kind not in kinds:
        return refuse(Reason.WRONG_CARD_KIND, f"{_name(s, card)} is not {what}.", citation)
    return None


def _resource(s: GameState, a: A.Action, kind: CardKind) -> Verdict | None:
    card = s.data.card_of_kind[kind]
    return _holds(s, a.player, card, P_RESOURCES)


def _check_call_to_arms(s: GameState, a: A.Action) -> Verdict:
    return _resource(s, a, CardKind.CALL_TO_ARMS) or ACCEPTED


def _check_tactical(s: GameState, a: A.Action) -> Verdict:
    return _resource(s, a, CardKind.TACTICAL_ADVANCE) or ACCEPTED


def _fracture_target(s: GameState, a: A.PlayFracture, targets: tuple[str, ...] | None) -> Verdict | None:
    if a.target not in s.data.artefacts:
        return refuse(Reason.UNKNOWN_ARTEFACT, f"{a.target!r} is not an artefact (A01..A18).", P_FRACTURE)
    owner = flow.artefact_owner(s, a.target)
    if owner is None:
        return refuse(Reason.NOT_A_TARGET, f"Nobody in this game holds {_name(s, a.target)}.", P_FRACTURE)
    if owner is a.player:
        return refuse(
            Reason.OWN_ARTEFACT,
            "A fracture card destroys another player's artefact, not your own.",
            P_FRACTURE,
        )
    if not flow.face_up(s, a.target):
        return refuse(Reason.ARTEFACT_DESTROYED, f"{_name(s, a.target)} is already destroyed.", P_FRACTURE)
    if targets is not None and a.target not in targets:
        names = ", ".join(_name(s, t) for t in targets)
        return refuse(
            Reason.NOT_A_TARGET, f"In this window a fracture card can only hit {names}.", P_FRACTURE
        )
    return None


def _check_fracture_free(s: GameState, a: A.Action) -> Verdict:
    assert isinstance(a, A.PlayFracture)
    return _fracture_target(s, a, None) or _resource(s, a, CardKind.FRACTURE) or ACCEPTED


def _check_use_crown(s: GameState, a: A.Action) -> Verdict:
    assert isinstance(a, A.UseCrown)
    if s.crown_used:
        return refuse(
            Reason.CROWN_ALREADY_USED, "A crown can be used only once during each of your turns.", P_CROWNS
        )
    h = flow.holding(s, a.player, ArtefactType.CROWN)
    if h is None:
        return refuse(Reason.NOT_APPLICABLE, f"{_who(a.player)} holds no crown.", P_CROWNS)
    holding, spec = h
    if not holding.face_up:
        return refuse(Reason.ARTEFACT_DESTROYED, f"{spec.name} is destroyed until it is restored.", P_RESTORE)
    if spec.affected is Affected.ANY:
        if a.affected is None:
            return refuse(
                Reason.NOT_APPLICABLE, f"{spec.name} needs an affected player: name any player.", P_ICONS
            )
        if a.affected not in s.players:
            return refuse(
                Reason.UNKNOWN_PLAYER, f"{a.affected.value!r} is not playing in this game.", P_ICONS
            )
    elif a.affected not in (None, a.player):
        return refuse(Reason.NOT_APPLICABLE, f"{spec.name} always affects its owner.", P_ICONS)
    return ACCEPTED


def _check_layout(s: GameState, colour: Colour, layout: tuple[tuple[str, int], ...]) -> Verdict | None:
    data = s.data
    castle = data.castle_of[colour]
    seen: set[str] = set()
    before = 0
    after = 0
    dice = s.dice_in_use(colour)
    for loc, n in layout:
        if loc in seen:
            return refuse(Reason.BAD_COUNT, f"{loc!r} is listed twice in the redistribution.", P_REDISTRIBUTE)
        seen.add(loc)
        if loc != castle and loc not in data.territories:
            return refuse(
                Reason.UNKNOWN_LOCATION,
                f"{loc!r} is not a territory or your castle on this map.",
                P_REDISTRIBUTE,
            )
        if not isinstance(n, int) or n < 0:
            return refuse(
                Reason.BAD_COUNT, f"Knight counts cannot be negative: {loc} -> {n!r}.", P_REDISTRIBUTE
            )
        if loc == castle:
            old = s.players[colour].castle
        else:
            occ = s.occupants.get(loc)
            if occ is None or occ[0] is not colour:
                return refuse(
                    Reason.NOT_CONTROLLED,
                    f"{_who(colour)} does not control {_name(s, loc)}; "
                    "redistribution only moves knights among your castle and your territories.",
                    P_REDISTRIBUTE,
                )
            if loc not in s.supply.get(colour, frozenset()):
                return refuse(
                    Reason.NO_SUPPLY,
                    f"{_name(s, loc)} has no line of supply: its knights cannot be "
                    "moved and no knights can be moved into it.",
                    P_SUPPLY,
                )
            old = occ[1]
            if n == 0:
                return refuse(
                    Reason.TERRITORY_EMPTIED,
                    f"{_name(s, loc)} must keep at least one knight.",
                    P_REDISTRIBUTE,
                )
            if n > data.capacity[loc]:
                return refuse(
                    Reason.OVER_CAPACITY,
                    f"{_name(s, loc)} holds at most {data.capacity[loc]} knights, not {n}.",
                    P_REDISTRIBUTE,
                )
        before += old
        after += n
        dice += _ceil6(n) - _ceil6(old)
    if before != after:
        return refuse(
            Reason.TOTAL_CHANGED,
            f"A redistribution keeps the same number of knights: {before} before, {after} after.",
            P_REDISTRIBUTE,
        )
    if dice > data.dice_per_player:
        return refuse(
            Reason.DICE_EXHAUSTED,
            f"That layout needs {dice} dice; each player has {data.dice_per_player}.",
            "R22",
        )
    return None


def _ceil6(n: int) -> int:
    return -(-n // 6)


def _check_redistribute_free(s: GameState, a: A.Action) -> Verdict:
    assert isinstance(a, A.Redistribute)
    if s.manoeuvres <= 0:
        return refuse(
            Reason.NO_ADVANCE_LEFT,
            "You have already redistributed and advanced this turn; a tactical advance card allows one more.",
            P_REDISTRIBUTE,
        )
    return _check_layout(s, a.player, a.layout) or ACCEPTED


def advance_targets(s: GameState, colour: Colour) -> set[str]:
    """Places `colour` may advance into: next to (or across a lake from) the castle or a supplied one."""
    data = s.data
    castle = data.castle_of[colour]
    sources = [castle, *s.supply.get(colour, frozenset())]
    out: set[str] = set()
    for src in sources:
        out.update(data.reach[src])
    if s.config.variant.castle_siege:
        owners = data.castle_owner  # a castle on the map that nobody plays from is no target
        for src in sources:
            out.update(k for k in data.reach_castles[src] if k != castle and k in owners)
    return out


def _check_advance(s: GameState, a: A.Action) -> Verdict:
    assert isinstance(a, A.Advance)
    data = s.data
    if s.manoeuvres <= 0:
        return refuse(
            Reason.NO_ADVANCE_LEFT,
            "You have already made your advance this turn; a tactical advance card allows one more.",
            P_ADVANCE,
        )
    target = a.target
    is_castle = target in data.castle_owner
    if target not in data.territories and not is_castle:
        if data.catalogue.tile_kind(target) is TileKind.CASTLE:
            return refuse(
                Reason.CASTLE_NOT_ALLOWED,
                f"{_name(s, target)} belongs to nobody in this game: only territories and, with the castle "
                "siege rule, the players' castles can be advanced into.",
                P_SIEGE,
            )
        return refuse(Reason.UNKNOWN_LOCATION, f"{target!r} is not a territory on this map.", P_ADVANCE)
    if not isinstance(a.knights, int) or a.knights <= 0:
        return refuse(
            Reason.BAD_COUNT, f"An advance moves at least one knight, not {a.knights!r}.", P_ADVANCE
        )
    variant = s.config.variant
    if is_castle:
        if not variant.castle_siege:
            return refuse(
                Reason.CASTLE_NOT_ALLOWED,
                "Castles cannot be conquered (only with the castle siege rule).",
                P_PLACE,
            )
        if data.castle_owner[target] is a.player:
            return refuse(Reason.ALREADY_CONTROLLED, "You cannot advance into your own castle.", P_ADVANCE)
        if a.knights > 6:
            return refuse(
                Reason.SIEGE_LIMIT,
                f"You can advance into a castle with at most 6 knights, not {a.knights}.",
                P_SIEGE,
            )
    else:
        occ = s.occupants.get(target)
        if occ is not None and occ[0] is a.player:
            return refuse(
                Reason.ALREADY_CONTROLLED,
                f"You already control {_name(s, target)}; moving knights "
                "there is a redistribution, not an advance.",
                P_ADVANCE,
            )
        if occ is not None and variant.allegiance and occ[0] in variant.team_of(a.player):
            return refuse(
                Reason.TEAMMATE_TERRITORY,
                f"{_name(s, target)} belongs to your teammate {_who(occ[0])}.",
                P_ALLEGIANCE,
            )
        if a.knights > data.capacity[target]:
            return refuse(
                Reason.OVER_CAPACITY,
                f"{_name(s, target)} holds at most {data.capacity[target]} knights, not {a.knights}.",
                P_ADVANCE,
            )
    if target not in advance_targets(s, a.player):
        return refuse(
            Reason.NOT_ADJACENT,
            f"{_name(s, target)} is not next to your castle or to a territory "
            "of yours with a line of supply (lakes link the tiles around them).",
            P_SUPPLY,
        )
    castle = s.players[a.player].castle
    if a.knights > castle:
        return refuse(
            Reason.NOT_ENOUGH_KNIGHTS,
            f"Advances start from the castle, which holds {castle} knights, not {a.knights}.",
            P_ADVANCE,
        )
    dice = s.dice_in_use(a.player) - _ceil6(castle) + _ceil6(castle - a.knights) + _ceil6(a.knights)
    if dice > s.data.dice_per_player:
        return refuse(
            Reason.DICE_EXHAUSTED,
            f"All {s.data.dice_per_player} of your dice are in use; the "
            "advancing knights would need another die.",
            "R22",
        )
    return ACCEPTED


def _check_skip(s: GameState, a: A.Action) -> Verdict:
    if not s.in_advance:
        return refuse(
            Reason.WRONG_STEP, "There is no advance to decline: you have not just redistributed.", P_ADVANCE
        )
    return ACCEPTED


def _check_end(s: GameState, a: A.Action) -> Verdict:
    return ACCEPTED


_FREE_CHECKS: dict[type[A.Action], Callable[[GameState, A.Action], Verdict]] = {
    A.PlayCallToArms: _check_call_to_arms,
    A.PlayTacticalAdvance: _check_tactical,
    A.PlayFracture: _check_fracture_free,
    A.UseCrown: _check_use_crown,
    A.Redistribute: _check_redistribute_free,
    A.Advance: _check_advance,
    A.SkipAdvance: _check_skip,
    A.EndTurn: _check_end,
}


# --- answers to pending decisions --------------------------------------------------------------------------


def _a_fracture(s: GameState, a: A.Action, head: Pending) -> Verdict:
    if isinstance(a, A.PassFracture):
        return ACCEPTED
    if isinstance(a, A.PassFractureRound):
        if a.upto is not None and a.upto not in head.players[1:]:
            still = ", ".join(_who(c) for c in head.players[1:]) or "nobody"
            return refuse(
                Reason.NOT_ELIGIBLE,
                f"{_who(a.upto)} is not still to decide in this fracture window (after "
                f"{_who(a.player)}: {still}).",
                "R47",
            )
        if a.upto is not None and not flow.can_fracture(s, a.upto, head.targets):
            return refuse(
                Reason.NOT_ELIGIBLE,
                f"{_who(a.upto)} cannot play a fracture card on any artefact at stake here (no fracture card "
                "that could be in their hand, or only their own artefacts are at stake).",
                "R47",
            )
        return ACCEPTED
    assert isinstance(a, A.PlayFracture)
    return _fracture_target(s, a, head.targets) or _resource(s, a, CardKind.FRACTURE) or ACCEPTED


def _a_dice(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.RollDice)
    if len(a.values) != head.n:
        return refuse(
            Reason.BAD_DICE, f"{head.n} dice are needed for the {head.tag}, got {len(a.values)}.", P_BATTLE
        )
    for v in a.values:
        if not isinstance(v, int) or not 1 <= v <= 6:
            return refuse(Reason.BAD_DICE, f"A die shows 1 to 6, not {v!r}.", P_BATTLE)
    return ACCEPTED


def _a_equalise(s: GameState, a: A.Action, head: Pending) -> Verdict:
    return ACCEPTED


def _a_random_discard(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.DiscardRandom)
    return _holds(s, a.player, a.card, P_ICONS) or ACCEPTED


def _a_conflict(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.PlayConflict)
    if a.card is None:
        if s.knowledge is Knowledge.FULL and flow.may_hold_kind(s, a.player, flow.CONFLICT_KINDS):
            return refuse(
                Reason.MUST_PLAY_CONFLICT,
                "You hold a conflict card, so you must play one; only a "
                "player without one battles with a conflict value of 0.",
                P_CONFLICT,
            )
        if s.knowledge is Knowledge.TABLE:
            fewest = flow.table_conflict_bound(s, a.player)[0]
            if fewest > 0:
                p = s.players[a.player]
                return refuse(
                    Reason.MUST_PLAY_CONFLICT,
                    f"{_who(a.player)} holds {p.hand_size} cards, and at most {p.hand_size - fewest} of the "
                    "cards not yet discarded are not conflict cards, so they must hold a conflict card.",
                    "R46",
                )
        return ACCEPTED
    return (
        _holds(s, a.player, a.card, P_CONFLICT)
        or _kind_is(s, a.card, (CardKind.CONFLICT, CardKind.AMBUSH), "a conflict card", P_CONFLICT)
        or ACCEPTED
    )


def _a_support(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.PlaySupport)
    if len(set(a.cards)) != len(a.cards):
        return refuse(Reason.DUPLICATE_CARD, "Each card can be played only once.", P_SUPPORT)
    for card in a.cards:
        v = _holds(s, a.player, card, P_SUPPORT) or _kind_is(
            s, card, (CardKind.SUPPORT,), "a support card", P_SUPPORT
        )
        if v is not None:
            return v
    # (R46's "must hold conflict cards" never limits this further: the support cards named are distinct
    # cards that are not face up, so there are never more of them than the hand's non-conflict places.)
    if s.knowledge is Knowledge.TABLE:
        size = s.players[a.player].hand_size
        if len(a.cards) > size:
            return refuse(Reason.EMPTY_HAND, f"{_who(a.player)} holds only {size} cards.", P_SUPPORT)
    return ACCEPTED


def _a_optional_discard(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.DiscardCard)
    if a.card is None:
        return ACCEPTED
    return _holds(s, a.player, a.card, P_ICONS) or ACCEPTED


def _a_authority(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.DeclareAuthority)
    if a.drawn:
        return _resource(s, a, CardKind.AUTHORITY) or ACCEPTED
    return ACCEPTED


def _a_redistribute(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.Redistribute)
    return _check_layout(s, a.player, a.layout) or ACCEPTED


def _a_arrange(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.ArrangeTop)
    if s.knowledge is Knowledge.TABLE:
        if a.order:
            return refuse(
                Reason.BAD_ORDER,
                "In a table game the cards stay secret: confirm with an empty order.",
                P_ICONS,
            )
        return ACCEPTED
    if sorted(a.order) != sorted(head.targets):
        return refuse(
            Reason.BAD_ORDER,
            f"Put back exactly the cards looked at ({', '.join(head.targets)}), "
            f"got {', '.join(a.order) or 'none'}.",
            P_ICONS,
        )
    return ACCEPTED


def _a_return(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.ReturnCard)
    if a.card not in head.targets:
        return refuse(
            Reason.NOT_ELIGIBLE,
            f"{_name(s, a.card)} is not in the discard pile from a previous turn; "
            "the Crown of Order takes a card discarded before this turn.",
            "R29",
        )
    return ACCEPTED


def _a_destroy(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.DestroyArtefact)
    if a.artefact not in head.targets:
        return refuse(
            Reason.NOT_A_TARGET,
            f"{_name(s, a.artefact)} is not a face-up artefact of {_who(head.subject or a.player)}.",
            P_ICONS,
        )
    return ACCEPTED


def _a_prosperity(s: GameState, a: A.Action, head: Pending) -> Verdict:
    assert isinstance(a, A.ProsperityChoice)
    subject = head.subject
    assert subject is not None
    if not a.discard:
        if a.card is not None:
            return refuse(Reason.BAD_ORDER, "Leaving the card on top names no card.", P_ICONS)
        return ACCEPTED
    if s.knowledge is Knowledge.FULL:
        if a.card not in (None, head.targets[0]):
            return refuse(
                Reason.NOT_A_TARGET,
                f"The top card is {_name(s, head.targets[0])}, not {_name(s, a.card or '')}.",
                P_ICONS,
            )
        return ACCEPTED
    if a.card is None:
        return refuse(Reason.UNKNOWN_CARD, "Name the card discarded from the top of the deck.", P_ICONS)
    if a.card not in s.data.cards:
        return refuse(Reason.UNKNOWN_CARD, f"{a.card!r} is not a card of the deck.", "Components, p.2")
    if a.card not in flow.possible_cards(s, subject):
        return refuse(
            Reason.CARD_CANNOT_BE_HELD,
            f"{_name(s, a.card)} is in {_who(subject)}'s discard pile or "
            "in play, so it cannot be on top of their deck.",
            "R40",
        )
    return ACCEPTED


_ANSWER_CHECKS: dict[type[A.Action], Callable[[GameState, A.Action, Pending], Verdict]] = {
    A.PlayFracture: _a_fracture,
    A.PassFracture: _a_fracture,
    A.PassFractureRound: _a_fracture,
    A.RollDice: _a_dice,
    A.Equalise: _a_equalise,
    A.DiscardRandom: _a_random_discard,
    A.PlayConflict: _a_conflict,
    A.PlaySupport: _a_support,
    A.DiscardCard: _a_optional_discard,
    A.DeclareAuthority: _a_authority,
    A.Redistribute: _a_redistribute,
    A.ArrangeTop: _a_arrange,
    A.ReturnCard: _a_return,
    A.DestroyArtefact: _a_destroy,
    A.ProsperityChoice: _a_prosperity,
}


# --- applying ----------------------------------------------------------------------------------------------


def apply(state: GameState, action: A.Action) -> tuple[GameState, tuple[ev.Event, ...]]:
    """Apply a legal action; raises IllegalActionError (with the verdict) and changes nothing otherwise."""
    accepted = _ACCEPTED
    if accepted is None or accepted[0] is not state or accepted[1] is not action:
        verdict = _check(state, action)
        if not verdict.ok:
            raise IllegalActionError(verdict)
    return apply_unchecked(state, action)


def apply_unchecked(state: GameState, action: A.Action) -> tuple[GameState, tuple[ev.Event, ...]]:
    """Apply an action `check` has accepted (used by `apply` and by replays of already-checked logs)."""
    w = flow.Work(state)
    _APPLY[type(action)](w, action)
    flow.settle(w)
    return w.freeze(), tuple(w.events)


def _pop(w: flow.Work) -> Pending:
    return w.pending.pop(0)


def _do_call_to_arms(w: flow.Work, a: A.Action) -> None:
    card = w.data.card_of_kind[CardKind.CALL_TO_ARMS]
    flow.discard_card(w, a.player, card, None)
    w.emit(ev.CardPlayed(a.player, card, CardKind.CALL_TO_ARMS.value))
    flow.gain_castle(w, a.player, 2, "call to arms")


def _do_tactical(w: flow.Work, a: A.Action) -> None:
    card = w.data.card_of_kind[CardKind.TACTICAL_ADVANCE]
    flow.discard_card(w, a.player, card, None)
    w.emit(ev.CardPlayed(a.player, card, CardKind.TACTICAL_ADVANCE.value))
    w.manoeuvres += 1
    w.emit(ev.ManoeuvreGained(a.player, w.manoeuvres))


def _do_fracture(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.PlayFracture)
    card = w.data.card_of_kind[CardKind.FRACTURE]
    in_window = bool(w.pending) and w.pending[0].need is Need.FRACTURE
    flow.discard_card(w, a.player, card, None)
    w.emit(ev.CardPlayed(a.player, card, CardKind.FRACTURE.value))
    flow.destroy(w, a.target, a.player, "fracture")
    if in_window:
        head = w.pending[0]
        targets = tuple(t for t in head.targets if t != a.target)
        w.pending[0] = Pending(Need.FRACTURE, players=head.players[1:], targets=targets, tag=head.tag)


def _do_pass_fracture(w: flow.Work, a: A.Action) -> None:
    head = w.pending[0]
    w.pending[0] = Pending(Need.FRACTURE, players=head.players[1:], targets=head.targets, tag=head.tag)
    w.emit(ev.FracturePassed(a.player))


def _do_pass_fracture_round(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.PassFractureRound)
    head = w.pending[0]
    cut = len(head.players) if a.upto is None else head.players.index(a.upto)
    for colour in head.players[:cut]:
        w.emit(ev.FracturePassed(colour))
    if cut >= len(head.players):
        _pop(w)
    else:
        w.pending[0] = Pending(Need.FRACTURE, players=head.players[cut:], targets=head.targets, tag=head.tag)


def _do_use_crown(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.UseCrown)
    h = flow.holding(w, a.player, ArtefactType.CROWN)
    assert h is not None
    crown = h[0].id
    affected = a.affected if h[1].affected is Affected.ANY else a.player
    w.crown_used = True
    w.emit(ev.CrownAnnounced(a.player, crown, affected))
    # The fracture window opens from the crown's owner clockwise; the owner cannot fracture their own crown.
    flow.fracture_window(w, a.player, (crown,), "crown", skip_start=True)
    w.stage(Pending(Need.APPLY_CROWN, actor=a.player, targets=(crown,), subject=affected))


def _do_redistribute(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.Redistribute)
    vitality = bool(w.pending) and w.pending[0].need is Need.REDISTRIBUTE
    castle = w.data.castle_of[a.player]
    for loc, n in a.layout:
        if loc == castle:
            w.set_player(a.player, castle=n)
        else:
            w.occ[loc] = (a.player, n)
    w.emit(ev.Redistributed(a.player, a.layout))
    if vitality:
        _pop(w)
    else:
        w.in_advance = True


def _do_advance(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.Advance)
    flow.advance(w, a.player, a.target, a.knights)


def _do_skip(w: flow.Work, a: A.Action) -> None:
    w.in_advance = False
    w.manoeuvres -= 1
    w.emit(ev.AdvanceDeclined(a.player))


def _do_end(w: flow.Work, a: A.Action) -> None:
    if w.in_advance:
        _do_skip(w, a)
    flow.end_turn(w)


def _do_dice(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.RollDice)
    head = _pop(w)
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
        flow.emit_scores(w, "ambush")
    elif head.tag == "mayhem":
        flow.mayhem_roll(w, a.values)


def _do_equalise(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.Equalise)
    _pop(w)
    b = w.battle
    assert b is not None
    if not a.use:
        return
    if a.player is b.attacker:
        w.set_battle(attacker_equal=True)
        w.emit(ev.KnightsMatched(a.player, 8 if b.siege else defender_knights(w, b)))
    else:
        w.set_battle(defender_equal=True)
        w.emit(ev.KnightsMatched(a.player, b.attacker_knights))
    flow.emit_scores(w, "matched knights")


def _do_random_discard(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.DiscardRandom)
    head = _pop(w)
    flow.discard_card(w, a.player, a.card, head.tag or "random discard")


def _do_conflict(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.PlayConflict)
    head = w.pending[0]
    flow.record_conflict(w, a.player, a.card)
    left = tuple(c for c in head.players if c is not a.player)
    if left:
        w.pending[0] = Pending(Need.CONFLICT, players=left)
    else:
        _pop(w)


def _do_support(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.PlaySupport)
    head = w.pending[0]
    rotated = (*head.players[1:], head.players[0])
    if not a.cards:
        passes = head.n + 1
        if passes >= len(head.players):
            _pop(w)
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
        flow.remove_from_hand(w, a.player, card)
        total += w.data.cards[card].value or 0
    support = b.support + tuple((a.player, card, for_player) for card in a.cards)
    if for_player is b.attacker:
        w.set_battle(support=support, attacker_support=b.attacker_support + total)
    else:
        w.set_battle(support=support, defender_support=b.defender_support + total)
    w.emit(ev.SupportPlayed(a.player, for_player, a.cards, total))
    flow.emit_scores(w, "support cards")
    w.pending[0] = Pending(Need.SUPPORT, players=rotated, n=0)


def _do_optional_discard(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.DiscardCard)
    head = _pop(w)
    if a.card is not None:
        flow.discard_card(w, a.player, a.card, head.tag or "discard")


def _do_authority(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.DeclareAuthority)
    _pop(w)
    if a.drawn:
        flow.play_authority(w, a.player, w.data.card_of_kind[CardKind.AUTHORITY])


def _do_arrange(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.ArrangeTop)
    head = _pop(w)
    if w.full and a.order:
        subject = head.subject or a.player
        p = w.players[subject]
        w.set_player(subject, deck=(*a.order, *p.deck[len(a.order) :]))


def _do_return(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.ReturnCard)
    head = _pop(w)
    subject = head.subject or a.player
    p = w.players[subject]
    discard = list(p.discard)
    for i, (card, turn) in enumerate(discard):
        if card == a.card and turn < w.turn:
            del discard[i]
            break
    if w.full:
        deck = flow.shuffle_seeded(w, subject, [*p.deck, a.card])
        w.set_player(subject, discard=tuple(discard), deck=tuple(deck), deck_size=len(deck))
    else:
        w.set_player(subject, discard=tuple(discard), deck_size=p.deck_size + 1)
    w.emit(ev.CardReturned(subject, a.card))
    w.emit(ev.DeckShuffled(subject, w.players[subject].deck_size, "crown of order"))


def _do_destroy(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.DestroyArtefact)
    _pop(w)
    flow.destroy(w, a.artefact, a.player, "crown of corruption")


def _do_prosperity(w: flow.Work, a: A.Action) -> None:
    assert isinstance(a, A.ProsperityChoice)
    head = _pop(w)
    if not a.discard:
        return
    subject = head.subject
    assert subject is not None
    p = w.players[subject]
    if w.full:
        card = p.deck[0]
        w.set_player(subject, deck=p.deck[1:], deck_size=p.deck_size - 1)
    else:
        assert a.card is not None
        card = a.card
        w.set_player(subject, deck_size=p.deck_size - 1)
    flow.to_discard(w, subject, card)
    w.emit(ev.CardDiscarded(subject, card, "crown of prosperity"))


_APPLY: dict[type[A.Action], Callable[[flow.Work, A.Action], None]] = {
    A.PlayCallToArms: _do_call_to_arms,
    A.PlayTacticalAdvance: _do_tactical,
    A.PlayFracture: _do_fracture,
    A.PassFracture: _do_pass_fracture,
    A.PassFractureRound: _do_pass_fracture_round,
    A.UseCrown: _do_use_crown,
    A.Redistribute: _do_redistribute,
    A.Advance: _do_advance,
    A.SkipAdvance: _do_skip,
    A.EndTurn: _do_end,
    A.RollDice: _do_dice,
    A.Equalise: _do_equalise,
    A.DiscardRandom: _do_random_discard,
    A.PlayConflict: _do_conflict,
    A.PlaySupport: _do_support,
    A.DiscardCard: _do_optional_discard,
    A.DeclareAuthority: _do_authority,
    A.ArrangeTop: _do_arrange,
    A.ReturnCard: _do_return,
    A.DestroyArtefact: _do_destroy,
    A.ProsperityChoice: _do_prosperity,
}


# --- enumerating -------------------------------------------------------------------------------------------


def legal_actions(state: GameState) -> list[A.Action]:
    """Every action the player(s) to act may take now, each accepted by `check`.

    Two deliberate abbreviations: a redistribution is listed as every single move of knights between two
    places (`check` accepts any legal layout; `redistributions` generates them all, R24), and a need for
    three or more dice (mayhem) lists one result per face value (`check` accepts any results, R44)."""
    s = state
    if s.winner is not None:
        return []
    if s.pending:
        return _pending_actions(s, s.pending[0])
    return _free_actions(s)


def _cards_of(s: GameState, colour: Colour, kinds: frozenset[CardKind]) -> list[str]:
    cards = s.data.cards
    if s.knowledge is Knowledge.FULL:
        pool = sorted(set(s.players[colour].hand))
    else:
        if s.players[colour].hand_size == 0:
            return []
        pool = sorted(flow.possible_cards(s, colour))
        if s.players[colour].conflict_bound == 0:
            kinds = kinds - flow.CONFLICT_KINDS  # R46
    return [c for c in pool if cards[c].kind in kinds]


ALL_KINDS = frozenset(CardKind)
_SIM = DiceSource.SIMULATION


def _pending_actions(s: GameState, head: Pending) -> list[A.Action]:
    need = head.need
    out: list[A.Action] = []
    if need is Need.FRACTURE:
        actor = head.players[0]
        out.append(A.PassFracture(actor))
        if len(head.players) > 1:
            out.append(A.PassFractureRound(actor))
            out.extend(
                A.PassFractureRound(actor, later)
                for later in head.players[1:]
                if flow.can_fracture(s, later, head.targets)
            )
        if flow.can_fracture(s, actor, head.targets):
            out.extend(
                A.PlayFracture(actor, t)
                for t in head.targets
                if flow.artefact_owner(s, t) is not actor and flow.face_up(s, t)
            )
    elif need is Need.DICE:
        assert head.actor is not None
        if head.n <= 2:
            combos = itertools.product(range(1, 7), repeat=head.n)
            out.extend(A.RollDice(head.actor, tuple(c), _SIM) for c in combos)
        else:
            out.extend(A.RollDice(head.actor, (v,) * head.n, _SIM) for v in range(1, 7))
    elif need is Need.EQUALISE:
        assert head.actor is not None
        out.extend([A.Equalise(head.actor, True), A.Equalise(head.actor, False)])
    elif need is Need.RANDOM_DISCARD:
        assert head.actor is not None
        out.extend(A.DiscardRandom(head.actor, c) for c in _cards_of(s, head.actor, ALL_KINDS))
    elif need is Need.CONFLICT:
        for colour in head.players:
            if s.knowledge is Knowledge.FULL:
                cards = _cards_of(s, colour, flow.CONFLICT_KINDS)
                none_ok = not cards
            else:
                fewest, most = flow.table_conflict_bound(s, colour)
                cards = _cards_of(s, colour, flow.CONFLICT_KINDS) if most > 0 else []
                none_ok = fewest == 0
            out.extend(A.PlayConflict(colour, c) for c in cards)
            if none_ok:
                out.append(A.PlayConflict(colour, None))
    elif need is Need.SUPPORT:
        actor = head.players[0]
        out.append(A.PlaySupport(actor, ()))
        cards = _cards_of(s, actor, frozenset({CardKind.SUPPORT}))
        most = len(cards) if s.knowledge is Knowledge.FULL else min(len(cards), s.players[actor].hand_size)
        for n in range(1, most + 1):
            out.extend(A.PlaySupport(actor, combo) for combo in itertools.combinations(cards, n))
    elif need is Need.OPTIONAL_DISCARD:
        assert head.actor is not None
        out.append(A.DiscardCard(head.actor, None))
        out.extend(A.DiscardCard(head.actor, c) for c in _cards_of(s, head.actor, ALL_KINDS))
    elif need is Need.AUTHORITY:
        assert head.actor is not None
        out.append(A.DeclareAuthority(head.actor, False))
        if _resource(s, A.DeclareAuthority(head.actor, True), CardKind.AUTHORITY) is None:
            out.append(A.DeclareAuthority(head.actor, True))
    elif need is Need.REDISTRIBUTE:
        assert head.actor is not None
        out.extend(A.Redistribute(head.actor, layout) for layout in _single_moves(s, head.actor))
    elif need is Need.ARRANGE:
        assert head.actor is not None
        if s.knowledge is Knowledge.FULL:
            out.extend(
                A.ArrangeTop(head.actor, tuple(p)) for p in sorted(set(itertools.permutations(head.targets)))
            )
        else:
            out.append(A.ArrangeTop(head.actor, ()))
    elif need is Need.RETURN_CARD:
        assert head.actor is not None
        out.extend(A.ReturnCard(head.actor, c) for c in head.targets)
    elif need is Need.DESTROY:
        assert head.actor is not None
        out.extend(A.DestroyArtefact(head.actor, t) for t in head.targets)
    elif need is Need.PROSPERITY:
        assert head.actor is not None and head.subject is not None
        out.append(A.ProsperityChoice(head.actor, False))
        if s.knowledge is Knowledge.FULL:
            out.append(A.ProsperityChoice(head.actor, True))
        else:
            out.extend(
                A.ProsperityChoice(head.actor, True, c) for c in sorted(flow.possible_cards(s, head.subject))
            )
    return out


def _single_moves(s: GameState, colour: Colour) -> list[tuple[tuple[str, int], ...]]:
    """The empty redistribution and every legal move of k knights from one place to another."""
    castle = s.data.castle_of[colour]
    places: dict[str, int] = {castle: s.players[colour].castle}
    for t in sorted(s.supply.get(colour, frozenset())):
        places[t] = s.occupants[t][1]
    dice = s.dice_in_use(colour)
    limit = s.data.dice_per_player
    capacity = s.data.capacity
    out: list[tuple[tuple[str, int], ...]] = [()]
    for src, have in places.items():
        spare = have if src == castle else have - 1
        for dst, there in places.items():
            if dst == src:
                continue
            room = spare if dst == castle else min(spare, capacity[dst] - there)
            for k in range(1, room + 1):
                change = _ceil6(have - k) - _ceil6(have) + _ceil6(there + k) - _ceil6(there)
                if dice + change <= limit:
                    out.append(((src, have - k), (dst, there + k)))
    return out


def redistributions(state: GameState, colour: Colour | None = None) -> Iterator[A.Redistribute]:
    """Every legal redistribution of `colour` (default: the player to act), lazily: each distinct final layout
    once, as the places that change (castle first, then territories by id), starting with the empty one.

    Complete, unlike `legal_actions` (which lists single moves, R24): the app's manual entry can offer any
    of these. The count grows fast with knights and territories, so take what you need from the iterator.
    Yields nothing when a redistribution is not allowed now."""
    s = state
    me = colour if colour is not None else (s.actors() or (s.current,))[0]
    if not check(s, A.Redistribute(me, ())).ok:
        return
    castle = s.data.castle_of[me]
    places = [castle, *sorted(s.supply.get(me, frozenset()))]
    old = [s.players[me].castle, *(s.occupants[t][1] for t in places[1:])]
    caps = [0, *(s.data.capacity[t] for t in places[1:])]
    total = sum(old)
    limit = s.data.dice_per_player - (s.dice_in_use(me) - sum(_ceil6(n) for n in old))
    n = len(places)
    new = [0] * n

    def fill(i: int, left: int, dice: int) -> Iterator[A.Redistribute]:
        if i == 0:  # the castle takes whatever is left (unlimited capacity)
            if dice + _ceil6(left) > limit:
                return
            new[0] = left
            layout = tuple((places[j], new[j]) for j in range(n) if new[j] != old[j])
            if layout:
                yield A.Redistribute(me, layout)
            return
        # every territory keeps 1..capacity; the territories before it need at least one each
        for k in range(1, min(caps[i], left - (i - 1)) + 1):
            if dice + _ceil6(k) > limit:
                break
            new[i] = k
            yield from fill(i - 1, left - k, dice + _ceil6(k))

    yield A.Redistribute(me, ())
    yield from fill(n - 1, total, 0)


def _free_actions(s: GameState, with_advances: bool = True) -> list[A.Action]:
    me = s.current
    out: list[A.Action] = []
    if s.in_advance:
        out.append(A.SkipAdvance(me))
    else:
        if _resource(s, A.PlayCallToArms(me), CardKind.CALL_TO_ARMS) is None:
            out.append(A.PlayCallToArms(me))
        if _resource(s, A.PlayTacticalAdvance(me), CardKind.TACTICAL_ADVANCE) is None:
            out.append(A.PlayTacticalAdvance(me))
        fracture = s.data.card_of_kind[CardKind.FRACTURE]
        if flow.may_hold(s, me, fracture):
            for c in s.order:
                if c is not me:
                    out.extend(A.PlayFracture(me, a.id) for a in s.players[c].artefacts if a.face_up)
        if not s.crown_used:
            h = flow.holding(s, me, ArtefactType.CROWN)
            if h is not None and h[0].face_up:
                if h[1].affected is Affected.ANY:
                    out.extend(A.UseCrown(me, c) for c in s.order)
                else:
                    out.append(A.UseCrown(me))
        if s.manoeuvres > 0:
            out.extend(A.Redistribute(me, layout) for layout in _single_moves(s, me))
    if s.manoeuvres > 0 and with_advances:
        out.extend(advances(s, me))
    out.append(A.EndTurn(me))
    return out


def free_actions_without_advances(state: GameState) -> list[A.Action]:
    """`legal_actions` of the player whose turn it is, minus the advances (the playout policy lists those
    itself with `advance_options`). Only when nothing is pending and the game is not over."""
    return _free_actions(state, with_advances=False)


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
    dice = s.dice_in_use(me) - _ceil6(castle)
    limit = data.dice_per_player
    # The dice a count needs do not depend on the target: work them out once, up to the largest capacity.
    biggest = min(castle, max(6, max(data.capacity.values(), default=6)))
    fits = [k for k in range(1, biggest + 1) if dice + _ceil6(castle - k) + _ceil6(k) <= limit]
    by_cap: dict[int, tuple[int, ...]] = {}
    owners = data.castle_owner
    occupants = s.occupants
    for t in sorted(advance_targets(s, me)):
        if t in owners:
            if owners[t] is me:
                continue
            cap = 6
        else:
            occ = occupants.get(t)
            if occ is not None and occ[0] in team:
                continue
            cap = data.capacity[t]
        counts = by_cap.get(cap)
        if counts is None:
            counts = by_cap[cap] = tuple(k for k in fits if k <= cap)
        if counts:
            out.append((t, counts))
    return out


def advances(s: GameState, me: Colour) -> list[A.Action]:
    """Every legal advance of `me` now."""
    return [A.Advance(me, t, k) for t, counts in advance_options(s, me) for k in counts]

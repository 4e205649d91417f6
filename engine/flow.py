"""How the game moves: the mutable working copy used while applying one action, and every mechanic (knights
and dice, cards and decks, artefacts, supply, the order of battle). Only `engine.rules.apply` drives this,
after `check` has accepted the action, so nothing here re-validates player input.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

from engine import events as ev
from engine.catalogue import Ability, Affected, ArtefactSpec, ArtefactTiming, ArtefactType, CardKind, Effect
from engine.colours import Colour
from engine.state import (
    AUTOMATIC_NEEDS,
    ArtefactHolding,
    Battle,
    BattleStage,
    GameState,
    Knowledge,
    Need,
    Pending,
    PlayerState,
    combat_scores,
    defender_knights,
)

HAND_LIMIT = 5  # order of battle step 2
SIX = 6  # Greed, Resurgence


_REPLACERS: dict[type, Callable[[Any, dict[str, object]], Any]] = {}
T = TypeVar("T")


def _setters(cls: type) -> dict[str, Callable[[Any, object], None]]:
    """Each field's slot setter: C-level, skipping the frozen class's `__setattr__` (which refuses) and the
    by-name lookup `object.__setattr__` would do."""
    return {f.name: getattr(cls, f.name).__set__ for f in fields(cls)}


def _make_replacer(cls: type) -> Callable[[Any, dict[str, object]], Any]:
    """Straight-line code copying every field (generated once per class: no per-field loop at run time), then
    the changes. A name that is not a field has no setter (KeyError)."""
    setters = _setters(cls)
    body = [f"    set_{n}(new, obj.{n})" for n in setters]
    src = ("def replacer(obj, ch):\n    new = new_(cls)\n" + "\n".join(body)
           + "\n    for name, value in ch.items():\n        setters[name](new, value)\n    return new\n")
    namespace: dict[str, Any] = {"new_": object.__new__, "cls": cls, "setters": setters}
    namespace.update({f"set_{n}": setter for n, setter in setters.items()})
    exec(src, namespace)  # generated from the dataclass's own field names only
    replacer: Callable[[Any, dict[str, object]], Any] = namespace["replacer"]
    return replacer


def fast_replace(obj: T, changes: dict[str, object]) -> T:
    """`dataclasses.replace` for our frozen slotted records without re-running `__init__` (hot path: the
    battle record changes a dozen times per battle). Unknown field names raise TypeError."""
    cls: Any = type(obj)
    replacer = _REPLACERS.get(cls)
    if replacer is None:
        if "__dict__" in dir(cls) or not hasattr(cls, "__slots__"):
            raise TypeError(f"{cls.__name__} is not a slotted dataclass")
        replacer = _REPLACERS[cls] = _make_replacer(cls)
    try:
        result: T = replacer(obj, changes)
    except KeyError:
        unknown = sorted(set(changes) - {f.name for f in fields(cls)})
        raise TypeError(f"{cls.__name__} has no field(s) {unknown}") from None
    return result


class Work:
    """A mutable copy of a state's changing parts; `freeze()` builds the next immutable state."""

    __slots__ = (
        "battle",
        "battle_owned",
        "control_dirty",
        "crown_used",
        "current",
        "data",
        "events",
        "in_advance",
        "knowledge",
        "manoeuvres",
        "occ",
        "owned",
        "pending",
        "players",
        "s",
        "staged",
        "supply",
        "turn",
        "winner",
    )

    def __init__(self, s: GameState) -> None:
        self.s = s
        self.data = s.data
        self.players = dict(s.players)
        self.occ = dict(s.occupants)
        self.turn = s.turn
        self.current = s.current
        self.manoeuvres = s.manoeuvres
        self.crown_used = s.crown_used
        self.in_advance = s.in_advance
        self.battle = s.battle
        self.battle_owned = False  # True once `battle` is this Work's own copy (then changed in place)
        self.pending = list(s.pending)
        self.staged: list[Pending] = []
        self.winner = s.winner
        self.supply: dict[Colour, frozenset[str]] = s.supply  # type: ignore[assignment]  # copied on write
        self.knowledge = s.knowledge
        self.events: list[ev.Event] = []
        self.control_dirty: set[Colour] = set()  # players whose control changed: supply to recompute
        self.owned: set[Colour] = set()  # players whose record is this Work's own copy (changed in place)

    def freeze(self) -> GameState:
        # No frozen-dataclass __init__ on the hot path: a generated function sets every field once. The
        # records it hands over are the new state's: later changes (after a `view`) copy them again.
        self.owned.clear()
        self.battle_owned = False
        return _FREEZE(self, self.s)

    @property
    def occupants(self) -> dict[str, tuple[Colour, int]]:
        return self.occ

    def view(self) -> GameState:
        """A read-only snapshot of the work in progress (for scores and checks mid-application). The Work goes
        on with copies of its containers, so later changes never reach the snapshot."""
        snapshot = self.freeze()
        self.players = dict(self.players)
        self.occ = dict(self.occ)
        self.supply = dict(self.supply)
        return snapshot

    @property
    def full(self) -> bool:
        return self.knowledge is Knowledge.FULL

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)

    def stage(self, *items: Pending) -> None:
        self.staged.extend(items)

    def flush(self) -> None:
        if self.staged:
            self.pending[0:0] = self.staged
            self.staged = []

    def set_player(self, colour: Colour, **changes: object) -> PlayerState:
        """Change a player's record. The first change copies the state's record; later ones change that copy
        in place (a draw or a battle changes it several times per action), so, as with `set_battle`, never
        keep a PlayerState across a change to read its old values."""
        if colour in self.owned:
            p = self.players[colour]
            for name, value in changes.items():
                _PLAYER_SETTERS[name](p, value)  # an unknown name raises KeyError
            return p
        p = fast_replace(self.players[colour], changes)
        self.players[colour] = p
        self.owned.add(colour)
        return p

    def set_battle(self, **changes: object) -> Battle:
        """Change the battle record. The first change copies the state's record; later ones change that copy
        in place (hot path: a battle changes a dozen times per action), so never keep a Battle across a
        change to read its old values."""
        b = self.battle
        assert b is not None
        if self.battle_owned:
            for name, value in changes.items():
                _BATTLE_SETTERS[name](b, value)  # an unknown name raises KeyError
            return b
        b = fast_replace(b, changes)
        self.battle = b
        self.battle_owned = True
        return b

    def clockwise_from(self, colour: Colour) -> tuple[Colour, ...]:
        order = self.s.order
        i = order.index(colour)
        return order[i:] + order[:i]


# `Work.freeze`: GameState fields that a Work carries (`occupants` is `occ`; `pending` is frozen to a tuple),
# the rest copied from the state the Work started from. Generated from GameState's own fields, so a new field
# is copied rather than forgotten.
_WORK_FIELDS = {"players": "w.players", "occupants": "w.occ", "turn": "w.turn", "current": "w.current",
                "manoeuvres": "w.manoeuvres", "crown_used": "w.crown_used", "in_advance": "w.in_advance",
                "battle": "w.battle", "pending": "tuple(w.pending)", "winner": "w.winner",
                "supply": "w.supply"}


def _make_freezer() -> Callable[[Work, GameState], GameState]:
    setters = _setters(GameState)
    lines = [f"    set_{n}(new, {_WORK_FIELDS.get(n, 's.' + n)})" for n in setters]
    src = "def freeze(w, s):\n    new = new_(GameState)\n" + "\n".join(lines) + "\n    return new\n"
    namespace: dict[str, Any] = {"new_": object.__new__, "GameState": GameState}
    namespace.update({f"set_{n}": setter for n, setter in setters.items()})
    exec(src, namespace)  # generated from GameState's own field names only
    freeze: Callable[[Work, GameState], GameState] = namespace["freeze"]
    return freeze


_FREEZE = _make_freezer()
_BATTLE_SETTERS = _setters(Battle)
_PLAYER_SETTERS = _setters(PlayerState)


# --- knights and dice --------------------------------------------------------------------------------------


def dice_in_use(w: Work, colour: Colour) -> int:
    n = math.ceil(w.players[colour].castle / 6)
    for c, k in w.occ.values():
        if c is colour:
            n += math.ceil(k / 6)
    b = w.battle
    if b is not None and b.attacker is colour:
        n += math.ceil(b.attacker_knights / 6)
    return n


def gain_castle(w: Work, colour: Colour, n: int, cause: str) -> None:
    """Place `n` knights in a castle; knights needing a die from an empty reserve are lost (p.8, R22)."""
    castle = w.players[colour].castle
    others = dice_in_use(w, colour) - math.ceil(castle / 6)
    room = max(0, (w.data.dice_per_player - others) * 6 - castle)
    placed = min(n, room)
    w.set_player(colour, castle=castle + placed)
    w.emit(ev.KnightsGained(colour, w.data.castle_of[colour], placed, n - placed, cause))


def lose_in_territory(w: Work, colour: Colour, territory: str, n: int, cause: str) -> int:
    """Remove up to `n` of `colour`'s knights from a territory (or a castle under siege); returns the number
    lost."""
    b = w.battle
    occ_here = w.occ.get(territory)
    holds = occ_here is not None and occ_here[0] is colour
    if b is not None and b.territory == territory and b.attacker is colour and not holds:
        lost = min(n, b.attacker_knights)
        w.set_battle(attacker_knights=b.attacker_knights - lost)
    elif territory in w.data.castle_owner and w.data.castle_owner[territory] is colour:
        castle = w.players[colour].castle
        lost = min(n, castle)
        w.set_player(colour, castle=castle - lost)
    else:
        occ = w.occ.get(territory)
        if occ is None or occ[0] is not colour:
            return 0
        lost = min(n, occ[1])
        if occ[1] - lost > 0:
            w.occ[territory] = (colour, occ[1] - lost)
        else:
            del w.occ[territory]
            w.control_dirty.add(colour)
            if b is None or b.territory != territory:
                w.emit(ev.ControlLost(colour, territory))
    if lost:
        w.emit(ev.KnightsLost(colour, territory, lost, cause))
    return lost


# --- cards -------------------------------------------------------------------------------------------------


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


def may_hold(s: Work | GameState, colour: Colour, card: str) -> bool:
    p = s.players[colour]
    if s.knowledge is Knowledge.FULL:
        return card in p.hand
    return p.hand_size > 0 and card in possible_cards(s, colour)


def may_hold_kind(s: Work | GameState, colour: Colour, kinds: frozenset[CardKind]) -> bool:
    p = s.players[colour]
    cards = s.data.cards
    if s.knowledge is Knowledge.FULL:
        return any(cards[c].kind in kinds for c in p.hand)
    return p.hand_size > 0 and any(cards[c].kind in kinds for c in possible_cards(s, colour))


def may_hold_conflict(s: Work | GameState, colour: Colour) -> bool:
    if s.knowledge is Knowledge.FULL:
        return may_hold_kind(s, colour, CONFLICT_KINDS)
    return table_conflict_bound(s, colour)[1] > 0


def shuffle_seeded(w: Work, colour: Colour, cards: list[str]) -> list[str]:
    """FULL mode shuffles come from the game's seed and the deck's shuffle count: explicit, replayable."""
    p = w.players[colour]
    rng = random.Random(f"{w.s.config.seed}/{colour.value}/{p.shuffles}")
    rng.shuffle(cards)
    w.set_player(colour, shuffles=p.shuffles + 1)
    return cards


def reshuffle_discard(w: Work, colour: Colour, cause: str, under: bool = False) -> None:
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
    w.emit(ev.DeckShuffled(colour, w.players[colour].deck_size, cause))


def draw(w: Work, colour: Colour, n: int, cause: str) -> None:
    """Draw `n` cards (reshuffling the discard pile when the deck runs out); authority drawn is played at
    once."""
    drawn: list[str] = []
    count = 0
    while count < n:
        p = w.players[colour]
        if p.deck_size == 0:
            if not p.discard:
                break
            reshuffle_discard(w, colour, "deck empty")
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
    w.emit(ev.CardsDrawn(colour, count, tuple(drawn)))
    authority = w.data.card_of_kind.get(CardKind.AUTHORITY)
    if authority is None:
        return
    if w.full:
        if authority in drawn:
            play_authority(w, colour, authority)
    elif authority in possible_cards(w, colour):
        w.stage(Pending(Need.AUTHORITY, actor=colour, n=count, tag=cause))


def play_authority(w: Work, colour: Colour, authority: str) -> None:
    """Authority: played as soon as the draw is finished, to draw two more cards (p.8, R27)."""
    discard_card(w, colour, authority, None)
    w.emit(ev.CardPlayed(colour, authority, CardKind.AUTHORITY.value))
    draw(w, colour, 2, "authority")


CONFLICT_KINDS = frozenset({CardKind.CONFLICT, CardKind.AMBUSH})


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


def discard_card(w: Work, colour: Colour, card: str, cause: str | None) -> None:
    """Move a card from the hand to the discard pile; `cause` None: played (the caller emits CardPlayed)."""
    remove_from_hand(w, colour, card)
    p = w.players[colour]
    w.set_player(colour, discard=(*p.discard, (card, w.turn)))
    if cause is not None:
        w.emit(ev.CardDiscarded(colour, card, cause))


def to_discard(w: Work, colour: Colour, card: str) -> None:
    p = w.players[colour]
    w.set_player(colour, discard=(*p.discard, (card, w.turn)))


# --- artefacts ---------------------------------------------------------------------------------------------


def artefact_owner(w: Work | GameState, artefact: str) -> Colour | None:
    for c, p in w.players.items():
        for a in p.artefacts:
            if a.id == artefact:
                return c
    return None


def holding(
    w: Work | GameState, colour: Colour, a_type: ArtefactType
) -> tuple[ArtefactHolding, ArtefactSpec] | None:
    for a in w.players[colour].artefacts:
        spec = w.data.artefacts[a.id]
        if spec.type is a_type:
            return a, spec
    return None


def face_up(w: Work | GameState, artefact: str) -> bool:
    owner = artefact_owner(w, artefact)
    if owner is None:
        return False
    a = w.players[owner].artefact(artefact)
    return a is not None and a.face_up


def destroy(w: Work, artefact: str, by: Colour, cause: str) -> None:
    owner = artefact_owner(w, artefact)
    assert owner is not None
    p = w.players[owner]
    arts = tuple(ArtefactHolding(a.id, w.turn) if a.id == artefact else a for a in p.artefacts)
    w.set_player(owner, artefacts=arts)
    w.emit(ev.ArtefactDestroyed(owner, artefact, by, cause))


def restore_artefacts(w: Work, colour: Colour) -> None:
    """End of turn: restore artefacts destroyed on a previous turn, not those destroyed this turn (p.13)."""
    p = w.players[colour]
    arts: list[ArtefactHolding] = []
    for a in p.artefacts:
        if a.destroyed_on is not None and a.destroyed_on < w.turn:
            arts.append(ArtefactHolding(a.id))
            w.emit(ev.ArtefactRestored(colour, a.id))
        else:
            arts.append(a)
    w.set_player(colour, artefacts=tuple(arts))


def fracture_window(w: Work, start: Colour, targets: tuple[str, ...], tag: str, skip_start: bool) -> None:
    order = w.clockwise_from(start)
    if skip_start:
        order = order[1:]
    if targets:
        w.stage(Pending(Need.FRACTURE, players=order, targets=targets, tag=tag))


def can_fracture(w: Work | GameState, colour: Colour, targets: tuple[str, ...]) -> bool:
    fracture = w.data.card_of_kind.get(CardKind.FRACTURE)
    if fracture is None or not may_hold(w, colour, fracture):
        return False
    return any(artefact_owner(w, t) is not colour and face_up(w, t) for t in targets)


def apply_crown(w: Work, item: Pending) -> None:
    crown = item.targets[0]
    owner = item.actor
    assert owner is not None
    if not face_up(w, crown):
        return  # negated by a fracture
    spec = w.data.artefacts[crown]
    affected = item.subject if spec.affected is Affected.ANY else owner
    assert affected is not None
    w.emit(ev.ArtefactApplied(owner, crown, affected))
    effect = spec.effect
    if effect is Effect.REDISTRIBUTE_AGAIN:
        w.stage(Pending(Need.REDISTRIBUTE, actor=owner, tag="vitality"))
    elif effect is Effect.LOOK_TOP_FOUR:
        p = w.players[affected]
        if p.deck_size < 4:
            reshuffle_discard(w, affected, "crown of insight", under=True)
            p = w.players[affected]
        n = min(4, p.deck_size)
        top = p.deck[:n] if w.full else ()
        w.emit(ev.TopCardsLooked(owner, affected, n, top))
        if n:
            w.stage(Pending(Need.ARRANGE, actor=owner, subject=affected, targets=top, n=n))
    elif effect is Effect.SHUFFLE_DISCARD_INTO_DECK:
        p = w.players[affected]
        eligible = tuple(sorted({c for c, t in p.discard if t < w.turn}))
        if eligible:
            w.stage(Pending(Need.RETURN_CARD, actor=owner, subject=affected, targets=eligible))
    elif effect is Effect.DISCARD_ANY_CARD:
        if w.players[affected].hand_size:
            w.stage(Pending(Need.OPTIONAL_DISCARD, actor=affected, tag="fury"))
    elif effect is Effect.DESTROY_ARTEFACT:
        targets = tuple(a.id for a in w.players[affected].artefacts if a.face_up)
        if targets:
            w.stage(Pending(Need.DESTROY, actor=owner, subject=affected, targets=targets))
    elif effect is Effect.LOOK_TOP_CARD:
        p = w.players[affected]
        if p.deck_size == 0:
            reshuffle_discard(w, affected, "crown of prosperity")
            p = w.players[affected]
        if p.deck_size:
            top = p.deck[:1] if w.full else ()
            w.emit(ev.TopCardsLooked(owner, affected, 1, top))
            w.stage(Pending(Need.PROSPERITY, actor=owner, subject=affected, targets=top))


# --- supply, control, victory ------------------------------------------------------------------------------


def compute_supply(w: Work, colour: Colour) -> frozenset[str]:
    """Territories of `colour` with a line of supply: an unbroken route to the castle through own territories
    and lakes (p.10). `reach` already links every tile around a lake."""
    mine = {t for t, o in w.occ.items() if o[0] is colour}
    if not mine:
        return frozenset()
    reach = w.data.reach
    seen: set[str] = set()
    stack = [w.data.castle_of[colour]]
    while stack:
        # Set operations in C: the player's territories one step on that are not yet known to be supplied.
        new = (reach[stack.pop()] & mine) - seen
        if new:
            seen |= new
            stack.extend(new)
    return frozenset(seen)


def refresh_control(w: Work) -> None:
    """After control changed: lines of supply, cut-throat removals, then victory."""
    if not w.control_dirty:
        return
    changed = w.control_dirty
    w.control_dirty = set()
    variant = w.s.config.variant
    if w.supply is w.s.supply:
        w.supply = dict(w.supply)  # copy on first write: most actions never change supply
    for colour in w.s.order:
        if colour not in changed and colour in w.supply:
            continue  # supply runs only through a player's own territories: untouched players keep theirs
        new = compute_supply(w, colour)
        old = w.supply.get(colour, frozenset())
        w.supply[colour] = new
        if new != old:
            w.emit(ev.SupplyChanged(colour, tuple(sorted(new - old)), tuple(sorted(old - new))))
    if variant.cut_throat:
        b = w.battle
        for t, (c, k) in list(w.occ.items()):
            if t in w.data.territories and t not in w.supply[c] and (b is None or b.territory != t):
                # Cut-throat (p.14, R31): the knights leave the map; their dice go back to the reserve.
                del w.occ[t]
                w.emit(ev.KnightsLost(c, t, k, "cut-throat"))
                w.emit(ev.ControlLost(c, t))
    check_victory(w, changed)


def score_of(w: Work, colour: Colour) -> int:
    skirmish = w.s.config.variant.skirmish
    values = w.data.value
    total = 0
    for t, (c, _) in w.occ.items():
        if c is colour and t in values:
            if skirmish and w.data.is_homeland(t):
                continue  # skirmish: homelands are worth 0 (p.14)
            total += values[t]
    return total


def check_victory(w: Work, changed: set[Colour] | None = None) -> None:
    """Only players whose control changed can have just reached the target (`changed` None: check all)."""
    if w.winner is not None:
        return
    variant = w.s.config.variant
    if variant.allegiance:
        for team in variant.allegiance:
            if changed is not None and changed.isdisjoint(team):
                continue
            total = sum(score_of(w, c) for c in team)
            if total >= variant.team_target(len(team)):
                declare_winner(w, tuple(c for c in w.s.order if c in team), f"team controls {total} points")
                return
        return
    target = variant.target
    winners = tuple(c for c in w.s.order if (changed is None or c in changed) and score_of(w, c) >= target)
    if winners:
        declare_winner(w, winners, f"controls {target} or more points")


def declare_winner(w: Work, winners: tuple[Colour, ...], cause: str) -> None:
    w.winner = winners
    w.pending = []
    w.staged = []
    w.emit(ev.GameWon(winners, cause))


# --- turns -------------------------------------------------------------------------------------------------


def start_turn(w: Work, colour: Colour) -> None:
    w.turn += 1
    w.current = colour
    w.manoeuvres = 1
    w.crown_used = False
    w.in_advance = False
    w.emit(ev.TurnStarted(colour, w.turn))
    gain_castle(w, colour, 3, "place knights")  # step 1 (p.8)


def end_turn(w: Work) -> None:
    colour = w.current
    restore_artefacts(w, colour)
    w.emit(ev.TurnEnded(colour, w.turn))
    order = w.s.order
    start_turn(w, order[(order.index(colour) + 1) % len(order)])


# --- advance and conquest ----------------------------------------------------------------------------------


def conquer_abilities(w: Work, colour: Colour, territory: str) -> None:
    """The conqueror applies the territory's conquest abilities (iconography p.7, order of battle step 9)."""
    spec = w.data.territories.get(territory)
    if spec is None:
        return
    if Ability.PLACE_KNIGHT_IN_CASTLE in spec.abilities:
        gain_castle(w, colour, 1, spec.kind.value)
    if Ability.LOSE_KNIGHT in spec.abilities:
        lose_in_territory(w, colour, territory, 1, spec.kind.value)
    if Ability.DISCARD_ANY_CARD in spec.abilities and w.players[colour].hand_size:
        w.stage(Pending(Need.OPTIONAL_DISCARD, actor=colour, tag=spec.kind.value))


def advance(w: Work, colour: Colour, target: str, knights: int) -> None:
    w.in_advance = False
    w.manoeuvres -= 1
    p = w.players[colour]
    w.set_player(colour, castle=p.castle - knights)
    w.emit(ev.Advanced(colour, target, knights))
    owner = w.data.castle_owner.get(target)
    occ = w.occ.get(target)
    if owner is not None:
        start_battle(w, colour, owner, target, knights, siege=True)
    elif occ is None:
        w.occ[target] = (colour, knights)
        w.control_dirty.add(colour)
        w.emit(ev.Conquered(colour, target))
        conquer_abilities(w, colour, target)
    else:
        start_battle(w, colour, occ[0], target, knights, siege=False)


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
        emit_scores(w, spec.kind.value)
    if Ability.ARENA_ROLL in spec.abilities:
        w.set_battle(stage=BattleStage.ARENA)
        w.stage(
            Pending(Need.DICE, actor=attacker, n=1, tag="arena"),
            Pending(Need.DICE, actor=defender, n=1, tag="arena"),
        )


def emit_scores(w: Work, cause: str) -> None:
    assert w.battle is not None
    a, d = combat_scores(w, w.battle)
    w.emit(ev.CombatScore(a, d, cause))


# --- the order of battle -----------------------------------------------------------------------------------


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
            _apply_sceptre(w, owner, art)
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
            _apply_orb(w, owner, art)
    elif stage is BattleStage.LOSSES:
        _losses(w)
    elif stage is BattleStage.CONQUEST:
        w.set_battle(stage=BattleStage.END)
        if b.winner is b.attacker and not b.siege and w.occ.get(b.territory, (None, 0))[0] is b.attacker:
            w.emit(ev.Conquered(b.attacker, b.territory))
            conquer_abilities(w, b.attacker, b.territory)
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
        emit_scores(w, "arena")


def _apply_sceptre(w: Work, owner: Colour, art: str) -> None:
    b = w.battle
    assert b is not None
    spec = w.data.artefacts[art]
    rival = b.rival(owner)
    affected = rival if spec.affected is Affected.RIVAL else owner
    w.emit(ev.ArtefactApplied(owner, art, affected))
    if spec.effect is Effect.PLUS_ONE:
        if owner is b.attacker:
            w.set_battle(attacker_bonus=b.attacker_bonus + 1)
        else:
            w.set_battle(defender_bonus=b.defender_bonus + 1)
        emit_scores(w, spec.name)
    elif spec.effect is Effect.MATCH_RIVAL_KNIGHTS:
        w.stage(Pending(Need.EQUALISE, actor=owner, tag=art))
    elif spec.effect is Effect.DISCARD_RANDOM_CARD and w.players[rival].hand_size:
        w.stage(Pending(Need.RANDOM_DISCARD, actor=rival, tag=spec.name))


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


def support_players(w: Work, starter: Colour) -> tuple[Colour, ...]:
    """Who takes turns playing support cards, starting with `starter`: the two rivals, and with allegiance
    their teammates too, clockwise from the starter (p.14, R33)."""
    b = w.battle
    assert b is not None
    variant = w.s.config.variant
    involved = {b.attacker, b.defender}
    if variant.allegiance:
        for team in variant.allegiance:
            if b.attacker in team or b.defender in team:
                involved.update(team)
    return tuple(c for c in w.clockwise_from(starter) if c in involved)


def _support(w: Work) -> None:
    b = w.battle
    assert b is not None
    emit_scores(w, "conflict cards")
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


def _apply_orb(w: Work, owner: Colour, art: str) -> None:
    b = w.battle
    assert b is not None
    spec = w.data.artefacts[art]
    rival = b.rival(owner)
    affected = rival if spec.affected is Affected.RIVAL else owner
    w.emit(ev.ArtefactApplied(owner, art, affected))
    effect = spec.effect
    if effect is Effect.DRAW_TO_SIX:
        need = SIX - w.players[owner].hand_size
        if need > 0:
            draw(w, owner, need, spec.name)
    elif effect is Effect.DISCARD_ANY_CARD:
        if w.players[owner].hand_size:
            w.stage(Pending(Need.OPTIONAL_DISCARD, actor=owner, tag=spec.name))
    elif effect is Effect.LOSE_KNIGHT:
        lose_in_territory(w, rival, b.territory, 1, spec.name)
    elif effect is Effect.PLACE_KNIGHT_IN_CASTLE:
        gain_castle(w, owner, 1, spec.name)


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
            _retreat(w, b.attacker, b.attacker_knights)
            w.set_battle(attacker_knights=0)
        return
    if loser is b.attacker:
        if b.attacker_knights:
            _retreat(w, b.attacker, b.attacker_knights)
            w.set_battle(attacker_knights=0)
        return
    occ = w.occ.get(b.territory)
    if occ is not None:
        _retreat(w, b.defender, occ[1])
        del w.occ[b.territory]
        w.emit(ev.ControlLost(b.defender, b.territory))
    if b.attacker_knights:
        w.occ[b.territory] = (b.attacker, b.attacker_knights)
        w.set_battle(attacker_knights=0)
    # The attacker's conquest is complete once step 9 has applied the territory's abilities (R45): only then
    # is their control judged (marshlands taken with one knight is never held).
    w.control_dirty.add(b.defender)


def _retreat(w: Work, colour: Colour, n: int) -> None:
    # Retreating merges knights into the castle: it never needs an extra die (R22).
    p = w.players[colour]
    w.set_player(colour, castle=p.castle + n)
    w.emit(ev.Retreated(colour, n))


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
        _retreat(w, b.attacker, b.attacker_knights)
    w.battle = None
    if w.s.config.variant.cut_throat:
        # The disputed territory is judged now (R31); control itself was refreshed when it changed.
        w.control_dirty.update((b.attacker, b.defender))
    w.emit(ev.BattleEnded(b.territory, b.winner, cause))


# --- settling: run automatic steps until someone has to decide ---------------------------------------------


def settle(w: Work) -> None:
    w.flush()
    while w.winner is None:
        if w.control_dirty:
            refresh_control(w)
            if w.winner is not None:
                break
        if w.pending:
            head = w.pending[0]
            if head.need in AUTOMATIC_NEEDS:
                w.pending.pop(0)
                apply_crown(w, head)
                w.flush()
                continue
            if auto_resolve(w, head):
                w.flush()
                continue
            break
        if w.battle is not None:
            run_stage(w)
            w.flush()
            continue
        break
    refresh_control(w)


def auto_resolve(w: Work, head: Pending) -> bool:
    """Skip decisions nobody can make (no card that could answer them); True when something changed."""
    need = head.need
    if need is Need.FRACTURE:
        targets = tuple(t for t in head.targets if face_up(w, t))
        players = head.players
        while players and not can_fracture(w, players[0], targets):
            players = players[1:]
        if not players or not targets:
            w.pending.pop(0)
            return True
        if players != head.players or targets != head.targets:
            w.pending[0] = fast_replace(head, {"players": players, "targets": targets})
        return False
    if need is Need.SUPPORT:
        players, passes = head.players, head.n
        kinds = frozenset({CardKind.SUPPORT})
        changed = False
        while passes < len(players) and not may_hold_kind(w, players[0], kinds):
            players = (*players[1:], players[0])
            passes += 1
            changed = True
        if passes >= len(players):
            w.pending.pop(0)
            return True
        if changed:
            w.pending[0] = fast_replace(head, {"players": players, "n": passes})
        return False
    if need is Need.CONFLICT:
        stuck = tuple(c for c in head.players if not may_hold_conflict(w, c))
        if not stuck:
            return False
        for colour in stuck:
            record_conflict(w, colour, None)
        left = tuple(c for c in head.players if c not in stuck)
        if left:
            w.pending[0] = fast_replace(head, {"players": left})
        else:
            w.pending.pop(0)
        return True
    if need in (Need.OPTIONAL_DISCARD, Need.RANDOM_DISCARD):
        assert head.actor is not None
        if w.players[head.actor].hand_size == 0:
            w.pending.pop(0)
            return True
        return False
    if need is Need.AUTHORITY:
        assert head.actor is not None
        authority = w.data.card_of_kind[CardKind.AUTHORITY]
        if authority not in possible_cards(w, head.actor):
            w.pending.pop(0)
            return True
    return False


def record_conflict(w: Work, colour: Colour, card: str | None) -> None:
    b = w.battle
    assert b is not None
    if card is not None:
        remove_from_hand(w, colour, card)
    elif not w.full:
        # R46: the claim is recorded; a conflict card that cannot have been drawn since is refused later.
        w.set_player(colour, conflict_bound=_bound(0, w.players[colour].hand_size))
    if colour is b.attacker:
        w.set_battle(attacker_conflict=card, attacker_played=True)
    else:
        w.set_battle(defender_conflict=card, defender_played=True)
    w.emit(ev.ConflictPlayed(colour))


def scores_now(w: Work) -> tuple[int, int]:
    assert w.battle is not None
    return combat_scores(w, w.battle)

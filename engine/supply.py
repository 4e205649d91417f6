"""Control of territories (Line of Supply p.10, Aim of the Game p.13): conquering and what a territory's
abilities do to its conqueror (p.7), lines of supply, where a player may advance, and victory.
"""

from __future__ import annotations

from engine import events as ev
from engine.catalogue import Ability
from engine.colours import Colour
from engine.decisions import OptionalDiscard
from engine.knights import gain_castle, lose_in_territory
from engine.rulebook import Rule
from engine.state import GameState
from engine.variants import cut_off_knights_leave
from engine.work import Work


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
            gained, lost = tuple(sorted(new - old)), tuple(sorted(old - new))
            w.emit(ev.SupplyChanged(colour, gained, lost, rule=Rule.SUPPLY))
    if variant.cut_throat:
        cut_off_knights_leave(w)
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
                team_won = tuple(c for c in w.s.order if c in team)
                declare_winner(w, team_won, f"team controls {total} points", Rule.ALLEGIANCE)
                return
        return
    target = variant.target
    winners = tuple(c for c in w.s.order if (changed is None or c in changed) and score_of(w, c) >= target)
    if winners:
        rule = Rule.SKIRMISH if variant.skirmish else Rule.AIM
        declare_winner(w, winners, f"controls {target} or more points", rule)


def declare_winner(w: Work, winners: tuple[Colour, ...], cause: str, rule: Rule) -> None:
    """The game ends at once: nothing after this point is applied (R45)."""
    w.winner = winners
    w.pending = []
    w.staged = []
    w.emit(ev.GameWon(winners, cause, rule=rule))


def conquer(w: Work, colour: Colour, territory: str) -> None:
    """The conqueror applies the territory's conquest abilities (iconography p.7, order of battle step 9)."""
    spec = w.data.territories.get(territory)
    if spec is None:
        return
    if Ability.PLACE_KNIGHT_IN_CASTLE in spec.abilities:
        gain_castle(w, colour, 1, spec.kind.value, Rule.PLACE_KNIGHT_ON_CONQUEST)
    if Ability.LOSE_KNIGHT in spec.abilities:
        lose_in_territory(w, colour, territory, 1, spec.kind.value, rule=Rule.MARSHLANDS)
    if Ability.DISCARD_ANY_CARD in spec.abilities and w.players[colour].hand_size:
        w.stage(OptionalDiscard(colour, spec.kind.value, conquest=True))


def advance_route(s: Work | GameState, colour: Colour, target: str) -> tuple[str, str | None] | None:
    """Why `colour` may advance into `target`: the place of theirs it borders and the lake it lies across
    (None: a shared edge); None when it may not. The places: their castle, and their territories with a line
    of supply (p.11). Lakes link the territories around them (p.2), but only from a territory: a castle by a
    lake gives no advance across it (R21). Prefers the castle, then an edge, then territories in id order."""
    data = s.data
    castle = data.castle_of[colour]
    supplied = sorted(s.supply.get(colour, frozenset()))
    for source in (castle, *supplied):
        if target in data.neighbours[source]:
            return source, None
    across = supplied if s.config.rulings >= 2 else [castle, *supplied]  # the first edition of R21
    for source in across:
        if target in data.reach[source] or target in data.reach_castles[source]:
            shared = sorted(data.lakes[source] & data.lakes.get(target, frozenset()))
            return source, (shared or sorted(data.lakes[source]))[0]
    return None


def advance_targets(s: GameState, colour: Colour) -> tuple[str, ...]:
    """Every place `colour` may advance into (with castle siege, rival castles too), in id order:
    `advance_route`'s."""
    data = s.data
    castle = data.castle_of[colour]
    out: set[str] = set(data.neighbours[castle])
    for source in s.supply.get(colour, frozenset()):
        out.update(data.reach[source], data.reach_castles[source])
    if s.config.rulings < 2:
        out.update(data.reach[castle], data.reach_castles[castle])
    owners = data.castle_owner
    siege = s.config.variant.castle_siege
    # A castle is a target only with castle siege, and only a castle somebody plays from (R39).
    targets = (t for t in out if t in data.territories or (siege and owners.get(t, colour) is not colour))
    return tuple(sorted(targets))

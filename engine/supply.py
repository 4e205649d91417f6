"""Control of territories (Line of Supply p.10, Aim of the Game p.13): conquering and what a territory's
abilities do to its conqueror (p.7), lines of supply, where a player may advance, and victory.
"""

from __future__ import annotations

from engine import events as ev
from engine.catalogue import Ability
from engine.colours import Colour
from engine.decisions import OptionalDiscard
from engine.knights import gain_castle, lose_in_territory
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
            w.emit(ev.SupplyChanged(colour, tuple(sorted(new - old)), tuple(sorted(old - new))))
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


def conquer(w: Work, colour: Colour, territory: str) -> None:
    """The conqueror applies the territory's conquest abilities (iconography p.7, order of battle step 9)."""
    spec = w.data.territories.get(territory)
    if spec is None:
        return
    if Ability.PLACE_KNIGHT_IN_CASTLE in spec.abilities:
        gain_castle(w, colour, 1, spec.kind.value)
    if Ability.LOSE_KNIGHT in spec.abilities:
        lose_in_territory(w, colour, territory, 1, spec.kind.value)
    if Ability.DISCARD_ANY_CARD in spec.abilities and w.players[colour].hand_size:
        w.stage(OptionalDiscard(colour, spec.kind.value))


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



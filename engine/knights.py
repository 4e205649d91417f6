"""Knights and dice (Place Knights p.8, R22): placing knights in a castle while the reserve has dice, losing
them from a territory, and retreating them to the castle."""

from __future__ import annotations

from engine import events as ev
from engine.colours import Colour
from engine.rulebook import Rule
from engine.state import dice_for, dice_in_use
from engine.work import Work


def gain_castle(w: Work, colour: Colour, n: int, cause: str, rule: Rule) -> None:
    """Place `n` knights in a castle (for `cause`, by `rule`); knights needing a die from an empty reserve
    are lost (p.8, R22: then R22 is the rule named)."""
    castle = w.players[colour].castle
    others = dice_in_use(w, colour) - dice_for(castle)
    room = max(0, (w.data.dice_per_player - others) * 6 - castle)
    placed = min(n, room)
    w.set_player(colour, castle=castle + placed)
    named = rule if placed == n else Rule.R22
    w.emit(ev.KnightsGained(colour, w.data.castle_of[colour], placed, n - placed, cause, rule=named))


def lose_in_territory(w: Work, colour: Colour, territory: str, n: int, cause: str, *, rule: Rule) -> int:
    """Remove up to `n` of `colour`'s knights from a territory (or a castle under siege), for `cause` by
    `rule`; returns the number lost."""
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
            w.occupy(territory, colour, occ[1] - lost)
        else:
            w.vacate(territory)
            w.control_dirty.add(colour)
            if b is None or b.territory != territory:
                w.emit(ev.ControlLost(colour, territory, rule=rule))
    if lost:
        w.emit(ev.KnightsLost(colour, territory, lost, cause, rule=rule))
    return lost


def retreat(w: Work, colour: Colour, n: int) -> None:
    # Retreating merges knights into the castle: it never needs an extra die (R22).
    p = w.players[colour]
    w.set_player(colour, castle=p.castle + n)
    w.emit(ev.Retreated(colour, n, rule=Rule.BATTLE_8))


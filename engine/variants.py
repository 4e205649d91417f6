"""The optional rules (p.14): allegiance, castle siege, cut-throat, skirmish and mayhem. `Variant` says which
are in play; the rules that only a variant adds live here, and the core rules ask it where a variant changes
them.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import events as ev
from engine.colours import Colour
from engine.decisions import DicePurpose, DiceRoll
from engine.knights import lose_in_territory
from engine.rulebook import Rule
from engine.state import combat_scores, defender_knights
from engine.work import Work

SIEGE_DEFENDER_KNIGHTS = 8  # castle siege: the defender battles as though with 8 knights (p.14)
SIEGE_ADVANCE_LIMIT = 6  # castle siege: an advance into a castle takes at most 6 knights (p.14, R39)


@dataclass(frozen=True, slots=True)
class Variant:
    """The optional rules (p.14). `allegiance` lists the teams (each a tuple of colours); empty = no teams."""

    allegiance: tuple[tuple[Colour, ...], ...] = ()
    castle_siege: bool = False
    cut_throat: bool = False
    skirmish: bool = False
    mayhem: bool = False

    @property
    def target(self) -> int:
        """Victory points a player needs (p.13; skirmish 11)."""
        return 11 if self.skirmish else 13

    @staticmethod
    def team_target(team_size: int) -> int:
        """Allegiance: a team of two needs 20 points, a team of three 30 (p.14, R30)."""
        return 20 if team_size == 2 else 30

    def team_of(self, colour: Colour) -> tuple[Colour, ...]:
        for team in self.allegiance:
            if colour in team:
                return team
        return (colour,)


def cut_off_knights_leave(w: Work) -> None:
    """Cut-throat (p.14, R31): knights on a territory without a line of supply leave the map at once (their
    dice go back to the reserve); the territory in dispute is judged when its battle is over."""
    b = w.battle
    for t, (c, k) in list(w.occ.items()):
        if t in w.data.territories and t not in w.supply[c] and (b is None or b.territory != t):
            w.vacate(t)
            w.emit(ev.KnightsLost(c, t, k, "cut-throat", rule=Rule.CUT_THROAT))
            w.emit(ev.ControlLost(c, t, rule=Rule.CUT_THROAT))


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


def ask_mayhem_dice(w: Work) -> None:
    """Mayhem (p.14): the winner rolls a die for each of their knights in the disputed place (a defender
    winning a castle siege: every knight in their castle, R38)."""
    b = w.battle
    assert b is not None and b.winner is not None
    if not w.s.config.variant.mayhem:
        return
    n = b.attacker_knights if b.winner is b.attacker else defender_knights(w, b)
    if n > 0:
        w.stage(DiceRoll(b.winner, n, DicePurpose.MAYHEM))


def mayhem_roll(w: Work, values: tuple[int, ...]) -> bool:
    """Mayhem (p.14): the winner loses a knight per 1 rolled; with none left, they lose the battle instead
    (R38: the new winner keeps every knight). True when nobody has a knight left there: the battle ends."""
    b = w.battle
    assert b is not None and b.winner is not None
    decided = combat_scores(w, b)  # the scores that made them the winner, before the dice cost them knights
    ones = sum(1 for v in values if v == 1)
    if ones:
        lose_in_territory(w, b.winner, b.territory, ones, "mayhem", rule=Rule.MAYHEM)
    b = w.battle
    assert b is not None and b.winner is not None
    left = b.attacker_knights if b.winner is b.attacker else defender_knights(w, b)
    if left:
        return False
    new_winner = b.rival(b.winner)
    other_left = b.attacker_knights if new_winner is b.attacker else defender_knights(w, b)
    if other_left == 0:
        w.set_battle(winner=None, margin=0, ended_early=True)
        return True
    new_loser = b.winner
    w.set_battle(winner=new_winner, margin=0)
    w.emit(ev.BattleResult(new_winner, new_loser, *decided, 0, "mayhem", rule=Rule.R38))
    return False

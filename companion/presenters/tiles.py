"""What a tap on the map shows: a tile's name, what it is worth, what it holds, who holds it, whether it has
supply, the knights on it, and its abilities in one sentence each (tile and icon anatomy, pages 5-7)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.i18n import N_, Translator
from companion.services import TableSnapshot, TileView
from engine.colours import Colour

_ATTACKER = N_("The attacker adds 1 to their combat score.")
_DEFENDER = N_("The defender adds 1 to their combat score.")
_PLACE = N_("Whoever conquers it places 1 knight in their castle.")
_DISCARD = N_("Whoever conquers it may discard 1 card.")
_CAPACITY = N_("It holds a number of knights other than 6.")

ABILITIES: dict[str, tuple[str, ...]] = {
    "grasslands": (_ATTACKER,),
    "fort": (_DEFENDER,),
    "city": (_DEFENDER, _PLACE),
    "fortress": (_DEFENDER, _DISCARD),
    "cave": (_CAPACITY,),
    "battlefield": (_CAPACITY,),
    "mountains": (N_("No support cards may be played in a battle here."),),
    "village": (_PLACE,),
    "shrine": (_PLACE,),
    "marshlands": (N_("Whoever conquers it loses 1 knight there."),),
    "ruins": (_DISCARD,),
    "abbey": (_DISCARD,),
    "homelands": (N_("At the start, a castle's knights are shared with the homelands next to it."),),
    "arena": (N_("A battle here starts with a die each: the lower roll loses 1 knight (a tie: both)."),),
    "forest": (N_("No ability."),),
}


@dataclass(frozen=True, slots=True)
class TileDetail:
    id: str
    title: str
    kind: str  # the translated kind ("Fort", "Lake", "Castle")
    facts: tuple[str, ...]
    abilities: tuple[str, ...]
    knights: tuple[tuple[Colour, str, int], ...]  # (colour, player's name, knights)
    warning: str = ""  # no supply, in battle


def tile_detail(snap: TableSnapshot, tile_id: str, tr: Translator) -> TileDetail:
    """Everything about one tile, in words. Raises KeyError for a tile not on the map."""
    t = snap.tile(tile_id)
    names = {p.colour: p.name for p in snap.players}
    knights = tuple((c, names.get(c, tr(c.value.capitalize())), n) for c, n in t.knights.items() if n > 0)
    if t.kind == "castle":
        owner = names.get(t.owner, "-") if t.owner is not None else "-"
        facts = (
            tr("{name}'s castle").format(name=owner),
            tr("A castle holds any number of knights."),
        )
        return TileDetail(t.id, t.name, tr.kind("castle"), facts, (), knights)
    if t.kind == "lake":
        lake = tr("A lake cannot be conquered: the territories around it all border each other.")
        return TileDetail(t.id, t.name, tr.kind("lake"), (lake,), (), ())
    return TileDetail(
        t.id,
        t.name,
        tr.kind(t.ability),
        _territory_facts(t, names, tr),
        tuple(tr(a) for a in ABILITIES.get(t.ability, ())),
        knights,
        _warning(t, snap, names, tr),
    )


def _territory_facts(t: TileView, names: dict[Colour, str], tr: Translator) -> tuple[str, ...]:
    worth = tr("Worth 1 victory point") if t.value == 1 else tr("Worth {n} victory points").format(n=t.value)
    holds = tr("Holds up to {n} knights").format(n=t.capacity or 6)
    held = (
        tr("Held by {name}").format(name=names.get(t.owner, t.owner.value))
        if t.owner is not None
        else tr("Nobody holds it")
    )
    return (worth, holds, held)


def _warning(t: TileView, snap: TableSnapshot, names: dict[Colour, str], tr: Translator) -> str:
    if t.in_dispute or (snap.battle is not None and snap.battle.territory == t.id):
        return tr("A battle is being fought here.")
    if t.owner is not None and not t.supplied:
        return tr("No line of supply to {name}'s castle: its knights cannot be redistributed.").format(
            name=names.get(t.owner, t.owner.value)
        )
    return ""

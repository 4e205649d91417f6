"""Engine actions and events in words, for buttons and the history ("Ann advanced 4 knights into the Fort of
Gien — battle"). Short, in the active language; every game noun (places, cards, artefacts, players) through
the `Translator`'s nouns, so a Dutch or Swedish line has no English name in it. A button says its move's
prompt, declared with the move in the engine (`Move.prompt`) and translated here by its English template."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from companion.engine_text import EngineText
from companion.i18n import Translator
from engine import actions as A
from engine import events as ev
from engine.catalogue import ArtefactSpec, ArtefactType, CardSpec, CastleSpec, LakeSpec, TerritorySpec
from engine.colours import Colour
from engine.gamedata import GameData
from engine.moves import Slot, placeholders
from engine.rules import MOVE_OF
from engine.state import GameState

# The gettext context of the moves' prompts: each prompt's English template is its msgid.
PROMPT_CONTEXT = "move"
_SLOT = re.compile(r"\{(\w+):\w+\}")
_FIELD = re.compile(r"\{(\w+)\}")


class Describer:
    def __init__(self, data: GameData, names: Mapping[Colour, str], tr: Translator) -> None:
        self.data = data
        self.names = dict(names)
        self.tr = tr
        self.engine = EngineText(tr, self.noun, self.name)  # the engine's own sentences, in `tr`'s language
        cat = data.catalogue
        # English name -> id, for the engine's sentences that name an item without its id.
        items: tuple[TerritorySpec | LakeSpec | CastleSpec | CardSpec | ArtefactSpec, ...] = (
            *cat.territories, *cat.lakes, *cat.castles, *cat.cards, *cat.artefacts
        )
        self._ids: dict[str, str] = {item.name: item.id for item in items}

    def name(self, colour: Colour | None) -> str:
        if colour is None:
            return "-"
        return self.tr.player(colour, self.names.get(colour))

    def place(self, loc: str) -> str:
        d = self.data
        if loc in d.territories:
            return self.tr.territory(str(d.territories[loc].name))
        if loc in d.castle_owner:
            return self.tr("{name}'s castle").format(name=self.name(d.castle_owner[loc]))
        if loc in d.catalogue:  # a lake: a proper name
            return str(d.catalogue.get(loc).name)
        return loc

    def noun(self, item_id: str) -> str | None:
        """Any catalogue item by id or by its English name (territory, lake, castle, card, artefact) in the
        active language; None for neither."""
        d = self.data
        item_id = self._ids.get(item_id, item_id)
        if item_id in d.territories:
            return self.place(item_id)
        if item_id in d.cards:
            return self.tr.card(str(d.cards[item_id].name))
        if item_id in d.artefacts:
            return self.artefact(item_id)
        if item_id in d.catalogue:  # lakes and castles: proper names
            return str(d.catalogue.get(item_id).name)
        return None

    def card(self, card_id: str | None) -> str:
        if card_id is None:
            return self.tr("no card")
        spec = self.data.cards.get(card_id)
        if spec is None:
            return card_id
        name = self.tr.card(str(spec.name))
        return f"{name} ({spec.value})" if spec.value is not None else name

    def card_value(self, card_id: str | None) -> int | None:
        if card_id is None:
            return 0
        spec = self.data.cards.get(card_id)
        return None if spec is None else spec.value

    def artefact(self, art_id: str) -> str:
        spec = self.data.artefacts.get(art_id)
        return self.tr.artefact(str(spec.name)) if spec is not None else art_id

    # ------------------------------------------------------------------------------------- option labels

    def option(self, a: A.Action) -> str:
        """The button that offers `a`: its move's prompt (`engine.moves.Prompt`, declared with the move) in
        the active language, each placeholder's value put into words by its kind."""
        template = self.tr.p(PROMPT_CONTEXT, MOVE_OF[type(a)].prompt.template(a))
        parts = {name: self._value(slot, getattr(a, name)) for name, slot in placeholders(template)}
        plain = _SLOT.sub(r"{\1}", template)  # "{target:place}" -> "{target}", as `fitted` reads them
        return _FIELD.sub(lambda m: parts[m.group(1)], self.tr.fitted(plain, parts))

    def _value(self, slot: Slot, value: Any) -> str:
        match slot:
            case Slot.PLACE:
                return self.place(value)
            case Slot.PLAYER:
                return self.name(value)
            case Slot.CARD:
                return self.card(value)
            case Slot.CARDS:
                return " + ".join(self.card(c) for c in value)
            case Slot.ARTEFACT:
                return self.artefact(value)
            case Slot.LAYOUT:
                return self._layout(value)
            case Slot.DICE:
                return " ".join(map(str, value))
        return str(value)

    def _layout(self, layout: Iterable[tuple[str, int]]) -> str:
        return ", ".join(f"{self.place(loc)} {n}" for loc, n in layout)

    # --------------------------------------------------------------------------------------- history

    def action(self, a: A.Action, events: Iterable[ev.Event], before: GameState) -> str:
        """One line for the history: who did what, and what followed."""
        t = self.tr
        who = self.name(a.player)
        evs = list(events)
        match a:
            case A.Advance():
                text = t("{who} advanced {n} knights into {place}").format(
                    who=who, n=a.knights, place=self.place(a.target)
                )
                if any(isinstance(e, ev.BattleStarted) for e in evs):
                    text += " — " + t("battle")
                elif any(isinstance(e, ev.Conquered) for e in evs):
                    text += " — " + t("conquered")
            case A.Redistribute():
                text = t("{who} redistributed: {layout}").format(who=who, layout=self._layout(a.layout))
            case A.EndTurn():
                text = t("{who} ended the turn").format(who=who)
            case A.PlayConflict():
                text = t("{who} played a conflict card face-down").format(who=who)
            case A.UseCrown():
                specs = self.data.artefacts
                crown = next(
                    (
                        self.artefact(h.id)
                        for h in before.players[a.player].artefacts
                        if h.id in specs and specs[h.id].type is ArtefactType.CROWN
                    ),
                    t("crown"),
                )
                text = t("{who} used the {crown}").format(who=who, crown=crown)
                if a.affected is not None:
                    text += " → " + self.name(a.affected)
            case A.RollDice():
                text = t("{who} rolled {values}").format(who=who, values=" ".join(map(str, a.values)))
            case _:
                text = f"{who}: {self.option(a)}"
        for e in evs:
            if isinstance(e, ev.ConflictRevealed):
                text += " — " + t("revealed {a} against {d}").format(
                    a=self.card(e.attacker_card), d=self.card(e.defender_card)
                )
            elif isinstance(e, ev.BattleResult):
                text += " — " + t("{w} won {a} to {d}").format(
                    w=self.name(e.winner), a=e.attacker_score, d=e.defender_score
                )
            elif isinstance(e, ev.GameWon):
                text += " — " + t("{names} won the game").format(
                    names=", ".join(self.name(c) for c in e.winners)
                )
        return text

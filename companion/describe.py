"""Engine actions and events in words, for buttons and the history ("Ann advanced 4 knights into the Fort of
Gien — battle"). Short, in the active language; every game noun (places, cards, artefacts, players) through
the `Translator`'s nouns, so a Dutch or Swedish line has no English name in it. A button says its move's
prompt and a history line its move's history, both declared with the move in the engine (`Move.prompt`,
`Move.history`) and translated here by their English templates; what followed is said after it, event by
event."""

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
from engine.moves import Prompt, Slot
from engine.rules import MOVE_OF
from engine.state import GameState

# The gettext context of the moves' prompts and histories: each English template is its msgid.
PROMPT_CONTEXT = "move"
_PLACEHOLDER = re.compile(r"\{(\w+)(?::(\w+))?\}")
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
        return self._said(MOVE_OF[type(a)].prompt, a, None)

    def _said(self, prompt: Prompt, a: A.Action, before: GameState | None) -> str:
        """`prompt`'s template for `a`, translated, each placeholder's value put into words by its kind (a
        field may be said two ways in one template: "{player:player} used the {player:crown}")."""
        parts: dict[str, str] = {}

        def field(m: re.Match[str]) -> str:
            name, kind = m.group(1), m.group(2)
            key = f"{name}_{kind}" if kind else name
            parts[key] = self._value(Slot(kind or Slot.NUMBER.value), getattr(a, name), before)
            return "{" + key + "}"

        plain = _PLACEHOLDER.sub(field, self.tr.p(PROMPT_CONTEXT, prompt.template(a)))
        return _FIELD.sub(lambda m: parts[m.group(1)], self.tr.fitted(plain, parts))

    def _value(self, slot: Slot, value: Any, before: GameState | None) -> str:
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
            case Slot.CROWN:
                return self._crown(value, before)
        return str(value)

    def _crown(self, colour: Colour, state: GameState | None) -> str:
        specs = self.data.artefacts
        held = state.players[colour].artefacts if state is not None else ()
        crowns = (h.id for h in held if h.id in specs and specs[h.id].type is ArtefactType.CROWN)
        return next((self.artefact(c) for c in crowns), self.tr("crown"))

    def _layout(self, layout: Iterable[tuple[str, int]]) -> str:
        return ", ".join(f"{self.place(loc)} {n}" for loc, n in layout)

    # --------------------------------------------------------------------------------------- history

    def action(self, a: A.Action, events: Iterable[ev.Event], before: GameState) -> str:
        """One line for the history: who did what (its move's `history`, declared with the move; else the
        player and the prompt), then what followed."""
        history = MOVE_OF[type(a)].history
        if history is None:
            text = f"{self.name(a.player)}: {self.option(a)}"
        else:
            text = self._said(history, a, before)
        for e in events:
            note = self._followed(e)
            if note:
                text += " — " + note
        return text

    def _followed(self, e: ev.Event) -> str:
        """What a history line says of an event that followed its move ("" for the events it leaves out)."""
        t = self.tr
        match e:
            case ev.BattleStarted():
                return t("battle")
            case ev.Conquered():
                return t("conquered")
            case ev.ConflictRevealed():
                return t("revealed {a} against {d}").format(
                    a=self.card(e.attacker_card), d=self.card(e.defender_card)
                )
            case ev.BattleResult():
                return t("{w} won {a} to {d}").format(
                    w=self.name(e.winner), a=e.attacker_score, d=e.defender_score
                )
            case ev.GameWon():
                return t("{names} won the game").format(names=", ".join(self.name(c) for c in e.winners))
        return ""

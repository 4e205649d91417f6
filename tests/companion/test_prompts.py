"""Option labels and history lines come from the moves' prompts and histories (`engine.moves.Prompt`),
translated by their English templates; an option's kind is its move's (`Move.kind`)."""

from __future__ import annotations

import random

import pytest

from companion.describe import PROMPT_CONTEXT, Describer
from companion.i18n import Translator
from companion.services import OptionKind
from companion.tools.po import catalogs, english_game_words, key, problems, prompts
from engine import actions as A
from engine import events as ev
from engine import new_game, random_config
from engine.colours import Colour
from engine.moves import MoveKind
from engine.rules import MOVES
from engine.state import DiceSource

R, B = Colour.RED, Colour.BLUE


def test_every_prompt_and_history_is_in_both_catalogues_with_its_placeholders_and_kinds() -> None:
    said = [p for m in MOVES for p in (m.prompt, m.history) if p is not None]
    wanted = {key(PROMPT_CONTEXT, t) for p in said for t in p.templates()}
    assert wanted == prompts() and len(wanted) >= len(MOVES) + sum(m.history is not None for m in MOVES)
    assert {po.parent.parent.name for po in catalogs()} == {"nl", "sv"}
    for po in catalogs():  # translated, with the same placeholders and kinds
        assert problems(po, wanted) == []


SAMPLES = (
    A.Advance(R, "T10", 4),
    A.PassFractureRound(R, B),
    A.DiscardCard(R, "C04"),
    A.DiscardCard(R, None),
    A.PlaySupport(R, ("C04", "C05")),
    A.UseCrown(R, B),
    A.Redistribute(R, (("T10", 2),)),
)
EXPECTED = {
    "en": [
        "4 into Forest of Tronçais",
        "Nobody plays a fracture card before Blue",
        "Discard Audacious Charge (4)",
        "Keep my cards",
        "Audacious Charge (4) + Cavalry Charge (4)",
        "Use crown → Blue",
        "Move to: Forest of Tronçais 2",
    ],
    "nl": [
        "4 naar Bos van Tronçais",
        "Niemand speelt een breukkaart vóór Blauw",
        "Leg Stoutmoedige aanval (4) af",
        "Mijn kaarten houden",
        "Stoutmoedige aanval (4) + Ruiteraanval (4)",
        "Gebruik kroon → Blauw",
        "Verplaats naar: Bos van Tronçais 2",
    ],
    "sv": [
        "4 till Skogen vid Tronçais",
        "Ingen spelar ett spräckkort före Blå",
        "Kasta Djärvt anfall (4)",
        "Behåll mina kort",
        "Djärvt anfall (4) + Kavallerianfall (4)",
        "Använd krona → Blå",
        "Flytta till: Skogen vid Tronçais 2",
    ],
}


@pytest.mark.parametrize("lang", sorted(EXPECTED))
def test_an_option_in_each_language(lang: str) -> None:
    state = new_game(random_config(random.Random(1), players=4))
    describe = Describer(state.data, {R: "Hans"}, Translator(lang))
    labels = [describe.option(a) for a in SAMPLES]
    assert labels == EXPECTED[lang]
    if lang != "en":
        assert not set().union(*(english_game_words(label, lang) for label in labels))


HISTORY = (
    (A.Advance(R, "T10", 4), (ev.Advanced(R, "T10", 4, None), ev.BattleStarted("T10", R, B, 4, 3))),
    (A.EndTurn(B), ()),
    (A.PlayConflict(R, "C04"), ()),
    (A.UseCrown(R, B), ()),
    (A.UseCrown(R), ()),
    (A.RollDice(R, (3, 5), DiceSource.SIMULATION), ()),
    (A.Redistribute(R, (("T10", 2),)), ()),
    (A.PlaySupport(R, ()), (ev.BattleResult(R, B, 7, 5, 2, "combat scores"), ev.Conquered(R, "T10"))),
)
HISTORY_LINES = {
    "en": [
        "Hans advanced 4 knights into Forest of Tronçais — battle",
        "Blue ended the turn",
        "Hans played a conflict card face-down",
        "Hans used the Crown of Prosperity → Blue",
        "Hans used the Crown of Prosperity",
        "Hans rolled 3 5",
        "Hans redistributed: Forest of Tronçais 2",
        "Hans: No more support — Hans won 7 to 5 — conquered",
    ],
    "nl": [
        "Hans maakte een vordering met 4 ridders naar Bos van Tronçais — gevecht",
        "Blauw beëindigde de beurt",
        "Hans speelde gesloten een conflictkaart",
        "Hans gebruikte de Kroon van Voorspoed → Blauw",
        "Hans gebruikte de Kroon van Voorspoed",
        "Hans wierp 3 5",
        "Hans herverdeelde: Bos van Tronçais 2",
        "Hans: Geen steunkaarten meer — Hans won met 7 tegen 5 — veroverd",
    ],
    "sv": [
        "Hans ryckte fram med 4 riddare till Skogen vid Tronçais — strid",
        "Blå avslutade omgången",
        "Hans lade ett konfliktkort med framsidan neråt",
        "Hans använde Välståndets krona → Blå",
        "Hans använde Välståndets krona",
        "Hans slog 3 5",
        "Hans omfördelade: Skogen vid Tronçais 2",
        "Hans: Inga fler stödkort — Hans vann med 7 mot 5 — erövrat",
    ],
}


@pytest.mark.parametrize("lang", sorted(HISTORY_LINES))
def test_a_history_line_in_each_language(lang: str) -> None:
    """Its move's history (the crown named from the state it was used in), else the player and the prompt;
    then what followed. A conflict card stays secret."""
    state = new_game(random_config(random.Random(1), players=4))
    crown = state.players[R].artefacts[0].id  # dealt to Red in this game
    assert state.data.artefacts[crown].name == "Crown of Prosperity"
    describe = Describer(state.data, {R: "Hans"}, Translator(lang))
    lines = [describe.action(a, events, state) for a, events in HISTORY]
    assert lines == HISTORY_LINES[lang]
    if lang != "en":
        assert not set().union(*(english_game_words(line, lang) for line in lines))


def test_an_options_kind_is_its_moves() -> None:
    """The app's option kinds include every kind a move can declare, by the same value."""
    assert {k.value for k in MoveKind} <= {k.value for k in OptionKind}

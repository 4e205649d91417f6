"""Option labels come from the moves' prompts (`engine.moves.Prompt`), translated by their English
templates."""

from __future__ import annotations

import random

import pytest

from companion.describe import PROMPT_CONTEXT, Describer
from companion.i18n import Translator
from companion.tools.po import catalogs, english_game_words, key, problems, prompts
from engine import actions as A
from engine import new_game, random_config
from engine.colours import Colour
from engine.rules import MOVES

R, B = Colour.RED, Colour.BLUE


def test_every_prompt_is_in_both_catalogues_with_its_placeholders_and_kinds() -> None:
    wanted = {key(PROMPT_CONTEXT, t) for m in MOVES for t in m.prompt.templates()}
    assert wanted == prompts() and len(wanted) >= len(MOVES)
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

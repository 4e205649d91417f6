"""Languages: gettext catalogs in companion/locale/<lang>/LC_MESSAGES/seneschal.po (+ compiled .mo).

Each language uses its rulebook edition's own terms (Dutch: ridders, gebied, vordering, gevecht, Rijksappel;
Swedish: riddare, territorium, framryckning, strid, borg, spira, äpple). Where an edition keeps the English
printed on the cards and tiles (card, artefact and territory names, "Homelands", "Mayhem"), the catalogs give
a Dutch or Swedish name instead, so that no English game noun is left on a Dutch or Swedish screen.

Game nouns are translated in one place, here, keyed by what they are (gettext contexts, `Translator.p`):
catalogue names by their English default name ("card" "Ambush"), territory names by their pattern
("territory" "Forest of {place}", so an owner's own "Forest of Nevers" is translated too), kinds, artefact
types and colours by their English word, the moves' prompts (`engine.moves.Prompt`) by their English
template ("move" "{knights} into {target:place}"). The engine stays in English; the app's describer
(`describe.py`) and session ask the `Translator` for every noun they show. A name the catalogs do not know
(an owner's own name for a tile) is shown as the owner wrote it.

Grammar that depends on the value a field gets is the Translator's too: a Swedish message's `format` writes
the genitive of a name ending in s, x or z without another s ("Hans borg", `SwedishMessage`).

The active `Translator` is passed to presenters and screens; nothing reads a global language.
"""

from __future__ import annotations

import functools
import gettext
import re
from collections.abc import Mapping
from pathlib import Path

from engine.colours import Colour

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "seneschal"
LANGUAGES: dict[str, str] = {"en": "English", "nl": "Nederlands", "sv": "Svenska"}

# English game nouns, by gettext context. Each is a msgid; the extractor (companion.tools.po) reads these.
TERRITORY_PATTERNS: tuple[str, ...] = (
    "{place} Homelands",
    "{place} Grasslands",
    "{place} Meadows",
    "Forest of {place}",
    "Marshes of {place}",
    "Village of {place}",
    "Plains of {place}",
    "Fort of {place}",
    "Ruins of {place}",
    "Cave of {place}",
    "Shrine of {place}",
    "City of {place}",
    "Fortress of {place}",
    "Abbey of {place}",
    "Arena of {place}",
    "Battlefield of {place}",
    "Mountains of {place}",
)
TERRITORY_KINDS: dict[str, str] = {  # engine TerritoryKind value -> English word
    "grasslands": "Grasslands",
    "fort": "Fort",
    "city": "City",
    "fortress": "Fortress",
    "cave": "Cave",
    "battlefield": "Battlefield",
    "mountains": "Mountains",
    "village": "Village",
    "shrine": "Shrine",
    "marshlands": "Marshlands",
    "ruins": "Ruins",
    "abbey": "Abbey",
    "homelands": "Homelands",
    "arena": "Arena",
    "forest": "Forest",
    "castle": "Castle",
    "lake": "Lake",
}
ARTEFACT_TYPES: dict[str, str] = {"crown": "Crown", "sceptre": "Sceptre", "orb": "Orb"}
CARD_KINDS: dict[str, str] = {  # engine CardKind value -> English word
    "conflict": "Conflict card",
    "ambush": "Ambush card",
    "support": "Support card",
    "authority": "Resource card",
    "call_to_arms": "Resource card",
    "tactical_advance": "Resource card",
    "fracture": "Resource card",
}
COLOURS: dict[Colour, str] = {c: c.value.capitalize() for c in Colour}  # "Red": msgids with no context
_PLACE = "{place}"


def _pattern(english: str) -> re.Pattern[str]:
    head, _, tail = english.partition(_PLACE)
    return re.compile(re.escape(head) + "(?P<place>.+)" + re.escape(tail))


_PATTERNS = tuple((p, _pattern(p)) for p in TERRITORY_PATTERNS)


class Translator:
    """`tr("Undo")` -> the active language's text. Switchable at run time (`set_language`).
    Game nouns: `tr.territory(name)`, `tr.card(name)`, `tr.artefact(name)`, `tr.kind("forest")`,
    `tr.artefact_type("orb")`, `tr.colour(Colour.RED)`, `tr.player(colour, name)`."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = "en"
        self._t: gettext.NullTranslations = gettext.NullTranslations()
        self.set_language(lang)

    def set_language(self, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        self.lang = lang
        self._t = _translations(lang)

    def __call__(self, message: str) -> str:
        return self._grammar(self._t.gettext(message))

    def n(self, singular: str, plural: str, n: int) -> str:
        return self._grammar(self._t.ngettext(singular, plural, n))

    def p(self, context: str, message: str) -> str:
        """The message as meant in `context` ("card", "territory"...): the same English word can need two
        translations (the card "Skirmish" and the optional rule "Skirmish" are one word in English only)."""
        return self._grammar(self._t.pgettext(context, message))

    def _grammar(self, text: str) -> str:
        return SwedishMessage(text) if self.lang == "sv" else text

    def fitted(self, template: str, parts: Mapping[str, object]) -> str:
        """`template` (a translated message) as its language writes it around the values its fields get:
        for callers that fill fields themselves instead of calling `format`."""
        return swedish_genitives(template, parts) if self.lang == "sv" else template

    # --------------------------------------------------------------------------------------- game nouns

    def territory(self, name: str) -> str:
        """A territory's name: the whole name when the catalog has it, else its pattern's translation with
        the proper name kept ("Forest of Tronçais" -> "Bos van Tronçais"), else the name as it is."""
        whole = self.p("territory", name)
        if whole != name or self.lang == "en":
            return whole
        for english, pattern in _PATTERNS:
            m = pattern.fullmatch(name)
            if m is not None:
                translated = self.p("territory", english)
                if translated != english:
                    return translated.replace(_PLACE, m.group("place"))
        return name

    def card(self, name: str) -> str:
        return self.p("card", name)

    def artefact(self, name: str) -> str:
        return self.p("artefact", name)

    def kind(self, kind: str) -> str:
        """A territory kind ("forest", or an engine TerritoryKind value) as a word: "Bos"."""
        english = TERRITORY_KINDS.get(kind)
        return self.p("territory kind", english) if english else kind

    def artefact_type(self, kind: str) -> str:
        english = ARTEFACT_TYPES.get(kind)
        return self.p("artefact type", english) if english else kind

    def artefact_initial(self, kind: str) -> str:
        """The one letter an artefact chip shows: C/S/O in English, K/S/R in Dutch, K/S/Ä in Swedish."""
        return self.artefact_type(kind)[:1].upper()

    def card_kind(self, kind: str) -> str:
        english = CARD_KINDS.get(kind)
        return self.p("card kind", english) if english else kind

    def colour(self, colour: Colour) -> str:
        return self(COLOURS[colour])

    def player(self, colour: Colour, name: str | None) -> str:
        """A player's name; a player with no name of their own (none, or their colour's name in any of our
        languages: the default) is called by their colour in the active language."""
        if not name or is_default_name(colour, name):
            return self.colour(colour)
        return name

    def player_name(self, name: str) -> str:
        """A name kept without its colour (the score history): a colour's name in any of our languages is a
        player called by their colour, so it is said in the active language ("Blue" on a Dutch screen:
        "Blauw")."""
        colour = next((c for c in Colour if is_default_name(c, name)), None)
        return name if colour is None else self.colour(colour)


@functools.lru_cache(maxsize=len(LANGUAGES))
def _translations(lang: str) -> gettext.NullTranslations:
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[lang])


_GENITIVE = re.compile(r"\{(\w+)\}s(?!\w)")


def swedish_genitives(template: str, parts: Mapping[str, object]) -> str:
    """Swedish writes a genitive with s, except after a name that ends in s, x or z ("{name}s borg": "Annas
    borg", but "Hans borg", "Max borg", "Lutz borg")."""

    def one(m: re.Match[str]) -> str:
        value = str(parts.get(m.group(1), ""))
        return m.group(0)[:-1] if value[-1:].lower() in ("s", "x", "z") else m.group(0)

    return _GENITIVE.sub(one, template)


class SwedishMessage(str):
    """A Swedish message: `format` writes its genitives as Swedish does (`swedish_genitives`), so every
    caller's `tr("{name}'s castle").format(name=...)` gets "Hans borg" right."""

    __slots__ = ()

    def format(self, *args: object, **kwargs: object) -> str:
        return str.format(swedish_genitives(self, kwargs), *args, **kwargs)


def is_default_name(colour: Colour, name: str) -> bool:
    """Whether `name` is just `colour`'s name in one of our languages ("Red", "Rood", "Röd")."""
    folded = name.strip().casefold()
    return any(_translations(lang).gettext(COLOURS[colour]).casefold() == folded for lang in LANGUAGES)


def N_(message: str) -> str:
    """Marks a message for extraction where it is defined; translated where it is shown."""
    return message


# Messages shown through a variable (so the extractor cannot see a literal at the call).
DYNAMIC_MESSAGES: tuple[str, ...] = (
    N_("Allegiance"),
    N_("Castle siege"),
    N_("Cut throat"),
    N_("Skirmish"),
    N_("Mayhem"),
    N_("Default map"),
    N_("Read from camera"),
    N_("Saved map"),
    N_("value"),
    N_("capacity"),
    N_("connected"),
    N_("simulated"),
    N_("none"),
    N_("reconnecting"),
    N_("closed"),
    N_("Roll not taken: roll again. The roller's display may show dice that do not count."),
    N_("Dice roller"),
    N_("Camera"),
    N_("arena"),
    N_("ambush"),
    N_("mayhem"),
    N_("Allegiance needs 4 or 6 players."),
    N_("Allegiance cannot be played with castle siege."),
    N_("Two players have the same name."),
    N_("Red"),
    N_("Blue"),
    N_("Yellow"),
    N_("Green"),
    N_("White"),
    N_("Black"),
)

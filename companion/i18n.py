"""Languages: gettext catalogs in companion/locale/<lang>/LC_MESSAGES/seneschal.po (+ compiled .mo).

Each language uses its rulebook edition's own terms (Dutch: ridders, gebied, vordering, gevecht, Rijksappel;
Swedish: riddare, territorium, framryckning, strid, borg, spira, äpple). The active `Translator` is passed to
presenters and screens; nothing reads a global language.
"""

from __future__ import annotations

import gettext
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "seneschal"
LANGUAGES: dict[str, str] = {"en": "English", "nl": "Nederlands", "sv": "Svenska"}


class Translator:
    """`tr("Undo")` -> the active language's text. Switchable at run time (`set_language`)."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = "en"
        self._t: gettext.NullTranslations = gettext.NullTranslations()
        self.set_language(lang)

    def set_language(self, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        self.lang = lang
        if lang == "en":
            self._t = gettext.NullTranslations()
        else:
            self._t = gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[lang])

    def __call__(self, message: str) -> str:
        return self._t.gettext(message)

    def n(self, singular: str, plural: str, n: int) -> str:
        return self._t.ngettext(singular, plural, n)


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
    N_("Fort"),
    N_("City"),
    N_("Fortress"),
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

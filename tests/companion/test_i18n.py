"""Translations: the committed .mo files are what the .po files compile to, every message the app shows
is translated in Dutch and Swedish with its placeholders kept, and switching language works at run time."""

from __future__ import annotations

import pytest

from companion.i18n import LANGUAGES, Translator
from companion.presenters.settings import SettingsPresenter
from companion.storage import SqliteStorage
from companion.tools.po import catalogs, compile_mo, extract, parse_po, problems


def test_committed_mo_files_match_their_po() -> None:
    pos = catalogs()
    assert {p.parent.parent.name for p in pos} == {"nl", "sv"}
    for po in pos:
        compiled = compile_mo(parse_po(po.read_text(encoding="utf-8"), str(po)))
        assert po.with_suffix(".mo").read_bytes() == compiled, (
            f"run `python -m companion.tools.po compile` ({po})"
        )


def test_every_message_is_translated_with_its_placeholders() -> None:
    wanted = extract()
    assert len(wanted) > 120 and "Battle" in wanted and "Place three knights" in wanted
    found = [p for po in catalogs() for p in problems(po, wanted)]
    assert found == []


def test_rulebook_terms_of_each_edition() -> None:
    nl, sv = Translator("nl"), Translator("sv")
    assert nl("Make an advance") == "Maak een vordering"  # the Dutch edition's term
    assert sv("Line of supply") == "Försörjningslinje"
    assert sv("Orbs") == "Äpplen" and nl("Orbs") == "Rijksappels"
    assert nl("{who} rolled {values}").format(who="Ann", values="3") == "Ann wierp 3"


def test_switching_language_is_stored(tmp_path: object) -> None:
    storage = SqliteStorage(":memory:")
    tr = Translator()
    settings = SettingsPresenter(storage, tr)
    settings.set_language("sv")
    assert tr("Undo") == "Ångra" and storage.get_setting("language", "en") == "sv"
    again = Translator()
    SettingsPresenter(storage, again)
    assert again.lang == "sv"
    with pytest.raises(ValueError, match="unknown language"):
        tr.set_language("de")
    assert set(LANGUAGES) == {"en", "nl", "sv"}


def test_po_parser_reports_bad_lines() -> None:
    with pytest.raises(ValueError, match=":2:"):
        parse_po('msgid "a"\nmsgstr b\n', "x.po")

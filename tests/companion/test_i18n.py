"""Translations: the committed .mo files are what the .po files compile to, every message the app shows
is translated in Dutch and Swedish with its placeholders kept, switching language works at run time, every
game noun and every sentence the engine says reaches a Dutch or Swedish table in its language, and no English
game noun is left in what the screens' presenters show over a whole game."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from companion.i18n import LANGUAGES, Translator
from companion.presenters.newgame import NewGamePresenter
from companion.presenters.settings import SettingsPresenter
from companion.rulebook import SECTIONS
from companion.session import EngineSession
from companion.storage import SqliteStorage
from companion.tools.po import (
    _python_messages,
    catalogs,
    compile_mo,
    english_game_words,
    extract,
    parse_po,
    problems,
)
from engine.colours import Colour
from engine.playout import choose


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


def test_a_message_split_over_lines_is_extracted_whole() -> None:
    source = 'x = tr(\n    "The camera has not measured "\n    "these dice: {colours}."\n)\n'
    assert _python_messages(source) == {"The camera has not measured these dice: {colours}."}
    assert _python_messages("N_('one')\nt('two', 'nl')\nprint('three')\n") == {"one", "two"}
    wanted = extract()  # the new game's note on unmeasured players is written over two lines
    assert any(m.startswith("The camera has not measured these players' dice") for m in wanted)
    assert "castle not found" in wanted  # a box-setup state word, marked with N_


def test_rulebook_terms_of_each_edition() -> None:
    nl, sv = Translator("nl"), Translator("sv")
    assert nl("Make an advance") == "Maak een vordering"  # the Dutch edition's term
    assert sv("Line of supply") == "Försörjningslinje"
    assert sv("Orbs") == "Äpplen" and nl("Orbs") == "Rijksappels"
    assert nl.p("move", "{player:player} rolled {values:dice}") == "{player:player} wierp {values:dice}"


# Words a catalogue must not use, with the edition's own word for the same thing (face down, combat score,
# in hand): the Dutch edition says "gesloten", "gevechtssterkte", "op handen"; the Swedish one "med
# framsidan neråt", "stridsvärde", "på handen".
NOT_THE_EDITIONS = {
    "nl": {"gedekt": "gesloten", "gevechtswaarde": "gevechtssterkte", "in de hand": "op handen"},
    "sv": {"nedåt": "neråt", "stridsstyrka": "stridsvärde", "i handen": "på handen"},
}


@pytest.mark.parametrize("lang", sorted(NOT_THE_EDITIONS))
def test_each_catalogue_keeps_its_editions_words(lang: str) -> None:
    po = next(p for p in catalogs() if p.parent.parent.name == lang)
    said = parse_po(po.read_text(encoding="utf-8"), str(po)).values()
    for avoid, edition in NOT_THE_EDITIONS[lang].items():
        assert [s for s in said if re.search(rf"\b{avoid}\b", s, re.IGNORECASE)] == [], edition
        assert any(edition in s for s in said)


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


# --- no English game noun on a Dutch or Swedish screen -----------------------------------------------------


def _strings(value: object, skip: frozenset[str] = frozenset()) -> list[str]:
    """Every string a view holds, walking dataclasses, mappings and sequences (ids and codes skipped)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v, skip)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v, skip)]
    if is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in fields(value) if f.name not in skip]
        return [s for name in names for s in _strings(getattr(value, name), skip)]
    return []


# Fields that hold ids and codes, never shown as words: action keys (reprs), tile/kind/type codes, the engine
# action, a verdict's reason code.
_CODES = frozenset(
    {"key", "id", "kind", "ability", "type", "action", "target", "location", "reason", "territory", "state"}
)


def _reading(session: EngineSession, state: Any, **changed: dict[Colour, int]) -> Any:
    from companion.pipeline import artefacts_on_table, knights_on_table
    from engine.reading import TableReading

    knights = {k: dict(v) for k, v in knights_on_table(state, session.board).items()}
    knights.update(changed)
    return TableReading(tiles=dict(session.board.tiles), knights=knights, artefacts=artefacts_on_table(state))


def _camera_texts(session: EngineSession) -> list[str]:
    """What the table screen says about camera readings: one that lags behind the last move (what to take
    off and why), one with a knight too many, a colour that is not playing, an artefact turned over."""
    state = session.state
    loc = next(t for t in state.data.territories if state.controller(t) is not None)
    owner = state.controller(loc)
    readings = [
        _reading(session, session.states[-2]),
        _reading(session, state, **{loc: {owner: state.knights_at(loc)[owner] + 1}}),
        _reading(session, state, **{loc: {Colour.BLACK: 2}} if Colour.BLACK not in state.order else {}),
    ]
    turned = _reading(session, state)
    arts = dict(turned.artefacts)
    if arts:
        first = next(iter(arts))
        arts[first] = not arts[first]
    readings.append(type(turned)(tiles=turned.tiles, knights=turned.knights, artefacts=arts))
    out = []
    for reading in readings:
        proposal = session.propose(reading)
        out += _strings(proposal, _CODES)
    return out


def _screen_texts(session: EngineSession, tr: Translator) -> list[str]:
    """The words every game screen's presenter produces now (table, turn, battle, referee, history)."""
    from companion.presenters.battle import BattlePresenter
    from companion.presenters.history import HistoryPresenter
    from companion.presenters.referee import RefereePresenter
    from companion.presenters.table import TablePresenter
    from companion.presenters.turn import TurnPresenter
    from companion.services import ManualClock
    from tests.companion.fakes import FakeRoller

    texts = _strings(session.snapshot(), _CODES) + _strings(session.history(), _CODES)
    table = TablePresenter(session, ManualClock(), tr)
    texts += [table.turn_text(), *table.setup_lines()]
    turn = TurnPresenter(session, tr)
    texts += _strings(turn.steps(), _CODES) + _strings(turn.groups(), _CODES)
    for group in turn.groups():
        turn.select_group(group.kind)
        texts += [name for _t, name, _e, _o in turn.target_choices()]
    battle = BattlePresenter(session, FakeRoller((3, 4)), ManualClock(), tr)
    texts += _strings(battle.stages(), _CODES) + [s for _c, s in battle.conflict_status()]
    texts += _strings(battle.options_for_prompted(), _CODES)
    referee = RefereePresenter(session, tr)
    for topic in referee.topics:
        texts += _strings(referee.ask(topic), _CODES)
    texts += [t for line in HistoryPresenter(session, tr).lines for t in _strings(line, _CODES)]
    return texts


def _box_setup_texts(tr: Translator, tmp: Path) -> list[str]:
    """Box setup: the tile rows, and what the dice-colour check says (calibrate.py's own notes)."""
    from types import SimpleNamespace

    from companion.box import CatalogueBox
    from companion.calibrate import samples_on_castles
    from companion.presenters.boxsetup import BoxSetupPresenter, CalibrationStatus

    box = BoxSetupPresenter(CatalogueBox(tmp), None, tr)
    texts = [r.name for r in box.rows()] + [tr.kind(r.kind) for r in box.rows()]
    seen = SimpleNamespace(knights=SimpleNamespace(seen=("K3",), dice=()), white=None)
    nothing = SimpleNamespace(knights=SimpleNamespace(seen=(), dice=()))
    for result in (SimpleNamespace(knights=None, message=""), seen, nothing):
        _samples, notes = samples_on_castles(None, result, {"K3": Colour.YELLOW, "K9": Colour.RED})
        texts.append(box._calibration_sentence(CalibrationStatus(("red",), tuple(notes))))
    return texts


@pytest.mark.parametrize("lang", ["nl", "sv"])
def test_no_english_game_noun_on_a_dutch_or_swedish_screen(lang: str, tmp_path: Path) -> None:
    """A whole seeded game with four players (the app holding the cards, so every card and artefact comes up),
    every screen's texts read after every few moves, the camera's disagreements included."""
    tr = Translator(lang)
    players = NewGamePresenter(random.Random(5), tr)
    players.add_player()
    session = EngineSession.create(players.config(), SqliteStorage(":memory:"), tr, knowledge="full")
    rng = random.Random(5)
    found: dict[str, str] = {}
    texts: list[str] = [*(tr(s.summary) for s in SECTIONS), *(tr(s.title) for s in SECTIONS)]
    texts += _box_setup_texts(tr, tmp_path) + [p.name for p in players.players]
    for move in range(260):
        if session.state.winner is not None:
            break
        if move % 6 == 0 or (session.state.battle is not None and move % 2 == 0):
            texts += _screen_texts(session, tr)
        if move % 25 == 1:
            texts += _camera_texts(session)
        session.apply(choose(session.state, rng))
    texts += _screen_texts(session, tr)
    assert len(texts) > 2000
    for text in texts:
        for word in english_game_words(text, lang):
            found.setdefault(word, text)
    assert found == {}


# --- game nouns and the engine's sentences -------------------------------------------------------------


def test_game_nouns_in_each_language() -> None:
    nl, sv, en = Translator("nl"), Translator("sv"), Translator("en")
    assert nl.territory("Forest of Tronçais") == "Bos van Tronçais"
    assert sv.territory("Morvan Homelands") == "Närprovinsen Morvan"
    # An owner's own tile follows its pattern; a name with no pattern stays as the owner wrote it.
    assert nl.territory("Forest of Nevers") == "Bos van Nevers" and nl.territory("Le Puy") == "Le Puy"
    assert (nl.card("Ambush"), sv.card("Call to Arms")) == ("Hinderlaag", "Mönstring")
    assert (sv.artefact("Orb of Greed"), en.artefact("Orb of Greed")) == ("Girighetens äpple", "Orb of Greed")
    assert [t.artefact_initial(k) for t in (en, nl, sv) for k in ("crown", "orb")] == list("COKRKÄ")
    assert nl.kind("homelands") == "Thuislanden" and sv.card_kind("support") == "Stödkort"
    # A player without a name of their own is called by their colour in the language shown now.
    assert [sv.player(Colour.RED, n) for n in ("Red", "Rood", "", "Ann")] == ["Röd", "Röd", "Röd", "Ann"]


def test_swedish_genitive_of_a_name_ending_in_s_x_or_z_takes_no_s() -> None:
    from companion.engine_text import EngineText
    from companion.presenters.table import TablePresenter
    from companion.services import ManualClock
    from tests.companion.fakes import FakeSession

    sv = Translator("sv")
    castles = [sv("{name}'s castle").format(name=n) for n in ("Hans", "Max", "Lutz", "Anna", "Röd", "MARCUS")]
    assert castles == ["Hans borg", "Max borg", "Lutz borg", "Annas borg", "Röds borg", "MARCUS borg"]
    look = sv("Only {name} looks: the next screen shows {name}'s cards.").format(name="Klas")
    assert look == "Bara Klas tittar: nästa skärm visar Klas kort."
    assert Translator("en")("{name}'s castle").format(name="Hans") == "Hans's castle"
    # The engine's sentences, filled field by field, and a presenter's own line.
    names = {Colour.RED: "Hans", Colour.BLUE: "Anna"}
    said = EngineText(sv, lambda _id: None, lambda c: names.get(c, c.value))
    assert said.sentence("It is Red's turn, not Blue's.") == "Det är Hans omgång, inte Annas."
    assert said.sentence("It is Blue's turn, not Red's.") == "Det är Annas omgång, inte Hans."
    session = FakeSession()
    session.snap = replace(session.snap, players=(replace(session.snap.players[0], name="Lars"),))
    assert TablePresenter(session, ManualClock(), tr=sv).turn_title().startswith("Lars omgång")


def test_new_game_players_are_called_by_their_colour_in_the_screen_s_language() -> None:
    tr = Translator("nl")
    p = NewGamePresenter(random.Random(1), tr)
    p.rename(Colour.BLUE, "Ann")
    assert [x.name for x in p.players] == ["Rood", "Ann", "Geel"]
    tr.set_language("sv")
    p.retranslate()
    assert [x.name for x in p.players] == ["Röd", "Ann", "Gul"]


def test_the_engine_s_sentences_in_dutch_and_swedish() -> None:
    from companion.engine_text import EngineText

    names = {"T10": "Bos van Tronçais", "C04": "Stoutmoedige aanval"}
    said = EngineText(Translator("nl"), names.get, lambda c: {Colour.RED: "Ann"}.get(c, c.value))
    held = said.sentence("Red does not hold Audacious Charge (C04).")
    assert held == "Ann heeft Stoutmoedige aanval niet op handen."
    assert said.sentence("It is Red's turn, not Blue's.") == "Ann is aan de beurt, niet blue."
    assert said.citation("Make an Advance, p.11") == "Een vordering maken, p. 11"
    assert said.citation("R24") == "R24"
    new = "A sentence the engine has just made up."
    assert said.sentence(new, "Niet toegestaan.") == "Niet toegestaan."
    assert EngineText(Translator("en"), names.get, lambda c: "Ann").sentence(new, "Not allowed.") == new


def test_every_sentence_the_referee_says_reaches_a_dutch_table_in_dutch() -> None:
    """Games played with every kind of question put to the referee (each option, the usual wrong moves): each
    refusal's sentence and citation matches a template (else a Dutch table reads only "Niet toegestaan.") and
    what the template leaves open is said in Dutch too (no English game noun left)."""
    from engine import actions as A
    from engine.rules import check

    tr = Translator("nl")
    left: dict[str, str] = {}
    for seed in range(3):
        config = NewGamePresenter(random.Random(seed), tr).config()
        session = EngineSession.create(config, SqliteStorage(":memory:"), tr, knowledge="full")
        rng = random.Random(seed)
        words = session.describe.engine
        for move in range(300):
            s = session.state
            if s.winner is not None:
                break
            tries: list[Any] = [o.action for o in session.referee_topics() if o.action is not None]
            if move % 4 == 0:
                for c in s.order:
                    tries += [A.PlayCallToArms(c), A.UseCrown(c), A.SkipAdvance(c), A.EndTurn(c)]
                tries += [A.Advance(s.current, t, n) for t in list(s.data.territories)[::3] for n in (2, 9)]
            for action in tries:
                v = check(s, action)
                for text in (v.sentence, v.citation) if not v.ok else ():
                    said = words.sentence(text, "")
                    untouched = said == text and not re.fullmatch(r"R\d+\w?", text)
                    if untouched or english_game_words(said, "nl"):
                        left[text] = said
            session.apply(choose(s, rng))
    assert left == {}


# --- what the roller and the camera say about themselves ----------------------------------------------


def _driver_statuses() -> list[str]:
    """Statuses as the roller's adapters and the camera's feeds make them, and the table reader's words."""
    from companion.feeds import VisionFeed
    from companion.rolling import DeviceRollerAdapter, ScreenRollerAdapter, open_device_roller
    from hardware.errors import DeviceDisconnectedError

    adapter = DeviceRollerAdapter("loop://")

    def unplugged(n: int, timeout: float | None = None) -> Any:
        raise DeviceDisconnectedError("the roller was unplugged")

    adapter._roller.roll = unplugged  # type: ignore[method-assign]
    adapter.roll(2)
    out = [ScreenRollerAdapter().status_text, open_device_roller("/dev/no-such-roller").status_text]
    out += [adapter.status_text, VisionFeed(None, None).status_text]
    adapter.close()
    return [
        *out,
        "simulated roller 53454e4553494d31 on /dev/pts/3, firmware 1.2 "
        "(device restarted (boot): new session)",
        "starting the camera process",
        "opening camera 0",
        "frame 812 (cam0)",
        "cannot open camera 0; retrying every 2 s",
        "9 of 21 tiles in view; out of view: T01, T02 (3 seen that the known map cannot place yet)",
        "the frame is black or blank: is the camera covered?",
    ]


def test_the_roller_and_the_camera_say_their_state_in_dutch_and_swedish() -> None:
    from companion.status_text import is_status_sentence, say

    statuses = _driver_statuses()
    assert [s for s in statuses if not is_status_sentence(s)] == []
    nl, sv = Translator("nl"), Translator("sv")
    for tr in (nl, sv):
        assert [s for s in statuses if say(tr, s) == s] == []
    unplugged = "dobbelmachine op loop://: gesloten (op het scherm geworpen: the roller was unplugged)"
    assert say(nl, statuses[2]) == unplugged  # the driver's own error text stays as it is
    assert say(sv, statuses[-2]) == (
        "9 av 21 brickor i bild; utanför bild: T01, T02 (3 sedda som den kända kartan inte kan placera än)"
    )
    assert say(sv, "something no template knows") == "something no template knows"
    assert say(Translator("en"), statuses[0]) == statuses[0]

"""Translations without gettext tools: extract the app's messages, check the .po catalogs, and compile them to
.mo with the standard library only.

    python -m companion.tools.po compile   # every companion/locale/*/LC_MESSAGES/seneschal.po -> .mo
    python -m companion.tools.po check     # every message translated, placeholders kept
    python -m companion.tools.po missing   # print the messages a catalog lacks
    python -m companion.tools.po update    # add the missing messages (empty) and drop unused ones, sorted

A message with a gettext context (`msgctxt`, `Translator.p`) is keyed "context\x04message", as in .mo files.
"""

from __future__ import annotations

import ast
import functools
import re
import struct
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
LOCALE = PACKAGE / "locale"
CONTEXT_SEP = "\x04"
_CALLED = {"tr", "t", "N_"}  # the translating calls: Translator.tr / the app's t / the N_ marker
_CALL = re.compile(r"""(?:\btr|\.tr|\bt|\.t|\bN_)\(\s*(["'])((?:(?!\1)[^\\]|\\.)*)\1\s*[,)]""")


def extract() -> set[str]:
    """Every message the app can show: literal calls in Python and kv files, plus the tables of titles."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if "tools" not in path.parts:
            found |= _python_messages(path.read_text(encoding="utf-8"))
    for path in (PACKAGE / "kv").glob("*.kv"):
        for m in _CALL.finditer(path.read_text(encoding="utf-8")):
            found.add(ast.literal_eval(m.group(1) + m.group(2) + m.group(1)))
    from companion.presenters.base import NAV_TITLES
    from companion.presenters.battle import BATTLE_STAGES
    from companion.presenters.table import TURN_STEPS
    from companion.presenters.turn import GROUP_TITLES
    from companion.rulebook import SECTIONS

    found.update(TURN_STEPS, BATTLE_STAGES, GROUP_TITLES.values(), NAV_TITLES.values())
    found.update(s.title for s in SECTIONS)
    found.update(s.summary for s in SECTIONS)
    found.update(_nouns())
    found.discard("")
    return found


def _python_messages(source: str) -> set[str]:
    """The literal first arguments of `tr`, `t` and `N_` calls in Python source, read from its syntax tree: a
    message split over lines (implicit concatenation) is one string there."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        first = node.args[0]
        if name in _CALLED and isinstance(first, ast.Constant) and isinstance(first.value, str):
            out.add(first.value)
    return out


def key(context: str, message: str) -> str:
    return f"{context}{CONTEXT_SEP}{message}" if context else message


def _nouns() -> set[str]:
    """The game nouns: catalogue names (territories that no pattern names), patterns, kinds, types."""
    from companion import engine_text, status_text
    from companion.i18n import (
        _PATTERNS,
        ARTEFACT_TYPES,
        CARD_KINDS,
        COLOURS,
        TERRITORY_KINDS,
        TERRITORY_PATTERNS,
    )
    from engine.catalogue import load_default_catalogue

    cat = load_default_catalogue()
    out = {key("territory", p) for p in TERRITORY_PATTERNS}
    unpatterned = [t.name for t in cat.territories if not any(m.fullmatch(t.name) for _p, m in _PATTERNS)]
    out |= {key("territory", name) for name in unpatterned}
    out |= {key("card", c.name) for c in cat.cards}
    out |= {key("artefact", a.name) for a in cat.artefacts}
    out |= {key("territory kind", w) for w in TERRITORY_KINDS.values()}
    out |= {key("artefact type", w) for w in ARTEFACT_TYPES.values()}
    out |= {key("card kind", w) for w in CARD_KINDS.values()}
    out |= set(COLOURS.values())
    out |= {key(engine_text.CONTEXT, t) for t in (*engine_text.SENTENCES, *engine_text.PHRASES)}
    declared = (*engine_text.action_phrases(), *engine_text.citation_sections())  # by the engine itself
    out |= {key(engine_text.CONTEXT, t) for t in declared}
    out |= {key(status_text.CONTEXT, t) for t in status_text.SENTENCES}
    out |= prompts()
    return out


def prompts() -> set[str]:
    """The moves' prompts and history lines, declared with each move in the engine (`Move.prompt`,
    `Move.history`)."""
    from companion.describe import PROMPT_CONTEXT
    from engine.rules import MOVES

    said = (p for m in MOVES for p in (m.prompt, m.history) if p is not None)
    return {key(PROMPT_CONTEXT, t) for p in said for t in p.templates()}


def _unquote(text: str) -> str:
    value = ast.literal_eval(text)
    if not isinstance(value, str):
        raise ValueError(f"not a string: {text!r}")
    return value


def parse_po(text: str, source: str = "po") -> dict[str, str]:
    """msgid -> msgstr (the header has msgid ""). Raises ValueError naming the line for anything else."""
    out: dict[str, str] = {}
    entry = False
    field: str | None = None
    msgctxt: str | None = None
    msgid = msgstr = ""

    def flush() -> None:
        nonlocal entry, msgctxt, msgid, msgstr
        if entry:
            k = key(msgctxt or "", msgid)
            if k in out:
                raise ValueError(f"{source}: msgid {show(k)!r} appears twice")
            out[k] = msgstr
        entry = False
        msgctxt = None
        msgid = msgstr = ""

    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if line.startswith("msgctxt "):
                flush()
                field = "ctxt"
                msgctxt = _unquote(line[8:])
            elif line.startswith("msgid "):
                if field != "ctxt":
                    flush()
                entry, field = True, "id"
                msgid = _unquote(line[6:])
            elif line.startswith("msgstr "):
                field = "str"
                msgstr = _unquote(line[7:])
            elif line.startswith('"'):
                if field == "ctxt":
                    msgctxt = (msgctxt or "") + _unquote(line)
                elif field == "id":
                    msgid += _unquote(line)
                elif field == "str":
                    msgstr += _unquote(line)
                else:
                    raise ValueError("a string outside msgid/msgstr")
            else:
                raise ValueError(f"unknown keyword in {line!r}")
        except (ValueError, SyntaxError) as exc:
            raise ValueError(f"{source}:{n}: {exc}") from None
    flush()
    return out


def compile_mo(catalog: dict[str, str]) -> bytes:
    """GNU .mo bytes (little endian, no hash table), entries sorted by msgid as gettext expects."""
    entries = sorted((k.encode(), v.encode()) for k, v in catalog.items() if v or k == "")
    n = len(entries)
    header_size = 7 * 4
    ids_offset = header_size
    strs_offset = ids_offset + n * 8
    data_offset = strs_offset + n * 8
    ids_table = b""
    strs_table = b""
    data = b""
    for k, _v in entries:
        ids_table += struct.pack("<II", len(k), data_offset + len(data))
        data += k + b"\0"
    for _k, v in entries:
        strs_table += struct.pack("<II", len(v), data_offset + len(data))
        data += v + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, n, ids_offset, strs_offset, 0, 0)
    return header + ids_table + strs_table + data


def catalogs() -> list[Path]:
    return sorted(LOCALE.glob("*/LC_MESSAGES/seneschal.po"))


_FIELDS = re.compile(r"\{[^{}]*\}")


def show(k: str) -> str:
    """A catalog key as people read it: "card | Ambush" for a message with a context."""
    return k.replace(CONTEXT_SEP, " | ")


def problems(po: Path, wanted: set[str]) -> list[str]:
    cat = parse_po(po.read_text(encoding="utf-8"), str(po))
    out = []
    for k in sorted(wanted):
        msg = k.rpartition(CONTEXT_SEP)[2]
        if not cat.get(k):
            out.append(f"{po.parent.parent.name}: untranslated {show(k)!r}")
        elif sorted(_FIELDS.findall(msg)) != sorted(_FIELDS.findall(cat[k])):
            out.append(f"{po.parent.parent.name}: placeholders differ in {show(k)!r} -> {cat[k]!r}")
    return out


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def format_po(comments: list[str], catalog: dict[str, str]) -> str:
    """The .po text: the comment lines, the header entry, then every message sorted (plain ones first, then
    by context)."""
    lines = [*comments, 'msgid ""', "msgstr " + _quote(catalog.get("", "")), ""]
    for k in sorted((k for k in catalog if k), key=lambda k: (CONTEXT_SEP in k, k.casefold(), k)):
        context, sep, msg = k.rpartition(CONTEXT_SEP)
        if sep:
            lines.append("msgctxt " + _quote(context))
        lines += ["msgid " + _quote(msg), "msgstr " + _quote(catalog[k]), ""]
    return "\n".join(lines)


def update(po: Path, wanted: set[str]) -> tuple[list[str], list[str]]:
    """Add the wanted messages a catalog lacks (untranslated) and drop the ones nothing shows any more."""
    text = po.read_text(encoding="utf-8")
    cat = parse_po(text, str(po))
    comments = [line for line in text.split('msgid ""', 1)[0].splitlines() if line.startswith("#")]
    added = sorted(wanted - set(cat))
    dropped = sorted(set(cat) - wanted - {""})
    new = {k: v for k, v in cat.items() if k not in dropped} | dict.fromkeys(added, "")
    po.write_text(format_po(comments, new), encoding="utf-8")
    return added, dropped


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cmd = args[0] if args else "check"
    if cmd == "compile":
        for po in catalogs():
            po.with_suffix(".mo").write_bytes(compile_mo(parse_po(po.read_text(encoding="utf-8"), str(po))))
            print(f"compiled {po.with_suffix('.mo')}")
        return 0
    if cmd == "update":
        wanted = extract()
        for po in catalogs():
            added, dropped = update(po, wanted)
            print(f"{po}: {len(added)} added, {len(dropped)} dropped: " + ", ".join(map(show, dropped)))
        return 0
    if cmd in ("check", "missing"):
        wanted = extract()
        found = [p for po in catalogs() for p in problems(po, wanted)]
        for p in found:
            print(p)
        return 1 if found and cmd == "check" else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())


# --- English game nouns left on a translated screen ------------------------------------------------------

# English game words beyond the catalogue's names (which `english_game_words` adds itself).
GAME_WORDS = frozenset(
    (
        "knight", "knights", "castle", "castles", "territory", "territories", "lake", "lakes", "battle",
        "battles", "advance", "advances", "advanced", "redistribute", "redistributed", "redistribution",
        "crown", "crowns", "sceptre", "sceptres", "orb", "orbs", "card", "cards", "deck", "discard",
        "conflict",
        "support", "ambush", "fracture", "fractures", "authority", "resource", "resources", "homelands",
        "artefact", "artefacts", "dice", "attacker", "defender", "supply", "capacity", "value", "conquer",
        "conquered", "retreat", "retreats", "points", "score", "turn", "player", "players", "rival",
    )
)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_SMALL = frozenset(["of", "at", "the", "to", "a", "an", "and", "on", "in"])


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def _proper_words() -> set[str]:
    """Words of the catalogue's proper names (Tronçais, Nivernais, Lac des Settons): the same in every
    language."""
    from companion.i18n import _PATTERNS
    from engine.catalogue import load_default_catalogue

    cat = load_default_catalogue()
    out: set[str] = set()
    for t in cat.territories:
        m = next((m.fullmatch(t.name) for _p, m in _PATTERNS if m.fullmatch(t.name)), None)
        out |= _words(m.group("place") if m else t.name)
    for name in [lake.name for lake in cat.lakes] + [castle.name for castle in cat.castles]:
        out |= _words(name)
    return out


@functools.lru_cache(maxsize=4)
def _forbidden(lang: str) -> frozenset[str]:
    from companion.i18n import ARTEFACT_TYPES, CARD_KINDS, COLOURS, TERRITORY_KINDS, TERRITORY_PATTERNS
    from engine.catalogue import load_default_catalogue

    cat = load_default_catalogue()
    english: set[str] = set(GAME_WORDS)
    for text in (
        *(c.name for c in cat.cards),
        *(a.name for a in cat.artefacts),
        *TERRITORY_PATTERNS,
        *TERRITORY_KINDS.values(),
        *ARTEFACT_TYPES.values(),
        *CARD_KINDS.values(),
        *COLOURS.values(),
    ):
        english |= _words(text.replace("{place}", ""))
    po = LOCALE / lang / "LC_MESSAGES" / "seneschal.po"
    translated = parse_po(po.read_text(encoding="utf-8"), str(po))
    same = set().union(*(_words(_FIELDS.sub("", v)) for v in translated.values()))  # the language's own
    return frozenset(english - same - _proper_words() - _SMALL)


def english_game_words(text: str, lang: str) -> set[str]:
    """The English game nouns (card, artefact and territory words, kinds, colours, knight, castle...) found
    in `text`, a text shown in `lang`; words that `lang`'s own catalog uses too (Dutch "arena") are fine."""
    return _words(text) & _forbidden(lang)

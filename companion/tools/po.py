"""Translations without gettext tools: extract the app's messages, check the .po catalogs, and compile them to
.mo with the standard library only.

    python -m companion.tools.po compile   # every companion/locale/*/LC_MESSAGES/seneschal.po -> .mo
    python -m companion.tools.po check     # every message translated, placeholders kept
    python -m companion.tools.po missing   # print the messages a catalog lacks
"""

from __future__ import annotations

import ast
import re
import struct
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
LOCALE = PACKAGE / "locale"
_CALL = re.compile(r"""(?:\btr|\.tr|\bt|\.t|\bN_)\(\s*(["'])((?:(?!\1)[^\\]|\\.)*)\1\s*[,)]""")


def extract() -> set[str]:
    """Every message the app can show: literal calls in Python and kv files, plus the tables of titles."""
    found: set[str] = set()
    for path in list(PACKAGE.rglob("*.py")) + list((PACKAGE / "kv").glob("*.kv")):
        if "tools" in path.parts:
            continue
        for m in _CALL.finditer(path.read_text(encoding="utf-8")):
            found.add(ast.literal_eval(m.group(1) + m.group(2) + m.group(1)))
    from companion.presenters.base import NAV_TITLES
    from companion.presenters.battle import BATTLE_STAGES
    from companion.presenters.table import TURN_STEPS
    from companion.presenters.turn import GROUP_TITLES
    from companion.rulebook import SECTIONS

    found.update(TURN_STEPS, BATTLE_STAGES, GROUP_TITLES.values(), NAV_TITLES.values())
    found.update(s.title for s in SECTIONS)
    found.discard("")
    return found


def _unquote(text: str) -> str:
    value = ast.literal_eval(text)
    if not isinstance(value, str):
        raise ValueError(f"not a string: {text!r}")
    return value


def parse_po(text: str, source: str = "po") -> dict[str, str]:
    """msgid -> msgstr (the header has msgid ""). Raises ValueError naming the line for anything else."""
    out: dict[str, str] = {}
    key: str | None = None
    field: str | None = None
    msgid = msgstr = ""

    def flush() -> None:
        nonlocal key, msgid, msgstr
        if key is not None:
            if msgid in out:
                raise ValueError(f"{source}: msgid {msgid!r} appears twice")
            out[msgid] = msgstr
        key = None
        msgid = msgstr = ""

    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if line.startswith("msgid "):
                flush()
                key, field = "entry", "id"
                msgid = _unquote(line[6:])
            elif line.startswith("msgstr "):
                field = "str"
                msgstr = _unquote(line[7:])
            elif line.startswith('"'):
                if field == "id":
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


def problems(po: Path, wanted: set[str]) -> list[str]:
    cat = parse_po(po.read_text(encoding="utf-8"), str(po))
    out = []
    for msg in sorted(wanted):
        if not cat.get(msg):
            out.append(f"{po.parent.parent.name}: untranslated {msg!r}")
        elif sorted(_FIELDS.findall(msg)) != sorted(_FIELDS.findall(cat[msg])):
            out.append(f"{po.parent.parent.name}: placeholders differ in {msg!r} -> {cat[msg]!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cmd = args[0] if args else "check"
    if cmd == "compile":
        for po in catalogs():
            po.with_suffix(".mo").write_bytes(compile_mo(parse_po(po.read_text(encoding="utf-8"), str(po))))
            print(f"compiled {po.with_suffix('.mo')}")
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

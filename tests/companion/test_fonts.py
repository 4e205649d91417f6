"""The shipped font: its character map read right (checked against FreeType's own drawing), a glyph for every
character of every catalogue, map, translation, rulebook summary and sticker label, and the same face used by
the app (Kivy's default font) and by the sticker sheet."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from companion.fonts import (
    BOLD,
    BOLD_ITALIC,
    FACES,
    ITALIC,
    REGULAR,
    FontFileError,
    codepoints,
    missing_glyphs,
)
from companion.tools.po import catalogs, parse_po

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "engine" / "data"


def _strings(value: object) -> list[str]:
    """Every string inside a JSON document (keys included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*_strings(k), *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _glyph(ch: str) -> bytes:
    from PIL import ImageFont

    font = ImageFont.truetype(str(REGULAR), 48)
    return bytes(font.getmask(ch))


def test_the_character_map_agrees_with_what_freetype_draws() -> None:
    notdef = _glyph("\U000f0000")  # a private-use plane character: the font's .notdef box
    covered = codepoints(REGULAR)
    for ch in "→·—Äåäöéèçâô●▲■◆★✚χ²":
        assert ord(ch) in covered and _glyph(ch) != notdef, ch
    for ch in "日한\u0e01\u2ffb":
        assert ord(ch) not in covered and _glyph(ch) == notdef, ch


def test_missing_glyphs_names_the_characters_no_face_draws() -> None:
    assert missing_glyphs("Use crown → Red · Gâtinais, Tronçais, Orléans, Äpple\n\t") == set()
    assert missing_glyphs("Kroon 日本 ✚") == {"日", "本"}
    assert all(len(codepoints(face)) > 5000 for face in FACES)


def test_a_file_that_is_not_a_font_is_refused_with_its_name(tmp_path: Path) -> None:
    bad = tmp_path / "notes.ttf"
    bad.write_bytes(b"hello, this is text")
    with pytest.raises(FontFileError, match=r"notes\.ttf"):
        codepoints(bad)
    no_cmap = tmp_path / "empty.ttf"
    no_cmap.write_bytes(b"\x00\x01\x00\x00" + b"\x00" * 8)
    with pytest.raises(FontFileError, match="no cmap"):
        codepoints(no_cmap)


def _every_text_we_show_or_print() -> dict[str, str]:
    from companion.rulebook import SECTIONS
    from engine.catalogue import load_default_catalogue
    from vision.sheet import sticker_list

    texts: dict[str, str] = {}
    for path in sorted(DATA.glob("*.json")):
        texts[path.name] = "\n".join(_strings(json.loads(path.read_text(encoding="utf-8"))))
    for po in catalogs():
        cat = parse_po(po.read_text(encoding="utf-8"), str(po))
        texts[str(po.relative_to(ROOT))] = "\n".join([*cat, *cat.values()])
    texts["stickers"] = "\n".join(label for _payload, label in sticker_list(load_default_catalogue()))
    texts["rulebook summaries"] = "\n".join(str(getattr(s, f.name)) for s in SECTIONS for f in fields(s))
    kv = (ROOT / "companion" / "kv").glob("*.kv")
    texts["kv files"] = "\n".join(p.read_text(encoding="utf-8") for p in kv)
    return texts


def test_every_catalogue_map_translation_and_sticker_has_its_glyphs() -> None:
    texts = _every_text_we_show_or_print()
    assert any("Tronçais" in t for t in texts.values()) and any("Ångra" in t for t in texts.values())
    gaps = {name: "".join(sorted(missing_glyphs(text))) for name, text in texts.items()}
    assert {name: gap for name, gap in gaps.items() if gap} == {}


def test_sticker_labels_are_set_in_the_shipped_face() -> None:
    from vision.tags import _label_font, sticker_image

    assert Path(_label_font(20).path) == REGULAR
    # An accented label differs from the same label with the accent replaced by the font's missing-glyph box.
    accented = sticker_image("MM1:T10", "Forest of Tronçais · 1", 8)
    boxed = sticker_image("MM1:T10", "Forest of Tron\U000f0000ais · 1", 8)
    plain = sticker_image("MM1:T10", "Forest of Troncais · 1", 8)
    assert (accented != boxed).any() and (accented != plain).any()


def test_the_app_registers_it_as_kivys_default_font() -> None:
    from kivy.core.text import DEFAULT_FONT, LabelBase

    from companion.fonts import register_default_font

    register_default_font()
    assert [Path(p) for p in LabelBase._fonts[DEFAULT_FONT]] == [REGULAR, ITALIC, BOLD, BOLD_ITALIC]

"""Checks run on every rendered screen: no label's text spills out of its widget, every character shown has a
glyph in the font that draws it, every button a finger may need is at least 48 dp, and a Dutch or Swedish
screen shows no English game word."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

MARKUP = re.compile(
    r"\[/?(?:b|i|u|s|sub|sup|size|color|font|font_context|font_family|font_features|anchor|ref|"
    r"text_language)(?:=[^\]]*)?\]"
)
ENTITIES = {"&bl;": "[", "&br;": "]", "&amp;": "&"}
SLACK = 2.0  # pixels: rounding in Kivy's text layout


def visible(w: Any) -> bool:
    """Shown: it and every parent opaque, not disabled away, inside the window."""
    node = w
    while node is not None:
        if getattr(node, "opacity", 1) <= 0:
            return False
        parent = node.parent
        if parent is node:
            break
        node = parent
    return w.get_root_window() is not None


def labels(root: Any) -> list[Any]:
    from kivy.uix.label import Label

    return [w for w in root.walk(restrict=True) if isinstance(w, Label) and visible(w)]


def plain(text: str, markup: bool) -> str:
    if markup:
        text = MARKUP.sub("", text)
        for entity, char in ENTITIES.items():
            text = text.replace(entity, char)
    return text


def overflows(root: Any) -> list[str]:
    """Every visible label whose rendered text is bigger than the label itself."""
    out = []
    for w in labels(root):
        if not str(w.text).strip():
            continue
        tw, th = w.texture_size
        if tw > w.width + SLACK or th > w.height + SLACK:
            out.append(
                f"{type(w).__name__} {plain(w.text, w.markup)[:60]!r}: text {tw:.0f}x{th:.0f} in a "
                f"{w.width:.0f}x{w.height:.0f} widget"
            )
    return out


def broken_words(root: Any) -> list[str]:
    """Labels that wrap inside a word because one word is wider than the whole label ("Remov|e")."""
    out = []
    for w in labels(root):
        width = w.text_size[0] if w.text_size else None
        if not width or not str(w.text).strip():
            continue
        for word in set(plain(str(w.text), w.markup).split()):
            if _extent(word, w.font_name, float(w.font_size), bool(w.bold)) > width + SLACK:
                out.append(f"{type(w).__name__}: the word {word!r} is wider than its {width:.0f} px label")
    return out


@cache
def _extent(word: str, font: str, size: float, bold: bool) -> float:
    from kivy.core.text import Label as CoreLabel

    return float(CoreLabel(font_name=font, font_size=size, bold=bold).get_extents(word)[0])


def small_targets(root: Any, minimum: float) -> list[str]:
    from kivy.uix.behaviors import ButtonBehavior

    out = []
    for b in root.walk(restrict=True):
        if (
            isinstance(b, ButtonBehavior)
            and visible(b)
            and not b.disabled
            and min(b.width, b.height) < minimum - 0.5
        ):
            out.append(f"button {b.text[:40]!r} is {b.width:.0f}x{b.height:.0f}")
    return out


def font_file(name: str, bold: bool) -> Path:
    """The file Kivy draws a label's font_name with."""
    from kivy.core.text import LabelBase
    from kivy.resources import resource_find

    registered = LabelBase._fonts.get(name)
    if registered:
        return Path(registered[2] if bold else registered[0])
    found = resource_find(name) or resource_find(name + ".ttf")
    if not found:
        raise FileNotFoundError(f"font {name!r} is neither registered nor a file")
    return Path(found)


def missing_glyphs(root: Any, extra: set[str]) -> list[str]:
    """Characters shown on screen (labels, and texts drawn on canvases) that the font drawing them has no
    glyph for (the font's character map, read by `companion.fonts`)."""
    from kivy.core.text import DEFAULT_FONT

    from companion.fonts import codepoints

    wanted: dict[Path, dict[str, str]] = {}
    for w in labels(root):
        text = plain(str(w.text), w.markup)
        path = font_file(w.font_name, bool(w.bold))
        for ch in text:
            wanted.setdefault(path, {}).setdefault(ch, text[:40])
    default = font_file(DEFAULT_FONT, False)
    for text in extra:
        for ch in text:
            wanted.setdefault(default, {}).setdefault(ch, text[:40])
    out = []
    for path, chars in wanted.items():
        have = codepoints(path)
        for ch, where in sorted(chars.items()):
            if not ch.isspace() and ord(ch) not in have:
                out.append(f"{path.name} has no glyph for {ch!r} (U+{ord(ch):04X}) in {where!r}")
    return out


def canvas_texts(root: Any) -> set[str]:
    """The texts drawn on the canvases of the visible widgets (the map's names and counts, its callouts)."""
    from kivy.graphics import Canvas

    from companion.widgets import texture_texts

    known = texture_texts()
    out: set[str] = set()

    def read(group: Any) -> None:
        for ins in group.children:
            text = known.get(id(getattr(ins, "texture", None)))
            if text is not None:
                out.add(text)
            if hasattr(ins, "children") and not isinstance(ins, Canvas):  # a child widget's: read on its own
                read(ins)

    for w in root.walk(restrict=True):
        if visible(w):
            read(w.canvas)
            for has, part in (("has_before", "before"), ("has_after", "after")):
                if getattr(w.canvas, has, False):
                    read(getattr(w.canvas, part))
    return out


def english_words(root: Any, lang: str) -> list[str]:
    """English game words (`companion.tools.po.english_game_words`: card, artefact and territory words,
    knight, castle, battle...) in what a screen in `lang` shows: its labels, text fields and canvases."""
    if lang == "en":
        return []
    from kivy.uix.textinput import TextInput

    from companion.tools.po import english_game_words

    texts = [plain(str(w.text), w.markup) for w in labels(root)]
    texts += [str(w.text) for w in root.walk(restrict=True) if isinstance(w, TextInput) and visible(w)]
    out = []
    for text in [*texts, *sorted(canvas_texts(root))]:
        for word in sorted(english_game_words(text, lang)):
            out.append(f"English {word!r} in {text[:60]!r}")
    return out

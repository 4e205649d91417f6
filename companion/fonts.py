"""The app's typeface: DejaVu Sans (`vision.fonts`, licence beside the files) registered as Kivy's default
font, so "→", "·", accented tile names and Swedish/Dutch letters never show as boxes.

`missing_glyphs(text)` says which characters of a text the font cannot draw; the i18n tests run it over every
catalogue name, translation and sticker label, and the screen tests over every rendered label.
"""

from __future__ import annotations

from vision.fonts import BOLD, BOLD_ITALIC, FACES, ITALIC, REGULAR, FontFileError, codepoints, missing_glyphs

__all__ = [
    "BOLD",
    "BOLD_ITALIC",
    "FACES",
    "ITALIC",
    "REGULAR",
    "FontFileError",
    "codepoints",
    "missing_glyphs",
    "register_default_font",
]


def register_default_font() -> None:
    """Make DejaVu Sans Kivy's default font (the name every Label uses unless told otherwise), with its bold
    and oblique faces for [b] and [i] markup. Call before the first label is drawn; calling again is
    harmless."""
    from kivy.core.text import DEFAULT_FONT, LabelBase

    LabelBase.register(
        DEFAULT_FONT,
        fn_regular=str(REGULAR),
        fn_italic=str(ITALIC),
        fn_bold=str(BOLD),
        fn_bolditalic=str(BOLD_ITALIC),
    )

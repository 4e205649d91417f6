"""The typeface every text we show or print is set in: DejaVu Sans (regular, bold, oblique, bold oblique),
Debian's fonts-dejavu-core / fonts-dejavu-extra 2.37, licence in `LICENSE` beside the files.

It lives here, in the lowest package that draws text (the sticker sheet's labels); the app registers the
same files as Kivy's default font (`companion.fonts`). `missing_glyphs` reads the fonts' own character maps
(the TrueType `cmap` table), so a test can prove that every name, translation and sticker label has a glyph
in every face instead of turning into a box.
"""

from __future__ import annotations

import functools
import struct
import unicodedata
from pathlib import Path

FONT_DIR = Path(__file__).resolve().parent
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"
ITALIC = FONT_DIR / "DejaVuSans-Oblique.ttf"
BOLD_ITALIC = FONT_DIR / "DejaVuSans-BoldOblique.ttf"
FACES: tuple[Path, ...] = (REGULAR, BOLD, ITALIC, BOLD_ITALIC)


class FontFileError(ValueError):
    """A font file that is not a TrueType/OpenType font with a Unicode character map."""


def _tables(data: bytes, source: str) -> dict[bytes, tuple[int, int]]:
    """tag -> (offset, length) from the sfnt table directory."""
    if len(data) < 12 or data[:4] not in (b"\x00\x01\x00\x00", b"OTTO", b"true"):
        raise FontFileError(f"{source}: not a TrueType/OpenType font (starts {data[:4]!r})")
    (count,) = struct.unpack_from(">H", data, 4)
    out = {}
    for i in range(count):
        tag, _checksum, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        out[tag] = (offset, length)
    return out


def _format4(data: bytes, at: int) -> set[int]:
    seg_x2 = struct.unpack_from(">H", data, at + 6)[0]
    segs = seg_x2 // 2
    ends_at = at + 14
    starts_at = ends_at + seg_x2 + 2
    deltas_at = starts_at + seg_x2
    ranges_at = deltas_at + seg_x2
    out: set[int] = set()
    for i in range(segs):
        end = struct.unpack_from(">H", data, ends_at + 2 * i)[0]
        start = struct.unpack_from(">H", data, starts_at + 2 * i)[0]
        delta = struct.unpack_from(">h", data, deltas_at + 2 * i)[0]
        range_offset = struct.unpack_from(">H", data, ranges_at + 2 * i)[0]
        for cp in range(start, min(end, 0xFFFE) + 1):
            if range_offset == 0:
                glyph = (cp + delta) & 0xFFFF
            else:
                where = ranges_at + 2 * i + range_offset + 2 * (cp - start)
                glyph = struct.unpack_from(">H", data, where)[0]
                glyph = (glyph + delta) & 0xFFFF if glyph else 0
            if glyph:
                out.add(cp)
    return out


def _format12(data: bytes, at: int) -> set[int]:
    (groups,) = struct.unpack_from(">I", data, at + 12)
    out: set[int] = set()
    for i in range(groups):
        start, end, first_glyph = struct.unpack_from(">III", data, at + 16 + 12 * i)
        out.update(range(start + (first_glyph == 0), end + 1))
    return out


@functools.lru_cache(maxsize=8)
def codepoints(path: Path) -> frozenset[int]:
    """Every character the font at `path` draws (its Unicode cmap: format 12 when present, else 4)."""
    data = Path(path).read_bytes()
    tables = _tables(data, str(path))
    if b"cmap" not in tables:
        raise FontFileError(f"{path}: no cmap table")
    cmap = tables[b"cmap"][0]
    (count,) = struct.unpack_from(">H", data, cmap + 2)
    subtables: dict[int, int] = {}
    for i in range(count):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
        if (platform, encoding) in ((3, 1), (3, 10), (0, 3), (0, 4)):
            fmt = struct.unpack_from(">H", data, cmap + offset)[0]
            subtables.setdefault(fmt, cmap + offset)
    if 12 in subtables:
        return frozenset(_format12(data, subtables[12]))
    if 4 in subtables:
        return frozenset(_format4(data, subtables[4]))
    raise FontFileError(f"{path}: no Unicode cmap subtable of format 4 or 12")


@functools.lru_cache(maxsize=1)
def covered() -> frozenset[int]:
    """The characters every shipped face draws: markup can set any text in any of them."""
    return frozenset.intersection(*(codepoints(face) for face in FACES))


def missing_glyphs(text: str, faces: tuple[Path, ...] | None = None) -> set[str]:
    """The characters of `text` that some face (all shipped faces unless `faces` is given) has no glyph for.
    Control characters (newline, tab) draw nothing and are never missing."""
    have = covered() if faces is None else frozenset.intersection(*(codepoints(f) for f in faces))
    return {ch for ch in set(text) if ord(ch) not in have and unicodedata.category(ch) != "Cc"}

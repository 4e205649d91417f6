"""Our QR sticker payloads and the physical sticker design shared by the sheet, the renderer and the reader.

A sticker's payload is `MM<version>:<id>`, e.g. `MM1:T07`: a namespace of our own ("MM" for Medieval Mastery),
the payload format version, and a component id from the box catalogue (ENGINE-API.md): territories T01..T30,
lakes L1..L3, castles K1..K6, artefact cards A01..A18. Both stickers of a tile carry the same payload: a
sticker's position on its tile is fixed by how it is stuck (see docs/stickers.md), so no position suffix is
needed.
Anything else is rejected with a reason (`UnknownTagError`); callers log it and ignore the code.

Physical design (docs/stickers.md has the arithmetic): a version-1 QR code (21x21 modules, error correction H)
of 1.27 mm modules with a 2-module white margin, and a 5.5 mm label strip (name and value) under it. A tile
carries two stickers, one against each of two opposite edges, code towards the edge and label towards the
centre, so the code's "down" direction points at the tile's centre. That leaves a band across the middle of
the tile for dice, and a die or a hand has to cover both stickers to hide the tile.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from engine.catalogue import ARTEFACT_ID, CASTLE_ID, LAKE_ID, TERRITORY_ID
from vision.errors import TagRejection, UnknownTagError

if TYPE_CHECKING:
    from PIL import ImageFont

NAMESPACE: Final = "MM"
VERSION: Final = 1

# --- physical design (millimetres) --------------------------------------------------------------------------
QR_MODULES: Final = 21  # QR version 1: our payloads (7 alphanumeric characters) fit at error correction H
MODULE_MM: Final = 1.27  # 0.05 inch: a whole number of printer dots at 300 and 600 dpi (15, 30)
QUIET_MODULES: Final = 2  # white sticker paper around the code (zxing-cpp and zbar both read 2 modules fine)
CODE_MM: Final = QR_MODULES * MODULE_MM  # 26.67 mm
STICKER_W_MM: Final = (QR_MODULES + 2 * QUIET_MODULES) * MODULE_MM  # 31.75 mm
LABEL_MM: Final = 5.5
STICKER_H_MM: Final = STICKER_W_MM + LABEL_MM  # 37.25 mm
# GUESS: the real tile size is not in any source we have (rules README); 90 mm across flats is typical of
# hex-tile games. Everything else scales from the measured sticker size, so a different tile size only moves
# `STICKER_CENTRE_OFFSET_MM` (the reader estimates the tile pitch from the table itself).
TILE_ACROSS_FLATS_MM: Final = 90.0
TILE_SIZE_MM: Final = TILE_ACROSS_FLATS_MM / math.sqrt(3.0)  # centre-to-corner, as engine.hexgrid's "size"
EDGE_GAP_MM: Final = 1.5  # sticker's outer edge to the tile's edge
STICKERS_PER_TILE: Final = 2
# Distance from a tile's centre to the centre of each of its codes (along the code's up axis, outwards).
STICKER_CENTRE_OFFSET_MM: Final = (
    TILE_ACROSS_FLATS_MM / 2 - EDGE_GAP_MM - QUIET_MODULES * MODULE_MM - CODE_MM / 2
)
# Artefact cards (GUESS: standard 63 x 88 mm) carry one sticker in the middle of their face.
CARD_W_MM: Final = 63.0
CARD_H_MM: Final = 88.0
DIE_MM: Final = 16.0  # GUESS: standard 16 mm dice


class TagKind(Enum):
    TERRITORY = "territory"
    LAKE = "lake"
    CASTLE = "castle"
    ARTEFACT = "artefact"

    @property
    def is_tile(self) -> bool:
        return self is not TagKind.ARTEFACT


_KIND_PATTERNS: Final = (
    (TagKind.TERRITORY, TERRITORY_ID),
    (TagKind.LAKE, LAKE_ID),
    (TagKind.CASTLE, CASTLE_ID),
    (TagKind.ARTEFACT, ARTEFACT_ID),
)
_OURS = re.compile(r"^MM(\d{1,3}):(.*)$", re.DOTALL)
MAX_PAYLOAD_CHARS: Final = 64


@dataclass(frozen=True, slots=True)
class TagPayload:
    """A parsed sticker payload: the component id it names and the payload format version."""

    id: str
    kind: TagKind
    version: int = VERSION

    def __post_init__(self) -> None:
        if kind_of(self.id) is not self.kind:
            raise ValueError(f"TagPayload: id {self.id!r} is not a {self.kind.value}")

    @staticmethod
    def of(component_id: str) -> TagPayload:
        """The payload for a component id; raises ValueError quoting an id that no sticker carries."""
        kind = kind_of(component_id)
        if kind is None:
            raise ValueError(
                f"no sticker carries the id {component_id!r} (ids: T01..T30, L1..L3, K1..K6, A01..A18)"
            )
        return TagPayload(component_id, kind)

    @property
    def text(self) -> str:
        return f"{NAMESPACE}{self.version}:{self.id}"

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> str:
        return self.text

    @staticmethod
    def from_json(obj: object) -> TagPayload:
        if not isinstance(obj, str):
            raise UnknownTagError(repr(obj), TagRejection.MALFORMED, "a payload is a string")
        return parse_payload(obj)


def kind_of(component_id: str) -> TagKind | None:
    """What a sticker id names, or None for an id no sticker carries (deck cards, typos)."""
    for kind, pattern in _KIND_PATTERNS:
        if pattern.match(component_id):
            return kind
    return None


def format_payload(component_id: str) -> str:
    """The text printed in the QR code for a component id."""
    return TagPayload.of(component_id).text


def parse_payload(text: str) -> TagPayload:
    """Parse a decoded QR text; raises `UnknownTagError` saying why it is not one of our stickers."""
    shown = text if len(text) <= MAX_PAYLOAD_CHARS else text[:MAX_PAYLOAD_CHARS] + "..."
    match = _OURS.match(text)
    if match is None:
        raise UnknownTagError(shown, TagRejection.NOT_OURS, f"not in the {NAMESPACE}<version>: namespace")
    version = int(match.group(1))
    body = match.group(2)
    if version > VERSION:
        raise UnknownTagError(
            shown,
            TagRejection.NEWER_VERSION,
            f"payload version {version} is newer than this reader's {VERSION}; update Seneschal",
        )
    if version < 1 or match.group(1) != str(version):
        raise UnknownTagError(shown, TagRejection.MALFORMED, f"bad payload version {match.group(1)!r}")
    kind = kind_of(body)
    if kind is None:
        raise UnknownTagError(
            shown,
            TagRejection.MALFORMED,
            f"{body!r} is not a sticker id (T01..T30, L1..L3, K1..K6, A01..A18)",
        )
    return TagPayload(body, kind, version)


def all_sticker_ids() -> tuple[str, ...]:
    """Every id that has stickers, in sheet order: territories, lakes, castles, artefact cards."""
    ids = (
        [f"T{i:02d}" for i in range(1, 31)] + [f"L{i}" for i in range(1, 4)] + [f"K{i}" for i in range(1, 7)]
    )
    ids += [f"A{i:02d}" for i in range(1, 19)]
    return tuple(ids)


def stickers_for(component_id: str) -> int:
    """How many stickers a component carries: two per tile, one per artefact card."""
    kind = kind_of(component_id)
    if kind is None:
        raise ValueError(f"no sticker carries the id {component_id!r}")
    return STICKERS_PER_TILE if kind.is_tile else 1


# --- images -------------------------------------------------------------------------------------------------
U8Image = npt.NDArray[np.uint8]


@functools.lru_cache(maxsize=256)
def qr_modules(text: str) -> npt.NDArray[np.bool_]:
    """The module matrix (True = dark) of a payload, without quiet zone. Version 1, error correction H."""
    import zxingcpp

    barcode = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode, ec_level="H")
    image = np.asarray(zxingcpp.write_barcode_to_image(barcode, scale=1, add_quiet_zones=False))
    if image.ndim == 3:
        image = image[:, :, 0]
    modules = image < 128
    modules.setflags(write=False)
    return modules


@functools.lru_cache(maxsize=512)
def sticker_image(text: str, label: str, px_per_module: int) -> U8Image:
    """The printed sticker (white paper, code, label strip under it) as a BGR image, `px_per_module` pixels
    per module. The sheet prints exactly this image, and the synthetic renderer pastes exactly this image."""
    from PIL import Image, ImageDraw

    if px_per_module < 1:
        raise ValueError(f"px_per_module must be >= 1, got {px_per_module!r}")
    modules = qr_modules(text)
    n = modules.shape[0]
    m = px_per_module
    width = (n + 2 * QUIET_MODULES) * m
    height = round(width * STICKER_H_MM / STICKER_W_MM)
    canvas = np.full((height, width), 255, np.uint8)
    code = np.where(np.repeat(np.repeat(modules, m, axis=0), m, axis=1), 0, 255).astype(np.uint8)
    q = QUIET_MODULES * m
    canvas[q : q + n * m, q : q + n * m] = code
    strip_top = width
    strip_h = height - width
    if label and strip_h >= 6:
        pil = Image.fromarray(canvas)
        draw = ImageDraw.Draw(pil)
        size = max(6, int(strip_h * 0.62))
        font = _label_font(size)
        text_w = draw.textlength(label, font=font)
        while text_w > width * 0.94 and size > 6:
            size -= 1
            font = _label_font(size)
            text_w = draw.textlength(label, font=font)
        draw.text((width / 2, strip_top + strip_h * 0.42), label, fill=40, font=font, anchor="mm")
        canvas = np.asarray(pil).copy()
    bgr = np.repeat(canvas[:, :, None], 3, axis=2)
    bgr.setflags(write=False)
    return bgr


@functools.lru_cache(maxsize=64)
def _label_font(size: int) -> ImageFont.FreeTypeFont:
    """The labels' face: the app's DejaVu Sans (`vision.fonts`), which has every accent of the tile names."""
    from PIL import ImageFont

    from vision.fonts import REGULAR

    return ImageFont.truetype(str(REGULAR), size)


def sticker_label(name: str, value: int | None) -> str:
    """The human label under a code: the component's name and, for territories, its victory-point value."""
    return f"{name} · {value}" if value is not None else name

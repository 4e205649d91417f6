"""`seneschal tags`: the printable A4 sheets of QR stickers for the box.

Two stickers per tile (30 territories, 3 lakes, 6 castles) and one per artefact card (18): 96 stickers on
three A4 pages at 300 dpi, each sticker exactly `vision.tags.sticker_image` (code, white margin, label with
the component's name and value) with light cut marks. Names and values come from the box catalogue (the
default one, or `--catalogue FILE`). See docs/stickers.md for where to stick them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vision.tags import (
    MODULE_MM,
    QR_MODULES,
    QUIET_MODULES,
    STICKER_H_MM,
    STICKER_W_MM,
    format_payload,
    kind_of,
    sticker_image,
    sticker_label,
    stickers_for,
)

if TYPE_CHECKING:
    from engine.catalogue import Catalogue

Image = npt.NDArray[np.uint8]

DPI = 300
A4_MM = (210.0, 297.0)
MARGIN_MM = 10.0
GAP_MM = 3.0


def px_per_module(dpi: int = DPI) -> int:
    """Whole printer dots per module, so every module prints the same size (1.27 mm = 15 dots at 300 dpi)."""
    return max(1, round(MODULE_MM * dpi / 25.4))


def sticker_list(catalogue: Catalogue) -> list[tuple[str, str]]:
    """(payload, label) for every sticker to print, in sheet order."""
    out: list[tuple[str, str]] = []
    for t in catalogue.territories:
        out.extend([(format_payload(t.id), sticker_label(t.name, t.value))] * stickers_for(t.id))
    for lake in catalogue.lakes:
        out.extend([(format_payload(lake.id), sticker_label(lake.name, None))] * stickers_for(lake.id))
    for c in catalogue.castles:
        label = sticker_label(f"{c.name} ({c.colour.value})", None)
        out.extend([(format_payload(c.id), label)] * stickers_for(c.id))
    for a in catalogue.artefacts:
        out.extend([(format_payload(a.id), sticker_label(a.name, None))] * stickers_for(a.id))
    return [(p, lab) for p, lab in out if kind_of(p.split(":", 1)[1]) is not None]


def render_pages(stickers: Sequence[tuple[str, str]], dpi: int = DPI) -> list[Image]:
    """Lay the stickers out on A4 pages (BGR images at `dpi`)."""
    mm = dpi / 25.4
    page_w, page_h = round(A4_MM[0] * mm), round(A4_MM[1] * mm)
    m = px_per_module(dpi)
    sw = (QR_MODULES + 2 * QUIET_MODULES) * m
    sh = round(sw * STICKER_H_MM / STICKER_W_MM)
    gap = round(GAP_MM * mm)
    margin = round(MARGIN_MM * mm)
    cols = max(1, (page_w - 2 * margin + gap) // (sw + gap))
    rows = max(1, (page_h - 2 * margin + gap) // (sh + gap))
    per_page = cols * rows
    pages: list[Image] = []
    for start in range(0, len(stickers), per_page):
        page = np.full((page_h, page_w, 3), 255, np.uint8)
        chunk = stickers[start : start + per_page]
        x_off = (page_w - (cols * sw + (cols - 1) * gap)) // 2
        y_off = margin
        for k, (payload, label) in enumerate(chunk):
            r, c = divmod(k, cols)
            x = x_off + c * (sw + gap)
            y = y_off + r * (sh + gap)
            img = sticker_image(payload, label, m)
            page[y : y + img.shape[0], x : x + img.shape[1]] = img
            _cut_marks(page, (x, y, img.shape[1], img.shape[0]), max(2, gap // 3))
        pages.append(page)
    return pages


def _cut_marks(page: Image, box: tuple[int, int, int, int], length: int) -> None:
    x, y, w, h = box
    grey = 170
    for cx, cy in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
        for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            # marks only outside the sticker
            if (
                (dx == 1 and cx == x + w)
                or (dx == -1 and cx == x)
                or (dy == 1 and cy == y + h)
                or (dy == -1 and cy == y)
            ):
                x0, x1 = sorted((cx, cx + dx * length))
                y0, y1 = sorted((cy, cy + dy * length))
                page[max(0, y0) : y1 + 1, max(0, x0) : x1 + 1] = grey


def write_sheet(out: Path, catalogue: Catalogue, dpi: int = DPI) -> list[Path]:
    """Write the sheet: one multi-page PDF (`.pdf`) or one PNG per page (`.png`: NAME-1.png, ...)."""
    from PIL import Image as PILImage

    pages = render_pages(sticker_list(catalogue), dpi)
    pil = [PILImage.fromarray(p[:, :, ::-1].copy()) for p in pages]
    suffix = out.suffix.lower()
    if suffix == ".pdf":
        pil[0].save(out, "PDF", resolution=float(dpi), save_all=True, append_images=pil[1:])
        return [out]
    if suffix == ".png":
        paths = []
        for i, im in enumerate(pil, start=1):
            path = out.with_name(f"{out.stem}-{i}{out.suffix}") if len(pil) > 1 else out
            im.save(path, "PNG", dpi=(dpi, dpi))
            paths.append(path)
        return paths
    raise ValueError(f"output must end in .pdf or .png, got {str(out)!r}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="seneschal tags",
        description="Write the printable A4 sheet of QR stickers for the box (see docs/stickers.md).",
    )
    parser.add_argument(
        "output",
        nargs="?",
        default="seneschal-stickers.pdf",
        help="output file: .pdf (all pages) or .png (one file per page, 300 dpi)",
    )
    parser.add_argument("--catalogue", metavar="FILE", help="the box catalogue (default: the built-in one)")
    parser.add_argument("--dpi", type=int, default=DPI, help=f"printer resolution (default {DPI})")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else 2
    from engine.catalogue import load_box_catalogue, load_default_catalogue
    from engine.errors import CatalogueError

    try:
        catalogue = load_box_catalogue(args.catalogue) if args.catalogue else load_default_catalogue()
    except CatalogueError as exc:
        print(f"seneschal tags: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"seneschal tags: cannot read catalogue {args.catalogue!r}: {exc}", file=sys.stderr)
        return 2
    if args.dpi < 150 or args.dpi > 1200:
        print(f"seneschal tags: --dpi must be 150..1200, got {args.dpi}", file=sys.stderr)
        return 2
    out = Path(args.output)
    if out.suffix.lower() not in (".pdf", ".png"):
        print(f"seneschal tags: output must end in .pdf or .png, got {args.output!r}", file=sys.stderr)
        return 2
    try:
        paths = write_sheet(out, catalogue, args.dpi)
    except OSError as exc:
        print(f"seneschal tags: cannot write {args.output!r}: {exc}", file=sys.stderr)
        return 2
    n = len(sticker_list(catalogue))
    print(
        f"wrote {n} stickers on {len(paths) if out.suffix.lower() == '.png' else 'a'} "
        f"{'page(s)' if out.suffix.lower() == '.png' else 'PDF'}: {', '.join(str(p) for p in paths)}"
    )
    print(
        "print at 100% (no 'fit to page'): a module must measure "
        f"{px_per_module(args.dpi) * 25.4 / args.dpi:.2f} mm"
    )
    return 0

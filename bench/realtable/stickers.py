"""The stickers as printed: cut from the pages `seneschal tags` writes, at their printed size.

`printed_stickers()` runs `vision.sheet.main` (the `seneschal tags` command) into a temporary folder as PNG
pages at 300 dpi, finds every code on them with zxing-cpp (which also says whose it is) and cuts the whole
sticker around each (the 2-module white margin and the label strip below, docs/stickers.md). Nothing is
redrawn: the renderer pastes these pixels, scaled to millimetres.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision import sheet, tags

Image = npt.NDArray[np.uint8]

STICKER_W_MM = tags.STICKER_W_MM
STICKER_H_MM = tags.STICKER_H_MM


class StickerError(RuntimeError):
    """The printed sheet did not give one sticker per component."""


@cache
def printed_stickers() -> dict[str, Image]:
    """Component id (`T07`, `K3`, `A12`) -> the sticker as printed (BGR, 300 dpi, code on top)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stickers.png"
        with contextlib.redirect_stdout(io.StringIO()):
            code = sheet.main([str(out)])
        if code != 0:
            raise StickerError("seneschal tags failed")
        pages = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted(Path(tmp).glob("stickers*.png"))]
    m = sheet.px_per_module(sheet.DPI)
    found: dict[str, Image] = {}
    for page in pages:
        for payload, sticker in _cut(page, m):
            found.setdefault(payload.split(":", 1)[1], sticker)
    if not found:
        raise StickerError("no sticker found on the printed pages")
    return found


def _cut(page: Image, m: int) -> list[tuple[str, Image]]:
    """Every sticker on a page: each code zxing-cpp finds, with its margin and label strip around it."""
    import zxingcpp

    w = (tags.QR_MODULES + 2 * tags.QUIET_MODULES) * m
    h = round(w * STICKER_H_MM / STICKER_W_MM)
    q = tags.QUIET_MODULES * m
    out = []
    for r in zxingcpp.read_barcodes(page):
        if not r.text.startswith(tags.NAMESPACE):
            continue
        pos = r.position
        xs = [pos.top_left.x, pos.top_right.x, pos.bottom_left.x, pos.bottom_right.x]
        ys = [pos.top_left.y, pos.top_right.y, pos.bottom_left.y, pos.bottom_right.y]
        x0, y0 = min(xs) - q, min(ys) - q
        if x0 < 0 or y0 < 0 or x0 + w > page.shape[1] or y0 + h > page.shape[0]:
            continue
        out.append((str(r.text), np.ascontiguousarray(page[y0 : y0 + h, x0 : x0 + w])))
    return out

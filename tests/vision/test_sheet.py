"""`seneschal tags`: the printed sheet holds every sticker, and each decodes back to its payload."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import zxingcpp

from engine.catalogue import load_default_catalogue
from vision.sheet import main, render_pages, sticker_list
from vision.tags import all_sticker_ids, format_payload


def test_sticker_list_covers_every_tile_twice_and_every_artefact_once() -> None:
    stickers = sticker_list(load_default_catalogue())
    counts = Counter(p for p, _ in stickers)
    expected = {format_payload(i): (1 if i.startswith("A") else 2) for i in all_sticker_ids()}
    assert dict(counts) == expected
    labels = dict(stickers)
    assert "Nivernais" in labels["MM1:K1"]  # castle names come from the catalogue
    assert labels["MM1:T01"].endswith("· 1")  # territories show their value


def test_rendered_pages_decode_back_to_every_sticker() -> None:
    stickers = sticker_list(load_default_catalogue())
    pages = render_pages(stickers, dpi=300)
    assert all(p.shape == (3508, 2480, 3) for p in pages)  # A4 at 300 dpi
    decoded: Counter[str] = Counter()
    for page in pages:
        small = cv2.resize(page, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        decoded.update(b.text for b in zxingcpp.read_barcodes(small, formats=zxingcpp.BarcodeFormat.QRCode))
    assert decoded == Counter(p for p, _ in stickers)


def test_cli_writes_pdf_and_png(tmp_path: Path, capsys: object) -> None:
    assert main([str(tmp_path / "s.pdf")]) == 0
    assert (tmp_path / "s.pdf").read_bytes()[:5] == b"%PDF-"
    assert main([str(tmp_path / "s.png"), "--dpi", "150"]) == 0
    pngs = sorted(tmp_path.glob("s-*.png"))
    assert len(pngs) >= 2
    page = cv2.imread(str(pngs[0]))
    assert page is not None and page.shape[:2] == (1754, 1240)
    assert np.mean(page) > 200  # mostly white paper


def test_cli_refuses_bad_input_with_exit_code_2(tmp_path: Path) -> None:
    assert main([str(tmp_path / "s.txt")]) == 2
    assert main([str(tmp_path / "s.pdf"), "--catalogue", str(tmp_path / "missing.json")]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "seneschal-box", "version": 1, "territories": [{"id": "T01", "value": 9}]}')
    assert main([str(tmp_path / "s.pdf"), "--catalogue", str(bad)]) == 2
    assert main(["--dpi", "nope"]) == 2
    assert main([str(tmp_path / "s.pdf"), "--dpi", "20"]) == 2

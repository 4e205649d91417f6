"""The box-setup service: the owner's corrections saved as a box file, and the sticker sheet printed from the
box as saved (the button used to pass `seneschal tags` an option it does not take)."""

from __future__ import annotations

from pathlib import Path

from companion.box import CatalogueBox
from companion.presenters.boxsetup import BoxSetupPresenter


def test_print_stickers_after_save_writes_the_sheet_of_the_saved_box(tmp_path: Path) -> None:
    box = CatalogueBox(tmp_path / "data")
    p = BoxSetupPresenter(box)  # no runner: the job runs inline
    first = p.rows()[0]
    p.adjust(first.id, "value", +1)
    assert p.save() and (tmp_path / "data" / "box.json").exists()
    p.print_stickers()
    assert p.tone == "good", p.status
    sheet = tmp_path / "data" / "stickers.pdf"
    assert sheet.exists() and sheet.read_bytes()[:5] == b"%PDF-"
    assert str(sheet) in p.status
    # the sheet is the box as saved: the saved box is what the catalogue (and so the stickers) read
    assert next(r for r in box.rows() if r.id == first.id).value == min(3, first.value + 1)


def test_a_sheet_that_cannot_be_written_is_said_and_nothing_breaks(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("not a directory")
    p = BoxSetupPresenter(CatalogueBox(blocker))
    p.print_stickers()
    assert p.tone == "warn" and "Cannot write the sticker sheet" in p.status and not p.printing

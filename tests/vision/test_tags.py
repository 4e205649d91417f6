"""Sticker payloads: ours parse, anything else is refused with the reason (docs/stickers.md)."""

from __future__ import annotations

import pytest
import zxingcpp

from vision.errors import TagRejection, UnknownTagError
from vision.tags import (
    STICKER_CENTRE_OFFSET_MM,
    STICKER_H_MM,
    STICKER_W_MM,
    TILE_ACROSS_FLATS_MM,
    TagKind,
    TagPayload,
    all_sticker_ids,
    format_payload,
    kind_of,
    parse_payload,
    qr_modules,
    sticker_image,
    stickers_for,
)


@pytest.mark.parametrize(
    ("text", "component", "kind"),
    [
        ("MM1:T07", "T07", TagKind.TERRITORY),
        ("MM1:T30", "T30", TagKind.TERRITORY),
        ("MM1:L3", "L3", TagKind.LAKE),
        ("MM1:K1", "K1", TagKind.CASTLE),
        ("MM1:A18", "A18", TagKind.ARTEFACT),
    ],
)
def test_our_payloads_parse(text: str, component: str, kind: TagKind) -> None:
    payload = parse_payload(text)
    assert payload == TagPayload(component, kind, 1)
    assert payload.text == text == format_payload(component)
    assert TagPayload.from_json(payload.to_json()) == payload


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("tel:+31612345678", TagRejection.NOT_OURS),
        ("https://chaos-publishing.example/medieval-mastery", TagRejection.NOT_OURS),
        ("", TagRejection.NOT_OURS),
        ("mm1:t07", TagRejection.NOT_OURS),
        ("XMM1:T07", TagRejection.NOT_OURS),
        ("MM1:T31", TagRejection.MALFORMED),
        ("MM1:T7", TagRejection.MALFORMED),
        ("MM1:C01", TagRejection.MALFORMED),  # deck cards carry no stickers
        ("MM1:T07.2", TagRejection.MALFORMED),
        ("MM1:T07 ", TagRejection.MALFORMED),
        ("MM1:", TagRejection.MALFORMED),
        ("MM0:T07", TagRejection.MALFORMED),
        ("MM01:T07", TagRejection.MALFORMED),
        ("MM2:T07", TagRejection.NEWER_VERSION),
        ("MM17:whatever comes next", TagRejection.NEWER_VERSION),
    ],
)
def test_other_codes_are_refused_with_a_reason(text: str, reason: TagRejection) -> None:
    with pytest.raises(UnknownTagError) as info:
        parse_payload(text)
    assert info.value.reason is reason
    assert repr(text[:10]).strip("'") in str(info.value)


def test_long_garbage_is_quoted_shortened() -> None:
    with pytest.raises(UnknownTagError) as info:
        parse_payload("x" * 5000)
    assert len(str(info.value)) < 300


def test_ids_and_counts() -> None:
    ids = all_sticker_ids()
    assert len(ids) == 30 + 3 + 6 + 18 == len(set(ids))
    assert all(kind_of(i) is not None for i in ids)
    assert kind_of("C01") is None and kind_of("T00") is None
    assert sum(stickers_for(i) for i in ids) == 2 * 39 + 18
    with pytest.raises(ValueError, match="C01"):
        TagPayload.of("C01")


def test_payload_fits_a_version_1_code_and_the_sticker_fits_the_tile() -> None:
    assert qr_modules("MM1:A18").shape == (21, 21)
    # two stickers against opposite edges leave room for a 16 mm die between their papers
    band = TILE_ACROSS_FLATS_MM - 2 * (1.5 + STICKER_W_MM)
    assert band > 16.0
    assert STICKER_H_MM > STICKER_W_MM
    assert 0 < STICKER_CENTRE_OFFSET_MM < TILE_ACROSS_FLATS_MM / 2


def test_sticker_image_decodes_to_its_payload() -> None:
    img = sticker_image("MM1:T07", "Morvan Homelands · 1", 6)
    assert img.shape[1] == 25 * 6 and img.shape[0] > img.shape[1]
    found = zxingcpp.read_barcodes(img)
    assert [b.text for b in found] == ["MM1:T07"]
    assert found[0].ec_level == "H"

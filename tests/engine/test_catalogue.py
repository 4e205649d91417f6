"""Components as data (Components page 2, Iconography pages 6-7; rulings R1-R9)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.catalogue import (
    ARTEFACT_FACTS,
    KIND_ABILITIES,
    Ability,
    Affected,
    ArtefactTiming,
    ArtefactType,
    CardKind,
    Catalogue,
    TerritoryKind,
    TileKind,
    default_catalogue_json,
    load_box_catalogue,
    load_default_catalogue,
)
from engine.colours import Colour
from engine.errors import CatalogueError


@pytest.fixture(scope="module")
def cat() -> Catalogue:
    return load_default_catalogue()


def test_components_page_2_counts(cat: Catalogue) -> None:
    assert len(cat.territories) == 30
    assert len(cat.lakes) == 3
    assert len(cat.castles) == 6
    assert len(cat.cards) == 18
    assert len(cat.artefacts) == 18
    assert cat.dice_per_player == 10


def test_ids_are_unique_and_follow_the_sticker_scheme(cat: Catalogue) -> None:
    all_ids = [x.id for g in (cat.territories, cat.lakes, cat.castles, cat.cards, cat.artefacts) for x in g]
    assert len(all_ids) == len(set(all_ids)) == 75
    assert [t.id for t in cat.territories] == [f"T{i:02d}" for i in range(1, 31)]
    assert [x.id for x in cat.lakes] == ["L1", "L2", "L3"]
    assert [x.id for x in cat.castles] == [f"K{i}" for i in range(1, 7)]
    assert [x.id for x in cat.cards] == [f"C{i:02d}" for i in range(1, 19)]
    assert [x.id for x in cat.artefacts] == [f"A{i:02d}" for i in range(1, 19)]


def test_references_resolve(cat: Catalogue) -> None:
    for t in cat.territories:
        assert cat.territory(t.id) is t and cat.tile_kind(t.id) is TileKind.TERRITORY
    for lake in cat.lakes:
        assert cat.lake(lake.id) is lake and cat.tile_kind(lake.id) is TileKind.LAKE
    for c in cat.castles:
        assert cat.castle(c.id) is c and cat.castle_of(c.colour) is c
    for card in cat.cards:
        assert cat.card(card.id) is card and cat.tile_kind(card.id) is None
    for a in cat.artefacts:
        assert cat.artefact(a.id) is a
    with pytest.raises(KeyError, match="T31"):
        cat.territory("T31")
    with pytest.raises(KeyError, match="'L1'"):
        cat.territory("L1")  # a lake is not a territory


def test_territory_values_and_every_ability_type_present(cat: Catalogue) -> None:
    assert {t.value for t in cat.territories} == {1, 2, 3}
    present = set().union(*(t.abilities for t in cat.territories))
    assert present == set(Ability)
    kinds = {t.kind for t in cat.territories}
    assert kinds == set(TerritoryKind)  # every kind, including a no-ability forest (R2)
    for t in cat.territories:
        assert t.abilities == KIND_ABILITIES[t.kind]


def test_homelands_are_worth_one(cat: Catalogue) -> None:
    homelands = [t for t in cat.territories if t.kind is TerritoryKind.HOMELANDS]
    assert homelands and all(t.value == 1 for t in homelands)


def test_capacities_six_except_cave_and_battlefield(cat: Catalogue) -> None:
    """Redistribute knights page 9: capacity 6 unless specified; cave/battlefield icon page 7 (R4)."""
    for t in cat.territories:
        if t.kind in (TerritoryKind.CAVE, TerritoryKind.BATTLEFIELD):
            assert t.capacity != 6 and "capacity" in t.guessed
        else:
            assert t.capacity == 6


def test_castles_have_names_and_distinct_colours(cat: Catalogue) -> None:
    assert cat.castle("K1").name == "Nivernais" and "name" not in cat.castle("K1").guessed
    assert {c.colour for c in cat.castles} == set(Colour)
    assert len({c.name for c in cat.castles}) == 6
    assert all("colour" in c.guessed for c in cat.castles)


def test_deck_of_eighteen(cat: Catalogue) -> None:
    kinds = Counter(c.kind for c in cat.cards)
    for kind in (CardKind.AUTHORITY, CardKind.CALL_TO_ARMS, CardKind.TACTICAL_ADVANCE, CardKind.FRACTURE):
        assert kinds[kind] == 1
    conflict = [c for c in cat.cards if c.kind is CardKind.CONFLICT]
    assert {c.value for c in conflict} == {2, 3, 4, 5}
    assert kinds[CardKind.AMBUSH] >= 1
    assert all(c.value is None for c in cat.cards if c.kind is CardKind.AMBUSH or c.kind.is_resource)
    assert {c.value for c in cat.cards if c.kind is CardKind.SUPPORT} == {1, 2}
    charge = [c for c in conflict if c.name == "Audacious Charge"]
    assert charge and charge[0].value == 4 and not charge[0].guessed  # card anatomy, page 6
    # The battle example (page 13) needs a +1 and a +2 for the defender and a +2 for the attacker.
    assert Counter(c.value for c in cat.cards if c.kind is CardKind.SUPPORT)[2] >= 2
    assert all(c.kind.is_conflict for c in cat.cards if c.kind in (CardKind.CONFLICT, CardKind.AMBUSH))


def test_artefacts_exactly_as_the_icon_legend(cat: Catalogue) -> None:
    assert Counter(a.type for a in cat.artefacts) == {t: 6 for t in ArtefactType}
    assert {a.name for a in cat.artefacts} == set(ARTEFACT_FACTS)
    for a in cat.artefacts:
        assert (a.type, a.timing, a.affected, a.effect) == ARTEFACT_FACTS[a.name]
        assert not a.guessed
    by_name = {a.name: a for a in cat.artefacts}
    assert by_name["Crown of Corruption"].affected is Affected.ANY
    assert by_name["Sceptre of Defiance"].timing is ArtefactTiming.BEFORE_CONFLICT_DEFENDING
    assert by_name["Sceptre of Defiance"].affected is Affected.RIVAL
    assert by_name["Orb of Brutality"].timing is ArtefactTiming.AFTER_RESULT_WIN
    assert "Sceptre of Liberty" not in by_name and "Orb of Divinity" not in by_name  # scanning errors


def test_every_guess_is_marked(cat: Catalogue) -> None:
    """Every territory's value and kind, deck split, castle names/colours are guesses; the app lists them."""
    guesses = set(cat.guesses())
    for t in cat.territories:
        assert {f"{t.id}.value", f"{t.id}.kind"} <= guesses
    assert "K1.colour" in guesses and "K1.name" not in guesses
    assert not any(g.startswith("A") for g in guesses)


def test_round_trip_to_json(cat: Catalogue) -> None:
    again = Catalogue.from_json(json.loads(json.dumps(cat.to_json())))
    assert again == cat
    assert again.guesses() == cat.guesses()


def _base() -> dict[str, Any]:
    return default_catalogue_json()


def test_box_overrides_a_field_and_it_stops_being_a_guess() -> None:
    box = {"format": "seneschal-box", "version": 1,
           "territories": [{"id": "T23", "capacity": 3}, {"id": "T25", "confirmed": ["value", "kind"]}],
           "castles": [{"id": "K2", "name": "Berry", "colour": "green"}, {"id": "K4", "colour": "blue"}]}
    cat = load_box_catalogue(box)
    assert cat.territory("T23").capacity == 3
    assert "capacity" not in cat.territory("T23").guessed
    assert cat.territory("T25").guessed == frozenset({"name"})
    assert cat.castle_of(Colour.GREEN).id == "K2"
    assert cat.castle("K2").guessed == frozenset()
    assert load_default_catalogue().territory("T23").capacity == 4  # the default is untouched


def test_box_file_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "box.json"
    path.write_text(json.dumps({"format": "seneschal-box", "version": 1,
                                "cards": [{"id": "C01", "name": "Skirmish", "value": 3}]}), encoding="utf-8")
    assert load_box_catalogue(path).card("C01").value == 3
    assert load_box_catalogue(str(path)).card("C01").value == 3


def test_bad_box_reports_every_problem_at_once() -> None:
    box = {"format": "seneschal-box", "version": 1,
           "territories": [{"id": "T31", "value": 2}, {"id": "T01", "value": 4},
                           {"id": "T02", "kind": "swamp"}, {"id": "T03", "colour": "red"}],
           "castles": [{"id": "K2", "colour": "red"}],
           "cards": [{"id": "C01", "value": 7}, {"id": "C09", "value": 3}, {"id": "C15", "kind": "support",
                                                                               "value": 1}],
           "artefacts": [{"id": "A01", "affected": "rival"}]}
    with pytest.raises(CatalogueError) as info:
        load_box_catalogue(box)
    text = "\n".join(info.value.problems)
    for needle in ("'T31'", "T01: 'value' must be 1, 2 or 3", "unknown territory kind 'swamp'",
                   "T03: unknown field 'colour'", "colour 'red' is used by 2 castles",
                   "conflict card adds 2 to 5", "support card adds +1 or +2", "exactly one authority card",
                   "Crown of Vitality is"):
        assert needle in text, (needle, text)
    assert len(info.value.problems) >= 9
    assert str(info.value).startswith("box catalogue:")


@pytest.mark.parametrize("text, needle", [
    ("{not json", "not valid JSON"),
    ("[]", "JSON object"),
    ('{"format": "seneschal-box", "version": 99}', "newer"),
    ('{"format": "something-else", "version": 1}', "'format' must be"),
    ('{"format": "seneschal-box", "version": 1, "lakes": {"id": "L1"}}', "'lakes' must be a list"),
    ('{"format": "seneschal-box", "version": 1, "extra": 1}', "unknown top-level key 'extra'"),
    ('{"format": "seneschal-box", "version": 1, "lakes": [{"id": "L1"}, {"id": "L1"}]}', "listed twice"),
])
def test_malformed_box_files(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "box.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogueError, match=needle):
        load_box_catalogue(path)


def test_missing_box_file(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="cannot read"):
        load_box_catalogue(tmp_path / "nope.json")


def test_complete_catalogue_document_is_validated_whole() -> None:
    doc = _base()
    doc["territories"] = [*doc["territories"][:29], doc["territories"][0]]
    doc["artefacts"][0]["type"] = "sceptre"
    doc["territories"][22]["capacity"] = 6  # the cave must not have capacity 6
    doc["territories"][0]["capacity"] = 5  # an ordinary territory must
    with pytest.raises(CatalogueError) as info:
        load_box_catalogue(doc)
    text = "\n".join(info.value.problems)
    assert "'T01' appears 2 times" in text
    assert "there are 6 crowns" in text
    assert "capacity other than 6" in text and "got 5 for a homelands" in text
    assert "a sceptre cannot have timing" in text


def test_bad_guessed_list_and_enum_values() -> None:
    doc = _base()
    doc["lakes"][0]["guessed"] = ["depth"]
    doc["castles"][0]["colour"] = "purple"
    doc["cards"][6]["value"] = 3  # an ambush has no fixed value
    with pytest.raises(CatalogueError) as info:
        Catalogue.from_json(doc)
    text = "\n".join(info.value.problems)
    assert "unknown field 'depth'" in text and "unknown colour 'purple'" in text
    assert "ambush card has no fixed value" in text


def test_box_document_round_trip() -> None:
    """The app's box-setup step saves only what the owner changed or confirmed (R8)."""
    from engine.catalogue import box_json

    assert box_json(load_default_catalogue()) == {"format": "seneschal-box", "version": 1}
    box = {"format": "seneschal-box", "version": 1,
           "territories": [{"id": "T23", "capacity": 3}, {"id": "T25", "confirmed": ["value", "kind"]},
                           {"id": "T30", "kind": "forest", "name": "Forest of Auvergne"}],
           "cards": [{"id": "C01", "value": 3}],
           "castles": [{"id": "K1", "colour": "blue"}, {"id": "K2", "colour": "red"}]}
    cat = load_box_catalogue(box)
    doc = json.loads(json.dumps(box_json(cat)))
    again = load_box_catalogue(doc)
    assert again == cat and again.guesses() == cat.guesses()
    assert {e["id"] for e in doc["territories"]} == {"T23", "T25", "T30"}


def test_the_example_box_file_loads() -> None:
    from importlib import resources

    path = resources.files("engine").joinpath("data/box-catalogue.example.json")
    cat = load_box_catalogue(json.loads(path.read_text(encoding="utf-8")))
    assert cat.territory("T23").capacity == 3 and "capacity" not in cat.territory("T23").guessed
    assert "capacity" not in cat.territory("T29").guessed and cat.territory("T29").capacity == 8
    assert cat.territory("T30").value == 2 and cat.castle_of(Colour.GREEN).id == "K2"
    assert cat.card("C01").guessed == frozenset()

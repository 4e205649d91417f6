"""Which rulebook sections have tests: every section of the quick reference (p.16) and the optional rules
(p.14) must have at least one test named after it in tests/engine/test_rules_*.py."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).parent

# (test-name prefix, section) — the quick reference's three lists, plus the other sections with rules.
SECTIONS = [
    *[(f"test_setting_up_{n}", f"Setting Up §{n}, p.3") for n in (3, 6, 7, 8)],
    ("test_turn_1", "Taking a Turn 1: place three knights, p.8"),
    ("test_turn_2", "Taking a Turn 2/7: play resource cards, p.8"),
    ("test_turn_3", "Taking a Turn 3/8: use crowns, p.8"),
    ("test_turn_4", "Taking a Turn 4: redistribute knights, p.9"),
    ("test_turn_5", "Taking a Turn 5: make an advance, p.11"),
    ("test_battle", "Taking a Turn 6: battle, p.11"),
    ("test_turn_9", "Taking a Turn 9: restore artefacts, p.13"),
    *[(f"test_order_of_battle_{n}", f"Order of Battle §{n}, p.12") for n in range(1, 10)],
    ("test_battle_example", "Battle example, p.13"),
    ("test_fracture", "Fracture, p.8"),
    ("test_line_of_supply", "Line of Supply, p.10"),
    ("test_aim_of_the_game", "Aim of the Game, p.13"),
    ("test_iconography_crown_of_vitality", "Crown of Vitality, p.7"),
    ("test_iconography_crown_of_insight", "Crown of Insight, p.7"),
    ("test_iconography_crown_of_order", "Crown of Order, p.7"),
    ("test_iconography_crown_of_fury", "Crown of Fury, p.7"),
    ("test_iconography_crown_of_corruption", "Crown of Corruption, p.7"),
    ("test_iconography_crown_of_prosperity", "Crown of Prosperity, p.7"),
    ("test_allegiance", "Allegiance, p.14"),
    ("test_castle_siege", "Castle Siege, p.14"),
    ("test_cut_throat", "Cut-Throat, p.14"),
    ("test_skirmish", "Skirmish, p.14"),
    ("test_mayhem", "Mayhem, p.14"),
    ("test_table", "Two kinds of knowledge (R40)"),
    ("test_table_no_conflict_card", "TABLE: the 'no conflict card' declaration (R46)"),
    ("test_fracture_pass_round", "Closing a fracture window at once (R47)"),
    ("test_setting_up_allegiance_seating", "Allegiance seating (p.14, R30)"),
    ("test_turn_4_every_legal_redistribution", "Every legal redistribution is generated (R24)"),
]

# Sceptres and orbs are named inside the battle tests; each must appear in some test's name.
ARTEFACT_WORDS = [
    "fear",
    "rage",
    "influence",
    "loyalty",
    "vigour",
    "defiance",
    "greed",
    "preparation",
    "brutality",
    "cleansing",
    "devotion",
    "resurgence",
]


def _test_names() -> list[str]:
    names: list[str] = []
    for path in sorted(HERE.glob("test_rules_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names.extend(
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        )
    return names


def test_every_rulebook_section_has_a_test():
    names = _test_names()
    covered = {section: [n for n in names if n.startswith(prefix)] for prefix, section in SECTIONS}
    missing = [section for section, tests in covered.items() if not tests]
    assert not missing, f"rulebook sections without a test: {missing}"


def test_every_sceptre_and_orb_is_exercised_by_name_or_by_the_battle_example():
    names = " ".join(_test_names())
    text = "".join(p.read_text(encoding="utf-8") for p in HERE.glob("test_rules_*.py"))
    missing = [w for w in ARTEFACT_WORDS if w not in names and f'ART["{w}"]' not in text]
    assert not missing, f"artefacts never used in a rules test: {missing}"


def report() -> dict[str, list[str]]:
    """Section -> the tests that cover it (printable with `python -m tests.engine.test_rule_coverage`)."""
    names = _test_names()
    return {section: [n for n in names if n.startswith(prefix)] for prefix, section in SECTIONS}


if __name__ == "__main__":
    for section, tests in report().items():
        print(f"{section}: {len(tests)}")
        for t in tests:
            print(f"    {t}")

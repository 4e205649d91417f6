"""The referee's answer to a proposed action: accepted, or refused with a reason, a sentence, a citation."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.colours import Colour
from engine.rulebook import Rule
from engine.state import GameState


class Reason(Enum):
    """Why an action was accepted or refused. Stable codes: the app and the CLI print them."""

    OK = "ok"
    GAME_OVER = "game_over"
    UNKNOWN_PLAYER = "unknown_player"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_YOUR_DECISION = "not_your_decision"
    WRONG_STEP = "wrong_step"
    UNKNOWN_LOCATION = "unknown_location"
    UNKNOWN_CARD = "unknown_card"
    UNKNOWN_ARTEFACT = "unknown_artefact"
    BAD_COUNT = "bad_count"
    NOT_ENOUGH_KNIGHTS = "not_enough_knights"
    OVER_CAPACITY = "over_capacity"
    TERRITORY_EMPTIED = "territory_emptied"
    TOTAL_CHANGED = "total_changed"
    NOT_CONTROLLED = "not_controlled"
    NO_SUPPLY = "no_supply"
    NOT_ADJACENT = "not_adjacent"
    ALREADY_CONTROLLED = "already_controlled"
    TEAMMATE_TERRITORY = "teammate_territory"
    CASTLE_NOT_ALLOWED = "castle_not_allowed"
    SIEGE_LIMIT = "siege_limit"
    DICE_EXHAUSTED = "dice_exhausted"
    NO_ADVANCE_LEFT = "no_advance_left"
    CROWN_ALREADY_USED = "crown_already_used"
    ARTEFACT_DESTROYED = "artefact_destroyed"
    NOT_A_TARGET = "not_a_target"
    OWN_ARTEFACT = "own_artefact"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    CARD_CANNOT_BE_HELD = "card_cannot_be_held"
    WRONG_CARD_KIND = "wrong_card_kind"
    MUST_PLAY_CONFLICT = "must_play_conflict"
    NO_SUPPORT_ALLOWED = "no_support_allowed"
    DUPLICATE_CARD = "duplicate_card"
    BAD_DICE = "bad_dice"
    BAD_ORDER = "bad_order"
    NOT_ELIGIBLE = "not_eligible"
    EMPTY_HAND = "empty_hand"
    NOT_APPLICABLE = "not_applicable"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The referee's answer: `ok` or not, a `reason` code, one `sentence` saying why in plain words, and the
    `rule` that decided it (its `citation` is printed)."""

    ok: bool
    reason: Reason
    sentence: str
    rule: Rule | None

    @property
    def citation(self) -> str:
        return "" if self.rule is None else self.rule.citation

    def __str__(self) -> str:
        if self.ok:
            return "accepted"
        return f"{self.sentence} ({self.citation})"

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "reason": self.reason.value,
            "sentence": self.sentence,
            "citation": self.citation,
            "rule": None if self.rule is None else self.rule.value,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Verdict:
        code = obj.get("rule")
        if code is not None:
            rule: Rule | None = Rule.from_code(str(code))
        else:  # written before verdicts named their rule: the citation names it
            rule = next((r for r in Rule if r.citation == obj.get("citation")), None)
        return cls(bool(obj["ok"]), Reason(obj["reason"]), str(obj["sentence"]), rule)


ACCEPTED = Verdict(True, Reason.OK, "Accepted.", None)  # a camera reading that matched (engine.scenario)


def accept(sentence: str, rule: Rule) -> Verdict:
    """An accepted action: what it does, and the rule that allows it."""
    return Verdict(True, Reason.OK, sentence, rule)


def refuse(reason: Reason, sentence: str, rule: Rule) -> Verdict:
    return Verdict(False, reason, sentence, rule)


def who(colour: Colour) -> str:
    """A player as the referee names them: their colour, capitalised."""
    return colour.value.capitalize()


def name_of(state: GameState, item: str) -> str:
    """A tile, card or artefact id as the referee names it: `Loire Grasslands (T07)`."""
    try:
        return f"{state.data.catalogue.get(item).name} ({item})"
    except KeyError:
        return repr(item)

"""The referee's answer to a proposed action: accepted, or refused with a reason, a sentence, a citation."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


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
    """`ok` with Reason.OK, or a refusal: `sentence` says why in plain words, `citation` names the rule."""

    ok: bool
    reason: Reason
    sentence: str
    citation: str

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
        }

    @classmethod
    def from_json(cls, obj: Any) -> Verdict:
        return cls(bool(obj["ok"]), Reason(obj["reason"]), str(obj["sentence"]), str(obj["citation"]))


ACCEPTED = Verdict(True, Reason.OK, "Accepted.", "")


def refuse(reason: Reason, sentence: str, citation: str) -> Verdict:
    return Verdict(False, reason, sentence, citation)

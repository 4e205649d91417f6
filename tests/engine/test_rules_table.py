"""TABLE games: hands and decks are secret; declared cards are checked against everything public (R40)."""

from __future__ import annotations

from engine import actions as A
from engine import events as ev
from engine.rules import check, legal_actions
from engine.state import Knowledge, Need
from engine.verdict import Reason
from tests.engine.helpers import (
    AUTHORITY,
    CALL_TO_ARMS,
    FIVE,
    FRACTURE,
    PLUS1,
    PLUS2,
    THREE,
    TWO,
    B,
    R,
    game,
    of,
    pass_fracture_windows,
    play,
    refused,
)

TABLE = Knowledge.TABLE


def table(**kw):
    kw.setdefault("hand_sizes", {R: 5, B: 5})
    return game(knowledge=TABLE, **kw)


def test_table_a_card_in_the_discard_pile_cannot_be_declared():
    s = table(discards={R: (CALL_TO_ARMS,)})
    v = refused(s, A.PlayCallToArms(R))
    assert v.reason is Reason.CARD_CANNOT_BE_HELD and "discard pile" in v.sentence


def test_table_declared_resource_is_accepted_and_discarded_face_up():
    s = table()
    s, _events = play(s, A.PlayCallToArms(R))
    assert s.players[R].hand_size == 4 and s.players[R].discard_ids() == (CALL_TO_ARMS,)
    assert refused(s, A.PlayCallToArms(R)).reason is Reason.CARD_CANNOT_BE_HELD


def test_table_battle_draw_asks_about_authority_and_conflict_cards_are_declared():
    s = table(occupants={"T25": (B, 2)}, hand_sizes={R: 3, B: 5})
    s, events = play(s, A.Advance(R, "T25", 4))
    assert of(events, ev.CardsDrawn)[0] == ev.CardsDrawn(R, 2, ())
    assert s.pending[0].need is Need.AUTHORITY and s.pending[0].actor is R
    s, _ = play(s, A.DeclareAuthority(R, True))
    assert s.players[R].hand_size == 6 and AUTHORITY in s.players[R].discard_ids()
    s, _ = pass_fracture_windows(s)  # R25: both sceptres are at stake
    assert s.pending[0].need is Need.CONFLICT
    s, _ = play(s, A.PlayConflict(R, FIVE))
    assert refused(s, A.PlayConflict(R, THREE)).reason is Reason.NOT_YOUR_DECISION
    s, _ = play(s, A.PlayConflict(B, TWO))
    assert s.pending[0].need is Need.SUPPORT
    support_player = s.pending[0].players[0]
    # A card already in play this battle cannot be declared again.
    card_in_play = FIVE if support_player is R else TWO
    assert refused(s, A.PlaySupport(support_player, (card_in_play,))).reason in (Reason.CARD_CANNOT_BE_HELD,)
    assert (
        refused(s, A.PlaySupport(support_player, (THREE,))).reason is Reason.WRONG_CARD_KIND
        or support_player is R
    )


def test_table_random_discard_is_declared_and_checked():
    from tests.engine.helpers import ART

    s = table(
        artefacts={R: (ART["vitality"], ART["influence"], ART["greed"])},
        occupants={"T25": (B, 2)},
        discards={B: (PLUS1,)},
        hand_sizes={R: 5, B: 5},
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    while s.pending[0].need is Need.AUTHORITY:
        s, _ = play(s, A.DeclareAuthority(s.pending[0].actor, False))
    assert s.pending[0].need is Need.FRACTURE  # either might hold a fracture card: asked (R25)
    s, _ = play(s, A.PassFracture(R), A.PassFracture(B))
    assert s.pending[0].need is Need.RANDOM_DISCARD and s.pending[0].actor is B
    assert refused(s, A.DiscardRandom(B, PLUS1)).reason is Reason.CARD_CANNOT_BE_HELD
    s, _events = play(s, A.DiscardRandom(B, PLUS2))
    assert s.players[B].hand_size == 4


def test_table_insight_is_confirmed_without_naming_cards():
    s = game((B, R), knowledge=TABLE, hand_sizes={R: 5, B: 5})
    s, _ = play(s, A.UseCrown(B), A.PassFracture(R))
    assert refused(s, A.ArrangeTop(B, (TWO, THREE, FIVE, PLUS1))).reason is Reason.BAD_ORDER
    s, _ = play(s, A.ArrangeTop(B, ()))
    assert not s.pending


def test_table_fracture_windows_skip_players_whose_fracture_is_public():
    s = table(
        occupants={"T25": (B, 2)},
        discards={R: (FRACTURE,)},
        artefacts={
            B: (
                __import__("tests.engine.helpers", fromlist=["ART"]).ART["insight"],
                __import__("tests.engine.helpers", fromlist=["ART"]).ART["loyalty"],
                __import__("tests.engine.helpers", fromlist=["ART"]).ART["devotion"],
            )
        },
    )
    s, _ = play(s, A.Advance(R, "T25", 2))
    while s.pending and s.pending[0].need is Need.AUTHORITY:
        s, _ = play(s, A.DeclareAuthority(s.pending[0].actor, False))
    assert s.pending[0].need is not Need.FRACTURE or R not in s.pending[0].players


def test_table_every_listed_legal_action_is_accepted():
    s = table(occupants={"T01": (R, 3)})
    acts = legal_actions(s)
    assert acts and all(check(s, a).ok for a in acts)

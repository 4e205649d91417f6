"""Artefact cards: face up when the sticker is read; face down only with a clear view of the card's place."""

from __future__ import annotations

import cv2
import numpy as np

from engine.hexgrid import Hex
from vision.artefacts import ArtefactTracker, HandMask, card_region
from vision.knights import occluder_mask
from vision.synth import GroundTruth, SceneSpec, render_scene

LAYOUT = {Hex(0, 0): "T01", Hex(1, 0): "T02", Hex(0, 1): "K1"}


def frame(artefacts: dict[str, bool], seed: int = 1) -> tuple[np.ndarray, GroundTruth]:
    return render_scene(SceneSpec(LAYOUT, {}, artefacts, layout_seed=4), seed)


def read_stickers(truth: GroundTruth) -> dict[str, np.ndarray]:
    return {t.component: t.corners for t in truth.tags if t.component.startswith("A") and not t.covered}


def test_face_up_then_flipped_face_down() -> None:
    tracker = ArtefactTracker()
    image, truth = frame({"A01": True, "A02": True, "A03": True})
    to_table = np.linalg.inv(truth.homography)
    obs = tracker.update(image, read_stickers(truth), to_table)
    assert obs.sides == {"A01": True, "A02": True, "A03": True}
    # The card region drawn from its sticker matches the card the renderer drew.
    for art in ("A01", "A02"):
        region, true_poly = obs.regions[art], truth.card_polygons[art]
        inter, _ = cv2.intersectConvexConvex(region.astype(np.float32), true_poly.astype(np.float32))
        assert inter > 0.85 * cv2.contourArea(true_poly.astype(np.float32))
    image2, truth2 = frame({"A01": True, "A02": False, "A03": True}, seed=2)
    obs2 = tracker.update(image2, read_stickers(truth2), np.linalg.inv(truth2.homography))
    assert obs2.sides == {"A01": True, "A02": False, "A03": True}
    assert not obs2.hidden


def test_hand_over_a_card_or_an_unread_sticker_is_hidden_not_flipped() -> None:
    tracker = ArtefactTracker()
    image, truth = frame({"A01": True, "A02": True})
    to_table = np.linalg.inv(truth.homography)
    tracker.update(image, read_stickers(truth), to_table)
    # A02 face down now, but a hand lies over it: not judged.
    image2, truth2 = frame({"A01": True, "A02": False}, seed=3)
    hand = np.zeros(image2.shape[:2], np.uint8)
    card = truth2.card_polygons["A02"]
    reaching = (card - card.mean(axis=0)) * 1.6 + card.mean(axis=0)  # a hand comes from beyond the card
    cv2.fillConvexPoly(hand, np.round(reaching).astype(np.int32), 255)
    obs = tracker.update(image2, read_stickers(truth2), to_table, hand)
    assert obs.sides == {"A01": True} and obs.hidden == {"A02"}
    # A01 still face up but its sticker was not decoded (glare, blur): the code is visibly there -> hidden.
    stickers = read_stickers(truth2)
    del stickers["A01"]
    obs = tracker.update(image2, stickers, to_table)
    assert "A01" in obs.hidden and "A01" not in obs.sides and obs.sides["A02"] is False


def test_card_out_of_view_or_never_seen_is_not_judged() -> None:
    tracker = ArtefactTracker(known=["A05"])
    image, truth = frame({"A01": True})
    to_table = np.linalg.inv(truth.homography)
    tracker.update(image, read_stickers(truth), to_table)
    # The camera moved far: the card's place is now outside the frame.
    shift = np.array([[1.0, 0, 5000.0], [0, 1.0, 0], [0, 0, 1.0]])
    obs = tracker.update(image, {}, to_table @ np.linalg.inv(shift))
    assert obs.hidden == {"A01"}  # A05 was never seen face up: nothing to judge it by
    assert "A05" not in obs.sides and "A01" not in obs.sides
    # Without a table plane nothing can be judged; seen stickers are still face up.
    obs = tracker.update(image, read_stickers(truth), None)
    assert obs.sides == {"A01": True}


def test_card_region_is_centred_on_the_code_and_card_shaped() -> None:
    code = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float64)
    region = card_region(code)
    w = np.linalg.norm(region[1] - region[0])
    h = np.linalg.norm(region[3] - region[0])
    assert np.allclose(region.mean(axis=0), [5, 5])
    assert 1.3 < h / w < 1.5  # 88 x 63 mm


def test_skin_coloured_card_back_is_face_down_not_a_hand() -> None:
    """The card back is skin-coloured (the occluder mask marks it): with nothing reaching over it from outside
    the card, a known card whose sticker is gone is face down (replay move 46: Sceptre of Fear destroyed)."""
    tracker = ArtefactTracker()
    image, truth = frame({"A01": True, "A02": True})
    to_table = np.linalg.inv(truth.homography)
    tracker.update(image, read_stickers(truth), to_table)
    image2, truth2 = frame({"A01": True, "A02": False}, seed=5)
    mask = occluder_mask(image2, scale=0.25, full_size=False)
    back = HandMask(mask, 0.25)
    card = truth2.card_polygons["A02"]
    assert back.count > 1  # the back does show up in the occluder mask...
    assert back.share(card) == 0.0  # ...but as the card's own art, not a hand
    obs = tracker.update(image2, read_stickers(truth2), to_table, mask, 0.25)
    assert obs.sides == {"A01": True, "A02": False} and not obs.hidden
    # The same back with a hand reaching over it from outside the card: hidden.
    hand = mask.copy()
    arm = np.round(((card - card.mean(axis=0)) * 1.6 + card.mean(axis=0)) * 0.25).astype(np.int32)
    cv2.fillConvexPoly(hand, arm, 255)
    obs = tracker.update(image2, read_stickers(truth2), to_table, hand, 0.25)
    assert obs.hidden == {"A02"} and "A02" not in obs.sides

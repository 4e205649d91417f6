"""Cards beside the map found and named by their codes' look (`vision.recognise`) on a table seen at 45
degrees: a seeded table plane drawn here with exact truth (cards at any turn, the far ones' modules 1.4 px,
beside dice, a checked cloth, card backs, a tile sticker and QR codes that are not our cards), through a
known homography, blurred, noisy and JPEG-compressed. Every face-up card is found and named right; nothing
else is ever named a card, and a card whose code cannot be made out is not named at all."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from vision.qr import decode_tags, to_gray
from vision.recognise import candidates, recognise
from vision.tags import CODE_MM, QR_MODULES, QUIET_MODULES, STICKER_W_MM, format_payload, sticker_image
from vision.tracked import CARD_IDS
from vision.tracking import Pose

PX_PER_MM = 3.0  # the table plane as drawn
TABLE_MM = (900.0, 560.0)
FRAME = (1920, 1080)


@dataclass(frozen=True, slots=True)
class Sticker:
    """A code printed on a card (or a tile sticker, or a code that is not ours) lying on the table."""

    text: str  # the code's payload
    centre: tuple[float, float]  # mm
    turn: float  # degrees
    card: bool = True  # on a card's cream paper (else straight on the table)


def _mm(p: tuple[float, float]) -> tuple[int, int]:
    return round(p[0] * PX_PER_MM), round(p[1] * PX_PER_MM)


def _paste(plane: np.ndarray, patch: np.ndarray, centre: tuple[float, float], turn: float) -> None:
    """`patch` (BGR, PX_PER_MM px a mm) laid on the plane, its middle at `centre` (mm), turned `turn` deg."""
    h, w = patch.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
    cx, cy = _mm(centre)
    m[:, 2] += (cx - w / 2, cy - h / 2)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, plane.shape[1::-1], flags=cv2.INTER_LINEAR)
    turned = cv2.warpAffine(patch, m, plane.shape[1::-1], flags=cv2.INTER_LINEAR)
    a = mask[..., None].astype(np.float32) / 255
    plane[:] = (plane * (1 - a) + turned * a).astype(np.uint8)


def _sticker(text: str) -> np.ndarray:
    side = round(STICKER_W_MM * PX_PER_MM)
    image = np.asarray(sticker_image(text, "", 8))[: (QR_MODULES + 2 * QUIET_MODULES) * 8]
    return np.asarray(cv2.resize(image, (side, side), interpolation=cv2.INTER_AREA), np.uint8)


def _card(colour: tuple[int, int, int]) -> np.ndarray:
    return np.full((round(88 * PX_PER_MM), round(63 * PX_PER_MM), 3), colour, np.uint8)


def _die(rng: np.random.Generator) -> np.ndarray:
    side = round(16 * PX_PER_MM)
    light = bool(rng.random() < 0.5)
    die = np.full((side, side, 3), 235 if light else 30, np.uint8)
    for dx, dy in ((-1, -1), (1, 1), (0, 0), (1, -1), (-1, 1)):
        c = (round(side / 2 + dx * side / 4), round(side / 2 + dy * side / 4))
        cv2.circle(die, c, round(side / 10), (25, 25, 25) if light else (240, 240, 240), -1, cv2.LINE_AA)
    return die


def _plane(stickers: list[Sticker], backs: list[tuple[float, float, float]], seed: int) -> np.ndarray:
    """The table plane: wood-brown noise, a checked cloth, text, dice, card backs, and the stickers."""
    rng = np.random.default_rng(seed)
    w, h = _mm(TABLE_MM)
    grain = cv2.GaussianBlur(rng.normal(0, 18, (h, w)).astype(np.float32), (0, 0), 4)
    wood = np.array([60, 95, 140], np.float32)[None, None] + grain[..., None]
    plane = np.clip(wood, 0, 255).astype(np.uint8)
    x0, y0 = _mm((30.0, 380.0))
    for i in range(8):  # a checked cloth under a corner of the table
        for j in range(6):
            if (i + j) % 2 == 0:
                p = (x0 + i * 60, y0 + j * 60)
                cv2.rectangle(plane, p, (p[0] + 59, p[1] + 59), (230, 230, 235), -1)
    for k in range(5):  # a rule sheet's lines of text
        org = _mm((560.0, 420.0 + 12 * k))
        cv2.putText(plane, "Knights muster at dawn 12", org, cv2.FONT_HERSHEY_SIMPLEX, 1.0, (30, 30, 30), 2)
    for x, y, turn in backs:  # face-down cards: a dark back with a pattern, no code
        back = _card((120, 40, 60))
        for k in range(0, back.shape[0], 18):
            cv2.line(back, (0, k), (back.shape[1], k + 40), (70, 160, 200), 3)
        _paste(plane, back, (x, y), turn)
    for _ in range(10):  # loose dice
        at = (float(rng.uniform(40, 860)), float(rng.uniform(30, 530)))
        _paste(plane, _die(rng), at, float(rng.uniform(0, 90)))
    for s in stickers:
        if s.card:
            _paste(plane, _card((200, 222, 232)), s.centre, s.turn)
        _paste(plane, _sticker(s.text), s.centre, s.turn)
    return plane


def _camera() -> np.ndarray:
    """Table mm -> frame px for a stand at about 45 degrees: the far edge (y = 0) half as wide as the near."""
    w, h = TABLE_MM
    table = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    image = np.float32([[490, 40], [1430, 40], [1900, 1060], [20, 1060]])
    return np.asarray(cv2.getPerspectiveTransform(table, image), np.float64)


def _view(plane: np.ndarray, seed: int) -> np.ndarray:
    """The plane through the camera, with a lens's blur, sensor noise and JPEG."""
    to_image = _camera() @ np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    image = cv2.warpPerspective(plane, to_image, FRAME, flags=cv2.INTER_AREA, borderValue=(50, 60, 70))
    image = cv2.GaussianBlur(image, (0, 0), 0.7)
    noise = np.random.default_rng(seed).normal(0, 3.0, image.shape)
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return np.asarray(cv2.imdecode(jpg, cv2.IMREAD_COLOR), np.uint8)


def _module_px(pose: Pose, centre: tuple[float, float]) -> float:
    ends = pose.to_image(np.array([centre, (centre[0] + CODE_MM, centre[1])]))
    return float(np.linalg.norm(ends[1] - ends[0])) / QR_MODULES


CARDS = [  # along the far edge, turned every way; a few nearer
    Sticker(format_payload("A01"), (70.0, 40.0), 0.0),
    Sticker(format_payload("A04"), (190.0, 45.0), 45.0),
    Sticker(format_payload("A07"), (330.0, 50.0), 20.0),
    Sticker(format_payload("A10"), (470.0, 40.0), 70.0),
    Sticker(format_payload("A13"), (610.0, 50.0), 33.0),
    Sticker(format_payload("A16"), (760.0, 45.0), 88.0),
    Sticker(format_payload("A02"), (150.0, 200.0), 60.0),
    Sticker(format_payload("A18"), (700.0, 230.0), 10.0),
]
NOT_CARDS = [  # a tile's sticker, a code of a newer format, an id no card carries, a web address
    Sticker(format_payload("T07"), (420.0, 190.0), 15.0, card=False),
    Sticker("MM2:A05", (560.0, 150.0), 40.0, card=False),
    Sticker("MM1:A99", (260.0, 300.0), 75.0, card=False),
    Sticker("https://example.org/A05", (820.0, 330.0), 5.0, card=False),
]
BACKS = [(440.0, 320.0, 30.0), (90.0, 290.0, 80.0)]


@pytest.fixture(scope="module")
def table() -> tuple[np.ndarray, Pose]:
    image = _view(_plane(CARDS + NOT_CARDS, BACKS, 7), 7)
    return to_gray(image), Pose.of(np.linalg.inv(_camera()))


def test_the_far_cards_are_beyond_the_decoders(table: tuple[np.ndarray, Pose]) -> None:
    gray, pose = table
    assert all(_module_px(pose, c.centre) < 1.6 for c in CARDS[:6])
    decoded = {t.id for t in decode_tags(gray).tags}
    assert not decoded & {"A01", "A04", "A07", "A10", "A13", "A16"}


def test_every_face_up_card_is_found_and_named_and_nothing_else(table: tuple[np.ndarray, Pose]) -> None:
    gray, pose = table
    places = candidates(gray, pose, [], most=16)
    named: dict[str, tuple[float, float]] = {}
    for place in places:
        got = recognise(gray, pose, place, CARD_IDS)
        if got is not None:
            assert got.id not in named, f"{got.id} named twice"
            named[got.id] = place
    want = {c.text.split(":")[1]: c.centre for c in CARDS}
    assert set(named) == set(want)
    for aid, place in named.items():
        assert math.dist(place, want[aid]) < CODE_MM / 2


def test_a_card_whose_code_cannot_be_made_out_is_not_named(table: tuple[np.ndarray, Pose]) -> None:
    """A far card smeared by a moving hand's blur, and one with a finger over most of its code: named
    nothing (never another card); the sharp ones beside them are still named."""
    gray, pose = table
    to_image = _camera()
    smeared = gray.copy()
    for c in (CARDS[1], CARDS[3]):
        x, y = pose.to_image(np.array([c.centre]))[0]
        x0, y0, x1, y1 = int(x - 40), int(y - 40), int(x + 40), int(y + 40)
        smeared[y0:y1, x0:x1] = cv2.blur(smeared[y0:y1, x0:x1], (9, 9))
    covered = CARDS[2]
    x, y = covered.centre
    finger = np.float32([[x - 16, y - 9], [x + 16, y - 9], [x + 16, y + 16], [x - 16, y + 16]])
    on_image = cv2.perspectiveTransform(finger.reshape(-1, 1, 2), to_image).reshape(-1, 2)
    cv2.fillConvexPoly(smeared, np.round(on_image).astype(np.int32), 150)
    for c in (CARDS[1], CARDS[3], covered):
        assert recognise(smeared, pose, c.centre, CARD_IDS) is None
    for c in (CARDS[0], CARDS[4]):
        got = recognise(smeared, pose, c.centre, CARD_IDS)
        assert got is not None and got.id == c.text.split(":")[1]


def test_codes_that_are_not_cards_are_never_named_cards(table: tuple[np.ndarray, Pose]) -> None:
    gray, pose = table
    for s in NOT_CARDS:
        assert recognise(gray, pose, s.centre, CARD_IDS) is None, s.text
    for x, y, _turn in BACKS:
        assert recognise(gray, pose, (x, y), CARD_IDS) is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_corrupted_card_code_is_named_right_or_not_at_all(seed: int) -> None:
    """A card code with a fifth of its modules flipped (a scuffed, stained sticker) at the far edge."""
    rng = np.random.default_rng(seed)
    aid = str(rng.choice(CARD_IDS))
    sticker = _sticker(format_payload(aid))
    step = sticker.shape[0] / (QR_MODULES + 2 * QUIET_MODULES)
    for r, c in rng.integers(0, QR_MODULES, (88, 2)):
        y0, x0 = round((r + QUIET_MODULES) * step), round((c + QUIET_MODULES) * step)
        cell = sticker[y0 : round(y0 + step), x0 : round(x0 + step)]
        cell[:] = 255 - cell
    plane = _plane([], [], seed)
    _paste(plane, _card((200, 222, 232)), (450.0, 45.0), 25.0)
    _paste(plane, sticker, (450.0, 45.0), 25.0)
    gray = to_gray(_view(plane, seed))
    pose = Pose.of(np.linalg.inv(_camera()))
    for place in candidates(gray, pose, [], most=16):
        got = recognise(gray, pose, place, CARD_IDS)
        assert got is None or (got.id == aid and math.dist(place, (450.0, 45.0)) < CODE_MM)

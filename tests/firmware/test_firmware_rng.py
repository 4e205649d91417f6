"""Fairness of the firmware's dice: an exact proof over all byte values and a chi-square test."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from firmware.dice import protocol as p
from firmware.dice.device import Device
from firmware.dice.rng import Dice, face_of
from tests.firmware.fw_fakes import FakeClock, FakeStream


def chi2_sf(x: float, k: int) -> float:
    """P(X >= x) for a chi-square variable with k degrees of freedom (regularized upper gamma, by series)."""
    if x <= 0:
        return 1.0
    a = k / 2
    z = x / 2
    term = 1.0 / a
    total = term
    n = 1
    while term > total * 1e-17:
        term *= z / (a + n)
        total += term
        n += 1
    lower = math.exp(a * math.log(z) - z - math.lgamma(a)) * total
    return max(0.0, 1.0 - lower)


def chi2_sf_odd_closed_form(x: float, k: int) -> float:
    """Independent closed form for odd k, to check chi2_sf."""
    s = math.sqrt(x)
    q = math.erfc(s / math.sqrt(2))
    pdf = math.exp(-x / 2) / math.sqrt(2 * math.pi)
    term = s
    acc = 0.0
    for r in range(1, (k - 1) // 2 + 1):
        acc += term
        term *= x / (2 * r + 1)
    return q + 2 * pdf * acc


@pytest.mark.parametrize(("x", "k", "expected"), [(11.0705, 5, 0.05), (20.5150, 5, 0.001), (4.3515, 5, 0.5),
                                                  (3.8415, 1, 0.05), (9.4877, 4, 0.05)])
def test_chi2_survival_function_matches_tables(x: float, k: int, expected: float) -> None:
    assert chi2_sf(x, k) == pytest.approx(expected, rel=1e-3)
    if k % 2:
        assert chi2_sf_odd_closed_form(x, k) == pytest.approx(chi2_sf(x, k), rel=1e-9)


def test_byte_to_face_mapping_is_exactly_uniform() -> None:
    counts = Counter(face_of(b) for b in range(256))
    assert counts == {1: 42, 2: 42, 3: 42, 4: 42, 5: 42, 6: 42, 0: 4}
    # ...which the naive mapping is not: `% 6` gives 1..4 one byte value more than 5 and 6.
    naive = Counter(b % 6 + 1 for b in range(256))
    assert sorted(naive.values()) == [42, 42, 43, 43, 43, 43]


def test_rejected_bytes_are_redrawn_not_wrapped() -> None:
    draws: list[int] = []
    scripted = iter([bytes([255, 0, 253]), bytes([41, 42])])

    def source(n: int) -> bytes:
        draws.append(n)
        return next(scripted)

    dice = Dice(source)
    assert dice.roll(3) == [1, 1, 2]
    assert dice.rejected == 2
    assert draws == [3, 2]


def test_short_read_from_the_random_source_is_an_error() -> None:
    with pytest.raises(OSError, match="random source"):
        Dice(lambda n: b"\x01").roll(2)


def test_sixty_thousand_rolls_pass_chi_square() -> None:
    dice = Dice(random.Random(20261121).randbytes)
    faces: Counter[int] = Counter()
    for _ in range(6000):
        faces.update(dice.roll(10))
    assert sum(faces.values()) == 60_000
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    expected = 60_000 / 6
    stat = sum((faces[f] - expected) ** 2 / expected for f in range(1, 7))
    assert chi2_sf(stat, 5) > 0.001, (stat, faces)


def test_sixty_thousand_device_rolls_over_the_protocol_pass_chi_square() -> None:
    # The whole firmware path: ROLL frames in, RESULT frames out, dice from a seeded byte source.
    stream = FakeStream()
    device = Device(stream, random.Random(7).randbytes, FakeClock())
    stream.feed(p.encode_message({"type": "HELLO_REQ", "seq": 0}))
    device.step()
    session = p.decode_message(stream.take()[0])["session"]
    faces: Counter[int] = Counter()
    first: Counter[int] = Counter()
    for seq in range(1, 6001):
        stream.feed(p.encode_message({"type": "ROLL", "seq": seq, "session": session, "n": 10}))
        device.step()
        (frame,) = stream.take()
        dice = p.decode_message(frame)["dice"]
        faces.update(dice)
        first[dice[0]] += 1
    assert sum(faces.values()) == 60_000
    stat = sum((faces[f] - 10_000) ** 2 / 10_000 for f in range(1, 7))
    assert chi2_sf(stat, 5) > 0.001, (stat, faces)
    # The first die of each roll alone is fair too (no position bias).
    stat_first = sum((first[f] - 1000) ** 2 / 1000 for f in range(1, 7))
    assert chi2_sf(stat_first, 5) > 0.001, first


def test_chi_square_catches_a_loaded_die() -> None:
    rng = random.Random(1)
    loaded = [6 if rng.random() < 0.19 else rng.randint(1, 5) for _ in range(60_000)]
    faces = Counter(loaded)
    stat = sum((faces[f] - 10_000) ** 2 / 10_000 for f in range(1, 7))
    assert chi2_sf(stat, 5) < 0.001

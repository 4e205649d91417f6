"""A player whose dice the box setup did not measure, measured during the game on their own castle.

A castle holds its owner's knights alone (Components, p. 2; it cannot be conquered, p. 8; only the optional
castle siege of p. 14 brings another's, for one battle), and every player starts with knights on it (Setting
Up, step 6, p. 3). So the dice on a castle show its owner's kind of die. A player the box setup left
unmeasured (no die found on their castle, a castle the camera could not read, a refused sample) has their
dice asked about all game (`ColourCalibration.playing`); once the reader is sure of the dice on that
player's castle, they are measured there with the box setup's own checks (`vision.colourcheck.measure`),
and kept when they stand apart from every measured player's dice and reach no die on another player's
castle (`misfits`: nearer it than its own player's model, or near enough that it is no longer named). From
then on that player's dice are named.

Nobody watches this measurement, so it asks more than the box setup does: no die on the castle named another
player, no hand over the castle, and the dice alike (a stray die there is refused as dice that differ). It
measures the dice the reader is sure of and leaves out those it is unsure of (their value, or whether they are
dice at all): on dev scenes (training kinds, 0-50 degrees) a castle of five dice often had one such, which
kept its owner unmeasured for as long as it stood there."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from vision.calibration import ColourCalibration
from vision.colourcheck import Measurement, apart_from, measure
from vision.knights import KnightsReading


def measured_on_castles(
    image: npt.NDArray[np.uint8],
    knights: KnightsReading,
    castles: Mapping[str, Colour],
    calibration: ColourCalibration,
    white: Sequence[float] | None,
    *,
    stickers: Sequence[npt.ArrayLike] = (),
    hands: Collection[str] = (),
) -> dict[Colour, Measurement]:
    """The stand-in players of `calibration` (`castles`: castle id -> owner) measured on their castles in
    `image` (`knights`: its reading; `white`: its sticker white; `stickers`: their quads; `hands`: locations
    with a hand over them), where the castle shows their dice plainly. A measurement is to be kept when it
    is `ok`: it passed every check, and stands apart from the measured players' models and the others kept."""
    measured = {c: m for c, m in calibration.models.items() if c not in calibration.stand_ins}
    out: dict[Colour, Measurement] = {}
    for castle, owner in castles.items():
        if owner not in calibration.stand_ins or owner in out or not _measurable(knights, castle, hands):
            continue
        dice = [d for d in knights.dice if d.location == castle and not d.unsure]
        others = [tuple(d.extent) for d in knights.dice if d.location != castle or d.unsure]
        m = measure(
            image, [d.box for d in dice], white, others=others, extents=[d.extent for d in dice],
            stickers=stickers, sure=[True] * len(dice), drawn=False,
        )  # fmt: skip
        if m.ok:
            kept = {**measured, **{c: x.model for c, x in out.items() if x.ok}}
            m = Measurement(m.model, m.faces, tuple(apart_from(m, kept)))
        out[owner] = m
    return out


def misfits(
    before: KnightsReading, after: KnightsReading, castles: Mapping[str, Colour], learned: Collection[Colour]
) -> set[Colour]:
    """The colours of `learned` that reach a die on another player's castle (`castles`: castle id -> owner):
    in `after` (the frame named with them) the die lies nearest one of them, or it was named its owner in
    `before` and is not any more, one of them now nearest or runner-up. A castle holds its owner's dice, so
    such a measurement takes in dice not its player's (a broad model, measured on dice partly in shade)."""
    named = {(d.box, d.location) for d in before.dice if d.colour is not None}
    out = set()
    for d in after.dice:
        owner = castles.get(d.location or "")
        if owner is None:
            continue
        m = d.colour_match
        if m.colour in learned and m.colour is not owner:
            out.add(m.colour)
        elif d.colour is None and (d.box, d.location) in named:
            out |= {c for c in (m.colour, m.runner_up) if c is not None and c in learned and c is not owner}
    return out


def _measurable(knights: KnightsReading, castle: str, hands: Collection[str]) -> bool:
    """Whether the castle is in view, free of hands, and holds a die the reader is sure of, and no die named a
    player (the owner's are not named yet: a die named another player is no die to learn from). The dice it
    is unsure of (their value, or whether they are dice at all) are left out of the measurement."""
    if castle not in knights.seen or castle in knights.occluded or castle in hands:
        return False
    dice = [d for d in knights.dice if d.location == castle]
    return any(not d.unsure for d in dice) and all(d.colour is None for d in dice)

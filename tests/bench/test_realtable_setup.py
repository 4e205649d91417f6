"""Box setup (the app's own code, `companion.calibrate`) on realism-bench set-up frames of the training
kinds: what it refused before it knew dice read from above."""

from __future__ import annotations

import pytest

from bench.realtable.protocol import calibrate
from bench.realtable.render import render
from bench.realtable.scene import RES_1080P, Family, Level
from bench.realtable.tables import make_scene, setup_frame
from engine.colours import Colour


@pytest.mark.parametrize("seed", [500_021, 500_007])
def test_a_black_die_on_a_dark_castle_beside_its_stickers_is_measured(seed: int) -> None:
    """A black die with white pips on a dark castle, its stickers' black and white beside it, looks like its
    surroundings; the dice reader is sure it is a die, and the die's side faces are not the tile: measured."""
    scene = make_scene(Level.CLEAN, seed, Family.TRAIN, RES_1080P, tilt=None)
    assert Colour.BLACK in scene.colours
    image, _truth = render(setup_frame(scene))
    cal = calibrate(image, scene)
    assert not cal.refused, cal.messages
    assert Colour.BLACK not in cal.unmeasured, cal.messages

"""A frame's dice named together: each player's dice as this frame shows them, learned from the dice the
calibration names surely, for a second look at those it turned away only for their distance.

A player's dice are measured at set-up, often one die and one face of it. At play the same kind shows other
faces (more pips, or fewer), stands in the lamp's pool or its fall-off, and a glossy face catches a sheen:
its score against the measured model can pass the naming threshold (`vision.calibration.NAMING`) though
nothing else comes near it. The dice of one frame share that frame's light, so:

1. the faces named surely (within `SURE_DISTANCE`, the runner-up `SURE_MARGIN` further) are gathered per
   player; a player with `MIN_SURE` or more gets a model of their dice as this frame shows them
   (`vision.dicecolour.fit_model` over those faces' pixels);
2. a face turned away for its distance alone (the runner-up already clearly further, by the naming's own
   margin; never a stand-in's) is scored against these models as well as the measured ones, its best of the
   two per player, and named when it now passes and is still the same player's.

The frame's models never choose between players: a face that was ambiguous stays asked, and a face named
another player's than at first stays asked too. Chosen on the realism renderer's dev scenes (training kinds,
seeds 500000+): knights right rose 1.4 points on clean scenes and 2.3 on realistic ones, and on a second dev
range 2.3, with no location more silently wrong; looser rules (a face's player allowed to change, or
ambiguous faces looked at again) named red dice as black.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.colours import Colour
from vision.calibration import ColourCalibration, ColourMatch
from vision.dicecolour import DieModel, FaceSamples, Palette, fit_model, score_faces

SURE_DISTANCE = 18.0
SURE_MARGIN = 15.0
MIN_SURE = 2


def name_together(calibration: ColourCalibration, faces: FaceSamples) -> list[ColourMatch]:
    """Each face's player (as `ColourCalibration.name_samples` names it), with the second look of the module
    docstring for the faces turned away for their distance alone."""
    if not len(faces):
        return []
    scores = calibration.score_samples(faces).score
    matches = calibration.decide(scores)
    again = [k for k, m in enumerate(matches) if far_only(m)]
    if not again:
        return matches
    seen = frame_models(calibration, faces, matches)
    if not seen:
        return matches
    colours = calibration.colours
    palette = Palette.of([seen.get(c, calibration.models[c]) for c in colours])
    subset = FaceSamples(
        faces.lab[again],
        faces.ok[again],
        faces.points[again],
        None if faces.clipped is None else faces.clipped[again],
    )
    best = np.minimum(scores[again], score_faces(subset, palette).score)
    out = list(matches)
    for k, new in zip(again, calibration.decide(best), strict=True):
        if new.accepted and new.colour is matches[k].colour:
            out[k] = new
    return out


def frame_models(
    calibration: ColourCalibration, faces: FaceSamples, matches: Sequence[ColourMatch]
) -> dict[Colour, DieModel]:
    """Each player's dice as the faces named surely show them (`MIN_SURE` faces or more)."""
    pools: dict[Colour, list[np.ndarray]] = {}
    for k, m in enumerate(matches):
        if m.accepted and m.distance <= SURE_DISTANCE and m.runner_up_distance - m.distance >= SURE_MARGIN:
            pixels = faces.lab[k][faces.ok[k]]
            if len(pixels):
                pools.setdefault(m.colour, []).append(pixels)
    return {
        c: fit_model(np.concatenate(p), dice=len(p)).model
        for c, p in pools.items()
        if len(p) >= MIN_SURE and c in calibration.models
    }


def far_only(match: ColourMatch) -> bool:
    """Turned away for its distance alone: the runner-up clearly further, and a measured player's."""
    return (
        not match.accepted
        and not match.stand_in
        and match.runner_up_distance - match.distance >= match.margin
    )

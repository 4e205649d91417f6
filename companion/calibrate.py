"""Dice-colour calibration from the camera, at box setup: every player puts one of their dice on their castle
(a castle tile's colour is printed on it and known from the catalogue), the camera reads the map, and each
die's body colour is measured there (`vision.calibration.die_body_colour`, white-balanced by the stickers'
white). The measurements become a `vision.calibration.ColourCalibration` that the table reader uses for the
game; colours nobody measured keep the default references.

The measuring runs where the frames are (the camera process, `feedproc`); this module is pure so that tests
drive it on synthetic frames (`vision.synth`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.colours import Colour

# Two measured colours closer than this (Lab distance, as `ColourCalibration.match` measures) are too alike
# to tell apart at play time.
MIN_SEPARATION = 12.0


@dataclass(frozen=True, slots=True)
class DieSample:
    """One player's die as measured in one frame: body colour (BGR) and that frame's sticker white."""

    bgr: tuple[float, float, float]
    white: tuple[float, float, float] | None
    dice: int = 1  # dice on the castle the median was taken over

    def to_json(self) -> dict[str, Any]:
        return {
            "bgr": [round(v, 2) for v in self.bgr],
            "white": None if self.white is None else [round(v, 2) for v in self.white],
            "dice": self.dice,
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> DieSample:
        b, g, r = (float(v) for v in obj["bgr"])
        w = obj.get("white")
        white = None if w is None else (float(w[0]), float(w[1]), float(w[2]))
        return DieSample((b, g, r), white, int(obj.get("dice", 1)))


def castle_colours(catalogue: Any = None) -> dict[str, Colour]:
    """Castle tile id -> the colour printed on it (from the catalogue)."""
    if catalogue is None:
        from engine.catalogue import load_default_catalogue

        catalogue = load_default_catalogue()
    return {c.id: c.colour for c in catalogue.castles}


def samples_on_castles(
    image: Any, result: Any, castles: Mapping[str, Colour]
) -> tuple[dict[Colour, DieSample], list[str]]:
    """From one frame and the table reader's result for it (`vision.pipeline.FrameResult`): each castle's dice
    measured as that castle's colour. Returns the samples and what to tell the players about the rest."""
    import numpy as np

    from vision.calibration import die_body_colour, middle_of

    notes: list[str] = []
    knights = getattr(result, "knights", None)
    if knights is None:
        why = getattr(result, "message", "") or "no map in view"
        return {}, [f"the camera cannot read the table yet ({why}): are the castles' stickers in view?"]
    seen = set(getattr(knights, "seen", ()))
    white = getattr(result, "white", None)
    out: dict[Colour, DieSample] = {}
    for castle, colour in castles.items():
        dice = [d for d in knights.dice if d.location == castle]
        if not dice:
            if castle in seen:
                notes.append(f"no die on the {colour.value} castle ({castle})")
            continue
        # Real dice are the big ones: the finder's stray finds (a pip-like speck of art) are much smaller.
        area = [max(1, (d.box[2] - d.box[0]) * (d.box[3] - d.box[1])) for d in dice]
        dice = [d for d, a in zip(dice, area, strict=True) if a >= 0.6 * max(area)]
        bodies = np.asarray([die_body_colour(image, middle_of(d.box)) for d in dice], np.float64)
        b, g, r = (float(v) for v in np.median(bodies, axis=0))
        wb = None if white is None else (float(white[0]), float(white[1]), float(white[2]))
        out[colour] = DieSample((b, g, r), wb, len(dice))
    if not out and not notes:
        notes.append("no castle in view: put the castles (with their stickers) where the camera sees them")
    return out, notes


def build_calibration(samples: Mapping[Colour, DieSample], base: Any = None) -> Any:
    """A `ColourCalibration`: the measured colours (each balanced by its own frame's white) over `base`'s
    references (default: the default calibration) for the colours nobody measured."""
    from vision.calibration import ColourCalibration, balance, bgr_to_lab, default_calibration

    base = base if base is not None else default_calibration()
    refs: dict[Colour, tuple[float, float, float]] = dict(base.references)
    for colour, s in samples.items():
        lab = bgr_to_lab(balance(s.bgr, s.white))[0]
        refs[colour] = (float(lab[0]), float(lab[1]), float(lab[2]))
    return ColourCalibration(refs, threshold=base.threshold, margin=base.margin)


def problems(samples: Mapping[Colour, DieSample], calibration: Any, base: Any = None) -> list[str]:
    """Measured dice the calibration would not recognise as their own colour (a die of another colour on the
    castle, or two colours too alike in this light). A die the default colours confidently call another
    colour, far from its own, is flagged too: a blue die on the red castle when blue is not measured."""
    from vision.calibration import default_calibration

    base = base if base is not None else default_calibration()
    out: list[str] = []
    for colour, s in samples.items():
        m = calibration.match(s.bgr, s.white)
        d = base.match(s.bgr, s.white)
        far = (
            colour in base.references
            and d.colour is not colour
            and d.accepted
            and _distance_to(base, colour, s) > 2 * base.threshold_for(colour)
        )
        if far:
            out.append(
                f"the die on the {colour.value} castle looks {d.colour.value}: is it a {colour.value} die?"
            )
        elif m.colour is not colour:
            out.append(
                f"the die on the {colour.value} castle looks {m.colour.value}: is it a {colour.value} die?"
            )
        elif m.runner_up is not None and m.runner_up_distance - m.distance < MIN_SEPARATION:
            out.append(
                f"{colour.value} and {m.runner_up.value} dice look too alike in this light "
                f"({m.runner_up_distance - m.distance:.0f} apart): more light, or measure again"
            )
    return out


def _distance_to(calibration: Any, colour: Colour, s: DieSample) -> float:
    """How far a sample is from one colour's reference (balanced Lab, as `match` measures)."""
    import numpy as np

    from vision.calibration import balance, bgr_to_lab, lab_distance

    ref = np.asarray([calibration.references[colour]], np.float32)
    return float(lab_distance(ref, bgr_to_lab(balance(s.bgr, s.white))[0])[0])


class Calibrator:
    """The measurements of one calibration session, and the saved result."""

    def __init__(self, path: Path, base: Any = None) -> None:
        self.path = path
        self.base = base
        self.samples: dict[Colour, DieSample] = {}

    def add(self, samples: Mapping[Colour, DieSample]) -> None:
        self.samples.update(samples)

    def measured(self) -> tuple[Colour, ...]:
        return tuple(c for c in Colour if c in self.samples)

    def check(self) -> list[str]:
        if not self.samples:
            return ["no die measured yet"]
        return problems(self.samples, build_calibration(self.samples, self.base), self.base)

    def save(self) -> Any:
        """Write the calibration (vision's format) next to the box file; returns it."""
        cal = build_calibration(self.samples, self.base)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        doc = cal.to_json()
        doc["measured"] = [c.value for c in self.measured()]
        tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.path)
        return cal


def load_calibration(path: Path) -> Any:
    """The saved calibration, or None when there is none (the reader then uses its defaults)."""
    if not path.exists():
        return None
    from vision.calibration import ColourCalibration

    obj = json.loads(path.read_text(encoding="utf-8"))
    obj.pop("measured", None)
    return ColourCalibration.from_json(obj)


def measured_colours(path: Path) -> Sequence[str]:
    if not path.exists():
        return ()
    try:
        return tuple(json.loads(path.read_text(encoding="utf-8")).get("measured", ()))
    except (OSError, ValueError):
        return ()

"""Dice-colour calibration from the camera, at box setup: every player puts their dice (three is best: more
of the kind seen, fewer questions at play) on their castle (a castle tile's colour is printed on it and known
from the catalogue), the camera reads the map, and each castle's dice are measured and checked there
(`vision.colourcheck`). A measurement with a problem is refused with a sentence saying why and a picture of
what was measured; players' dice too alike to tell apart are refused together. The measured kinds of dice
become a `vision.calibration.ColourCalibration` that the table reader uses for the game: only measured
colours are in it, so a die of a colour nobody measured is unsure (its location is asked), never named by a
default; the box setup says which colours are not measured.

The measuring runs where the frames are (the camera process, `feedproc`); this module is pure so that tests
drive it on synthetic frames (`vision.synth`). Vision is imported where it is used: the app runs without it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from engine.colours import Colour


class ColourState(Enum):
    """Where one player colour's calibration stands."""

    MEASURED = "measured"  # measured now, no problem: saved with the next save
    REFUSED = "refused"  # measured now, with a problem: not saved (see the problems)
    NO_DIE = "no-die"  # its castle is in view with no die on it
    NOT_IN_VIEW = "not-in-view"  # its castle is on the map but not (wholly) in the camera's view
    # its castle is not on the map the camera reads: not laid out, or its stickers cannot be read from where
    # the camera stands (too far, too steep)
    NOT_ON_MAP = "not-on-map"
    SAVED = "saved"  # in the saved calibration the camera uses, not measured now
    NOT_MEASURED = "not-measured"  # never measured: the camera asks about its dice


@dataclass(frozen=True, slots=True)
class DieSample:
    """One castle's dice as measured in one frame (what the camera process sends the app): the castle's state
    and, when it had dice, the measurement (`vision.colourcheck.Measurement`'s JSON, picture and all)."""

    state: ColourState
    measurement: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state.value, "measurement": self.measurement}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> DieSample:
        m = obj.get("measurement")
        return DieSample(ColourState(obj["state"]), None if m is None else dict(m))

    def measured(self) -> Any:
        """The `vision.colourcheck.Measurement` (None when the castle had no die)."""
        if self.measurement is None:
            return None
        from vision.colourcheck import Measurement

        return Measurement.from_json(self.measurement)


@dataclass(frozen=True, slots=True)
class ColourReport:
    """What the box setup shows for one player colour: its state, what to tell the players (English
    sentences; `doubts` are `vision.colourcheck.Doubt` values, for translations), how many dice were
    measured, and the picture of what was measured (PNG bytes: each die as seen and with the pixels taken as
    body and as pips marked, the model's colours beneath), or None."""

    colour: Colour
    state: ColourState
    sentences: tuple[str, ...] = ()
    doubts: tuple[str, ...] = ()
    dice: int = 0
    picture: bytes | None = None


def castle_colours(catalogue: Any = None) -> dict[str, Colour]:
    """Castle tile id -> the colour printed on it (from the catalogue)."""
    if catalogue is None:
        from engine.catalogue import load_default_catalogue

        catalogue = load_default_catalogue()
    return {c.id: c.colour for c in catalogue.castles}


def samples_on_castles(
    image: Any, result: Any, castles: Mapping[str, Colour]
) -> tuple[dict[Colour, DieSample], list[str]]:
    """From one frame and the table reader's result for it (`vision.pipeline.FrameResult`): each castle on the
    map measured as that castle's colour, or why not (`ColourState`: a sample without a measurement). Returns
    the samples and what to tell the players about the castles that had no die measured."""
    from vision.colourcheck import measure

    knights = getattr(result, "knights", None)
    if knights is None:
        why = getattr(result, "message", "") or "no map in view"
        return {}, [f"the camera cannot read the table yet ({why}): are the castles' stickers in view?"]
    view = getattr(result, "map", None)
    on_map = set(getattr(view, "tiles", {}).values()) if view is not None else set()
    seen = set(getattr(knights, "seen", ()))
    white = getattr(result, "white", None)
    everyone = [tuple(_extent(d)) for d in knights.dice]
    quads = list(getattr(view, "tag_quads", ())) if view is not None else []
    out: dict[Colour, DieSample] = {}
    notes: list[str] = []
    for castle, colour in castles.items():
        if castle not in seen:
            if castle in on_map:
                out[colour] = DieSample(ColourState.NOT_IN_VIEW)
                notes.append(f"the {colour.value} castle ({castle}) is not in the camera's view")
            else:  # no sentence: players who lay out only their own castles would hear it for every other
                out.setdefault(colour, DieSample(ColourState.NOT_ON_MAP))
            continue
        dice = _on_castle(image, result, view, castle)
        # Measured: the dice the reader is sure of, when there are any. A die it is unsure of beside them is
        # often one of them read again over its side face, in the shade, which would teach a white die grey.
        dice = [d for d in dice if not d.unsure] or _top_faces(dice, view, image)
        # Real dice are the big ones: the finder's stray finds (a pip-like speck of art) are much smaller.
        area = [max(1, (d.box[2] - d.box[0]) * (d.box[3] - d.box[1])) for d in dice]
        big = [d for d, a in zip(dice, area, strict=True) if a >= 0.6 * max(area, default=0)]
        boxes = [tuple(d.box) for d in big]
        if not boxes:
            out[colour] = DieSample(ColourState.NO_DIE)
            notes.append(f"no die on the {colour.value} castle ({castle})")
            continue
        whole = [tuple(_extent(d)) for d in big]
        others = [b for b in everyone if b not in whole]
        m = measure(
            image, boxes, None if white is None else tuple(white),
            others=others, extents=whole, stickers=quads, sure=[not d.unsure for d in big],
        )  # fmt: skip
        state = ColourState.MEASURED if m.ok else ColourState.REFUSED
        out[colour] = DieSample(state, m.to_json())
    if all(s.state is ColourState.NOT_ON_MAP for s in out.values()):
        notes.append("no castle in view: put the castles (with their stickers) where the camera sees them")
    return out, notes


def _on_castle(image: Any, result: Any, view: Any, castle: str) -> list[Any]:
    """The dice the reader read on `castle`; when none, the die box setup asks to stand there, if the dice
    networks give anything there the score of one (`vision.knights.expected_die`: a kind of die they never
    met can score too low on its own colour's print to be reported unprompted), unless a hand is over the
    castle (a knuckle is no die)."""
    dice = [d for d in result.knights.dice if d.location == castle]
    i2t = getattr(view, "image_to_table", None)
    hands = set(getattr(result, "occluded", ())) | set(getattr(result.knights, "occluded", ()))
    if dice or i2t is None or castle in hands or castle not in getattr(view, "polygons", {}):
        return dice
    from vision.knights import expected_die

    return expected_die(image, view.polygons, castle, i2t)


def _top_faces(dice: list[Any], view: Any, image: Any) -> list[Any]:
    """Dice the reader is unsure of, less the boxes over another's side face (`vision.knights.side_faces`):
    a die read twice would teach its player's model the shaded side beside the top."""
    i2t = getattr(view, "image_to_table", None)
    if i2t is None or len(dice) < 2:
        return dice
    from vision.knights import side_faces

    drop = side_faces(dice, i2t, (image.shape[1], image.shape[0]))
    return [d for k, d in enumerate(dice) if k not in drop]


def _extent(die: Any) -> Any:
    """Where the whole die shows in the frame (a die read from above has its top face's box as `box`)."""
    return getattr(die, "extent", die.box)


def _saved_doc(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def load_calibration(path: Path) -> Any:
    """The saved calibration (`ColourCalibration`), or None when there is none (the reader then uses its
    defaults: the synthetic camera's dice). Raises `CalibrationError` on a damaged file."""
    if not path.exists():
        return None
    from vision.calibration import ColourCalibration

    return ColourCalibration.load(path)


def measured_colours(path: Path) -> Sequence[str]:
    """The colours the saved calibration holds (measured at some box setup)."""
    doc = _saved_doc(path)
    measured = doc.get("measured")
    if isinstance(measured, list):
        return tuple(str(c) for c in measured)
    models = doc.get("models") or doc.get("references") or {}
    return tuple(models) if isinstance(models, dict) else ()


class Calibrator:
    """One box-setup session's measurements (each castle's latest: a new tap replaces what it measured) over
    the saved calibration, the checks across players, and saving."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.samples: dict[Colour, DieSample] = {}

    def add(self, samples: Mapping[Colour, DieSample]) -> None:
        """Each castle's new sample over its old one; a castle not on the map read now keeps what an earlier
        tap found (players measure a few castles at a time, then put them away)."""
        for colour, sample in samples.items():
            if sample.state is not ColourState.NOT_ON_MAP or colour not in self.samples:
                self.samples[colour] = sample

    def measurements(self) -> dict[Colour, Any]:
        """This session's measured colours' `Measurement`s."""
        out = {}
        for colour, sample in self.samples.items():
            m = sample.measured()
            if m is not None:
                out[colour] = m
        return out

    def measured(self) -> tuple[Colour, ...]:
        return tuple(c for c in Colour if c in self.samples and self.samples[c].measurement is not None)

    def _saved(self, *, all_: bool = False) -> tuple[dict[Colour, Any], dict[Colour, list[Any]]]:
        """The saved models and faces of the colours not measured in this session (`all_`: of every colour
        saved)."""
        from vision.dicecolour import DieModel

        doc = _saved_doc(self.path)
        models: dict[Colour, Any] = {}
        faces: dict[Colour, list[Any]] = {}
        if doc.get("version", 1) >= 2:
            for name, model in (doc.get("models") or {}).items():
                try:
                    colour = Colour(name)
                    if all_ or colour not in self.samples:
                        models[colour] = DieModel.from_json(model)
                        faces[colour] = list((doc.get("faces") or {}).get(name, []))
                except ValueError:
                    continue
        return models, faces

    def problems(self) -> dict[Colour, list[Any]]:
        """Every colour's problems (`vision.colourcheck.Problem`): its own measurement's, and too alike
        another player's dice (measured now or saved)."""
        import numpy as np

        from vision.colourcheck import Measurement

        models, faces = self._saved()
        saved = {
            c: Measurement(model, tuple(np.asarray(f, np.float32).reshape(-1, 3) for f in faces[c]))
            for c, model in models.items()
        }
        return _problems(self.measurements(), saved)

    def reports(self, colours: Iterable[Colour] = tuple(Colour)) -> list[ColourReport]:
        """What to show for each colour."""
        problems = self.problems() if self.samples else {}
        saved = set(measured_colours(self.path))
        out = []
        for colour in colours:
            sample = self.samples.get(colour)
            if sample is not None and sample.state is ColourState.NOT_ON_MAP and colour.value in saved:
                sample = None  # saved before: the camera uses that, wherever the castle is now
            if sample is None:
                state = ColourState.SAVED if colour.value in saved else ColourState.NOT_MEASURED
                out.append(ColourReport(colour, state, (_absent(colour, state),)))
                continue
            if sample.measurement is None:
                out.append(ColourReport(colour, sample.state, (_absent(colour, sample.state),)))
                continue
            found = problems.get(colour, [])
            state = ColourState.REFUSED if found else ColourState.MEASURED
            m = sample.measurement
            picture = base64.b64decode(m["picture"]) if m.get("picture") else None
            dice = len(m.get("faces", ()))
            sentences = tuple(p.sentence(colour) for p in found) or (_measured(colour, dice),)
            out.append(
                ColourReport(colour, state, sentences, tuple(p.doubt.value for p in found), dice, picture)
            )
        return out

    def check(self) -> list[str]:
        """Why this session's measurements cannot be saved, each refused colour's sentences (empty: all can;
        `savable` says which can)."""
        if not self.samples or not self.measured():
            return ["no die measured yet"]
        return [s for r in self.reports() if r.state is ColourState.REFUSED for s in r.sentences]

    def savable(self) -> tuple[Colour, ...]:
        """This session's measured colours the checks pass: `save` keeps these. A refused colour is not
        saved (its dice saved before, if any, stay), and the camera asks about its dice until it is."""
        found = self.problems()
        return tuple(c for c in self.measured() if not found.get(c))

    def save(self) -> Any:
        """Write the calibration (vision's format, with the measured faces for later checks) next to the box
        file: this session's `savable` measurements over the colours saved before. The saved colours'
        samples are done with; a refused colour's stay, with why. Returns the calibration."""
        from vision.calibration import ColourCalibration

        keep = set(self.savable())
        current = {c: m for c, m in self.measurements().items() if c in keep}
        models, faces = self._saved(all_=True)
        models.update({c: m.model for c, m in current.items()})
        faces.update({c: [f.round(1).tolist() for f in m.faces] for c, m in current.items()})
        cal = ColourCalibration.of_models({c: models[c] for c in Colour if c in models})
        doc = cal.to_json()
        doc["measured"] = [c.value for c in cal.colours]
        doc["faces"] = {c.value: faces.get(c, []) for c in cal.colours}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc) + "\n", encoding="utf-8")
        tmp.replace(self.path)
        for colour in current:
            del self.samples[colour]
        return cal


def _problems(current: Mapping[Colour, Any], saved: Mapping[Colour, Any]) -> dict[Colour, list[Any]]:
    """Each measured colour's problems: its own measurement's, and too alike another's (measured or saved)."""
    from vision.colourcheck import separation

    out: dict[Colour, list[Any]] = {c: list(m.problems) for c, m in current.items()}
    everyone = {**saved, **current}
    usable = {c: m for c, m in everyone.items() if not out.get(c)}
    for colour, found in separation(usable).items():
        if colour in out:
            out[colour] += found
    return out


def build_calibration(samples: Mapping[Colour, DieSample]) -> Any:
    """The `ColourCalibration` of the measured samples alone (every colour with a measurement: a colour
    nobody measured is never filled in with a default). Raises `CalibrationError` when nothing was
    measured."""
    from vision.calibration import ColourCalibration

    measured = {c: s.measured() for c, s in samples.items() if s.measurement is not None}
    return ColourCalibration.of_models({c: m.model for c, m in measured.items()})


def passed(samples: Mapping[Colour, DieSample]) -> dict[Colour, DieSample]:
    """The measured samples the checks pass (`Calibrator.savable` without a saved file): what is saved."""
    measured = {c: s.measured() for c, s in samples.items() if s.measurement is not None}
    found = _problems(measured, {})
    return {c: samples[c] for c in measured if not found.get(c)}


def problems(samples: Mapping[Colour, DieSample]) -> list[str]:
    """Why these samples cannot be saved (`Calibrator.check` without a saved file): every measured colour's
    problems as sentences."""
    measured = {c: s.measured() for c, s in samples.items() if s.measurement is not None}
    return [p.sentence(c) for c, found in _problems(measured, {}).items() for p in found]


def missing_colours(calibration: Any, colours: Iterable[Colour]) -> list[Colour]:
    """The colours a game uses that `calibration` has no model of: their dice are asked about, never named
    (None: no calibration at all, every colour missing)."""
    have = set() if calibration is None else set(getattr(calibration, "measured", calibration.colours))
    return [c for c in colours if c not in have]


def _measured(colour: Colour, dice: int) -> str:
    more = "" if dice >= 3 else " (three dice measure it better: fewer questions at play)"
    return f"{colour.value}: {dice} {'die' if dice == 1 else 'dice'} measured{more}"


def _absent(colour: Colour, state: ColourState) -> str:
    return {
        ColourState.NO_DIE: f"no die on the {colour.value} castle",
        ColourState.NOT_IN_VIEW: f"the {colour.value} castle is not in the camera's view",
        ColourState.NOT_ON_MAP: f"the {colour.value} castle is not on the map the camera reads",
        ColourState.SAVED: f"{colour.value}: as saved",
        ColourState.NOT_MEASURED: f"{colour.value} dice not measured: the camera will ask about them",
    }.get(state, colour.value)

"""The protocol, as the app meets a table, and what is counted.

Per scene: the set-up frame (tiles laid, every player's one die on their castle) is read by the table reader
the app builds (`companion.pipeline.vision_reader`, hold 5 as for a real camera), and the dice on the castles
are measured with the app's own box-setup code (`companion.calibrate.samples_on_castles`, then `passed`,
`problems` and `build_calibration`, as `Calibrator.savable`, `check` and `save` run them). A colour with a
problem is refused and not saved; the others are. A player's colour not saved (no die found on its castle,
or refused) is counted as unmeasured: the reader, told the game's players, asks about its dice. When no
colour is saved, no player's dice are measured: every die is asked, as the app has a real camera do.

Per game frame, three readings: *after set-up* (a fresh reader with the scene's calibration reads the set-up
frame, untimed, is told the game's map, players and castles as the app tells them when a game starts
(`TableReader.confirm_map`, with the map as laid: the owner confirmed it), then reads the game frame, timed:
the first frame of a game), *alone* (a fresh reader reads the game frame only, nothing confirmed) and *map
bare first* (as after set-up, but the reader first reads a frame of the map with no dice on it, as the new
game screen asks and the rulebook's order gives: the map is built before the starting knights go down; the
bare look then knows every spot, `vision.bare`). Each is scored on the frame's own reading
(`FrameResult.raw`), as `bench/vision.py` does:
- map exact: every tile on its hex, up to the lattice's shift and turn (`align_tiles`); tiles right: the share
  of tiles on their hex;
- per location (territories and castles) not under a hand: *right* when every colour's count is exact and the
  location is not flagged unsure; *flagged* when it is in `unsure`; *silently wrong* when it is wrong, not
  flagged, and on the reading's map (what a player would not be asked about); *unread* otherwise (the
  location is not on the reading's map, or the reader did not read the frame at all: a status such as
  `blurred`, counted per frame too);
- locations under a hand are left out and reported apart (how many flagged), as are locations with a die
  mostly hidden behind another (how many right, how many flagged);
- artefact cards whose sticker (code and quiet zone) is wholly in view with nothing over it (another card
  laid over it, a die, a hand): face-up ones read as face up (the aim's figure); face-up ones whose sticker is
  partly covered, read as up (apart: they may well be unreadable); face-down ones in view, covered or not,
  wrongly read as up;
- blurred frames (defocus >= 2 px or motion >= 6 px): read anyway when the frame's reading states any
  location sure, and how many of those statements are wrong.

The first frame after the confirmation costs more than most: the reader learns the bare look from the set-up
frame then, and its first `LOOK_AROUND_FIRST` frames look around the map (every code decoded, cards beside the
map sought). A frame *in play* is timed too, untallied: one reader per scene reads the scene's unblurred game
frames in turn (each a table changed all over from the one before, so each is read) until it is past those
first frames, then each once more, timed. After those, one frame in `LOOK_AROUND_EVERY` looks around again,
as in the app. (A frame unchanged from the one before is hardly read at all: it is never timed.)
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.realtable.render import render
from bench.realtable.scene import Scene, Truth
from bench.realtable.tables import bare_frame, game_frame, setup_frame
from engine.colours import Colour
from vision.tracked import LOOK_AROUND_FIRST

HOLD_FRAMES = 5  # the app's hold for a real camera (companion/demo.py)


@dataclass
class Calibrated:
    calibration: Any  # vision's ColourCalibration, or None: nothing saved (`app_reader`: every die asked)
    refused: bool  # a colour was refused (and not saved)
    unmeasured: tuple[Colour, ...]
    messages: tuple[str, ...]
    not_found: tuple[Colour, ...] = ()  # unmeasured, its castle not on the map read ("castle not found")


def calibrate(setup: np.ndarray, scene: Scene) -> Calibrated:
    """The app's box set-up on the set-up frame: measure the castles' dice, check, save or refuse."""
    from companion.calibrate import (
        ColourState,
        build_calibration,
        castle_colours,
        passed,
        problems,
        samples_on_castles,
    )
    from companion.pipeline import vision_reader

    reader = vision_reader(HOLD_FRAMES)
    result = reader.read(setup)
    try:
        samples, notes = samples_on_castles(setup, result, castle_colours())
    except Exception as exc:  # the app tells the players and measures nothing (companion/feedproc.py)
        return Calibrated(None, True, scene.colours, (f"cannot measure the dice: {exc}",))
    lost = tuple(c for c in scene.colours if c in samples and samples[c].state is ColourState.NOT_ON_MAP)
    samples = {c: s for c, s in samples.items() if s.measurement is not None}  # a castle without a die
    kept, found = passed(samples), problems(samples)
    unmeasured = tuple(c for c in scene.colours if c not in kept)
    if not kept:
        said = tuple(notes) + tuple(found) or ("no die measured",)
        return Calibrated(None, True, unmeasured, said, lost)
    return Calibrated(build_calibration(kept), bool(found), unmeasured, tuple(notes) + tuple(found), lost)


def castle_owners(scene: Scene) -> dict[str, Colour]:
    """The players' castles, as the app tells the camera when a game starts."""
    from companion.calibrate import castle_colours

    return {k: c for k, c in castle_colours().items() if c in scene.colours}


@dataclass
class Tally:
    frames: int = 0
    refused: int = 0  # frames the reader did not read (a status and the last reading kept)
    map_exact: int = 0
    tiles: int = 0
    tiles_right: int = 0
    locations: int = 0
    right: int = 0
    flagged: int = 0
    silent: int = 0
    unread: int = 0
    occupied: int = 0
    occupied_right: int = 0
    hand: int = 0
    hand_flagged: int = 0
    hidden: int = 0
    hidden_right: int = 0
    hidden_flagged: int = 0
    cards_up: int = 0
    cards_up_read: int = 0
    cards_down: int = 0
    cards_false_up: int = 0
    cards_covered_up: int = 0
    cards_covered_up_read: int = 0
    blurred: int = 0
    blurred_read: int = 0
    blurred_stated: int = 0
    blurred_stated_wrong: int = 0
    ms: list[float] = field(default_factory=list)
    play_ms: list[float] = field(default_factory=list)  # frames in play (module docstring), not tallied
    flagged_for: Counter[str] = field(default_factory=Counter)  # flagged locations by the reader's doubt

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            setattr(self, name, getattr(self, name) + value)

    def p(self, q: float) -> float:
        return float(np.percentile(self.ms, q)) if self.ms else float("nan")

    @property
    def p50(self) -> float:
        return statistics.median(self.ms) if self.ms else float("nan")

    def in_play(self, q: float) -> float:
        return float(np.percentile(self.play_ms, q)) if self.play_ms else float("nan")


@dataclass(frozen=True, slots=True)
class Miss:
    """One location read wrong (or flagged), for --errors and --save."""

    group: str
    mode: str
    seed: int
    frame: int
    location: str
    truth: dict[Colour, int]
    read: dict[Colour, int]
    flagged: bool
    on_map: bool
    hidden: bool
    status: str = ""
    doubt: str = ""  # why it was flagged, as the reader said (`engine.reading.Doubt`)


def score(
    result: Any, truth: Truth, tally: Tally, misses: list[Miss], where: tuple[str, str, int, int]
) -> None:
    """Count one frame's reading against its truth (see the module's docstring)."""
    from vision.pipeline import align_tiles

    raw = result.raw
    tally.frames += 1
    tally.refused += raw is None
    read_tiles = dict(raw.tiles) if raw is not None else {}
    aligned = align_tiles(read_tiles, truth.tiles) if read_tiles else {}
    tally.map_exact += aligned == truth.tiles
    tally.tiles += len(truth.tiles)
    tally.tiles_right += sum(aligned.get(h) == t for h, t in truth.tiles.items())
    on_map_ids = set(read_tiles.values())
    if truth.blurred:
        _score_blurred(raw, truth, tally, on_map_ids)
        return
    for loc in truth.locations:
        want = truth.knights.get(loc, {})
        flagged = raw is not None and loc in raw.unsure
        if loc in truth.covered:
            tally.hand += 1
            tally.hand_flagged += flagged
            continue
        seen = dict(raw.knights_at(loc)) if raw is not None else {}
        on_map = loc in on_map_ids
        right = raw is not None and seen == want and not flagged
        tally.locations += 1
        tally.right += right
        tally.flagged += flagged
        if flagged:
            tally.flagged_for[_doubt(raw, loc)] += 1
        tally.silent += (not right) and (not flagged) and on_map
        tally.unread += (not right) and (not flagged) and not on_map
        if want:
            tally.occupied += 1
            tally.occupied_right += right
        if loc in truth.hidden:
            tally.hidden += 1
            tally.hidden_right += right
            tally.hidden_flagged += flagged
        if not right:
            status = getattr(getattr(result, "status", None), "value", "")
            where_ = (*where, loc)
            why = _doubt(raw, loc) if flagged else ""
            misses.append(Miss(*where_, want, seen, flagged, on_map, loc in truth.hidden, status, why))
    for covered, cards in ((False, truth.artefacts), (True, truth.artefacts_covered)):
        for card, up in cards.items():
            said = raw.artefacts.get(card) if raw is not None else None
            if not up:
                tally.cards_down += 1
                tally.cards_false_up += said is True
            elif covered:
                tally.cards_covered_up += 1
                tally.cards_covered_up_read += said is True
            else:
                tally.cards_up += 1
                tally.cards_up_read += said is True


def _doubt(raw: Any, location: str) -> str:
    doubt = raw.doubt(location)
    return "no reason given" if doubt is None else str(doubt.value)


def _score_blurred(raw: Any, truth: Truth, tally: Tally, on_map: set[str]) -> None:
    tally.blurred += 1
    if raw is None:
        return
    stated = [loc for loc in truth.locations if loc in on_map and loc not in raw.unsure]
    tally.blurred_read += bool(stated)
    tally.blurred_stated += len(stated)
    tally.blurred_stated_wrong += sum(
        dict(raw.knights_at(loc)) != truth.knights.get(loc, {}) for loc in stated
    )


@dataclass
class SceneRun:
    """What one scene gave: a tally per reading mode, calibration, misses, frames for --save."""

    scene: Scene
    calibrated: Calibrated
    tallies: dict[str, Tally]
    misses: list[Miss]
    saved: list[tuple[int, np.ndarray, Truth, Any]]  # (frame index, image, truth, result after set-up)


Reader = Callable[[Any], Any]  # calibration -> a table reader


def app_reader(calibration: Any) -> Any:
    """The reader the app gives a real camera (`companion.feedproc.reader_calibration`): with nothing saved,
    no player's dice measured."""
    from companion.pipeline import vision_reader
    from vision.calibration import unmeasured_calibration

    return vision_reader(HOLD_FRAMES, calibration if calibration is not None else unmeasured_calibration())


def _started(reader: Any, setup_img: np.ndarray, scene: Scene, truth: Truth) -> Any:
    """`reader` after the set-up frame, told the game's map, players and castles (when it is told any)."""
    reader.read(setup_img)
    if hasattr(reader, "confirm_map"):
        reader.confirm_map(dict(truth.tiles), players=scene.colours, castles=castle_owners(scene))
    return reader


# The reading modes (module docstring); the last is the first with a frame of the bare map read before the
# set-up frame.
BARE_FIRST = "map bare first"
MODES = ("after set-up", "alone", BARE_FIRST)


def run_scene(
    scene: Scene, frames: int, group: str, *, keep_failures: bool = False, make_reader: Reader = app_reader
) -> SceneRun:
    """The set-up frame, calibration, then `frames` game frames read after set-up, alone and with the map
    bare first (`MODES`), and in play (timed only)."""
    setup_img, _ = render(setup_frame(scene))
    bare_img, _ = render(bare_frame(scene))
    cal = calibrate(setup_img, scene)
    tallies = {mode: Tally() for mode in MODES}
    misses: list[Miss] = []
    saved = []
    playing: list[tuple[np.ndarray, Truth]] = []  # unblurred game frames, read in play afterwards
    for i in range(1, frames + 1):
        img, truth = render(game_frame(scene, i))
        reader = _started(make_reader(cal.calibration), setup_img, scene, truth)
        before = (len(misses), tallies["after set-up"].map_exact)
        frame = (img, truth)
        after = (group, "after set-up", scene.seed, i)
        result = _scored(reader, frame, tallies["after set-up"], misses, after)
        failed = len(misses) > before[0] or tallies["after set-up"].map_exact == before[1]
        alone = make_reader(cal.calibration)
        _scored(alone, frame, tallies["alone"], misses, (group, "alone", scene.seed, i))
        first = make_reader(cal.calibration)
        first.read(bare_img)  # the map laid, before the dice
        seen_bare = _started(first, setup_img, scene, truth)
        _scored(seen_bare, frame, tallies[BARE_FIRST], misses, (group, BARE_FIRST, scene.seed, i))
        if hasattr(reader, "confirm_map") and not truth.blurred:
            playing.append((img, truth))
        if keep_failures and (failed or truth.blurred):
            saved.append((i, img, truth, result))
    tallies["after set-up"].play_ms += _in_play(make_reader(cal.calibration), setup_img, scene, playing)
    return SceneRun(scene, cal, tallies, misses, saved)


def _scored(
    reader: Any, frame: tuple[np.ndarray, Truth], tally: Tally, misses: list[Miss],
    where: tuple[str, str, int, int],
) -> Any:
    """`reader`'s reading of a game `frame` (image, truth), timed and scored into `tally` (`where`: group,
    mode, seed, frame index)."""
    img, truth = frame
    t0 = time.perf_counter()
    result = reader.read(img)
    tally.ms.append((time.perf_counter() - t0) * 1000)
    score(result, truth, tally, misses, where)
    return result


def _in_play(reader: Any, setup_img: np.ndarray, scene: Scene, frames: list[tuple[np.ndarray, Truth]]
             ) -> list[float]:
    """The time (ms) `reader`, started, takes over each of `frames` once past its first frames: it reads the
    frames in turn (each differs from the one before, so each is read) until it is past them, then each once
    more, timed. None with fewer than two frames: a frame read again unchanged costs next to nothing."""
    if len(frames) < 2:
        return []
    _started(reader, setup_img, scene, frames[0][1])
    warm = max(LOOK_AROUND_FIRST, len(frames))
    for k in range(warm):
        reader.read(frames[k % len(frames)][0])
    out = []
    for k in range(warm, warm + len(frames)):
        t0 = time.perf_counter()
        reader.read(frames[k % len(frames)][0])
        out.append((time.perf_counter() - t0) * 1000)
    return out

"""Training data seen from above (`vision.topview`): seeded synthetic tables at every camera tilt the stand
allows, each warped into the view from above as the table reader makes it, with the dice's top faces as the
finder's boxes; and each die's top face rectified from the frame, as the value networks read it.

The dice wear many looks: drawn in random colours (solid, marbled, light or dark pips, coloured pips), and,
where the real-dice face library is given (`looks`), faces cut from photographs of the kinds it lets us train
on. NumPy and OpenCV only, like `vision.dice_model.data`.
"""

from __future__ import annotations

import math
import pickle
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from engine.hexgrid import Hex
from vision import topview
from vision.dice import CROP_PX
from vision.dice_model.data import NOT_A_DIE, Sample
from vision.tags import DIE_MM

Image = npt.NDArray[np.uint8]
LookSource = Callable[[np.random.Generator], "object"]  # rng -> a `vision.synth.DieLook`

SEED_BASE = 300_000  # far from the benchmarks' (1000+, 200000+), the tests' (< 100) and data.py's (100000+)
MAX_TILT = 60.0


@dataclass(frozen=True, slots=True)
class AboveTable:
    """One table: the view from above with the top faces as boxes (a finder sample), and value crops."""

    sample: Sample
    crops: tuple[Image, ...]
    labels: tuple[int, ...]


BGR = tuple[int, int, int]


def _hsv(hue: int, saturation: int, value: int) -> BGR:
    pixel = np.array([[[hue, saturation, value]]], np.uint8)
    b, g, r = (int(v) for v in cv2.cvtColor(pixel, cv2.COLOR_HSV2BGR)[0, 0])
    return (b, g, r)


def drawn_look(rng: np.random.Generator) -> object:
    """A random drawn die: any body colour (a fifth white, a fifth black), marbled a third of the time,
    pips white, black or coloured."""
    from vision.synth import DrawnLook

    def grey(lo: int, hi: int) -> BGR:
        return (int(rng.integers(lo, hi)), int(rng.integers(lo, hi)), int(rng.integers(lo, hi)))

    kind = rng.random()
    if kind < 0.2:
        body = grey(205, 250)
    elif kind < 0.4:
        body = grey(10, 50)
    else:
        body = _hsv(int(rng.integers(0, 180)), int(rng.integers(120, 256)), int(rng.integers(70, 240)))
    if rng.random() < 0.6:
        pips = grey(10, 45) if sum(body) > 3 * 140 else grey(215, 250)
    else:
        pips = _hsv(int(rng.integers(0, 180)), int(rng.integers(150, 256)), int(rng.integers(150, 256)))
    swirl: BGR | None = None
    if rng.random() < 0.33:
        b, g, r = (int(np.clip(c * rng.uniform(0.3, 1.6), 0, 255)) for c in body)
        swirl = (b, g, r)
    return DrawnLook(body, pips, swirl, float(rng.uniform(0.8, 1.25)), float(rng.uniform(0.1, 0.35)))


def _knights(layout: Mapping[Hex, str], colours: Sequence[Colour], rng: np.random.Generator) -> dict[
    str, dict[Colour, int]
]:
    """Knights as a crowded game has them: castles with up to 30 of their owner's, territories with one to
    three dice, now and then two players' (a battle under way)."""
    knights: dict[str, dict[Colour, int]] = {}
    castles = sorted(v for v in layout.values() if v.startswith("K"))
    for kid, colour in zip(castles, colours, strict=False):
        knights[kid] = {colour: int(rng.integers(1, 31))}
    for tid in sorted(v for v in layout.values() if v.startswith("T")):
        if rng.random() < 0.65:
            c = colours[int(rng.integers(0, len(colours)))]
            knights[tid] = {c: int(rng.integers(1, 19 if rng.random() < 0.3 else 7))}
            if rng.random() < 0.1:
                other = colours[int(rng.integers(0, len(colours)))]
                if other is not c:
                    knights[tid][other] = int(rng.integers(1, 7))
    return knights


def render_table(seed: int, looks: LookSource | None = None) -> tuple[Image, object]:
    """A random table for training: 2..6 players, 1080p or 4K, a stand at 0..`MAX_TILT` degrees, any light;
    each player's dice one look."""
    from engine.maps import default_board
    from vision.synth import RES_4K, RES_1080P, Difficulty, random_layout, random_spec, render_scene

    rng = np.random.default_rng(seed)
    size = RES_4K if rng.random() < 0.35 else RES_1080P
    players = int(rng.integers(2, 7))
    difficulty = [Difficulty.EASY, Difficulty.MEDIUM, Difficulty.HARD][int(rng.integers(0, 3))]
    base = random_spec(difficulty, seed, resolution=size, players=players)
    colours = [Colour(c) for c in ("red", "blue", "yellow", "green", "white", "black")][:players]
    if rng.random() < 0.5:
        layout = dict(default_board(players, rng=random.Random(seed)).tiles)
    else:
        layout = random_layout(players, rng)
    source = looks if looks is not None else drawn_look
    chosen = {c: (source(rng) if rng.random() < 0.85 else drawn_look(rng)) for c in colours}
    spec = base.with_(
        tiles=layout,
        knights=_knights(layout, colours, rng),
        tilt_deg=float(MAX_TILT * math.sqrt(rng.random())),  # steep stands a little more often
        blur_sigma=float(rng.uniform(0.3, 1.6)),
        looks=chosen,
    )
    return render_scene(spec, seed)


def _prints(image: Image, truth: object, rng: np.random.Generator) -> Image:
    """Tiles printed with what looks a little like pips: dots and rings, one or a few together, in the colours
    dice pips come in, on the table beside the dice (real tiles carry value marks, icons and art)."""
    hom = np.asarray(truth.homography, np.float64)  # type: ignore[attr-defined]
    dice = [d.box for d in truth.dice]  # type: ignore[attr-defined]
    centres = [np.asarray(c, np.float64) for c in truth.tile_centres.values()]  # type: ignore[attr-defined]
    if not centres:
        return image
    out = image.copy()
    to_table = np.linalg.inv(hom)
    for _ in range(int(rng.integers(0, 3 * len(centres)))):
        c = centres[int(rng.integers(0, len(centres)))]
        at = cv2.perspectiveTransform(c.reshape(1, 1, 2), to_table).reshape(2) + rng.uniform(-30, 30, 2)
        colour = [(40, 200, 230), (240, 240, 240), (25, 25, 25), (40, 40, 200), (60, 140, 40)][
            int(rng.integers(0, 5))
        ]
        radius = float(rng.uniform(1.2, 5.0))
        count = int(rng.integers(1, 7))
        gap = float(rng.uniform(2.4, 3.5)) * radius
        for k in range(count):
            p = at + np.array([(k % 3) * gap, (k // 3) * gap])
            ring = cv2.perspectiveTransform(
                np.array([[p[0] + radius * math.cos(a), p[1] + radius * math.sin(a)]
                          for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)]).reshape(1, -1, 2), hom
            ).reshape(-1, 2)
            x, y = ring.mean(axis=0)
            if any(b[0] - 4 <= x <= b[2] + 4 and b[1] - 4 <= y <= b[3] + 4 for b in dice):
                continue
            cv2.fillPoly(out, [np.round(ring * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
    return out


def _motion(image: Image, rng: np.random.Generator) -> Image:
    """Now and then a little motion blur (a camera on a stand that shakes, a table knocked)."""
    if rng.random() > 0.25:
        return image
    length = float(rng.uniform(1.5, 4.0))
    angle = float(rng.uniform(0, math.pi))
    k = math.ceil(length) * 2 + 1
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    start = (round((c - dx) * 16), round((c - dy) * 16))
    cv2.line(kernel, start, (round((c + dx) * 16), round((c + dy) * 16)), 1.0, 1, cv2.LINE_AA, 4)
    kernel /= max(float(kernel.sum()), 1e-6)
    return np.asarray(cv2.filter2D(image, -1, kernel), np.uint8)


def above_table(
    seed: int, looks: LookSource | None = None, negatives: float = 0.7, *, mine: bool = False
) -> AboveTable | None:
    """One training table seen from above; None when it has no knight location in view. With `mine`, the
    finder (`vision/models`' current one) reads the view too, and what it takes for a die where there is
    none becomes a value crop of no die."""
    image, truth = render_table(seed, looks)
    rng = np.random.default_rng(seed + 17)
    image = _motion(_prints(image, truth, rng), rng)
    gt = truth  # vision.synth.GroundTruth
    outlines = [p for k, p in gt.tile_polygons.items() if k[:1] in ("T", "K")]  # type: ignore[attr-defined]
    if not outlines:
        return None
    i2t = np.linalg.inv(gt.homography)  # type: ignore[attr-defined]
    view = topview.above(image.shape, i2t, outlines)
    seen = topview.warp(image, view)
    to_top = np.linalg.inv(view.top_to_image)
    boxes, values, ignore, places, smears = [], [], [], [], []
    for d in gt.dice:  # type: ignore[attr-defined]
        if d.location is None:
            continue
        top = cv2.perspectiveTransform(np.asarray(d.top_face, np.float64).reshape(-1, 1, 2), to_top)
        table = np.asarray(top, np.float64).reshape(-1, 2)
        smears += _side_smears(view, table)
        q = view.to_view(table)
        box = [float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())]
        if d.hidden:
            ignore.append(box)
            continue
        boxes.append(box)
        values.append(int(d.value))
        places.append(table.mean(axis=0))
    sample = Sample(
        seen,
        np.array(boxes, np.float32).reshape(-1, 4),
        np.array(values, np.int64),
        np.array(ignore, np.float32).reshape(-1, 4),
    )
    if mine:
        hidden = list(view.to_table([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in ignore]))
        smears += _false_alarms(seen, view, [*places, *hidden])
    crops, labels = _value_crops(image, view, places, values, smears, rng=rng, negatives=negatives)
    return AboveTable(sample, tuple(crops), tuple(labels))


def _side_smears(view: topview.TopView, top: npt.NDArray[np.float64]) -> list[tuple[float, float]]:
    """Where a die's side faces turned to the camera lie in the view from above (table mm): each side's
    middle, half a die up, seen through the plane of the top faces. There the finder sees a stretched face
    with pips, which is no die."""
    out = []
    centre = top.mean(axis=0)
    for i in range(4):
        mid = (top[i] + top[(i + 1) % 4]) / 2.0
        pixel = view.to_image([mid], height_mm=DIE_MM / 2.0)
        seen = cv2.perspectiveTransform(pixel.reshape(1, 1, 2), np.linalg.inv(view.top_to_image)).reshape(2)
        if float(np.linalg.norm(seen - centre)) > 0.6 * DIE_MM:  # a side the camera sees
            out.append((float(seen[0]), float(seen[1])))
    return out


def _false_alarms(
    seen: Image, view: topview.TopView, dice: Sequence[npt.NDArray[np.float64]]
) -> list[tuple[float, float]]:
    """The finder's (`vision.dice.ABOVE`) candidates in the view that lie on no die (table mm)."""
    from vision.dice import ABOVE, candidates

    found = candidates(seen, None, die_px=view.px_per_mm * DIE_MM, read_values=False, nets=ABOVE)
    centres = view.to_table([((c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2) for c in found])
    known = np.array(dice, np.float64).reshape(-1, 2)
    return [
        (float(x), float(y))
        for x, y in centres.tolist()
        if not len(known) or float(np.min(np.linalg.norm(known - (x, y), axis=1))) > 0.45 * DIE_MM
    ]


def _value_crops(
    image: Image,
    view: topview.TopView,
    places: Sequence[npt.NDArray[np.float64]],
    values: Sequence[int],
    smears: Sequence[tuple[float, float]],
    *,
    rng: np.random.Generator,
    negatives: float,
) -> tuple[list[Image], list[int]]:
    """Each die's top face rectified (centre jittered by up to a tenth of a side, any turn), twice; and
    not-a-die crops: the side faces' smears (and the finder's false alarms) given, the table between dice, and
    places half a die to a die off a die (a neighbour's edge)."""
    points: list[tuple[float, float]] = []
    labels: list[int] = []
    for p, v in zip(places, values, strict=True):
        for _ in range(2):
            j = rng.normal(0.0, 0.05 * DIE_MM, 2)
            points.append((float(p[0] + j[0]), float(p[1] + j[1])))
            labels.append(int(v))
    centres = np.array(places, np.float64).reshape(-1, 2)
    for x, y in smears:
        j = rng.normal(0.0, 0.05 * DIE_MM, 2)
        q = (float(x + j[0]), float(y + j[1]))
        if len(centres) and float(np.min(np.linalg.norm(centres - np.asarray(q), axis=1))) < 0.45 * DIE_MM:
            continue  # a die stands there (one touching in front hides the side)
        points.append(q)
        labels.append(NOT_A_DIE)
    w, h = view.size
    wanted = int(negatives * max(1, len(places)) * 2)
    tries = 0
    while sum(1 for lab in labels if lab == NOT_A_DIE) < wanted and tries < 20 * wanted:
        tries += 1
        if len(centres) and rng.random() < 0.6:
            c = centres[int(rng.integers(0, len(centres)))]
            a = rng.uniform(0, 2 * math.pi)
            r = DIE_MM * rng.uniform(0.55, 1.1)
            q = (float(c[0] + math.cos(a) * r), float(c[1] + math.sin(a) * r))
        else:
            v = view.to_table([(rng.uniform(0, w), rng.uniform(0, h))])[0]
            q = (float(v[0]), float(v[1]))
        if len(centres) and float(np.min(np.linalg.norm(centres - np.asarray(q), axis=1))) < 0.45 * DIE_MM:
            continue
        points.append(q)
        labels.append(NOT_A_DIE)
    turns = [float(rng.uniform(0, 360)) for _ in points]
    crops = topview.face_crops(image, view, points, CROP_PX, turns=turns)
    return crops, labels


def above_tables(
    count: int, seed: int = SEED_BASE, looks: LookSource | None = None, *, mine: bool = False
) -> Iterator[AboveTable]:
    for i in range(count):
        t = above_table(seed + i, looks, mine=mine)
        if t is not None and len(t.sample.boxes):
            yield t


def cached_tables(
    cache: Path | None, count: int, looks: LookSource | None, *, mine: bool = False
) -> list[AboveTable]:
    """`above_tables(count)`, kept in `cache` (a local file, one training session's: several runs of
    `vision.dice_model.train` then render the tables once)."""
    if cache is not None and cache.is_file():
        with cache.open("rb") as f:
            tables: list[AboveTable] = pickle.load(f)  # our own file, written below
        return tables
    tables = list(above_tables(count, looks=looks, mine=mine))
    if cache is not None:
        with cache.open("wb") as f:
            pickle.dump(tables, f, protocol=pickle.HIGHEST_PROTOCOL)
    return tables

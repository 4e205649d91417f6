"""Drawing tables and moments from seeds: `make_scene` (the engine's default map for 2-6 players laid on a
table, the camera on its stand framing it), `setup_frame` (every player's one die on their castle, as
`companion/calibrate.py` expects) and `game_frame` (knights as dice on territories and castles, crowded and
contested as the level says, reserve and stray dice, artefact cards, hands, the moment's optics).
"""

from __future__ import annotations

import math

import numpy as np

from bench.realtable import art
from bench.realtable.camera import Camera, centre_in_frame, fit_distance, focal_for
from bench.realtable.cube import PlacedDie, overlap, place
from bench.realtable.library import Library, Split, load
from bench.realtable.scene import (
    F64,
    HEX_PITCH_MM,
    LEVELS,
    RES_1080P,
    Card,
    DieSpec,
    Family,
    Frame,
    Hand,
    Level,
    LevelSpec,
    Optics,
    Scene,
    TilePose,
)
from engine.catalogue import TileKind, load_default_catalogue
from engine.colours import Colour
from engine.hexgrid import Hex
from engine.maps import default_board

Rng = np.random.Generator


def make_scene(
    level: Level,
    seed: int,
    family: Family,
    resolution: tuple[int, int] = RES_1080P,
    *,
    tilt: float | tuple[float, float] | None = None,
    players: int | None = None,
) -> Scene:
    """One table, drawn from `seed`. `tilt`: the stand's angle (the sweep's, within a degree) or a range
    for it (default: the level's)."""
    rng = np.random.default_rng([seed, 1])
    spec = LEVELS[level]
    n = players if players is not None else int(rng.integers(spec.players[0], spec.players[1] + 1))
    colours = tuple(rng.permutation(list(Colour))[:n])
    board = default_board(n, rng=_py_random(rng), colours=colours)
    lib = load()
    kinds = {c: _kind_for(lib, c, family, rng) for c in colours}
    tiles = tuple(_tile_pose(tid, h, rng) for h, tid in sorted(board.tiles.items(), key=lambda kv: kv[1]))
    xs = np.concatenate([t.hexagon()[:, 0] for t in tiles])
    ys = np.concatenate([t.hexagon()[:, 1] for t in tiles])
    margins = rng.uniform(160, 380, 4)
    rect = (
        float(xs.min() - margins[0]),
        float(ys.min() - margins[1]),
        float(xs.max() + margins[2]),
        float(ys.max() + margins[3]),
    )
    centre = ((xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2)
    seats = _seats(board.seats, tiles, centre)
    camera = _camera(level, rng, resolution, tiles, tilt)
    lamp_dir = rng.uniform(0, 2 * math.pi)
    lamp_off = rng.uniform(0, 700)
    lamp = (
        float(centre[0] + lamp_off * math.cos(lamp_dir)),
        float(centre[1] + lamp_off * math.sin(lamp_dir)),
        float(rng.uniform(600, 1600)),
    )
    decks = _decks(seats, rng) if spec.cards else ()
    return Scene(
        seed,
        level,
        family,
        resolution,
        colours,
        kinds,
        tiles,
        camera,
        str(rng.choice(art.TABLE_LOOKS)),
        rect,
        float(rng.uniform(-0.3, 0.3)),
        lamp,
        float(rng.uniform(0.35, 0.7)),
        float(rng.uniform(0.2, 1.0)),
        decks,
        seats,
    )


def _py_random(rng: Rng) -> object:
    import random

    return random.Random(int(rng.integers(0, 2**31)))


def _kind_for(lib: Library, colour: Colour, family: Family, rng: Rng) -> str:
    kinds = [
        k for k in lib.kinds_of(colour, held_out=family is Family.HELD_OUT) if playable(lib, k.id, family)
    ]
    if not kinds:
        raise ValueError(f"no {family.value} die kind for {colour.value} has faces of every value")
    return str(rng.choice([k.id for k in kinds]))


def face_splits(family: Family) -> tuple[Split, ...]:
    """The splits whose faces a family's dice are textured with."""
    return (Split.HELD_OUT_KIND,) if family is Family.HELD_OUT else (Split.TRAIN, Split.HELD_OUT_PHOTO)


def playable(lib: Library, kind: str, family: Family) -> bool:
    """A kind can be a player's only when it has real faces of every value."""
    return all(v > 0 for v in lib.values_of(kind, face_splits(family)).values())


def _tile_pose(tile: str, h: Hex, rng: Rng) -> TilePose:
    px, py = h.to_pixel(HEX_PITCH_MM / math.sqrt(3.0))
    x, y = px + rng.normal(0, 0.8), -py + rng.normal(0, 0.8)  # the engine's y runs down; the table's up
    stickers = tuple(
        (float(rng.normal(0, 1.5)), float(abs(rng.normal(0, 0.8))), float(rng.normal(0, 0.04)))
        for _ in range(2)
    )
    return TilePose(
        tile,
        h,
        float(x),
        float(y),
        float(rng.normal(0, 0.015)),
        int(rng.integers(0, 3)),
        stickers,
        int(rng.integers(0, 2**31)),
    )


def _seats(
    castles: tuple[str, ...], tiles: tuple[TilePose, ...], centre: tuple[float, float]
) -> dict[Colour, tuple[float, float, float]]:
    cat = load_default_catalogue()
    out = {}
    for cid in castles:
        t = next(p for p in tiles if p.tile == cid)
        a = math.atan2(t.y - centre[1], t.x - centre[0])
        out[cat.castle(cid).colour] = (t.x + 125 * math.cos(a), t.y + 125 * math.sin(a), a)
    return out


def _decks(seats: dict[Colour, tuple[float, float, float]], rng: Rng) -> tuple[Card, ...]:
    out = []
    for x, y, a in seats.values():
        side = np.array([-math.sin(a), math.cos(a)])
        for k, kind in enumerate(("deck", "discard")):
            p = np.array([x, y]) + side * (k - 0.5) * 75 + rng.normal(0, 6, 2)
            out.append(
                Card(
                    kind,
                    float(p[0]),
                    float(p[1]),
                    a + math.pi / 2 + float(rng.normal(0, 0.12)),
                    kind == "discard",
                    None,
                    float(rng.uniform(4, 9)) if kind == "deck" else 0.8,
                )
            )
    return tuple(out)


def _camera(
    level: Level,
    rng: Rng,
    resolution: tuple[int, int],
    tiles: tuple[TilePose, ...],
    tilt: float | tuple[float, float] | None,
) -> Camera:
    """The tablet on its stand: tilted, turned so the map's long side runs along the frame's (as people
    set it up to see the whole map big), the map filling most of the frame."""
    spec = LEVELS[level]
    if isinstance(tilt, tuple):
        t = float(rng.uniform(*tilt))
    elif tilt is not None:
        t = max(0.0, float(tilt + rng.uniform(-1, 1)))
    else:
        t = float(rng.uniform(*spec.tilt))
    w, h = resolution
    k1 = float(rng.uniform(0.0, 0.05) if level is Level.CLEAN else rng.uniform(0.0, 0.12))
    focal = focal_for(w, float(rng.uniform(60, 72)))
    roll = float(rng.normal(0, 1.5))
    corners = np.concatenate([np.column_stack([p.hexagon(), np.zeros(6)]) for p in tiles])
    target = (float(corners[:, 0].mean()), float(corners[:, 1].mean()))
    fits = []
    for yaw in range(0, 360, 15):
        cam = fit_distance(Camera(w, h, focal, target, 1000.0, t, float(yaw), roll, k1), corners, 0.9)
        fits.append((cam.distance, yaw))
    best = min(d for d, _ in fits)
    good = [y for d, y in fits if d <= best * 1.15]
    yaw = float(good[int(rng.integers(0, len(good)))] + rng.uniform(-7, 7))
    cam = Camera(w, h, focal, target, 1000.0, t, yaw, roll, k1)
    fill = float(rng.uniform(*spec.fill))
    for _ in range(2):
        cam = fit_distance(cam, corners, fill)
        cam = centre_in_frame(cam, corners)
    return cam


# --- frames ----------------------------------------------------------------------------------------------


def setup_frame(scene: Scene) -> Frame:
    """Tiles laid, every player's one die on their castle (calibration), the decks; no hands."""
    rng = np.random.default_rng([scene.seed, 2])
    lib = load()
    cat = load_default_catalogue()
    dice: list[DieSpec] = []
    for c in scene.colours:
        castle = cat.castle_of(c).id
        dice += _dice_on(
            scene, castle, c, values=[int(rng.integers(1, 7))], others=[], rng=rng, lib=lib, codes_free=1.0
        )
    optics = _optics(scene.level, rng, setup=True)
    return Frame(scene, 0, tuple(dice), scene.decks, (), optics, int(rng.integers(0, 2**31)))


def bare_frame(scene: Scene) -> Frame:
    """Tiles laid, the decks, no dice, no hands: the map before the knights go down (Setting Up: the map is
    built in step 2, the starting knights placed in step 6), as the new game screen asks the camera to see."""
    rng = np.random.default_rng([scene.seed, 4])
    optics = _optics(scene.level, rng, setup=True)
    return Frame(scene, -1, (), scene.decks, (), optics, int(rng.integers(0, 2**31)))


def game_frame(scene: Scene, index: int) -> Frame:
    """A moment of the game: knights on the map, reserve and stray dice, artefact cards, hands."""
    rng = np.random.default_rng([scene.seed, 3, index])
    lib = load()
    spec = LEVELS[scene.level]
    counts = _knights(scene, rng, spec)
    dice: list[DieSpec] = []
    used: dict[Colour, int] = dict.fromkeys(scene.colours, 0)
    for loc, per_colour in sorted(counts.items()):
        for colour, values in sorted(per_colour.items(), key=lambda kv: kv[0].value):
            placed = _dice_on(
                scene, loc, colour, values=values, others=dice, rng=rng, lib=lib, codes_free=spec.codes_free
            )
            dice += placed
            used[colour] += len(placed)
    cards = list(scene.decks)
    if spec.spares:
        dice += _reserves(scene, rng, lib, used, dice)
        cards += _artefacts(scene, rng)
    hands = _hands(scene, rng) if rng.random() < spec.hands else []
    optics = _optics(scene.level, rng, setup=False)
    return Frame(
        scene,
        index,
        tuple(dice),
        tuple(cards),
        tuple(hands),
        optics,
        int(rng.integers(0, 2**31)),
        float(rng.uniform(-1, 1)),
    )


def _knights(scene: Scene, rng: Rng, spec: LevelSpec) -> dict[str, dict[Colour, list[int]]]:
    """Die values per location and colour: castles garrisoned, some territories held, a few contested."""
    cat = load_default_catalogue()
    out: dict[str, dict[Colour, list[int]]] = {}
    budget = dict.fromkeys(scene.colours, cat.dice_per_player - 2)  # two stay in the reserve at least
    for c in scene.colours:
        n = int(rng.integers(spec.castle_dice[0], spec.castle_dice[1] + 1))
        values = [6 if rng.random() < 0.7 else int(rng.integers(1, 7)) for _ in range(n - 1)]
        values.append(int(rng.integers(1, 7)))
        out[cat.castle_of(c).id] = {c: values}
        budget[c] -= n
    territories = [t for t in scene.tiles if cat.tile_kind(t.tile) is TileKind.TERRITORY]
    for t in territories:
        if rng.random() >= spec.occupied:
            continue
        owners = [c for c in scene.colours if budget[c] > 0]
        if not owners:
            break
        c = owners[int(rng.integers(0, len(owners)))]
        cap = cat.territory(t.tile).capacity
        total = int(rng.integers(1, cap + 1))
        values = [6, total - 6] if total > 6 else [total]
        if budget[c] < len(values):
            continue
        out[t.tile] = {c: values}
        budget[c] -= len(values)
        rivals = [r for r in scene.colours if r is not c and budget[r] > 0]
        if rivals and rng.random() < spec.contested:
            r = rivals[int(rng.integers(0, len(rivals)))]
            out[t.tile][r] = [int(rng.integers(1, 7))]
            budget[r] -= 1
    return out


def _faces(
    lib: Library, kind: str, family: Family | None, die: PlacedDie, rng: Rng
) -> tuple[tuple[int, int, int, int, int], tuple[int, int, int, int, int]]:
    splits = face_splits(family) if family is not None else tuple(Split)[:3]
    out = []
    for v in die.values[:5]:
        pool = [
            d.atlas
            for d in lib.dice
            if d.kind == kind and d.value == v and d.split in splits and d.atlas is not None
        ]
        if not pool:  # a stray die's kind may lack a value: any face of the kind, as seen from afar
            pool = [d.atlas for d in lib.dice if d.kind == kind and d.atlas is not None]
        out.append(int(pool[int(rng.integers(0, len(pool)))]))
    turns = tuple(int(t) for t in rng.integers(0, 4, 5))
    return (out[0], out[1], out[2], out[3], out[4]), turns  # type: ignore[return-value]


def _dice_on(
    scene: Scene,
    loc: str,
    colour: Colour,
    *,
    values: list[int],
    others: list[DieSpec],
    rng: Rng,
    lib: Library,
    codes_free: float,
) -> list[DieSpec]:
    """Dice of one colour on one tile, packed as players put them: near the middle band between the
    stickers, touching each other in a crowded castle; a die that finds no room is left off (and so is not
    in the truth)."""
    pose = scene.pose(loc)
    placed: list[DieSpec] = []
    near = [d for d in others if d.location == loc]
    for v in values:
        die = _find_spot(pose, near + placed, rng, v, keep_codes=rng.random() < codes_free)
        if die is None:
            continue
        faces, turns = _faces(lib, scene.kinds[colour], scene.family, die, rng)
        placed.append(DieSpec(scene.kinds[colour], colour, die, loc, faces, turns))
    return placed


def _find_spot(
    pose: TilePose, near: list[DieSpec], rng: Rng, value: int, *, keep_codes: bool
) -> PlacedDie | None:
    """A free spot for one more die on a tile: beside a die already there (touching, as players push them
    together), or near the middle band between the stickers; inside the tile, clear of the other dice, and
    (`keep_codes`) of the codes."""
    band = math.radians(60 * pose.axis) + pose.turn + math.pi / 2  # along the band between the stickers
    along = np.array([math.cos(band), math.sin(band)])
    across = np.array([-along[1], along[0]])
    hexagon = pose.hexagon(inset=2.5)
    codes = pose.code_squares()
    centre = np.array([pose.x, pose.y])
    for attempt in range(300):
        if near and rng.random() < 0.7:
            base = near[int(rng.integers(0, len(near)))].die
            a = rng.uniform(0, 2 * math.pi)
            p = np.array([base.x, base.y]) + np.array([math.cos(a), math.sin(a)]) * rng.uniform(16.5, 19.5)
        else:
            spread = 4.0 + attempt * 0.08
            p = centre + along * rng.normal(0, 3 * spread) + across * rng.normal(0, spread)
        die = place(
            float(p[0]), float(p[1]), float(rng.uniform(0, math.pi / 2)), value, int(rng.integers(0, 4))
        )
        foot = die.footprint()
        if not _inside(foot, hexagon):
            continue
        if any(overlap(foot, d.die.footprint(), gap=0.3) for d in near):
            continue
        if keep_codes and any(overlap(foot, c) for c in codes):
            continue
        return die
    return None


def _inside(points: F64, polygon: F64) -> bool:
    """Convex polygon (counter-clockwise) contains every point."""
    n = len(polygon)
    for i in range(n):
        a, b = polygon[i], polygon[(i + 1) % n]
        cross = (b[0] - a[0]) * (points[:, 1] - a[1]) - (b[1] - a[1]) * (points[:, 0] - a[0])
        if np.any(cross < 0):
            return False
    return True


def off_map(scene: Scene, p: F64, clearance: float) -> bool:
    return all(math.hypot(p[0] - t.x, p[1] - t.y) > art.TILE_R_MM + clearance for t in scene.tiles)


def _reserves(
    scene: Scene, rng: Rng, lib: Library, used: dict[Colour, int], dice: list[DieSpec]
) -> list[DieSpec]:
    """Each player's reserve dice beside their deck, and now and then a stray die of nobody's."""
    out: list[DieSpec] = []
    taken = [d.die.footprint() for d in dice]
    for c in scene.colours:
        x, y, a = scene.seats[c]
        spot = np.array([x, y]) + np.array([-math.sin(a), math.cos(a)]) * rng.choice([-1, 1]) * 110
        for _ in range(int(rng.integers(0, min(5, 10 - used[c]) + 1))):
            die = _loose_die(scene, spot, 35, taken, rng)
            if die is not None:
                faces, turns = _faces(lib, scene.kinds[c], scene.family, die, rng)
                out.append(DieSpec(scene.kinds[c], c, die, None, faces, turns))
                taken.append(die.footprint())
    strays = [k.id for k in lib.kinds.values() if k.colour is None]
    for _ in range(int(rng.integers(0, 3))):
        x0, y0, x1, y1 = scene.table_rect
        spot = np.array([rng.uniform(x0 + 60, x1 - 60), rng.uniform(y0 + 60, y1 - 60)])
        die = _loose_die(scene, spot, 60, taken, rng)
        if die is not None:
            kind = str(rng.choice(strays))
            faces, turns = _faces(lib, kind, None, die, rng)
            out.append(DieSpec(kind, None, die, None, faces, turns))
            taken.append(die.footprint())
    return out


def _loose_die(scene: Scene, spot: F64, spread: float, taken: list[F64], rng: Rng) -> PlacedDie | None:
    for _ in range(60):
        p = spot + rng.normal(0, spread / 2, 2)
        if not off_map(scene, p, 14):
            continue
        die = place(
            float(p[0]),
            float(p[1]),
            float(rng.uniform(0, math.pi / 2)),
            int(rng.integers(1, 7)),
            int(rng.integers(0, 4)),
        )
        if any(overlap(die.footprint(), t, gap=0.5) for t in taken):
            continue
        return die
    return None


def _artefacts(scene: Scene, rng: Rng) -> list[Card]:
    """A few artefact cards in front of their owners, face up or down."""
    cat = load_default_catalogue()
    ids = [a.id for a in cat.artefacts]
    rng.shuffle(ids)
    out: list[Card] = []
    k = 0
    for c in scene.colours:
        x, y, a = scene.seats[c]
        for j in range(int(rng.integers(0, 3))):
            if k >= len(ids):
                break
            side = np.array([-math.sin(a), math.cos(a)])
            fwd = np.array([math.cos(a), math.sin(a)])
            p = np.array([x, y]) + fwd * (60 + 12 * j) + side * rng.uniform(-120, 120)
            if not off_map(scene, p, 55):
                continue
            out.append(
                Card(
                    "artefact",
                    float(p[0]),
                    float(p[1]),
                    a + math.pi / 2 + float(rng.normal(0, 0.3)),
                    bool(rng.random() < 0.7),
                    ids[k],
                )
            )
            k += 1
    return out


def _hands(scene: Scene, rng: Rng) -> list[Hand]:
    """One or two hands reaching over the map towards a tile, from a player's seat."""
    out = []
    for _ in range(1 if rng.random() < 0.75 else 2):
        target = scene.tiles[int(rng.integers(0, len(scene.tiles)))]
        seat = scene.seats[scene.colours[int(rng.integers(0, len(scene.colours)))]]
        towards = math.atan2(target.y - seat[1], target.x - seat[0]) + float(rng.normal(0, 0.25))
        tip = (target.x + float(rng.normal(0, 15)), target.y + float(rng.normal(0, 15)))
        out.append(
            Hand(
                tip,
                towards,
                float(rng.uniform(15, 120)),
                int(rng.integers(0, len(art.SKIN_BGR))),
                int(rng.integers(0, len(art.SLEEVE_BGR))),
                float(rng.uniform(0, 1)),
                float(rng.uniform(60, 80)),
                float(rng.uniform(75, 95)),
                float(rng.uniform(0, 8) if rng.random() < 0.4 else 0.0),
            )
        )
    return out


def _optics(level: Level, rng: Rng, *, setup: bool) -> Optics:
    """The moment's optics: mild for clean frames, anything a tablet meets for realistic ones."""
    mild = level in (Level.CLEAN, Level.BLURRED) or setup
    temp = rng.uniform(4200, 6200) if mild else rng.uniform(2800, 6800)
    left = (1 - rng.uniform(0.75, 0.95)) if mild else (1 - rng.uniform(0.55, 0.9))  # what AWB leaves
    r_gain = 1 + left * (5500 - temp) / 5500 * 0.9
    b_gain = 1 - left * (5500 - temp) / 5500 * 0.9
    defocus = float(rng.uniform(0.0, 0.6) if mild else rng.uniform(0.3, 1.2))
    motion = float(rng.uniform(0.0, 1.0) if mild else rng.uniform(0.0, 3.0))
    if level is Level.BLURRED and not setup:
        if rng.random() < 0.5:
            defocus = float(rng.uniform(2.0, 4.0))
        else:
            motion = float(rng.uniform(6.0, 16.0))
    return Optics(
        defocus,
        motion,
        float(rng.uniform(0, math.pi)),
        float(rng.uniform(0.0, 0.15) if mild else rng.uniform(0.0, 0.8)),
        (float(b_gain), 1.0, float(r_gain)),
        float(rng.uniform(0.08, 0.22) if mild else rng.uniform(0.1, 0.4)),
        float(rng.uniform(0.9, 1.08) if mild else rng.uniform(0.75, 1.15)),
        float(rng.uniform(1.0, 2.5) if mild else rng.uniform(1.5, 4.5)),
        float(rng.uniform(2.0, 4.0) if mild else rng.uniform(3.0, 8.0)),
        int(rng.integers(84, 91) if mild else rng.integers(70, 91)),
        float(rng.uniform(0.2, 0.6)),
    )

"""What is on the table and how the camera sees it, as values: a *scene* (one table for a whole game: the map
laid on it, each tile a little off its ideal place and turn with two stickers against two opposite edges, the
table top, the lamp, the players' decks, one die kind per player, the tablet on its stand), a *frame* (one
picture of it: the dice, cards and hands of that moment and its optics), the levels' recipes, and the truth
of a rendered frame. `bench/realtable/tables.py` draws scenes and frames from seeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import numpy.typing as npt

from bench.realtable import art
from bench.realtable.camera import Camera
from bench.realtable.cube import PlacedDie
from engine.colours import Colour
from engine.hexgrid import Hex
from vision import tags

F64 = npt.NDArray[np.float64]

RES_1080P = (1920, 1080)
RES_4K = (3840, 2160)
HEX_PITCH_MM = art.TILE_FLATS_MM + 1.0  # tiles laid edge to edge leave about a millimetre
APOTHEM = art.TILE_FLATS_MM / 2
STICKER_OFFSET = APOTHEM - tags.EDGE_GAP_MM - tags.STICKER_H_MM / 2  # tile centre to sticker centre


class Level(Enum):
    CLEAN = "clean"
    REALISTIC = "realistic"
    SWEEP = "sweep"
    BLURRED = "blurred"


class Family(Enum):
    """Which die kinds the players use: held out of all training and tuning, or training kinds."""

    HELD_OUT = "held-out"
    TRAIN = "train"


@dataclass(frozen=True, slots=True)
class TilePose:
    tile: str
    hex: Hex
    x: float
    y: float
    turn: float  # radians, the tile's turn off the lattice
    axis: int  # 0..2: which pair of opposite edges carries the stickers
    stickers: tuple[
        tuple[float, float, float], ...
    ]  # per sticker: (shift along edge mm, shift in mm, turn rad)
    art_seed: int

    def local_to_world(self, p: F64) -> F64:
        c, s = math.cos(self.turn), math.sin(self.turn)
        p = np.asarray(p, np.float64).reshape(-1, 2)
        return np.column_stack([self.x + c * p[:, 0] - s * p[:, 1], self.y + s * p[:, 0] + c * p[:, 1]])

    def sticker_frames(self) -> list[tuple[F64, F64, F64]]:
        """Per sticker, in world mm: its centre, its "up" (towards the tile edge, code side) and its right."""
        out = []
        for k, (along, inward, turn) in enumerate(self.stickers):
            a = self.turn + math.radians(60 * self.axis) + math.pi * k + turn
            up = np.array([math.cos(a), math.sin(a)])
            right = np.array([math.sin(a), -math.cos(a)])
            base = self.local_to_world(np.zeros(2))[0]
            edge_dir = np.array(
                [
                    math.cos(self.turn + math.radians(60 * self.axis) + math.pi * k),
                    math.sin(self.turn + math.radians(60 * self.axis) + math.pi * k),
                ]
            )
            side = np.array([-edge_dir[1], edge_dir[0]])
            centre = base + edge_dir * (STICKER_OFFSET - inward) + side * along
            out.append((centre, up, right))
        return out

    def code_squares(self) -> list[F64]:
        """The printed codes (with their white margin) as world-mm squares: where a die hides the tile."""
        out = []
        h = tags.STICKER_W_MM / 2
        for centre, up, right in self.sticker_frames():
            c = centre + up * (tags.STICKER_H_MM / 2 - h)
            out.append(
                np.array(
                    [
                        c - right * h + up * h,
                        c + right * h + up * h,
                        c + right * h - up * h,
                        c - right * h - up * h,
                    ]
                )
            )
        return out

    def hexagon(self, inset: float = 0.0) -> F64:
        r = art.TILE_R_MM - inset * 2 / math.sqrt(3)
        local = np.array(
            [
                (r * math.cos(math.radians(60 * i + 30)), r * math.sin(math.radians(60 * i + 30)))
                for i in range(6)
            ]
        )
        return self.local_to_world(local)


@dataclass(frozen=True, slots=True)
class DieSpec:
    """One physical die on the table: its kind, where it lies, which real faces texture it."""

    kind: str
    colour: Colour | None  # the player it belongs to (None: a stray die of nobody's)
    die: PlacedDie
    location: str | None  # the tile it stands on as a knight; None: off the map (reserve, stray)
    faces: tuple[int, int, int, int, int]  # atlas indices for the top and the four sides
    face_turns: tuple[int, int, int, int, int]  # quarter turns of each face texture


@dataclass(frozen=True, slots=True)
class Card:
    kind: str  # "deck" (a face-down pile), "discard" (face up), "artefact"
    x: float
    y: float
    turn: float
    up: bool
    artefact: str | None = None
    height: float = 0.3  # mm: a pile is thicker


@dataclass(frozen=True, slots=True)
class Hand:
    tip: tuple[float, float]  # fingertips over the table, mm
    towards: float  # radians: the direction the fingers point
    height: float  # fingertips above the table, mm
    skin: int
    sleeve: int
    spread: float
    length: float  # finger length, mm
    width: float  # palm width, mm
    motion_px: float  # blur of a moving hand


@dataclass(frozen=True, slots=True)
class Optics:
    defocus: float  # Gaussian sigma, output px, at the focus distance's worst
    motion_px: float  # camera shake, output px
    motion_angle: float
    glare: float  # 0..1: strength of the lamp's reflection on glossy print
    wb: tuple[float, float, float]  # per-channel gains (B, G, R) left after the camera's white balance
    vignette: float
    exposure: float
    read_noise: float  # DN
    shot_noise: float  # DN at full scale
    jpeg: int
    sharpen: float

    @property
    def blurred(self) -> bool:
        """Too blurred to read: what a reader should recognise and leave."""
        return self.defocus >= 2.0 or self.motion_px >= 6.0


@dataclass(frozen=True, slots=True)
class Scene:
    seed: int
    level: Level
    family: Family
    resolution: tuple[int, int]
    colours: tuple[Colour, ...]  # clockwise seats
    kinds: dict[Colour, str]
    tiles: tuple[TilePose, ...]
    camera: Camera
    table_look: str
    table_rect: tuple[float, float, float, float]  # x0, y0, x1, y1 mm
    table_turn: float
    lamp: tuple[float, float, float]
    ambient: float
    gloss: float  # how glossy the tiles' print is (0..1)
    decks: tuple[Card, ...]
    seats: dict[Colour, tuple[float, float, float]]  # per player: a point beyond their castle, and its angle

    @property
    def board(self) -> dict[Hex, str]:
        return {t.hex: t.tile for t in self.tiles}

    def pose(self, tile: str) -> TilePose:
        return next(t for t in self.tiles if t.tile == tile)


@dataclass(frozen=True, slots=True)
class Frame:
    scene: Scene
    index: int  # 0: the set-up frame
    dice: tuple[DieSpec, ...]
    cards: tuple[Card, ...]  # decks and artefact cards on the table in this frame
    hands: tuple[Hand, ...]
    optics: Optics
    seed: int
    light_shift: float = 0.0  # the lamp's light a little different from the set-up's (-1..1)

    @property
    def setup(self) -> bool:
        return self.index == 0

    def knights(self) -> dict[str, dict[Colour, int]]:
        out: dict[str, dict[Colour, int]] = {}
        for d in self.dice:
            if d.location is not None and d.colour is not None:
                loc = out.setdefault(d.location, {})
                loc[d.colour] = loc.get(d.colour, 0) + d.die.value
        return out


@dataclass(frozen=True, slots=True)
class LevelSpec:
    tilt: tuple[float, float]
    players: tuple[int, int]
    castle_dice: tuple[int, int]
    occupied: float
    contested: float
    hands: float  # share of game frames with a hand over the table
    cards: bool
    spares: bool
    codes_free: float  # share of dice that keep clear of the codes
    fill: tuple[float, float]


LEVELS: dict[Level, LevelSpec] = {
    Level.CLEAN: LevelSpec((0, 35), (2, 6), (1, 3), 0.45, 0.0, 0.0, False, False, 1.0, (0.8, 0.92)),
    Level.REALISTIC: LevelSpec((0, 50), (2, 6), (1, 6), 0.6, 0.08, 0.6, True, True, 0.92, (0.78, 0.95)),
    Level.SWEEP: LevelSpec((0, 0), (2, 6), (1, 4), 0.5, 0.04, 0.0, True, True, 0.97, (0.8, 0.92)),
    Level.BLURRED: LevelSpec((0, 35), (2, 6), (1, 3), 0.45, 0.0, 0.0, False, False, 1.0, (0.8, 0.92)),
}


@dataclass
class Truth:
    """What a perfect reader would say about one frame."""

    tiles: dict[Hex, str]
    knights: dict[str, dict[Colour, int]]
    covered: frozenset[str] = frozenset()  # locations a hand hides (left out of the knights' score)
    hidden: frozenset[str] = frozenset()  # locations with a die mostly hidden behind others
    # artefact cards whose sticker is wholly in view with nothing over it: face up?
    artefacts: dict[str, bool] = field(default_factory=dict)
    blurred: bool = False
    boxes: list[tuple[str | None, Colour | None, int, tuple[float, float, float, float], float]] = field(
        default_factory=list
    )  # per die: location, colour, value, image box, share of its silhouette seen
    # artefact cards whose sticker is in view, partly under something (another card, a die, a hand): face up?
    artefacts_covered: dict[str, bool] = field(default_factory=dict)

    @property
    def locations(self) -> list[str]:
        return sorted(t for t in self.tiles.values() if t[0] in "TK")

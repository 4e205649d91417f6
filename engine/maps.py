"""The map of one game: which tile lies on which hex, and what is adjacent to what.

Adjacency is by shared edge (key terms, page 15). Lakes hold no knights and cannot be conquered, but they link
every tile bordering them to one another, and a chain of touching lakes links as one (pages 2, 10-11; R15).
`Board` is immutable and precomputes its adjacency, so the rules engine's hot paths are dictionary lookups.

Default layouts for 2..6 players are data (`engine/data/maps.json`, rulings R10-R14): value-1 slots on
the outside next to the castles, value-2 further in, value-3 in the middle, lakes inside, each castle next to
at most two value-1 slots (so at most two homelands), five territories per player, and all fit in one box. The
territories of each value are shuffled into their slots with an explicit `random.Random` (setting up, step 2).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from engine.catalogue import (
    HOMELANDS_PER_CASTLE_MAX,
    Catalogue,
    TerritoryKind,
    TerritorySpec,
    TileKind,
    load_default_catalogue,
)
from engine.colours import Colour
from engine.errors import MapError
from engine.hexgrid import Hex

MAPS_FORMAT = "seneschal-maps"
BOARD_FORMAT = "seneschal-board"
VERSION = 1
MIN_PLAYERS = 2
MAX_PLAYERS = 6


# --- default layouts (data) -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Layout:
    """A map configuration: slots for territories of a value ('1', '2', '3') and lakes ('L'), castle seats."""

    players: int
    cells: tuple[tuple[Hex, str], ...]
    seats: tuple[Hex, ...]  # castle hexes, clockwise seating order
    picture: tuple[str, ...] = ()

    def slots(self, kind: str) -> tuple[Hex, ...]:
        """The hexes of one slot kind, centre first (tiles are laid from the centre, setting up step 2)."""
        return _layout_slots(self, kind)


_SLOTS: dict[tuple[int, str], tuple[Layout, tuple[Hex, ...]]] = {}


def _layout_slots(layout: Layout, kind: str) -> tuple[Hex, ...]:
    # Cached by identity (hashing a Layout hashes every Hex in it): a layout never changes, and every default
    # board asks for its slots. The entry keeps its layout, so an id is never reused while cached.
    cached = _SLOTS.get((id(layout), kind))
    if cached is not None and cached[0] is layout:
        return cached[1]
    if len(_SLOTS) > 256:
        _SLOTS.clear()
    slots = _compute_slots(layout, kind)
    _SLOTS[(id(layout), kind)] = (layout, slots)
    return slots


def _compute_slots(layout: Layout, kind: str) -> tuple[Hex, ...]:
    cells = [h for h, k in layout.cells if k == kind]
    centre = _centre(h for h, _ in layout.cells)
    return tuple(sorted(cells, key=lambda h: (_dist2(h, centre), h)))


def _centre(hexes: Iterable[Hex]) -> tuple[float, float]:
    pts = [h.to_pixel(1.0) for h in hexes]
    if not pts:
        return (0.0, 0.0)
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def _dist2(h: Hex, centre: tuple[float, float]) -> float:
    x, y = h.to_pixel(1.0)
    return round((x - centre[0]) ** 2 + (y - centre[1]) ** 2, 6)


def parse_layouts(obj: Any) -> dict[int, Layout]:
    """Parse a maps document (the format of engine/data/maps.json); raises MapError listing every problem."""
    problems: list[str] = []
    if not isinstance(obj, dict) or obj.get("format") != MAPS_FORMAT:
        raise MapError([f"a maps document is an object with format {MAPS_FORMAT!r}"])
    if obj.get("version") != VERSION:
        raise MapError([f"maps document version {obj.get('version')!r} is not {VERSION}"])
    layouts: dict[int, Layout] = {}
    raw_layouts = obj.get("layouts")
    if not isinstance(raw_layouts, list):
        raise MapError(["'layouts' must be a list"])
    for i, raw in enumerate(raw_layouts):
        where = f"layouts[{i}]"
        if not isinstance(raw, dict):
            problems.append(f"{where}: must be an object")
            continue
        players = raw.get("players")
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            problems.append(f"{where}: 'players' must be 2..6, got {players!r}")
            continue
        where = f"{players}-player layout"
        cells: list[tuple[Hex, str]] = []
        seen: set[Hex] = set()
        raw_cells = raw.get("cells", [])
        raw_seats = raw.get("seats", [])
        if not isinstance(raw_cells, list) or not isinstance(raw_seats, list):
            problems.append(f"{where}: 'cells' and 'seats' must be lists")
            continue
        for cell in raw_cells:
            try:
                if not isinstance(cell, list) or len(cell) != 3 or cell[2] not in ("1", "2", "3", "L"):
                    raise ValueError(f"a cell is [q, r, '1'|'2'|'3'|'L'], got {cell!r}")
                h = Hex.from_json(cell[:2])
            except ValueError as exc:
                problems.append(f"{where}: {exc}")
                continue
            if h in seen:
                problems.append(f"{where}: hex {h} is listed twice")
            seen.add(h)
            cells.append((h, cell[2]))
        seats: list[Hex] = []
        for seat in raw_seats:
            try:
                h = Hex.from_json(seat)
            except ValueError as exc:
                problems.append(f"{where}: seat: {exc}")
                continue
            if h in seen:
                problems.append(f"{where}: seat {h} is also a cell or another seat")
            seen.add(h)
            seats.append(h)
        if len(seats) != players:
            problems.append(f"{where}: has {len(seats)} castle seats, needs {players}")
        if players in layouts:
            problems.append(f"{where}: defined twice")
        picture = raw.get("picture", [])
        layouts[players] = Layout(players, tuple(cells), tuple(seats),
                                  tuple(str(x) for x in picture) if isinstance(picture, list) else ())
    if problems:
        raise MapError(problems)
    return layouts


@cache
def default_layouts() -> Mapping[int, Layout]:
    text = resources.files("engine").joinpath("data/maps.json").read_text(encoding="utf-8")
    return MappingProxyType(parse_layouts(json.loads(text)))


# --- the board ------------------------------------------------------------------------------------

class Board:
    """The resolved map of one game. Immutable; build it with `from_layout`, `default_board`, `from_json`."""

    __slots__ = ("_adjacent", "_by_colour", "_catalogue", "_colour_of", "_hash", "_hex_of", "_kind",
                 "_linked", "_reach", "_specs", "_tiles", "castles", "lakes", "seats", "territories")

    _tiles: Mapping[Hex, str]
    _hex_of: dict[str, Hex]
    _kind: dict[str, TileKind]
    _adjacent: dict[str, frozenset[str]]
    _linked: dict[str, frozenset[str]]
    _reach: dict[str, frozenset[str]]
    _specs: dict[str, TerritorySpec]
    _by_colour: dict[Colour, str]
    _colour_of: dict[str, Colour]
    _catalogue: Catalogue
    _hash: int | None
    territories: tuple[str, ...]
    lakes: tuple[str, ...]
    castles: tuple[str, ...]
    seats: tuple[str, ...]

    def __init__(self, tiles: Mapping[Hex, str], catalogue: Catalogue | None = None,
                 seats: Sequence[str] | None = None) -> None:
        """Validate a layout and build the board; raises MapError listing every problem."""
        cat = catalogue if catalogue is not None else load_default_catalogue()
        problems, checked = _check_layout(tiles, cat)
        if seats is not None:
            castle = TileKind.CASTLE
            castle_ids = {t for t in tiles.values() if cat.tile_kind(t) is castle}
            if sorted(seats) != sorted(castle_ids) or len(set(seats)) != len(seats):
                problems.append(f"seats {list(seats)!r} must list each castle on the map exactly once "
                                f"(castles: {sorted(castle_ids)!r})")
        if problems:
            raise MapError(problems)
        set_ = object.__setattr__
        set_(self, "_catalogue", cat)
        assert checked is not None  # no problems, so every tile was usable
        ordered, kind, adjacent, linked = checked
        set_(self, "_tiles", MappingProxyType(dict(ordered)))
        hex_of = {tid: h for h, tid in tiles.items()}
        set_(self, "_hex_of", hex_of)
        set_(self, "_kind", kind)
        of_kind: dict[TileKind, list[str]] = {k: [] for k in TileKind}
        for t, k in kind.items():
            of_kind[k].append(t)
        set_(self, "territories", tuple(sorted(of_kind[TileKind.TERRITORY])))
        set_(self, "lakes", tuple(sorted(of_kind[TileKind.LAKE])))
        set_(self, "castles", tuple(sorted(of_kind[TileKind.CASTLE])))
        set_(self, "seats", tuple(seats) if seats is not None else _clockwise(
            {c: hex_of[c] for c in self.castles}, tiles.keys()))
        set_(self, "_specs", {t: cat.territory(t) for t in self.territories})
        by_colour = {cat.castle(c).colour: c for c in self.castles}
        set_(self, "_by_colour", by_colour)
        set_(self, "_colour_of", {c: col for col, c in by_colour.items()})
        set_(self, "_adjacent", adjacent)
        set_(self, "_linked", linked)
        lakes = set(self.lakes)
        reach = {t: frozenset((adjacent[t] - lakes) | linked[t]) for t in hex_of}
        set_(self, "_reach", reach)
        set_(self, "_hash", None)  # worked out when first asked for

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Board is immutable (tried to set {name!r})")

    # --- construction -----------------------------------------------------------------------------
    @staticmethod
    def from_layout(tiles: Mapping[Hex, str], catalogue: Catalogue | None = None,
                    seats: Sequence[str] | None = None) -> Board:
        """A board from tile ids on hexes (e.g. read by the camera); raises MapError when it is not playable.

        `seats` is the castles' clockwise seating order; by default castles are ordered clockwise (as seen
        from above, image y down) around the map's centre, starting from the one nearest the bottom edge.
        """
        return Board(tiles, catalogue, seats)

    # --- identity ---------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self._tiles == other._tiles and self.seats == other.seats
                and self._catalogue == other._catalogue)

    def __hash__(self) -> int:
        found = self._hash
        if found is None:
            found = hash((frozenset(self._tiles.items()), self.seats))
            object.__setattr__(self, "_hash", found)
        return found

    def __repr__(self) -> str:
        tiles = ", ".join(f"Hex({h.q}, {h.r}): {t!r}" for h, t in self._tiles.items())
        return f"Board.from_layout({{{tiles}}}, seats={self.seats!r})"

    # --- lookups ----------------------------------------------------------------------------------
    @property
    def catalogue(self) -> Catalogue:
        return self._catalogue

    @property
    def tiles(self) -> Mapping[Hex, str]:
        return self._tiles

    def __contains__(self, tile_id: object) -> bool:
        return tile_id in self._hex_of

    def hex_of(self, tile_id: str) -> Hex:
        try:
            return self._hex_of[tile_id]
        except KeyError:
            raise KeyError(f"tile {tile_id!r} is not on this map") from None

    def tile_at(self, h: Hex) -> str | None:
        return self._tiles.get(h)

    def kind(self, tile_id: str) -> TileKind:
        try:
            return self._kind[tile_id]
        except KeyError:
            raise KeyError(f"tile {tile_id!r} is not on this map") from None

    def is_territory(self, tile_id: str) -> bool:
        return self._kind.get(tile_id) is TileKind.TERRITORY

    def is_castle(self, tile_id: str) -> bool:
        return self._kind.get(tile_id) is TileKind.CASTLE

    def is_location(self, tile_id: str) -> bool:
        """Whether knights can stand there: a territory or a castle on this map (lakes never hold knights)."""
        kind = self._kind.get(tile_id)
        return kind is TileKind.TERRITORY or kind is TileKind.CASTLE

    @property
    def locations(self) -> tuple[str, ...]:
        return self.territories + self.castles

    def spec(self, territory_id: str) -> TerritorySpec:
        try:
            return self._specs[territory_id]
        except KeyError:
            raise KeyError(f"territory {territory_id!r} is not on this map") from None

    def value(self, territory_id: str) -> int:
        return self.spec(territory_id).value

    def capacity(self, territory_id: str) -> int:
        return self.spec(territory_id).capacity

    def name(self, tile_id: str) -> str:
        return self._catalogue.get(tile_id).name

    @property
    def colours(self) -> tuple[Colour, ...]:
        """The colours whose castles are on the map, in clockwise seating order."""
        return tuple(self._colour_of[c] for c in self.seats)

    def castle_of(self, colour: Colour) -> str:
        try:
            return self._by_colour[colour]
        except KeyError:
            raise KeyError(f"no {colour.value} castle on this map") from None

    def colour_of(self, castle_id: str) -> Colour:
        try:
            return self._colour_of[castle_id]
        except KeyError:
            raise KeyError(f"{castle_id!r} is not a castle on this map") from None

    # --- adjacency --------------------------------------------------------------------------------
    def adjacent(self, tile_id: str) -> frozenset[str]:
        """Every tile (territory, lake or castle) sharing an edge with this one."""
        try:
            return self._adjacent[tile_id]
        except KeyError:
            raise KeyError(f"tile {tile_id!r} is not on this map") from None

    def lake_linked(self, tile_id: str) -> frozenset[str]:
        """Territories and castles linked to this tile through bordering lakes (R15), not the tile itself."""
        try:
            return self._linked[tile_id]
        except KeyError:
            raise KeyError(f"tile {tile_id!r} is not on this map") from None

    def reach(self, tile_id: str) -> frozenset[str]:
        """Territories and castles one step away for advances and lines of supply: adjacent or lake-linked."""
        try:
            return self._reach[tile_id]
        except KeyError:
            raise KeyError(f"tile {tile_id!r} is not on this map") from None

    def homelands_next_to(self, castle_id: str) -> tuple[str, ...]:
        """The homelands adjacent to a castle (at most two; setting up step 6)."""
        return tuple(sorted(t for t in self.adjacent(castle_id)
                            if t in self._specs and self._specs[t].kind is TerritoryKind.HOMELANDS))

    def total_value(self) -> int:
        return sum(s.value for s in self._specs.values())

    # --- output -----------------------------------------------------------------------------------
    def picture(self) -> str:
        """A text drawing of the map, one hex per 4 characters (ids), rows offset as on the table."""
        return render_picture({h: t for h, t in self._tiles.items()}, width=4)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": BOARD_FORMAT,
            "version": VERSION,
            "tiles": [[h.q, h.r, t] for h, t in self._tiles.items()],
            "seats": list(self.seats),
        }
        if self._catalogue != load_default_catalogue():
            out["catalogue"] = self._catalogue.to_json()
        return out

    @staticmethod
    def from_json(obj: Any, catalogue: Catalogue | None = None) -> Board:
        """Read `to_json()` output; a catalogue inside the document wins over the `catalogue` argument."""
        if not isinstance(obj, dict):
            raise MapError([f"a board is a JSON object, got {type(obj).__name__}"])
        problems: list[str] = []
        if obj.get("format", BOARD_FORMAT) != BOARD_FORMAT:
            problems.append(f"'format' must be {BOARD_FORMAT!r}, got {obj.get('format')!r}")
        version = obj.get("version", VERSION)
        if not isinstance(version, int) or version > VERSION:
            problems.append(f"board version {version!r} is newer than this program understands ({VERSION})")
        if "catalogue" in obj:
            catalogue = Catalogue.from_json(obj["catalogue"], "board catalogue")
        tiles = parse_tiles(obj.get("tiles"), problems)
        seats = obj.get("seats")
        if seats is not None and (not isinstance(seats, list) or not all(isinstance(s, str) for s in seats)):
            problems.append(f"'seats' must be a list of castle ids, got {seats!r}")
            seats = None
        if problems:
            raise MapError(problems)
        return Board(tiles, catalogue, seats)


def parse_tiles(raw: Any, problems: list[str]) -> dict[Hex, str]:
    """Parse `[[q, r, id], ...]` (or `{"q,r": id}` is NOT accepted: ids are values, hexes are keys)."""
    tiles: dict[Hex, str] = {}
    if not isinstance(raw, list):
        problems.append(f"'tiles' must be a list of [q, r, tile id], got {raw!r}")
        return tiles
    for item in raw:
        if (not isinstance(item, list) or len(item) != 3 or not isinstance(item[2], str)):
            problems.append(f"a tile is [q, r, tile id], got {item!r}")
            continue
        try:
            h = Hex.from_json(item[:2])
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if h in tiles:
            problems.append(f"two tiles on hex {h}: {tiles[h]!r} and {item[2]!r}")
            continue
        tiles[h] = item[2]
    return tiles


def _adjacency(tiles: Mapping[Hex, str], kind: Mapping[str, TileKind]
               ) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    near = _geometry(frozenset(tiles)).neighbours
    adjacent = {tid: frozenset([tiles[n] for n in near[h]]) for h, tid in tiles.items()}
    # Lakes that touch form one body of water (R15): every non-lake tile on its shore links to every other.
    linked: dict[str, set[str]] = {tid: set() for tid in tiles.values()}
    lakes = {tid for tid, k in kind.items() if k is TileKind.LAKE}
    seen: set[str] = set()
    for lake in sorted(lakes):
        if lake in seen:
            continue
        body = {lake}
        stack = [lake]
        while stack:
            cur = stack.pop()
            for nb in adjacent[cur]:
                if nb in lakes and nb not in body:
                    body.add(nb)
                    stack.append(nb)
        seen |= body
        shore = {nb for water in body for nb in adjacent[water] if nb not in lakes}
        for tid in shore:
            linked[tid] |= shore - {tid}
    return adjacent, {t: frozenset(v) for t, v in linked.items()}


def _clockwise(castles: Mapping[str, Hex], all_hexes: Iterable[Hex]) -> tuple[str, ...]:
    """Castle ids clockwise around the map's centre (image y down), starting from straight down."""
    cx, cy = _centre(all_hexes)

    def angle(cid: str) -> float:
        x, y = castles[cid].to_pixel(1.0)
        # atan2 with y down grows clockwise on screen; start at "straight down" (pi/2).
        return (math.atan2(y - cy, x - cx) - math.pi / 2) % (2 * math.pi)

    return tuple(sorted(castles, key=lambda c: (round(angle(c), 9), c)))


def _by_hex(item: tuple[Any, Any]) -> tuple[int, int, int, str]:
    """Sort key of a (hex, tile) item: by (q, r) as `Hex` orders itself, without its Python-level comparisons
    (hot: every board sorts its tiles); anything that is not a Hex sorts last, so bad input is reported."""
    h = item[0]
    if isinstance(h, Hex):
        return (0, h.q, h.r, "")
    return (1, 0, 0, repr(h))


def validate_layout(tiles: Mapping[Hex, str], catalogue: Catalogue) -> list[str]:
    """Every reason a layout is not a playable map (empty when it is)."""
    return _check_layout(tiles, catalogue)[0]


# What checking a layout worked out, for `Board`: the (hex, tile) items in order, each tile's kind, and the
# tiles each one is adjacent to and linked to by lakes.
_Checked = tuple[
    list[tuple[Hex, str]], dict[str, TileKind], dict[str, frozenset[str]], dict[str, frozenset[str]]
]


def _check_layout(tiles: Mapping[Hex, str], catalogue: Catalogue) -> tuple[list[str], _Checked | None]:
    """`validate_layout`, also returning what it worked out (None when the tiles were unusable) so that
    `Board` need not work it out again."""
    problems: list[str] = []
    hex_of: dict[str, Hex] = {}
    kinds: dict[str, TileKind] = {}
    ordered = sorted(tiles.items(), key=_by_hex)
    for h, tid in ordered:
        if not isinstance(h, Hex):
            problems.append(f"{h!r} is not a Hex")
            continue
        if not isinstance(tid, str):
            problems.append(f"hex {h}: tile id must be a string, got {tid!r}")
            continue
        kind = catalogue.tile_kind(tid)
        if kind is None:
            what = "a card, not a tile" if tid in catalogue else "not a tile of this box"
            problems.append(f"hex {h}: unknown tile id {tid!r} ({what})")
            continue
        if tid in hex_of:
            problems.append(f"tile {tid!r} is on two hexes: {hex_of[tid]} and {h}")
            continue
        hex_of[tid] = h
        kinds[tid] = kind
    castle_kind, territory_kind = TileKind.CASTLE, TileKind.TERRITORY
    castles = sorted(t for t, k in kinds.items() if k is castle_kind)
    territories = [t for t, k in kinds.items() if k is territory_kind]
    if len(castles) < MIN_PLAYERS:
        problems.append(f"a map needs at least {MIN_PLAYERS} castles, found {len(castles)}: {castles!r}")
    if not territories:
        problems.append("a map needs territories, found none")
    if not hex_of:
        return problems, None
    good = {h: t for t, h in hex_of.items()}
    # Connected by shared edges.
    groups = _groups(good)
    if len(groups) > 1:
        groups.sort(key=len, reverse=True)
        parts = "; ".join("{" + ", ".join(sorted(g)) + "}" for g in groups[1:])
        problems.append(f"the tiles do not form one connected map: {len(groups)} separate groups; "
                        f"apart from the main one: {parts}")
    adjacent, linked = _adjacency(good, kinds)
    for castle in castles:
        reach = {a for a in adjacent[castle] | linked[castle] if kinds[a] is territory_kind}
        if not reach:
            problems.append(f"castle {castle} ({catalogue.castle(castle).name}) has no territory to advance "
                            "into: none adjacent or linked by a lake")
        homelands = sorted(t for t in adjacent[castle] if kinds[t] is territory_kind
                           and catalogue.territory(t).kind is TerritoryKind.HOMELANDS)
        if len(homelands) > HOMELANDS_PER_CASTLE_MAX:
            problems.append(f"castle {castle} ({catalogue.castle(castle).name}) is adjacent to "
                            f"{len(homelands)} homelands {homelands!r}; at most {HOMELANDS_PER_CASTLE_MAX} "
                            "is possible (setting up, step 6, page 3)")
    return problems, (ordered, kinds, adjacent, linked)


def _groups(tiles: Mapping[Hex, str]) -> list[set[str]]:
    return [{tiles[h] for h in group} for group in _geometry(frozenset(tiles)).groups]


@dataclass(frozen=True, slots=True)
class _Geometry:
    """What depends only on which hexes are covered: each hex's covered neighbours, and the groups of hexes
    connected by shared edges."""

    neighbours: Mapping[Hex, tuple[Hex, ...]]
    groups: tuple[frozenset[Hex], ...]


@lru_cache(maxsize=256)
def _geometry(hexes: frozenset[Hex]) -> _Geometry:
    # Cached by the set of covered hexes: every default board of one player count shares its geometry (the
    # tiles are shuffled, the hexes are not), and a camera re-reading the same layout hits the cache too.
    # Neighbours as the covered hexes themselves (not equal copies): looked up by identity first, a board's
    # dictionaries keyed by its hexes find them without Hex's Python-level __eq__.
    covered = {h: h for h in hexes}
    neighbours = {h: tuple(covered[n] for n in h.neighbours() if n in covered) for h in hexes}
    remaining = set(hexes)
    groups: list[frozenset[Hex]] = []
    while remaining:
        start = min(remaining)
        stack = [start]
        remaining.discard(start)
        group = {start}
        while stack:
            cur = stack.pop()
            for nb in neighbours[cur]:
                if nb in remaining:
                    remaining.discard(nb)
                    group.add(nb)
                    stack.append(nb)
        groups.append(frozenset(group))
    return _Geometry(MappingProxyType(neighbours), tuple(groups))


def default_board(players: int, catalogue: Catalogue | None = None, rng: random.Random | None = None,
                  colours: Sequence[Colour] | None = None) -> Board:
    """The default map for `players`, territories of each value shuffled into their slots by `rng`.

    `colours` (clockwise seating order) picks the castles; by default the catalogue's first `players` castles.
    Without `rng`, tiles are laid in id order (deterministic, for tests and documentation only).
    """
    cat = catalogue if catalogue is not None else load_default_catalogue()
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise MapError([f"Medieval Mastery is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players!r}"])
    layout = default_layouts()[players]
    problems: list[str] = []
    if colours is None:
        castle_ids = [c.id for c in cat.castles[:players]]
    else:
        if len(colours) != players or len(set(colours)) != len(colours):
            raise MapError([f"need {players} different colours, got {[c.value for c in colours]!r}"])
        castle_ids = [cat.castle_of(c).id for c in colours]
    tiles: dict[Hex, str] = dict(zip(layout.seats, castle_ids, strict=True))
    lake_slots = layout.slots("L")
    if len(lake_slots) > len(cat.lakes):
        problems.append(f"the {players}-player map needs {len(lake_slots)} lakes, "
                        f"the box has {len(cat.lakes)}")
    tiles.update(zip(lake_slots, (lake.id for lake in cat.lakes), strict=False))
    for value in (1, 2, 3):
        slots = layout.slots(str(value))
        pile = [t.id for t in cat.territories_of_value(value)]
        if len(pile) < len(slots):
            problems.append(f"the {players}-player map needs {len(slots)} territories of value {value}, "
                            f"the box catalogue has {len(pile)}")
            continue
        if rng is not None:
            rng.shuffle(pile)
        tiles.update(zip(slots, pile, strict=False))
    if problems:
        raise MapError(problems)
    seats = tuple(castle_ids)
    return Board(tiles, cat, seats)


def render_picture(cells: Mapping[Hex, str], width: int = 2) -> str:
    """Draw hex cells as text: each row offset by half a cell, like pointy-top tiles on the table."""
    if not cells:
        return ""
    half = max(1, width // 2)
    xs = {h: (2 * h.q + h.r) * half for h in cells}
    x0 = min(xs.values())
    rows: list[str] = []
    for r in range(min(h.r for h in cells), max(h.r for h in cells) + 1):
        line: list[str] = []
        for h in sorted((h for h in cells if h.r == r), key=lambda h: h.q):
            col = xs[h] - x0
            text = cells[h][:width - 1] if width > 1 else cells[h][:1]
            line.extend(" " * (col - len(line)))
            line.extend(text)
        rows.append("".join(line).rstrip())
    return "\n".join(rows)

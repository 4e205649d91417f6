"""The static facts of one game, precomputed for the rules: which territories are in play, their values and
capacities, each castle, and who can reach whom (shared edges, with every lake linking the tiles around
it).

Built once per game from the catalogue and the board (`GameData.from_board`), or from an explicit adjacency
(`GameData.build`, used by tests and scenarios). Never changes during a game, so states share one instance.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.catalogue import (
    Ability,
    ArtefactSpec,
    CardKind,
    CardSpec,
    Catalogue,
    TerritoryKind,
    TerritorySpec,
    TileKind,
)
from engine.colours import Colour
from engine.errors import MapError
from engine.maps import Board


@dataclass(frozen=True, slots=True, eq=False)
class GameData:
    """Lookups the rules need many times per action, as plain dictionaries."""

    catalogue: Catalogue
    territories: Mapping[str, TerritorySpec]
    castle_of: Mapping[Colour, str]
    castle_owner: Mapping[str, Colour]
    # Territories reachable from a territory or castle in one step: a shared edge, or a lake they both border.
    reach: Mapping[str, frozenset[str]]
    # Castles reachable the same way (castle siege).
    reach_castles: Mapping[str, frozenset[str]]
    homelands_of: Mapping[Colour, tuple[str, ...]]
    cards: Mapping[str, CardSpec]
    deck: tuple[str, ...]
    artefacts: Mapping[str, ArtefactSpec]
    dice_per_player: int
    card_of_kind: Mapping[CardKind, str] = field(default_factory=dict)
    capacity: Mapping[str, int] = field(default_factory=dict)
    value: Mapping[str, int] = field(default_factory=dict)
    # Territories and castles sharing an edge with a territory or castle (no lakes in between).
    neighbours: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The lakes a territory or castle borders.
    lakes: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @staticmethod
    def build(
        catalogue: Catalogue, castles: Mapping[Colour, str], adjacency: Mapping[str, Iterable[str]]
    ) -> GameData:
        """From an explicit, symmetric edge adjacency between tile ids (territories, lakes, castles).

        Raises MapError when a tile id is unknown to the catalogue or a player's castle is missing.
        """
        problems: list[str] = []
        adj: dict[str, set[str]] = {}
        for a, bs in adjacency.items():
            for b in bs:
                adj.setdefault(a, set()).add(b)
                adj.setdefault(b, set()).add(a)
        kinds: dict[str, TileKind] = {}
        for tile in adj:
            kind = catalogue.tile_kind(tile)
            if kind is None:
                problems.append(f"unknown tile id {tile!r}")
            else:
                kinds[tile] = kind
        for colour, castle in castles.items():
            if catalogue.tile_kind(castle) is not TileKind.CASTLE:
                problems.append(f"{colour.value} castle {castle!r} is not a castle id")
            elif castle not in adj:
                problems.append(f"{colour.value} castle {castle!r} is not on the map")
        if problems:
            raise MapError(problems)
        places = [t for t, k in kinds.items() if k is not TileKind.LAKE]
        shore = _lake_shores(adj, kinds)
        reach: dict[str, frozenset[str]] = {}
        reach_castles: dict[str, frozenset[str]] = {}
        for place in places:
            linked: set[str] = set()
            for n in adj[place]:
                if kinds[n] is TileKind.LAKE:
                    linked.update(shore[n])
                else:
                    linked.add(n)
            linked.discard(place)
            reach[place] = frozenset(x for x in linked if kinds[x] is TileKind.TERRITORY)
            reach_castles[place] = frozenset(x for x in linked if kinds[x] is TileKind.CASTLE)
        territory_ids = sorted(t for t in places if kinds[t] is TileKind.TERRITORY)
        return GameData._assemble(
            catalogue, castles=castles, territory_ids=territory_ids, reach=reach, reach_castles=reach_castles,
            adjacent=adj, places=places, lake_ids=frozenset(t for t in adj if kinds[t] is TileKind.LAKE),
        )

    @staticmethod
    def _assemble(
        catalogue: Catalogue,
        *,
        castles: Mapping[Colour, str],
        territory_ids: Iterable[str],
        reach: Mapping[str, frozenset[str]],
        reach_castles: Mapping[str, frozenset[str]],
        adjacent: Mapping[str, Iterable[str]],
        places: Iterable[str],
        lake_ids: frozenset[str],
    ) -> GameData:
        territories = {t: catalogue.territory(t) for t in territory_ids}
        neighbours: dict[str, frozenset[str]] = {}
        lakes: dict[str, frozenset[str]] = {}
        for place in places:
            around = frozenset(adjacent[place])
            neighbours[place] = around - lake_ids
            lakes[place] = around & lake_ids
        homelands: dict[Colour, tuple[str, ...]] = {}
        for colour, castle in castles.items():
            homelands[colour] = tuple(
                sorted(
                    t
                    for t in adjacent[castle]
                    if t in territories and Ability.STARTING_KNIGHTS in territories[t].abilities
                )
            )
        cards = {c.id: c for c in catalogue.cards}
        card_of_kind: dict[CardKind, str] = {}
        for c in catalogue.cards:
            if c.kind.is_resource:
                card_of_kind[c.kind] = c.id
        return GameData(
            catalogue=catalogue,
            territories=territories,
            castle_of=dict(castles),
            castle_owner={k: c for c, k in castles.items()},
            reach=reach,
            reach_castles=reach_castles,
            homelands_of=homelands,
            cards=cards,
            deck=tuple(c.id for c in catalogue.cards),
            artefacts={a.id: a for a in catalogue.artefacts},
            dice_per_player=catalogue.dice_per_player,
            card_of_kind=card_of_kind,
            capacity={t: s.capacity for t, s in territories.items()},
            value={t: s.value for t, s in territories.items()},
            neighbours=neighbours,
            lakes=lakes,
        )

    @staticmethod
    def from_board(board: Any, catalogue: Catalogue, castles: Mapping[Colour, str]) -> GameData:
        """From an `engine.maps.Board` (anything with `tile_ids()`/`tiles` and `adjacent(tile_id)`)."""
        if isinstance(board, Board) and (board.catalogue is catalogue or board.catalogue == catalogue):
            return GameData._from_validated_board(board, catalogue, castles)
        tile_ids: Iterable[str]
        if hasattr(board, "tiles"):
            tiles = board.tiles
            tile_ids = tiles.values() if isinstance(tiles, Mapping) else tiles
        else:
            tile_ids = board.tile_ids()
        adjacency = {t: frozenset(board.adjacent(t)) for t in tile_ids}
        return GameData.build(catalogue, castles, adjacency)

    @staticmethod
    def _from_validated_board(board: Board, catalogue: Catalogue, castles: Mapping[Colour, str]) -> GameData:
        # A Board validated every tile against this catalogue and already holds the lake-linked reach of
        # every tile, so only the castles remain to check.
        problems = []
        for colour, castle in castles.items():
            if catalogue.tile_kind(castle) is not TileKind.CASTLE:
                problems.append(f"{colour.value} castle {castle!r} is not a castle id")
            elif castle not in board:
                problems.append(f"{colour.value} castle {castle!r} is not on the map")
        if problems:
            raise MapError(problems)
        on_map = set(board.territories)
        castle_ids = set(board.castles)
        reach: dict[str, frozenset[str]] = {}
        reach_castles: dict[str, frozenset[str]] = {}
        for place in board.locations:
            linked = board.reach(place)
            reach[place] = linked & on_map
            reach_castles[place] = linked & castle_ids
        adjacent = {place: board.adjacent(place) for place in board.locations}
        return GameData._assemble(
            catalogue, castles=castles, territory_ids=board.territories, reach=reach,
            reach_castles=reach_castles, adjacent=adjacent, places=board.locations,
            lake_ids=frozenset(board.lakes),
        )

    def is_homeland(self, territory: str) -> bool:
        return self.territories[territory].kind is TerritoryKind.HOMELANDS

    def has(self, territory: str, ability: Ability) -> bool:
        return ability in self.territories[territory].abilities


def _lake_shores(adj: Mapping[str, set[str]], kinds: Mapping[str, TileKind]) -> dict[str, set[str]]:
    """For each lake, every non-lake tile bordering its body of water (touching lakes are one body, R15)."""
    shores: dict[str, set[str]] = {}
    for lake in (t for t, k in kinds.items() if k is TileKind.LAKE):
        if lake in shores:
            continue
        body = {lake}
        stack = [lake]
        while stack:
            here = stack.pop()
            for n in adj[here]:
                if kinds[n] is TileKind.LAKE and n not in body:
                    body.add(n)
                    stack.append(n)
        shore = {x for b in body for x in adj[b] if kinds[x] is not TileKind.LAKE}
        for b in body:
            shores[b] = shore
    return shores

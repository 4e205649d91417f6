"""What the camera saw on the table at one moment: tiles on hexes, knights per location, artefacts up/down.

Produced by `vision` (the stable reading after its flicker filter), used by `engine.reconcile` and the app.
Location keys are tile ids (`T07`, `K3`); a location that is absent holds no knights as far as the camera saw.
Locations in `unsure` were not seen well enough (occluded, blurred) and are not evidence for anything (R80);
`doubts` says why, for those the camera can tell (`Doubt`), so the players know what to do about it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, TypeGuard

from engine.catalogue import Catalogue, TileKind
from engine.colours import Colour
from engine.errors import ReadingError
from engine.hexgrid import Hex
from engine.maps import parse_tiles

READING_FORMAT = "seneschal-reading"
VERSION = 1

_EMPTY_COUNTS: Mapping[Colour, int] = MappingProxyType({})


class Doubt(Enum):
    """Why the camera does not vouch for a location's knights. Declared most useful to the players first: a
    location with several doubts keeps the first (`Doubt.first`)."""

    HAND = "hand"  # a hand or arm over it
    OUT_OF_VIEW = "out of view"  # not in the frame
    UNMEASURED = "unmeasured"  # a die of a player whose dice the camera has not measured yet
    STRANGER = "stranger"  # a die on a castle that looks like another player's
    COLOUR = "colour"  # a die whose player the camera cannot tell
    PIPS = "pips"  # a die whose pips the camera cannot read surely
    UNREAD = "unread"  # something there that the dice read do not account for
    NEVER_BARE = "never bare"  # a spot never seen without dice, with none read there now
    CHANGING = "changing"  # a change the camera has not yet seen for long enough

    @staticmethod
    def first(*doubts: Doubt | None) -> Doubt | None:
        """The most useful of `doubts` to tell the players (None when there is none)."""
        order = list(Doubt)
        present = [d for d in doubts if d is not None]
        return min(present, key=order.index) if present else None


def merge_doubts(*many: Mapping[str, Doubt]) -> dict[str, Doubt]:
    """Per location, the most useful doubt of any of `many`."""
    out: dict[str, Doubt] = {}
    for doubts in many:
        for loc, doubt in doubts.items():
            out[loc] = Doubt.first(out.get(loc), doubt) or doubt
    return out


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


@dataclass(frozen=True, slots=True)
class TableReading:
    """One stable reading of the table. Immutable; zero counts are dropped, so equal tables compare equal."""

    tiles: Mapping[Hex, str] = field(default_factory=dict)
    knights: Mapping[str, Mapping[Colour, int]] = field(default_factory=dict)
    artefacts: Mapping[str, bool] = field(default_factory=dict)
    unsure: frozenset[str] = frozenset()
    frame_index: int = 0
    doubts: Mapping[str, Doubt] = field(default_factory=dict)  # why, for locations in `unsure`

    def __post_init__(self) -> None:
        problems: list[str] = []
        tiles: dict[Hex, str] = {}
        seen_ids: dict[str, Hex] = {}
        for h, tid in self.tiles.items():
            if not isinstance(h, Hex) or not isinstance(tid, str) or not tid:
                problems.append(f"tiles: {h!r} -> {tid!r} is not a Hex -> tile id")
                continue
            if tid in seen_ids:
                problems.append(f"tiles: {tid!r} seen on two hexes: {seen_ids[tid]} and {h}")
                continue
            seen_ids[tid] = h
            tiles[h] = tid
        knights: dict[str, Mapping[Colour, int]] = {}
        for loc, counts in self.knights.items():
            if not isinstance(loc, str) or not loc:
                problems.append(f"knights: location must be a tile id, got {loc!r}")
                continue
            if not isinstance(counts, Mapping):
                problems.append(f"knights at {loc}: must map colours to counts, got {counts!r}")
                continue
            clean: dict[Colour, int] = {}
            for colour, n in counts.items():
                if not isinstance(colour, Colour):
                    problems.append(f"knights at {loc}: {colour!r} is not a player colour")
                elif not _is_int(n) or n < 0:
                    problems.append(f"knights at {loc}: {colour.value} count must be a whole number >= 0, "
                                    f"got {n!r}")
                elif n > 0:
                    clean[colour] = n
            if clean:
                knights[loc] = MappingProxyType(dict(sorted(clean.items(), key=lambda kv: kv[0].value)))
        artefacts: dict[str, bool] = {}
        for aid, up in self.artefacts.items():
            if not isinstance(aid, str) or not isinstance(up, bool):
                problems.append(f"artefacts: {aid!r} -> {up!r} is not an artefact id -> face up (true/false)")
                continue
            artefacts[aid] = up
        unsure = self.unsure
        if isinstance(unsure, str) or not isinstance(unsure, Iterable) or not all(
                isinstance(u, str) for u in unsure):
            problems.append(f"unsure: must be a set of location ids, got {unsure!r}")
            unsure = frozenset()
        if not _is_int(self.frame_index) or self.frame_index < 0:
            problems.append(f"frame_index must be a whole number >= 0, got {self.frame_index!r}")
        doubts = _checked_doubts(self.doubts, frozenset(unsure), problems)
        if problems:
            raise ReadingError("table reading is malformed:\n  - " + "\n  - ".join(problems))
        object.__setattr__(self, "tiles", MappingProxyType(dict(sorted(tiles.items()))))
        object.__setattr__(self, "knights", MappingProxyType(dict(sorted(knights.items()))))
        object.__setattr__(self, "artefacts", MappingProxyType(dict(sorted(artefacts.items()))))
        object.__setattr__(self, "unsure", frozenset(unsure))
        object.__setattr__(self, "doubts", MappingProxyType(dict(sorted(doubts.items()))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TableReading):
            return NotImplemented
        return (dict(self.tiles) == dict(other.tiles)
                and {k: dict(v) for k, v in self.knights.items()}
                == {k: dict(v) for k, v in other.knights.items()}
                and dict(self.artefacts) == dict(other.artefacts) and self.unsure == other.unsure
                and self.frame_index == other.frame_index and dict(self.doubts) == dict(other.doubts))

    def __hash__(self) -> int:
        return hash((tuple(self.tiles.items()),
                     tuple((k, tuple(v.items())) for k, v in self.knights.items()),
                     tuple(self.artefacts.items()), self.unsure, self.frame_index,
                     tuple(self.doubts.items())))

    def __repr__(self) -> str:
        tiles = "{" + ", ".join(f"Hex({h.q}, {h.r}): {t!r}" for h, t in self.tiles.items()) + "}"
        knights = "{" + ", ".join(
            f"{loc!r}: {{" + ", ".join(f"{c!r}: {n}" for c, n in v.items()) + "}"
            for loc, v in self.knights.items()) + "}"
        doubts = "{" + ", ".join(f"{loc!r}: {d}" for loc, d in self.doubts.items()) + "}"
        return (f"TableReading(tiles={tiles}, knights={knights}, artefacts={dict(self.artefacts)!r}, "
                f"unsure=frozenset({sorted(self.unsure)!r}), frame_index={self.frame_index}, "
                f"doubts={doubts})")

    # --- queries ----------------------------------------------------------------------------------
    def knights_at(self, location: str) -> Mapping[Colour, int]:
        """Knights per colour seen at a location (empty when none were seen)."""
        return self.knights.get(location, _EMPTY_COUNTS)

    def total(self, colour: Colour) -> int:
        """All knights of one colour seen on the table (including unsure locations)."""
        return sum(v.get(colour, 0) for v in self.knights.values())

    def is_sure(self, location: str) -> bool:
        return location not in self.unsure

    def doubt(self, location: str) -> Doubt | None:
        """Why `location` is unsure, when the camera could tell; None for a sure location or no reason."""
        return self.doubts.get(location)

    def problems_against(self, catalogue: Catalogue) -> list[str]:
        """Ids the reading uses that the box does not have, and knights on lakes (lakes hold no knights)."""
        problems: list[str] = []
        for h, tid in self.tiles.items():
            if catalogue.tile_kind(tid) is None:
                problems.append(f"tile {tid!r} at {h} is not a tile of this box")
        for loc in self.knights:
            kind = catalogue.tile_kind(loc)
            if kind is None:
                problems.append(f"knights seen at {loc!r}, which is not a tile of this box")
            elif kind is TileKind.LAKE:
                problems.append(f"knights seen on lake {loc} ({catalogue.lake(loc).name}); "
                                "lakes hold no knights")
        for aid in self.artefacts:
            try:
                catalogue.artefact(aid)
            except KeyError:
                problems.append(f"artefact {aid!r} is not an artefact of this box")
        return problems

    # --- serialisation ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": READING_FORMAT,
            "version": VERSION,
            "frame_index": self.frame_index,
            "tiles": [[h.q, h.r, t] for h, t in self.tiles.items()],
            "knights": {loc: {c.value: n for c, n in v.items()} for loc, v in self.knights.items()},
            "artefacts": dict(self.artefacts),
            "unsure": sorted(self.unsure),
            "doubts": {loc: d.value for loc, d in self.doubts.items()},
        }

    @staticmethod
    def from_json(obj: Any) -> TableReading:
        """Parse `to_json()` output; raises ReadingError listing every problem."""
        if not isinstance(obj, Mapping):
            raise ReadingError(f"a table reading is a JSON object, got {type(obj).__name__}")
        problems: list[str] = []
        if obj.get("format", READING_FORMAT) != READING_FORMAT:
            problems.append(f"'format' must be {READING_FORMAT!r}, got {obj.get('format')!r}")
        version = obj.get("version", VERSION)
        if not _is_int(version) or version > VERSION:
            problems.append(f"reading version {version!r} is newer than this program understands ({VERSION})")
        tiles = parse_tiles(obj.get("tiles", []), problems)
        knights: dict[str, dict[Colour, int]] = {}
        raw_knights = obj.get("knights", {})
        if not isinstance(raw_knights, Mapping):
            problems.append(f"'knights' must map location ids to {{colour: count}}, got {raw_knights!r}")
            raw_knights = {}
        for loc, counts in raw_knights.items():
            if not isinstance(counts, Mapping):
                problems.append(f"knights at {loc}: must map colours to counts, got {counts!r}")
                continue
            parsed: dict[Colour, int] = {}
            for name, n in counts.items():
                try:
                    colour = Colour(name)
                except ValueError:
                    problems.append(f"knights at {loc}: unknown colour {name!r}")
                    continue
                if not _is_int(n) or n < 0:
                    problems.append(f"knights at {loc}: {name} count must be a whole number >= 0, got {n!r}")
                    continue
                parsed[colour] = n
            knights[str(loc)] = parsed
        artefacts = obj.get("artefacts", {})
        if not isinstance(artefacts, Mapping):
            problems.append(f"'artefacts' must map artefact ids to true/false, got {artefacts!r}")
            artefacts = {}
        unsure = obj.get("unsure", [])
        if not isinstance(unsure, list) or not all(isinstance(u, str) for u in unsure):
            problems.append(f"'unsure' must be a list of location ids, got {unsure!r}")
            unsure = []
        frame_index = obj.get("frame_index", 0)
        doubts = _parsed_doubts(obj.get("doubts", {}), problems)
        if problems:
            raise ReadingError("table reading is malformed:\n  - " + "\n  - ".join(problems))
        return TableReading(tiles, knights, dict(artefacts), frozenset(unsure), frame_index, doubts)


def _checked_doubts(doubts: object, unsure: frozenset[str], problems: list[str]) -> dict[str, Doubt]:
    """`doubts` when it maps locations of `unsure` to a `Doubt` each; else the problems, noted."""
    if not isinstance(doubts, Mapping):
        problems.append(f"doubts: must map unsure location ids to a Doubt, got {doubts!r}")
        return {}
    out: dict[str, Doubt] = {}
    for loc, doubt in doubts.items():
        if not isinstance(doubt, Doubt):
            problems.append(f"doubts: {loc!r} -> {doubt!r} is not a Doubt")
        elif loc not in unsure:
            problems.append(f"doubts: {loc!r} has a doubt ({doubt.value}) but is not unsure")
        else:
            out[loc] = doubt
    return out


def _parsed_doubts(raw: object, problems: list[str]) -> dict[str, Doubt]:
    """The JSON form of `TableReading.doubts` ({location: doubt's value}) parsed, problems noted."""
    if not isinstance(raw, Mapping):
        problems.append(f"'doubts' must map location ids to a doubt, got {raw!r}")
        return {}
    out: dict[str, Doubt] = {}
    for loc, value in raw.items():
        try:
            out[str(loc)] = Doubt(value)
        except ValueError:
            known = ", ".join(repr(d.value) for d in Doubt)
            problems.append(f"doubts: {loc!r} -> unknown doubt {value!r} (known: {known})")
    return out

"""New game: 2–6 players with names and colours (castles), optional rules, the map source, artefacts, starting
knights checked against the camera, and the first player drawn. Produces a `NewGameConfig` that the
`GameFactory` turns into an engine session."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Protocol

from companion.i18n import Translator, is_default_name
from companion.presenters.base import Presenter
from companion.services import GameSession
from engine.colours import Colour


class MapSource(Enum):
    DEFAULT = "default"  # the layout for the player count, territories shuffled per value
    CAMERA = "camera"  # read from the table
    SAVED = "saved"  # a saved custom layout


class ArtefactSource(Enum):
    DEAL = "deal"  # the app deals at random (players take the cards it names)
    SCAN = "scan"  # the camera reads the cards dealt physically
    PICK = "pick"  # typed in by hand


VARIANTS: tuple[str, ...] = ("allegiance", "castle_siege", "cut_throat", "skirmish", "mayhem")


@dataclass(frozen=True, slots=True)
class PlayerSetup:
    colour: Colour
    name: str


@dataclass(frozen=True, slots=True)
class NewGameConfig:
    players: tuple[PlayerSetup, ...]
    variants: frozenset[str] = frozenset()
    map_source: MapSource = MapSource.DEFAULT
    saved_map: str | None = None
    artefacts: ArtefactSource = ArtefactSource.DEAL
    first: Colour | None = None
    seed: int = 0
    teams: tuple[tuple[Colour, ...], ...] = ()
    picked_artefacts: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "players": [{"colour": p.colour.value, "name": p.name} for p in self.players],
            "variants": sorted(self.variants),
            "map_source": self.map_source.value,
            "saved_map": self.saved_map,
            "artefacts": self.artefacts.value,
            "first": self.first.value if self.first else None,
            "seed": self.seed,
            "teams": [[c.value for c in t] for t in self.teams],
            "picked_artefacts": {k: list(v) for k, v in self.picked_artefacts.items()},
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> NewGameConfig:
        """Raises KeyError / ValueError / TypeError naming what is wrong (callers turn it into a message)."""
        players = tuple(PlayerSetup(Colour(p["colour"]), str(p["name"])) for p in obj["players"])
        first = obj.get("first")
        saved = obj.get("saved_map")
        return cls(
            players=players,
            variants=frozenset(str(v) for v in obj.get("variants", [])),
            map_source=MapSource(obj.get("map_source", "default")),
            saved_map=str(saved) if saved is not None else None,
            artefacts=ArtefactSource(obj.get("artefacts", "deal")),
            first=Colour(first) if first else None,
            seed=int(obj.get("seed", 0)),
            teams=tuple(tuple(Colour(c) for c in t) for t in obj.get("teams", [])),
            picked_artefacts={str(k): tuple(v) for k, v in obj.get("picked_artefacts", {}).items()},
        )


class GameFactory(Protocol):
    def new_session(self, config: NewGameConfig, board: Any = None) -> GameSession: ...

    def resume(self, game_id: int) -> GameSession: ...


# Of a game's colours, those whose dice the camera never measured (`CatalogueBox.unmeasured`).
Unmeasured = Callable[[Sequence[Colour]], Sequence[Colour]]


class NewGamePresenter(Presenter):
    def __init__(
        self,
        rng: random.Random | None = None,
        tr: Translator | None = None,
        unmeasured: Unmeasured | None = None,
        watched: bool = False,
    ) -> None:
        super().__init__()
        self.rng = rng or random.Random()
        self.tr = tr or Translator()
        self.unmeasured = unmeasured  # None: no camera to name the dice
        self.watched = watched  # a camera watches the table
        self.camera_note = ""  # the players whose dice the camera cannot name, and what to do about it
        # A player with no name of their own is called by their colour, in the language of the screen.
        self.players: list[PlayerSetup] = [
            PlayerSetup(c, self.tr.colour(c)) for c in (Colour.RED, Colour.BLUE, Colour.YELLOW)
        ]
        self.variants: set[str] = set()
        self.map_source = MapSource.DEFAULT
        self.artefacts = ArtefactSource.DEAL
        self.first: Colour | None = None
        self.problems: list[str] = []  # what this screen itself finds wrong (counts, names)
        self.refused: list[str] = []  # what starting the game refused (the engine's setup, the camera map)

    # ------------------------------------------------------------------------------------------ players

    def free_colours(self) -> list[Colour]:
        used = {p.colour for p in self.players}
        return [c for c in Colour if c not in used]

    def add_player(self) -> None:
        free = self.free_colours()
        if len(self.players) >= 6 or not free:
            return
        self.players.append(PlayerSetup(free[0], self.tr.colour(free[0])))
        self._validate()

    def remove_player(self, colour: Colour) -> None:
        if len(self.players) <= 2:
            return
        self.players = [p for p in self.players if p.colour is not colour]
        if self.first is colour:
            self.first = None
        self._validate()

    def rename(self, colour: Colour, name: str) -> None:
        self.players = [
            replace(p, name=name.strip()[:16] or self.tr.colour(colour)) if p.colour is colour else p
            for p in self.players
        ]
        self._validate()

    def cycle_colour(self, colour: Colour) -> None:
        """Tap a player's colour to take the next free castle (no keyboard needed)."""
        free = self.free_colours()
        if not free:
            return
        order = list(Colour)
        nxt = next((c for c in order[order.index(colour) + 1 :] + order if c in free), free[0])
        self.players = [
            replace(p, colour=nxt, name=self.tr.colour(nxt) if is_default_name(colour, p.name) else p.name)
            if p.colour is colour
            else p
            for p in self.players
        ]
        if self.first is colour:
            self.first = nxt
        self._validate()

    def recheck_camera(self) -> None:
        """Say which players' dice the camera has never measured: it asks about every one of those dice until
        it measures them on their own castle during the game (`vision.owncastle`), so the players should
        measure them at box setup before they play (the box may have measured some since this screen was
        last shown)."""
        missing = self.unmeasured([p.colour for p in self.players]) if self.unmeasured is not None else ()
        note = ""
        if missing:
            note = self.tr(
                "The camera has not measured these players' dice: {colours}. It asks about their dice until "
                "it has measured them on their own castle during the game: measure them in Box setup."
            ).format(colours=", ".join(self.tr.colour(c) for c in missing))
        if note != self.camera_note:
            self.camera_note = note
            self.changed()

    @property
    def camera_tip(self) -> str:
        """What a watching camera needs of the set-up: the map in view before any knight stands on it
        (Setting Up, p. 3: the map is step 2, the knights step 6). The camera learns each location's bare look
        then, and flags a location where something it cannot read stands; where a die stood in every frame it
        saw before the game, it cannot."""
        if not self.watched:
            return ""
        return self.tr(
            "Lay the map in the camera's view before any knight goes on it: the camera learns each tile "
            "bare, so it notices a die it cannot read."
        )

    def retranslate(self) -> None:
        """The language changed: players still called by their colour are called so in the new language."""
        self.players = [replace(p, name=self.tr.player(p.colour, p.name)) for p in self.players]
        self._validate()

    def toggle_variant(self, name: str) -> None:
        if name not in VARIANTS:
            raise ValueError(f"unknown optional rule {name!r}")
        self.variants ^= {name}
        self._validate()

    def set_map_source(self, source: MapSource) -> None:
        self.map_source = source
        self._validate()

    def set_artefacts(self, source: ArtefactSource) -> None:
        self.artefacts = source
        self.changed()

    def draw_first_player(self) -> Colour:
        self.first = self.rng.choice([p.colour for p in self.players])
        self.changed()
        return self.first

    # ---------------------------------------------------------------------------------------- validation

    def _validate(self) -> None:
        """Table-level checks only (counts, names); the rules of the variants are the engine's to refuse."""
        problems = []
        n = len(self.players)
        if "allegiance" in self.variants and n not in (4, 6):
            problems.append("Allegiance needs 4 or 6 players.")
        if "allegiance" in self.variants and "castle_siege" in self.variants:
            problems.append("Allegiance cannot be played with castle siege.")
        names = [p.name.lower() for p in self.players]
        if len(set(names)) != len(names):
            problems.append("Two players have the same name.")
        self.problems = problems
        self.changed()
        self.recheck_camera()

    @property
    def ready(self) -> bool:
        return not self.problems and 2 <= len(self.players) <= 6

    def teams(self) -> tuple[tuple[Colour, ...], ...]:
        """Seats alternate for allegiance: teammates sit opposite (pairs) or every other seat (triples)."""
        if "allegiance" not in self.variants:
            return ()
        cols = [p.colour for p in self.players]
        n = len(cols)
        size = 3 if n == 6 and "teams_of_three" in self.variants else 2
        groups = n // size
        return tuple(tuple(cols[i::groups]) for i in range(groups))

    def config(self) -> NewGameConfig:
        if not self.ready:
            raise ValueError("; ".join(self.problems) or "need 2 to 6 players")
        first = self.first or self.draw_first_player()
        return NewGameConfig(
            players=tuple(self.players),
            variants=frozenset(self.variants),
            map_source=self.map_source,
            artefacts=self.artefacts,
            first=first,
            seed=self.rng.randrange(2**31),
            teams=self.teams(),
        )

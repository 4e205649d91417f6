"""Stable table readings out of flickering frames.

Per-frame readings flicker: a hand crosses the table, a die is half-way into a castle, a glare spot hides
pips for a frame. `Stabilizer` turns the stream of per-frame observations into a stable reading that only
changes when the table has really changed. The rules (documented here because the app and the engine
rely on them):

1. Hysteresis. A location's new value becomes a *candidate*; it counts one frame for every consecutive
   frame in which the location is seen clearly with that same value. It may commit after `hold_frames` such
   frames.
2. Occlusion. A location that is occluded in a frame (a large skin-coloured/unknown blob over it, its tags
   missing while neighbouring tags are seen, or its reading flagged unsure) keeps its last stable value,
   and its candidate's count restarts: the value must be seen again for `hold_frames` clear frames after
   the hand has gone. A location that is simply not in view (half a board in frame) keeps its stable value
   and blocks nothing.
3. No half-made move. Knight changes commit together, as one transaction, and only when the table is quiet:
   every location with a pending change has held its candidate for `hold_frames`, no location is occluded
   in this frame and no hand is over the board (`busy`). So knights lifted out of a castle are not reported
   until they have landed on their tile and both locations have settled; the two changes then appear in the
   same reading. A location that is *unsure* in this frame (read, but a die of no player's colour or an
   unsure value: no hand) does not hold the table up: it is left out of the transaction, keeps its stable
   value and is listed in `StableTable.unsure`, which the engine does not take as evidence (ruling R80);
   the sure locations' changes commit as above. (So a castle whose dice cannot all be told apart does not
   freeze every other reading.) Nor does one read unsure in a recent frame until its new value has held
   `hold_frames` sure frames: two locations unsure in turn, each sure in the frames the other is not, would
   otherwise each hold the table up in every other frame, and nothing would ever commit.
4. Knights in flight. A transaction that lowers some player's total number of knights on the table (knights
   gone without arriving anywhere: a battle's losses, or a hand holding dice out of view) must hold for
   `loss_frames` (default three times `hold_frames`) before it commits, leaving the player time to put the
   dice down.
5. Tiles (per hex) and artefacts (per card) use rule 1 and 2 independently of knights. A tile id committed
   to a new hex leaves its old hex. An artefact that is not determined in a frame (hidden by a hand) is
   left alone.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from engine.colours import Colour
from engine.hexgrid import Hex
from engine.reading import Doubt, merge_doubts

K = TypeVar("K", bound=Hashable)
V = TypeVar("V", bound=Hashable)

Counts = tuple[tuple[Colour, int], ...]
EMPTY: Counts = ()


def counts_key(knights: Mapping[Colour, int]) -> Counts:
    """A canonical, hashable form of knights per colour (zero counts dropped, sorted by colour)."""
    return tuple(sorted(((c, int(n)) for c, n in knights.items() if n > 0), key=lambda item: item[0].value))


@dataclass(frozen=True, slots=True)
class FrameObservation:
    """What one frame showed, before stabilisation.

    `knights` holds every location seen clearly with at least one die (a clearly seen location missing from
    it is empty). `seen` lists every location whose polygon was in view this frame; `occluded` those of
    them that had an occluder; `doubts` those read but not trusted (a die of unknown colour), each with why:
    kept, not blocking. `busy` means a hand or arm is over the board somewhere.
    `artefacts` only lists artefacts whose side was determined in this frame.
    """

    frame_index: int
    tiles: Mapping[Hex, str]
    knights: Mapping[str, Mapping[Colour, int]]
    seen: frozenset[str]
    occluded: frozenset[str] = frozenset()
    busy: bool = False
    artefacts: Mapping[str, bool] = field(default_factory=dict)
    doubts: Mapping[str, Doubt] = field(default_factory=dict)

    @property
    def unsure(self) -> frozenset[str]:
        return frozenset(self.doubts)


@dataclass(frozen=True, slots=True)
class StableTable:
    """The stabilised table: what `TableReading` is made from."""

    frame_index: int
    tiles: Mapping[Hex, str]
    knights: Mapping[str, Mapping[Colour, int]]
    artefacts: Mapping[str, bool]
    doubts: Mapping[str, Doubt]  # the locations not vouched for, each with why
    changed: bool

    @property
    def unsure(self) -> frozenset[str]:
        return frozenset(self.doubts)


@dataclass(slots=True)
class _Track(Generic[V]):
    stable: V | None = None
    candidate: V | None = None
    run: int = 0
    doubted: bool = False  # unsure in a frame since its candidate last held `hold_frames` frames (rule 3)


class Hysteresis(Generic[K, V]):
    """Independent per-key hysteresis (rules 1 and 2)."""

    def __init__(self, hold_frames: int) -> None:
        if hold_frames < 1:
            raise ValueError(f"hold_frames must be >= 1, got {hold_frames!r}")
        self.hold_frames = hold_frames
        self._tracks: dict[K, _Track[V]] = {}

    def observe(self, key: K, value: V) -> None:
        track = self._tracks.setdefault(key, _Track())
        if track.candidate == value:
            track.run += 1
        else:
            track.candidate, track.run = value, 1
        if track.run >= self.hold_frames:
            track.doubted = False

    def interrupt(self, key: K, *, doubted: bool = False) -> None:
        """`key` not seen clearly in this frame: its count restarts (`doubted`: it was read, but unsure)."""
        track = self._tracks.get(key)
        if track is not None:
            track.run = 0
            track.doubted |= doubted

    def doubted(self, key: K) -> bool:
        """Read unsure in a frame since its candidate last held `hold_frames` frames."""
        track = self._tracks.get(key)
        return track is not None and track.doubted

    def pending(self) -> dict[K, tuple[V, int]]:
        """Keys whose candidate differs from their stable value, with the candidate and its run length."""
        return {
            k: (t.candidate, t.run)
            for k, t in self._tracks.items()
            if t.candidate is not None and t.candidate != t.stable
        }

    def commit(self, key: K) -> None:
        track = self._tracks[key]
        track.stable = track.candidate

    def commit_settled(self) -> list[K]:
        done = [k for k, (_v, run) in self.pending().items() if run >= self.hold_frames]
        for k in done:
            self.commit(k)
        return done

    def set_stable(self, key: K, value: V | None) -> None:
        track = self._tracks.setdefault(key, _Track())
        track.stable = value
        track.candidate, track.run = value, self.hold_frames

    def stable(self) -> dict[K, V]:
        return {k: t.stable for k, t in self._tracks.items() if t.stable is not None}

    def keys(self) -> Iterable[K]:
        return self._tracks.keys()


class Stabilizer:
    """Turns per-frame observations into stable table readings (see the module docstring for the rules)."""

    def __init__(self, hold_frames: int = 5, loss_frames: int | None = None) -> None:
        if hold_frames < 1:
            raise ValueError(f"hold_frames must be >= 1, got {hold_frames!r}")
        self.hold_frames = hold_frames
        self.loss_frames = 3 * hold_frames if loss_frames is None else loss_frames
        if self.loss_frames < hold_frames:
            raise ValueError(f"loss_frames ({self.loss_frames}) must be >= hold_frames ({hold_frames})")
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new game set-up)."""
        self._knights: Hysteresis[str, Counts] = Hysteresis(self.hold_frames)
        self._tiles: Hysteresis[Hex, str] = Hysteresis(self.hold_frames)
        self._artefacts: Hysteresis[str, bool] = Hysteresis(self.hold_frames)
        self._frame_index = -1
        self._doubts: dict[str, Doubt] = {}
        self._unseen: frozenset[str] = frozenset()

    def set_tiles(self, tiles: Mapping[Hex, str]) -> None:
        """Make `tiles` the stable map, forgetting every other (a map confirmed by the owner, or another
        table taking this one's place)."""
        self._tiles = Hysteresis(self.hold_frames)
        for h, tile in tiles.items():
            self._tiles.set_stable(h, tile)

    def seed(
        self, knights: Mapping[str, Mapping[Colour, int]], tiles: Mapping[Hex, str] | None = None
    ) -> None:
        """Start from a known table (e.g. the engine's state after set-up) instead of from nothing."""
        for loc, counts in knights.items():
            self._knights.set_stable(loc, counts_key(counts))
        for h, tile in (tiles or {}).items():
            self._tiles.set_stable(h, tile)

    # -- one frame -----------------------------------------------------------------------------------------
    def update(self, obs: FrameObservation) -> StableTable:
        self._frame_index = obs.frame_index
        changed = self._update_tiles(obs.tiles)
        changed |= self._update_artefacts(obs.artefacts)
        changed |= self._update_knights(obs)
        return self.current(changed=changed)

    def _update_tiles(self, tiles: Mapping[Hex, str]) -> bool:
        for h in set(self._tiles.keys()) - set(tiles):
            self._tiles.interrupt(h)
        for h, tile in tiles.items():
            self._tiles.observe(h, tile)
        done = self._tiles.commit_settled()
        stable = self._tiles.stable()
        for h in done:
            for other, tile in stable.items():
                if other != h and tile == stable[h]:
                    self._tiles.set_stable(other, None)
        return bool(done)

    def _update_artefacts(self, artefacts: Mapping[str, bool]) -> bool:
        for art, face_up in artefacts.items():
            self._artefacts.observe(art, face_up)
        return bool(self._artefacts.commit_settled())

    def _update_knights(self, obs: FrameObservation) -> bool:
        clear = obs.seen - obs.occluded - obs.unsure
        for loc in clear:
            self._knights.observe(loc, counts_key(obs.knights.get(loc, {})))
        for loc in obs.occluded | obs.unsure:
            self._knights.interrupt(loc, doubted=loc not in obs.occluded)
        # A location we knew about but did not see at all keeps its value and stops counting.
        for loc in set(self._knights.keys()) - obs.seen:
            self._knights.interrupt(loc)
        self._doubts = merge_doubts(dict.fromkeys(obs.occluded, Doubt.HAND), obs.doubts)
        self._unseen = frozenset(set(self._knights.keys()) - obs.seen)

        # Locations unsure in this frame, or lately and not yet held since, wait outside the transaction (rule
        # 3); they are listed as unsure.
        pending = {
            k: (v, run) for k, (v, run) in self._knights.pending().items()
            if k not in obs.unsure and not (run < self.hold_frames and self._knights.doubted(k))
        }
        if not pending or obs.busy or obs.occluded:
            return False
        if any(run < self.hold_frames for _v, run in pending.values()):
            return False
        if self._lowers_a_total(pending) and any(run < self.loss_frames for _v, run in pending.values()):
            return False
        for loc in pending:
            self._knights.commit(loc)
        return True

    def _lowers_a_total(self, pending: Mapping[str, tuple[Counts, int]]) -> bool:
        stable = self._knights.stable()
        delta: dict[Colour, int] = {}
        for loc, (candidate, _run) in pending.items():
            for colour, n in stable.get(loc, EMPTY):
                delta[colour] = delta.get(colour, 0) - n
            for colour, n in candidate:
                delta[colour] = delta.get(colour, 0) + n
        return any(d < 0 for d in delta.values())

    def current(self, *, changed: bool = False) -> StableTable:
        knights = {loc: dict(c) for loc, c in self._knights.stable().items() if c}
        pending = self._knights.pending()
        doubts = merge_doubts(
            self._doubts,
            dict.fromkeys(self._unseen & set(knights), Doubt.OUT_OF_VIEW),
            dict.fromkeys(pending, Doubt.CHANGING),
        )
        return StableTable(
            frame_index=self._frame_index,
            tiles=self._tiles.stable(),
            knights=knights,
            artefacts=self._artefacts.stable(),
            doubts=doubts,
            changed=changed,
        )

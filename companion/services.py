"""The app's service boundaries: small Protocols the presenters are written against, and the plain view values
that cross them.

Presenters never import the engine, vision or hardware directly: they receive objects satisfying these
Protocols (constructor injection). `companion.session` adapts the real engine, `companion.feeds` the vision
pipeline and `companion.rolling` the dice roller; tests pass small fakes. The views are deliberately
engine-agnostic so that the screens draw what the engine says without knowing how the rules work.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from engine.colours import Colour

# --------------------------------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class VerdictView:
    """The engine's answer to "may this happen?", ready to show: one sentence and a citation."""

    ok: bool
    sentence: str
    citation: str = ""
    reason: str = ""
    facts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TileView:
    """One tile on the map as the screen draws it."""

    id: str
    name: str
    q: int
    r: int
    kind: str  # "territory" | "lake" | "castle"
    value: int = 0
    capacity: int = 0
    ability: str = ""
    owner: Colour | None = None  # castle colour, or the controller of a territory
    knights: Mapping[Colour, int] = field(default_factory=dict)
    supplied: bool = True  # False: controlled but cut off from its castle
    in_dispute: bool = False


@dataclass(frozen=True, slots=True)
class ArtefactView:
    id: str
    name: str
    type: str  # "crown" | "sceptre" | "orb"
    face_up: bool
    destroyed_this_turn: bool = False


@dataclass(frozen=True, slots=True)
class PlayerView:
    colour: Colour
    name: str
    score: int
    castle_knights: int = 0
    reserve_dice: int = 0
    hand_size: int | None = None  # None when hands are physical and unknown
    artefacts: tuple[ArtefactView, ...] = ()
    team: int | None = None


@dataclass(frozen=True, slots=True)
class BattleView:
    territory: str
    territory_name: str
    attacker: Colour
    defender: Colour
    attacker_score: int
    defender_score: int
    stage: int  # 1..9 in the order of battle
    waiting_for: tuple[Colour, ...] = ()  # players who can act now
    support_blocked: bool = False  # mountains
    notes: tuple[str, ...] = ()  # e.g. "City: defender +1"
    result: str = ""  # after stage 6: "attacker by 2"
    attacker_card: str = "?"  # "?" to play, "hidden" face-down, else the revealed card
    defender_card: str = "?"


@dataclass(frozen=True, slots=True)
class BattleOutcome:
    """How the last battle ended, for the summary after it (cards as shown, knights lost and retreated)."""

    territory: str
    territory_name: str
    attacker: Colour
    defender: Colour
    winner: Colour | None  # None: nobody (e.g. both lost their last knights in the arena)
    attacker_score: int
    defender_score: int
    margin: int = 0
    attacker_card: str = ""
    defender_card: str = ""
    lost: tuple[tuple[Colour, int], ...] = ()  # knights lost in the battle, per player
    retreated: tuple[tuple[Colour, int], ...] = ()
    conquered: bool = False
    index: int = 0  # actions applied when it ended


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """Everything the table screen shows, derived from one engine state."""

    tiles: tuple[TileView, ...]
    players: tuple[PlayerView, ...]
    current: Colour | None
    step: int  # 1..9 in the turn overview, 0 before the first turn
    turn: int
    target: int
    battle: BattleView | None = None
    winner: tuple[Colour, ...] = ()
    index: int = 0  # number of applied actions
    hands_in_app: bool = False  # the app holds the cards (no real ones): hands are private on screen
    last_battle: BattleOutcome | None = None  # set right after the action that ended a battle

    def player(self, colour: Colour) -> PlayerView:
        for p in self.players:
            if p.colour is colour:
                return p
        raise KeyError(colour)

    def tile(self, tile_id: str) -> TileView:
        for t in self.tiles:
            if t.id == tile_id:
                return t
        raise KeyError(tile_id)


class OptionKind(Enum):
    """What a tap on an option does; lets presenters give each kind the right input (a number, a card...).
    An engine move's option has the kind its move declares (`engine.moves.MoveKind`, the same value)."""

    SIMPLE = "simple"  # apply as it is
    PLACE = "place"
    RESOURCE = "resource"
    CROWN = "crown"
    REDISTRIBUTE = "redistribute"
    ADVANCE = "advance"
    END_STEP = "end_step"
    FRACTURE = "fracture"
    PASS = "pass"
    PASS_ALL = "pass_all"  # one tap: the player asked and everyone after them pass (a fracture window)
    CONFLICT = "conflict"
    SUPPORT = "support"
    ROLL = "roll"
    ORB = "orb"
    SCEPTRE = "sceptre"
    LOSSES = "losses"
    ABILITY = "ability"


@dataclass(frozen=True, slots=True)
class Option:
    """One thing someone could do now. `action` is the engine's action object (opaque to presenters)."""

    key: str
    label: str
    kind: OptionKind
    actor: Colour | None
    enabled: bool
    verdict: VerdictView
    action: Any = None
    step: int = 0  # the turn step (1..9) or battle stage it belongs to
    value: int | None = None  # card value, knight count...
    target: str | None = None  # a location or artefact id
    target_name: str = ""


@dataclass(frozen=True, slots=True)
class EventLine:
    """One applied action in words, for the history list."""

    index: int
    text: str
    actor: Colour | None = None
    turn: int = 0


@dataclass(frozen=True, slots=True)
class RollResult:
    values: tuple[int, ...]
    source: str  # "device <id> #<seq>", "screen", "typed", "camera", "simulated"


@dataclass(frozen=True, slots=True)
class Proposal:
    """What reconciliation made of a new stable camera reading."""

    options: tuple[Option, ...] = ()  # the action(s) that explain it, all legal
    discrepancies: tuple[Discrepancy, ...] = ()
    frame_index: int = 0

    @property
    def is_discrepancy(self) -> bool:
        return bool(self.discrepancies)


@dataclass(frozen=True, slots=True)
class Discrepancy:
    location: str
    seen: Mapping[Colour, int]
    expected: Mapping[Colour, int]
    sentence: str


class FeedStatus(Enum):
    OFF = "off"
    STARTING = "starting"
    RUNNING = "running"
    NO_MAP = "no_map"
    LOST = "lost"


class RollerStatus(Enum):
    CONNECTED = "connected"
    SIMULATED = "simulated"
    NONE = "none"  # on-screen rolls only
    RECONNECTING = "reconnecting"  # the device went away; the driver reconnects by itself
    CLOSED = "closed"  # closed by the app (shutting down)


# ---------------------------------------------------------------------------------------------- protocols


@runtime_checkable
class GameSession(Protocol):
    """The engine seen from the app. Every legality question is answered by the engine behind it."""

    def snapshot(self) -> TableSnapshot: ...

    def options(self) -> list[Option]:
        """Everything worth offering now: the legal actions (enabled) and the usual-but-refused ones (greyed,
        with the engine's verdict)."""
        ...

    def check(self, action: Any) -> VerdictView: ...

    def apply(self, action: Any) -> list[EventLine]:
        """Check, apply, persist (before returning) and describe one action. Raises `RefusedError`."""
        ...

    def redistribution(self, counts: Mapping[str, int]) -> Any:
        """The engine action that leaves the player to act with these knight counts (castle and territories);
        the engine's `check` says whether it is allowed."""
        ...

    def complete(self, option: Option, values: tuple[int, ...], source: str) -> Any:
        """The engine action for a ROLL option once the dice are known (rolled by the roller, on screen or
        typed in from physical dice)."""
        ...

    def history(self) -> list[EventLine]: ...

    def undo(self) -> None: ...

    def rewind_to(self, index: int) -> None: ...

    def referee_topics(self) -> list[Option]:
        """Actions and dispute topics the referee screen lists (enabled or not), each with its verdict."""
        ...

    def propose(self, reading: Any) -> Proposal:
        """Reconcile a stable table reading against the game."""
        ...

    def score_curve(self) -> Mapping[Colour, list[int]]:
        """Victory points of each player at the end of every turn so far."""
        ...


class RefusedError(Exception):
    """The engine refused an action the user asked for; carries its verdict."""

    def __init__(self, verdict: VerdictView) -> None:
        self.verdict = verdict
        super().__init__(verdict.sentence)


@runtime_checkable
class ReadingFeed(Protocol):
    """Camera frames → stable table readings, in a worker. Callbacks are called from the worker thread; the
    UI layer marshals them through `UiClock`."""

    @property
    def status(self) -> FeedStatus: ...

    @property
    def status_text(self) -> str: ...

    def start(
        self, on_reading: Callable[[Any], None], on_status: Callable[[FeedStatus, str], None]
    ) -> None: ...

    def stop(self) -> None: ...

    def latest_preview(self) -> Any:
        """The last frame with the reading drawn on it (BGR ndarray) or None."""
        ...


@dataclass(frozen=True, slots=True)
class ConfirmedMap:
    """What the camera is told when a game starts or resumes: the map the owner confirmed (tile ids by axial
    (q, r), the game's numbering), the game's players, and whose castle is whose."""

    tiles: Mapping[tuple[int, int], str]
    players: tuple[Colour, ...] = ()
    castles: Mapping[str, Colour] = field(default_factory=dict)


@runtime_checkable
class MapConfirming(Protocol):
    """A `ReadingFeed` that can be told the game's map (`ConfirmedMap`): its camera then keeps that map and
    tracks only its own pose over it, asks about the dice of a player whose colour it never measured, and
    about a castle where it names a die another player's."""

    def confirm_map(self, game: ConfirmedMap) -> None: ...


@runtime_checkable
class Roller(Protocol):
    @property
    def status(self) -> RollerStatus: ...

    @property
    def status_text(self) -> str: ...

    def roll(self, n: int) -> RollResult:
        """Blocking (call it off the UI thread). Raises `companion.errors.RollNotTakenError` when the device
        may have rolled dice the app never received: the players roll again; nothing rolls in their place."""
        ...

    def listen(
        self,
        clock: UiClock,
        on_button: Callable[[RollResult], Any] | None = None,
        on_status: Callable[[], Any] | None = None,
        on_dropped: Callable[[int], Any] | None = None,
    ) -> None:
        """Rolls made with the device's own button, connection changes, and how many button rolls the
        device made but could not deliver (`on_dropped`), on the UI thread through `clock` (the driver reports
        them on its own thread, which must never call the roller back)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Storage(Protocol):
    """Durable record of games. Every write is committed before it returns."""

    def create_game(self, config: Mapping[str, Any], initial_state: Mapping[str, Any]) -> int: ...

    def append(
        self, game_id: int, seq: int, action: Mapping[str, Any], words: str, state: Mapping[str, Any]
    ) -> None: ...

    def truncate(self, game_id: int, keep: int) -> None:
        """Drop every record with seq >= keep (undo / rewind)."""
        ...

    def load(self, game_id: int) -> SavedGame: ...

    def unfinished(self) -> list[GameSummary]: ...

    def finish(
        self, game_id: int, scores: Mapping[str, int], names: Mapping[str, str], winners: Sequence[str]
    ) -> None: ...

    def score_history(self) -> list[PlayerRecord]: ...

    def get_setting(self, key: str, default: str) -> str: ...

    def set_setting(self, key: str, value: str) -> None: ...


@dataclass(frozen=True, slots=True)
class SavedRecord:
    seq: int
    action: Mapping[str, Any]
    words: str
    state: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SavedGame:
    id: int
    config: Mapping[str, Any]
    initial_state: Mapping[str, Any]
    records: tuple[SavedRecord, ...]


@dataclass(frozen=True, slots=True)
class GameSummary:
    id: int
    started: str
    players: tuple[str, ...]
    moves: int


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    name: str
    games: int
    wins: int
    average_points: float


class UiClock(Protocol):
    """Posts work to the UI thread (Kivy's Clock in the app; a manual queue in tests)."""

    def schedule_once(self, callback: Callable[[float], Any], timeout: float = 0) -> Any: ...


class ManualClock:
    """A UiClock for tests and headless runs: callbacks run when `advance` passes their due time."""

    def __init__(self) -> None:
        self.now = 0.0
        self._queue: list[tuple[float, int, Callable[[float], Any]]] = []
        self._n = 0

    def schedule_once(self, callback: Callable[[float], Any], timeout: float = 0) -> None:
        self._n += 1
        self._queue.append((self.now + max(0.0, timeout), self._n, callback))

    def advance(self, seconds: float = 0.0) -> int:
        """Run everything due within `seconds`; returns how many callbacks ran."""
        end = self.now + seconds
        ran = 0
        while True:
            due = sorted(item for item in self._queue if item[0] <= end)
            if not due:
                break
            item = due[0]
            self._queue.remove(item)
            self.now = max(self.now, item[0])
            item[2](0.0)
            ran += 1
        self.now = end
        return ran

    @property
    def pending(self) -> int:
        return len(self._queue)

"""The table screen: the map, every score against the target, whose turn and which step, the artefacts, and
camera's last inferred move waiting for a one-tap confirm — or a discrepancy shown on the map itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from companion.i18n import Translator
from companion.presenters.base import Presenter
from companion.presenters.battle import BATTLE_STAGES
from companion.presenters.tiles import TileDetail, tile_detail
from companion.services import (
    BattleView,
    Discrepancy,
    EventLine,
    GameSession,
    Proposal,
    RefusedError,
    TableSnapshot,
    UiClock,
    VerdictView,
)

TURN_STEPS: tuple[str, ...] = (  # translated where shown
    "Place three knights",
    "Play resources",
    "Use crowns",
    "Redistribute",
    "Advance",
    "Battle",
    "Play resources",
    "Use crowns",
    "Restore artefacts",
)


class PendingState(Enum):
    NONE = "none"
    PROPOSAL = "proposal"  # a move inferred by the camera, waiting for a tap
    DISCREPANCY = "discrepancy"  # the table and the game disagree
    WAITING_FOR_TABLE = "waiting_for_table"  # "fix the table" chosen: the next stable reading decides
    CAMERA_IGNORED = "camera_ignored"  # "the camera is wrong": readings ignored until the table changes


@dataclass(frozen=True, slots=True)
class BattleBanner:
    """A battle under way, as the table shows it (with a way into the battle screen)."""

    title: str
    attacker: tuple[Any, str, int]  # (colour, name, combat score)
    defender: tuple[Any, str, int]
    stage: str  # "Step 5 of 9: Support cards"
    waiting: str  # "Waiting for Bob"


@dataclass(frozen=True, slots=True)
class ScoreLine:
    colour: Any
    name: str
    score: int
    target: int
    current: bool

    @property
    def fraction(self) -> float:
        return min(1.0, self.score / self.target) if self.target else 0.0


class TablePresenter(Presenter):
    def __init__(
        self,
        session: GameSession,
        clock: UiClock,
        tr: Translator | None = None,
        auto_confirm: float | None = None,
        runner: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        super().__init__()
        self.runner = runner  # runs a job off the UI thread; None: inline (tests, headless)
        self._latest_reading: Any = None
        self._seen: Any = None  # the camera's last stable reading
        self._judging = False
        self.session = session
        self.clock = clock
        self.tr = tr or Translator()
        self.auto_confirm = auto_confirm  # seconds before a proposal confirms itself (demo); None = never
        self.pending = PendingState.NONE
        self.proposal: Proposal | None = None
        self.last_events: list[EventLine] = []
        self.message: VerdictView | None = None
        self.snapshot: TableSnapshot = session.snapshot()
        self._ignored_frame: int | None = None
        self._proposal_serial = 0
        self.on_game_over: Callable[[], None] | None = None
        self.setup_done = False
        self.on_applied: Callable[[list[EventLine]], None] | None = None  # a confirmed move changed the game
        self.selected_tile: str | None = None  # the tile tapped on the map, shown in detail

    # ------------------------------------------------------------------------------------------ views

    def refresh(self) -> None:
        self.snapshot = self.session.snapshot()
        self.changed()
        if self.snapshot.winner and self.on_game_over is not None:
            self.on_game_over()

    def scores(self) -> list[ScoreLine]:
        s = self.snapshot
        return [ScoreLine(p.colour, p.name, p.score, s.target, p.colour is s.current) for p in s.players]

    def turn_text(self) -> str:
        s = self.snapshot
        if s.winner:
            names = ", ".join(s.player(c).name for c in s.winner)
            return self.tr("Winner: {names}").format(names=names)
        if s.current is None:
            return ""
        name = s.player(s.current).name
        if 1 <= s.step <= len(TURN_STEPS):
            return self.tr("{name} · step {n}: {step}").format(
                name=name, n=s.step, step=self.tr(TURN_STEPS[s.step - 1])
            )
        return name

    def turn_title(self) -> str:
        """Whose turn, which turn: the line above the step track."""
        s = self.snapshot
        if s.winner:
            return self.turn_text()
        if s.current is None:
            return ""
        return self.tr("{name}'s turn, turn {n}").format(name=s.player(s.current).name, n=s.turn)

    def step_name(self) -> str:
        """The current step of the turn, named ("Step 2 of 9: Play resources")."""
        step = self.snapshot.step
        if not 1 <= step <= len(TURN_STEPS):
            return ""
        return self.tr("Step {n} of {total}: {step}").format(
            n=step, total=len(TURN_STEPS), step=self.tr(TURN_STEPS[step - 1])
        )

    def next_step_name(self) -> str:
        step = self.snapshot.step
        if not 1 <= step < len(TURN_STEPS):
            return ""
        return self.tr("Next: {step}").format(step=self.tr(TURN_STEPS[step]))

    def last_move(self) -> EventLine | None:
        """The last move applied (any kind), for the "last move" line with its undo."""
        lines = self.session.history()
        return lines[-1] if lines else None

    def battle_banner(self) -> BattleBanner | None:
        """A battle under way (e.g. a game resumed mid-battle): who fights whom, where it stands."""
        b: BattleView | None = self.snapshot.battle
        if b is None:
            return None
        snap = self.snapshot
        stage = self.tr("Step {n} of {total}: {step}").format(
            n=b.stage, total=len(BATTLE_STAGES), step=self.tr(BATTLE_STAGES[max(1, b.stage) - 1])
        )
        waiting = ", ".join(snap.player(c).name for c in b.waiting_for)
        return BattleBanner(
            self.tr("Battle for {territory}").format(territory=b.territory_name),
            (b.attacker, snap.player(b.attacker).name, b.attacker_score),
            (b.defender, snap.player(b.defender).name, b.defender_score),
            stage,
            self.tr("Waiting for {names}").format(names=waiting) if waiting else "",
        )

    # ----------------------------------------------------------------------------------- the map, tapped

    def select_tile(self, tile_id: str | None) -> None:
        """A tap on the map: show that tile's details (tapping it again closes them)."""
        self.selected_tile = None if tile_id == self.selected_tile else tile_id
        self.changed()

    def tile_detail(self) -> TileDetail | None:
        if self.selected_tile is None:
            return None
        try:
            return tile_detail(self.snapshot, self.selected_tile, self.tr)
        except KeyError:  # the tile left the map (a rewind to another game's start)
            return None

    def callouts(self) -> list[tuple[str, str]]:
        """(tile id, words) for each place where the camera and the game disagree, drawn on the map."""
        snap = self.snapshot
        names = {p.colour: p.name for p in snap.players}

        def counts(c: Any) -> str:
            parts = [f"{names.get(k, k.value)} {n}" for k, n in c.items() if n]
            return ", ".join(parts) or self.tr("nothing")

        return [
            (
                d.location,
                self.tr("Camera: {seen} · game: {expected}").format(
                    seen=counts(d.seen), expected=counts(d.expected)
                ),
            )
            for d in self.discrepancies()
            if d.location
        ]

    def setup_lines(self) -> list[str]:
        """Before the first move: what each player takes and places (step 3 artefacts, step 6 knights), so the
        table can be checked against the game; the camera flags any difference on the map."""
        s = self.snapshot
        if s.index != 0 or self.setup_done:
            return []
        out = []
        for p in s.players:
            arts = ", ".join(a.name for a in p.artefacts)
            where = [f"{t.name} {n}" for t in s.tiles for c, n in t.knights.items() if c is p.colour and n]
            out.append(
                self.tr("{name}: {artefacts}; knights: {where}").format(
                    name=p.name, artefacts=arts, where=", ".join(where)
                )
            )
        return out

    def dismiss_setup(self) -> None:
        self.setup_done = True
        self.changed()

    def highlighted_tiles(self) -> dict[str, str]:
        """tile id -> "proposal" | "discrepancy" | "battle", for the map to draw rings."""
        marks: dict[str, str] = {}
        if self.snapshot.battle is not None:
            marks[self.snapshot.battle.territory] = "battle"
        if self.proposal is not None:
            for opt in self.proposal.options:
                if opt.target:
                    marks[opt.target] = "proposal"
            for d in self.proposal.discrepancies:
                marks[d.location] = "discrepancy"
        return marks

    def discrepancies(self) -> tuple[Discrepancy, ...]:
        return self.proposal.discrepancies if self.proposal is not None else ()

    def proposal_text(self) -> str:
        if self.proposal is None:
            return ""
        if self.proposal.is_discrepancy:
            return " · ".join(d.sentence for d in self.proposal.discrepancies)
        return " + ".join(o.label for o in self.proposal.options)

    # ------------------------------------------------------------------------------------ camera flow

    def on_reading(self, reading: Any) -> None:
        """A new stable reading from the feed (on the UI thread). Reconciliation may search a few moves deep,
        so it runs through `runner` (a worker thread in the app); only the newest reading is judged."""
        self._seen = reading
        self._latest_reading = reading
        if not self._judging:
            self._judge_latest()

    def rejudge(self) -> None:
        """The game moved by taps (a battle, a card): the table the camera last saw may now lag behind it
        (knights lost, retreated, gained). Judge that reading again, so the map says what to move."""
        if self._seen is None:
            return
        if self._latest_reading is None:
            self._latest_reading = self._seen
        if not self._judging:
            self._judge_latest()

    def _judge_latest(self) -> None:
        reading, self._latest_reading = self._latest_reading, None
        if reading is None:
            return
        index = self.session.snapshot().index
        if self.runner is None:
            self._judged(reading, index, self.session.propose(reading))
            return
        self._judging = True

        def job() -> None:
            try:
                proposal = self.session.propose(reading)
            except Exception as exc:  # shown on the table, never a crash in a worker
                problem = Discrepancy("", {}, {}, f"cannot work out the move: {exc}")
                proposal = Proposal(discrepancies=(problem,))
            self.clock.schedule_once(lambda _dt: self._judged(reading, index, proposal), 0)

        self.runner(job)

    def _judged(self, reading: Any, index: int, proposal: Proposal) -> None:
        self._judging = False
        if self.session.snapshot().index != index and self._latest_reading is None:
            self._latest_reading = reading  # the game moved while we were thinking: judge it again
        if self._latest_reading is not None:
            self._judge_latest()
            return
        frame = int(getattr(reading, "frame_index", 0))
        if self.pending is PendingState.CAMERA_IGNORED and self._ignored_frame is not None:
            if proposal.is_discrepancy:
                return  # the same disagreement the players dismissed; wait for the table to change
            self._ignored_frame = None
        if not proposal.options and not proposal.discrepancies:
            if self.pending is not PendingState.NONE and self.pending is not PendingState.CAMERA_IGNORED:
                self._clear()  # the table matches the game (fixed, or the move was undone on the table)
                self.changed()
            return
        self.proposal = proposal
        self.pending = PendingState.DISCREPANCY if proposal.is_discrepancy else PendingState.PROPOSAL
        self._ignored_frame = frame if proposal.is_discrepancy else None
        self._proposal_serial += 1
        if self.pending is PendingState.PROPOSAL and self.auto_confirm is not None:
            if self.auto_confirm <= 0:  # no pause: confirmed in this frame, not after one more
                self.confirm()
                return
            serial = self._proposal_serial
            self.clock.schedule_once(lambda _dt: self._auto(serial), self.auto_confirm)
        self.changed()

    def _auto(self, serial: int) -> None:
        if serial == self._proposal_serial and self.pending is PendingState.PROPOSAL:
            self.confirm()

    def confirm(self) -> list[EventLine]:
        """The one tap: apply the inferred move (stored before it is shown)."""
        if self.proposal is None or self.pending is not PendingState.PROPOSAL:
            return []
        events: list[EventLine] = []
        try:
            for opt in self.proposal.options:
                events.extend(self.session.apply(opt.action))
        except RefusedError as exc:
            self.message = exc.verdict
        self.last_events = events
        self._clear()
        self.refresh()
        if events and self.on_applied is not None:
            self.on_applied(events)
        return events

    def dismiss_proposal(self) -> None:
        """The inferred move is wrong (someone is still moving): ignore it until the next stable reading."""
        self._clear()
        self.changed()

    def fix_table(self) -> None:
        """Players will put the table back as the game expects; the next matching reading clears the alert."""
        if self.pending is PendingState.DISCREPANCY:
            self.pending = PendingState.WAITING_FOR_TABLE
            self.changed()

    def camera_wrong(self) -> None:
        """The game is right and the camera misread: stop showing this disagreement till the table changes."""
        if self.pending in (PendingState.DISCREPANCY, PendingState.WAITING_FOR_TABLE):
            self.proposal = None
            self.pending = PendingState.CAMERA_IGNORED
            self.changed()

    def _clear(self) -> None:
        self.proposal = None
        self.pending = PendingState.NONE
        self._proposal_serial += 1

"""Small fakes of the app's services, so presenter tests drive every flow without the engine, a camera or a
roller. The fake session knows no rules: it offers what each test scripts and records what was applied."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.services import (
    BattleView,
    Discrepancy,
    EventLine,
    FeedStatus,
    Option,
    OptionKind,
    PlayerView,
    Proposal,
    RefusedError,
    RollerStatus,
    RollResult,
    TableSnapshot,
    TileView,
    VerdictView,
)
from engine.colours import Colour

R, B, Y = Colour.RED, Colour.BLUE, Colour.YELLOW
OK = VerdictView(True, "Accepted.")


def opt(
    key: str,
    kind: OptionKind = OptionKind.SIMPLE,
    actor: Colour | None = R,
    *,
    enabled: bool = True,
    sentence: str = "",
    citation: str = "",
    value: int | None = None,
    target: str | None = None,
    step: int = 0,
) -> Option:
    verdict = (
        OK if enabled else VerdictView(False, sentence or f"{key} is not allowed now.", citation or "p. 8")
    )
    return Option(key, key, kind, actor, enabled, verdict, action=key, value=value, target=target, step=step)


def tiles() -> tuple[TileView, ...]:
    return (
        TileView("K1", "Red castle", 0, 0, "castle", owner=R, knights={R: 5}),
        TileView("K2", "Blue castle", 4, -2, "castle", owner=B, knights={B: 4}),
        TileView("K3", "Yellow castle", 0, 3, "castle", owner=Y, knights={Y: 6}),
        TileView("T01", "Homelands", 1, 0, "territory", 1, 6, "homelands", owner=R, knights={R: 3}),
        TileView("T02", "Fort", 2, 0, "territory", 2, 6, "fort", owner=B, knights={B: 2}),
        TileView("T03", "Mountains", 2, 1, "territory", 3, 6, "mountains"),
        TileView("L1", "Lake", 1, 1, "lake"),
        TileView(
            "T04", "Marsh", 3, -1, "territory", 1, 6, "marshlands", owner=B, knights={B: 1}, supplied=False
        ),
    )


class FakeSession:
    """Scripted: `offer` sets the options; `apply` records the action and runs `effects[action]` if any."""

    def __init__(self) -> None:
        self.snap = TableSnapshot(
            tiles=tiles(),
            players=(PlayerView(R, "Ann", 1), PlayerView(B, "Bob", 3), PlayerView(Y, "Cy", 0)),
            current=R,
            step=1,
            turn=1,
            target=13,
        )
        self.offered: list[Option] = []
        self.applied: list[Any] = []
        self.lines: list[EventLine] = []
        self.refuse: set[str] = set()
        self.effects: dict[str, Any] = {}
        self.next_proposal: Proposal = Proposal()
        self.curve: dict[Colour, list[int]] = {R: [1, 3, 6, 13], B: [3, 3, 5, 8], Y: [0, 2, 2, 4]}
        self.completed: list[tuple[tuple[int, ...], str]] = []

    # GameSession
    def snapshot(self) -> TableSnapshot:
        return self.snap

    def options(self) -> list[Option]:
        return list(self.offered)

    def check(self, action: Any) -> VerdictView:
        if action in self.refuse:
            return VerdictView(False, f"{action} is refused.", "Make an advance, p. 11", "not_adjacent")
        return OK

    def apply(self, action: Any) -> list[EventLine]:
        if action in self.refuse:
            raise RefusedError(self.check(action))
        self.applied.append(action)
        line = EventLine(len(self.lines), f"did {action}", self.snap.current, self.snap.turn)
        self.lines.append(line)
        self.snap = replace(self.snap, index=len(self.lines))
        effect = self.effects.get(str(action))
        if effect is not None:
            effect(self)
        return [line]

    def redistribution(self, counts: Mapping[str, int]) -> Any:
        return "redistribute " + " ".join(f"{k}={v}" for k, v in sorted(counts.items()))

    def complete(self, option: Option, values: tuple[int, ...], source: str) -> Any:
        self.completed.append((values, source))
        return f"{option.action}:{'-'.join(map(str, values))}"

    def history(self) -> list[EventLine]:
        return list(self.lines)

    def undo(self) -> None:
        self.lines.pop()
        self.applied.pop()

    def rewind_to(self, index: int) -> None:
        del self.lines[index:]
        del self.applied[index:]

    def referee_topics(self) -> list[Option]:
        return [
            opt(
                "advance T03",
                OptionKind.ADVANCE,
                enabled=False,
                sentence="T03 is not adjacent.",
                citation="Make an advance, p. 11",
            ),
            opt("place 3", OptionKind.PLACE),
        ]

    def propose(self, reading: Any) -> Proposal:
        return self.next_proposal

    def score_curve(self) -> Mapping[Colour, list[int]]:
        return self.curve


def battle(
    stage: int, waiting: tuple[Colour, ...], a: int = 6, d: int = 6, cards: tuple[str, str] = ("?", "?")
) -> BattleView:
    return BattleView(
        "T02",
        "Fort",
        R,
        B,
        a,
        d,
        stage,
        waiting,
        notes=("Fort: defender +1",),
        attacker_card=cards[0],
        defender_card=cards[1],
    )


def discrepancy() -> Proposal:
    return Proposal(
        discrepancies=(Discrepancy("T02", {B: 1}, {B: 2}, "camera: 1 blue knight on the Fort; game: 2"),),
        frame_index=7,
    )


class FakeRoller:
    def __init__(
        self, values: tuple[int, ...] = (4,), fail: bool = False, error: Exception | None = None
    ) -> None:
        self.values = values
        self.fail = fail
        self.error = error
        self.calls: list[int] = []
        self.listening: tuple[Any, Any, Any] | None = None

    @property
    def status(self) -> RollerStatus:
        return RollerStatus.SIMULATED

    @property
    def status_text(self) -> str:
        return "simulated roller 53454e4553494d31 on /dev/pts/3, firmware 1.2"

    def roll(self, n: int) -> RollResult:
        self.calls.append(n)
        if self.error is not None:
            raise self.error
        if self.fail:
            raise OSError("unplugged")
        return RollResult(self.values[:n] if len(self.values) >= n else self.values * n, "simulated #1")

    def listen(
        self, clock: Any, on_button: Any = None, on_status: Any = None, on_dropped: Any = None
    ) -> None:
        self.listening = (clock, on_button, on_status)

    def close(self) -> None:
        pass


class FakeFeed:
    def __init__(self) -> None:
        self.on_reading: Any = None
        self.on_status: Any = None
        self.started = 0
        self.stopped = 0

    @property
    def status(self) -> FeedStatus:
        return FeedStatus.RUNNING

    @property
    def status_text(self) -> str:
        return "running"

    def start(self, on_reading: Any, on_status: Any) -> None:
        self.on_reading, self.on_status = on_reading, on_status
        self.started += 1

    def stop(self) -> None:
        self.stopped += 1

    def latest_preview(self) -> Any:
        return None

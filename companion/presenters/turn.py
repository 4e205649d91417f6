"""Turn guidance: the 9 turn steps as a stepper; only legal options enabled; tapping a greyed option shows the
engine's verdict and citation. The same options are the manual entry when the camera is off."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.i18n import Translator
from companion.presenters.base import Presenter
from companion.presenters.table import TURN_STEPS
from companion.services import EventLine, GameSession, Option, OptionKind, RefusedError, VerdictView


@dataclass(frozen=True, slots=True)
class StepItem:
    number: int
    title: str
    state: str  # "done" | "current" | "todo"


@dataclass(frozen=True, slots=True)
class OptionGroup:
    """Options of one kind, e.g. every advance; targets then knight counts are chosen inside it."""

    kind: OptionKind
    title: str
    options: tuple[Option, ...]

    @property
    def enabled(self) -> bool:
        return any(o.enabled for o in self.options)

    def targets(self) -> list[str]:
        seen: list[str] = []
        for o in self.options:
            if o.target is not None and o.target not in seen:
                seen.append(o.target)
        return seen


GROUP_TITLES: dict[OptionKind, str] = {
    OptionKind.PLACE: "Place knights",
    OptionKind.RESOURCE: "Resource card",
    OptionKind.CROWN: "Crown",
    OptionKind.REDISTRIBUTE: "Redistribute",
    OptionKind.ADVANCE: "Advance",
    OptionKind.END_STEP: "Next step",
    OptionKind.FRACTURE: "Fracture",
    OptionKind.PASS: "Pass",
    OptionKind.SIMPLE: "Other",
}


class TurnPresenter(Presenter):
    def __init__(
        self,
        session: GameSession,
        tr: Translator | None = None,
        on_applied: Callable[[list[EventLine]], None] | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.tr = tr or Translator()
        self.on_applied = on_applied
        self.explanation: VerdictView | None = None
        self.selected_group: OptionKind | None = None
        self.selected_target: str | None = None
        self.editing: dict[str, int] | None = None  # the redistribution being set up, place -> knights
        self._editing_start: dict[str, int] = {}
        self._names: dict[str, str] = {}
        self._supplied: dict[str, bool] = {}
        self._options: list[Option] = []
        self.reload()

    def reload(self) -> None:
        self._options = [o for o in self.session.options() if o.kind not in _BATTLE_KINDS]
        if self.selected_group is not None and not any(o.kind is self.selected_group for o in self._options):
            self.selected_group = None
            self.selected_target = None
            self.editing = None
        self.changed()

    # ------------------------------------------------------------------------------------------ views

    def steps(self) -> list[StepItem]:
        current = self.session.snapshot().step
        out = []
        for i, title in enumerate(TURN_STEPS, start=1):
            state = "done" if i < current else "current" if i == current else "todo"
            out.append(StepItem(i, self.tr(title), state))
        return out

    def quick(self) -> list[Option]:
        """One-tap options shown on their own, above the groups ("Nobody else plays a fracture card")."""
        return [o for o in self._options if o.kind is OptionKind.PASS_ALL]

    def groups(self) -> list[OptionGroup]:
        order: list[OptionKind] = []
        for o in self._options:
            if o.kind is OptionKind.PASS_ALL:
                continue
            if o.kind not in order:
                order.append(o.kind)
        return [
            OptionGroup(
                k, self.tr(GROUP_TITLES.get(k, k.value)), tuple(o for o in self._options if o.kind is k)
            )
            for k in order
        ]

    def target_choices(self) -> list[tuple[str, str, bool, Option]]:
        """For a group with targets (advances, fractures) and none chosen yet: one button per target —
        (target id, its name, any option enabled, a representative option whose verdict explains a grey)."""
        if self.selected_group is None or self.selected_target is not None:
            return []
        group = [o for o in self._options if o.kind is self.selected_group]
        if not any(o.target for o in group) or len(group) <= 6:
            return []
        out: list[tuple[str, str, bool, Option]] = []
        for target in dict.fromkeys(o.target for o in group if o.target):
            opts = [o for o in group if o.target == target]
            enabled = [o for o in opts if o.enabled]
            rep = enabled[0] if enabled else opts[0]
            out.append((target, rep.target_name or target, bool(enabled), rep))
        return out

    def tap_target(self, target: str, representative: Option) -> None:
        """A target button: narrow down to it when possible, else say why nothing can be done there."""
        if any(o.enabled for o in self._options if o.target == target and o.kind is self.selected_group):
            self.explanation = None
            self.select_target(target)
        else:
            self.explanation = representative.verdict
            self.changed()

    def visible_options(self) -> list[Option]:
        """What the option area shows now: a group's targets narrowed down, or one button per option."""
        opts = self._options
        if self.selected_group is not None:
            opts = [o for o in opts if o.kind is self.selected_group]
            if self.selected_target is not None:
                opts = [o for o in opts if o.target == self.selected_target]
        return opts

    # ----------------------------------------------------------------------------------------- input

    def select_group(self, kind: OptionKind | None) -> None:
        self.selected_group = kind
        self.selected_target = None
        self.explanation = None
        self.editing = None
        if kind is OptionKind.REDISTRIBUTE:
            self.start_redistribution()
        self.changed()

    # ---------------------------------------------------------------------------- redistribution editor

    def start_redistribution(self) -> None:
        """Counts per place (castle first, then territories) for the player to act, to set with + and -."""
        snap = self.session.snapshot()
        who = snap.current
        rows: dict[str, int] = {}
        for t in sorted(snap.tiles, key=lambda t: (t.kind != "castle", t.name)):
            n = t.knights.get(who, 0) if who is not None else 0
            if (t.kind == "castle" and t.owner is who) or (t.kind == "territory" and n > 0):
                rows[t.id] = n
        self.editing = rows
        self._editing_start = dict(rows)
        self._names = {t.id: t.name for t in snap.tiles}
        self._supplied = {t.id: t.supplied for t in snap.tiles}

    def editor_rows(self) -> list[tuple[str, str, int, int, bool]]:
        """(place id, name, count now, count before, supplied) for every place in the editor."""
        if self.editing is None:
            return []
        return [
            (loc, self._names.get(loc, loc), n, self._editing_start[loc], self._supplied.get(loc, True))
            for loc, n in self.editing.items()
        ]

    def adjust(self, loc: str, delta: int) -> None:
        if self.editing is None or loc not in self.editing:
            return
        self.editing[loc] = max(0, self.editing[loc] + delta)
        self.changed()

    def moved(self) -> int:
        """Knights still to place (+) or placed too many (-): the total stays the same (p.9)."""
        if self.editing is None:
            return 0
        return sum(self._editing_start.values()) - sum(self.editing.values())

    def redistribution_verdict(self) -> VerdictView:
        """The engine's answer for the layout as it stands (shown live under the editor)."""
        if self.editing is None:
            return VerdictView(False, "")
        return self.session.check(self.session.redistribution(self.editing))

    def apply_redistribution(self) -> list[EventLine]:
        if self.editing is None:
            return []
        verdict = self.redistribution_verdict()
        if not verdict.ok:
            self.explanation = verdict
            self.changed()
            return []
        try:
            events = self.session.apply(self.session.redistribution(self.editing))
        except RefusedError as exc:
            self.explanation = exc.verdict
            self.changed()
            return []
        self.editing = None
        self.selected_group = None
        self.explanation = None
        self.reload()
        if self.on_applied is not None:
            self.on_applied(events)
        return events

    def select_target(self, target: str | None) -> None:
        self.selected_target = target
        self.changed()

    def tap(self, option: Option) -> list[EventLine]:
        """Enabled: apply it (persisted first). Greyed: say why, with the citation; nothing changes."""
        if not option.enabled:
            self.explanation = option.verdict
            self.changed()
            return []
        try:
            events = self.session.apply(option.action)
        except RefusedError as exc:  # the state moved under us (e.g. a camera move was confirmed)
            self.explanation = exc.verdict
            self.reload()
            return []
        self.explanation = None
        self.selected_group = None
        self.selected_target = None
        self.reload()
        if self.on_applied is not None:
            self.on_applied(events)
        return events


_BATTLE_KINDS = frozenset(
    {
        OptionKind.CONFLICT,
        OptionKind.SUPPORT,
        OptionKind.ROLL,
        OptionKind.ORB,
        OptionKind.SCEPTRE,
        OptionKind.LOSSES,
        OptionKind.ABILITY,
    }
)

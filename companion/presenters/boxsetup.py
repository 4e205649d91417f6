"""Box setup (once per box, changeable later): confirm each territory's value and capacity against the owner's
tiles starting from the default guesses, print the sticker sheet, calibrate the players' dice colours: each
player puts one of their dice on their own castle, one tap measures them all with the camera (off the UI
thread), another saves the colours, and the camera uses them from then on."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from companion.engine_text import EngineText
from companion.i18n import N_, Translator
from companion.presenters.base import Presenter
from companion.services import UiClock

if TYPE_CHECKING:
    from companion.calibrate import ColourReport


@dataclass(frozen=True, slots=True)
class BoxRow:
    id: str
    name: str
    kind: str
    value: int
    capacity: int
    guessed: bool  # still our guess: the owner has not confirmed it


@dataclass(frozen=True, slots=True)
class CalibrationStatus:
    """Where the dice-colour calibration stands (colour values, e.g. "red")."""

    measured: tuple[str, ...] = ()  # measured in this session
    notes: tuple[str, ...] = ()  # what the last measurement could not do (no die on a castle...)
    problems: tuple[str, ...] = ()  # why some colours cannot be saved yet (the others can)
    saved: tuple[str, ...] = ()  # measured colours in the saved calibration the camera uses
    # every colour's state, sentences and picture of what was measured (`companion.calibrate.ColourReport`)
    reports: tuple[ColourReport, ...] = ()


class BoxService(Protocol):
    def rows(self) -> list[BoxRow]: ...

    def save(self, document: Mapping[str, Any]) -> list[str]:
        """Validate and store a box document; returns every problem (empty when saved)."""
        ...

    def print_stickers(self) -> str:
        """Write the printable sticker sheet; returns its path."""
        ...

    def calibration_status(self) -> CalibrationStatus: ...

    def measure_dice(self) -> CalibrationStatus:
        """Blocking: measure the dice standing on the castles in the camera's latest frame."""
        ...

    def save_calibration(self) -> CalibrationStatus:
        """Save the measured colours and hand them to the camera reader (unless there are problems)."""
        ...


LIMITS = {"value": (1, 3), "capacity": (1, 12)}


class BoxSetupPresenter(Presenter):
    def __init__(
        self,
        service: BoxService,
        clock: UiClock | None = None,
        tr: Translator | None = None,
        runner: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        super().__init__()
        self.service = service
        self.clock = clock
        self.tr = tr or Translator()
        self.runner = runner  # runs a job off the UI thread; None: inline (tests)
        self._rows: list[BoxRow] = service.rows()
        self._original = {r.id: r for r in self._rows}
        self.status = ""
        self.tone = "info"  # "good" | "warn" | "info": how the status line is coloured
        self.problems: list[str] = []
        self.calibrating = False
        self.measuring = False
        self.printing = False
        self.dirty = False  # changes not saved yet
        self.calibration = CalibrationStatus()

    def rows(self) -> list[BoxRow]:
        """The rows as shown: names in the active language (`tr.kind(row.kind)` names the kind)."""
        return [replace(r, name=self.tr.territory(r.name)) for r in self._rows]

    def adjust(self, row_id: str, field_name: str, delta: int) -> None:
        lo, hi = LIMITS[field_name]
        self._rows = [
            replace(r, **{field_name: min(hi, max(lo, getattr(r, field_name) + delta)), "guessed": False})
            if r.id == row_id
            else r
            for r in self._rows
        ]
        self.dirty = True
        self.changed()

    def confirm(self, row_id: str) -> None:
        """The tile matches the guess: tap to confirm, no typing."""
        self._rows = [replace(r, guessed=False) if r.id == row_id else r for r in self._rows]
        self.dirty = True
        self.changed()

    def document(self) -> dict[str, Any]:
        entries = []
        for r in self._rows:
            o = self._original[r.id]
            entry: dict[str, Any] = {"id": r.id}
            if r.value != o.value:
                entry["value"] = r.value
            if r.capacity != o.capacity:
                entry["capacity"] = r.capacity
            if not r.guessed and o.guessed:
                entry["confirmed"] = [f for f in ("value", "capacity") if f not in entry]
            if len(entry) > 1:
                entries.append(entry)
        return {"format": "seneschal-box", "version": 1, "territories": entries}

    def unconfirmed(self) -> int:
        """Tiles still showing our guess."""
        return sum(1 for r in self._rows if r.guessed)

    def _say(self, text: str, tone: str = "info") -> None:
        self.status, self.tone = text, tone
        self.changed()

    def save(self) -> bool:
        self.problems = self.service.save(self.document())
        if self.problems:
            self._say("; ".join(self.problems), "warn")
        else:
            self.dirty = False
            self._say(self.tr("Saved: the games on this tablet use these values now."), "good")
        return not self.problems

    def print_stickers(self) -> None:
        """Write the sticker sheet for the box as saved (off the UI thread: it renders every sticker)."""
        if self.printing or (self.dirty and not self.save()):
            return  # unsaved changes are saved first: the sheet is printed from the box as saved
        self.printing = True
        self._say(self.tr("Writing the sticker sheet..."))

        def job() -> None:
            try:
                path, problem = self.service.print_stickers(), ""
            except Exception as exc:  # shown, never a crash: vision may be missing on this tablet
                path, problem = "", str(exc) or type(exc).__name__
            self._post(lambda: self._printed(path, problem))

        self._run(job)

    def _printed(self, path: str, problem: str) -> None:
        self.printing = False
        if problem:
            self._say(self.tr("Cannot write the sticker sheet: {error}").format(error=problem), "warn")
        else:
            self._say(self.tr("Sticker sheet written: {path}").format(path=path), "good")

    def _run(self, job: Callable[[], None]) -> None:
        if self.runner is None:
            job()
        else:
            self.runner(job)

    def _post(self, fn: Callable[[], None]) -> None:
        if self.clock is None:
            fn()
        else:
            self.clock.schedule_once(lambda _dt: fn(), 0)

    # ---------------------------------------------------------------------------------- dice colours

    def instruction(self) -> str:
        """The one instruction of the dice-colour step."""
        return self.tr(
            "Each player: put three of your dice on your own castle (one will do), then tap Measure."
        )

    def start_calibration(self) -> None:
        self.calibrating = True
        try:
            self.calibration = self.service.calibration_status()
        except Exception as exc:  # shown, never a crash
            self.calibration = CalibrationStatus(notes=(str(exc),))
        self.status, self.tone = "", "info"  # the instruction is the step's heading, said once
        self.changed()

    def stop_calibration(self) -> None:
        self.calibrating = False
        self.status, self.tone = "", "info"
        self.changed()

    def measure(self) -> None:
        """Measure the dice on the castles now (the camera's latest frame), off the UI thread."""
        if self.measuring:
            return
        self.measuring = True
        self._say(self.tr("Measuring..."))

        def job() -> None:
            try:
                result = self.service.measure_dice()
            except Exception as exc:  # a camera problem is a status line
                result = CalibrationStatus(notes=(f"cannot measure the dice: {exc}",))
            self._post(lambda: self._measured(result))

        self._run(job)

    def _measured(self, result: CalibrationStatus) -> None:
        self.measuring = False
        self.calibration = result
        self._say(
            self._calibration_sentence(result),
            "warn" if result.problems or result.notes or not result.measured else "good",
        )

    def can_save_calibration(self) -> bool:
        """A colour measured well can be saved, whatever another's refusal says (that one is asked about at
        play until it is measured well)."""
        return bool(self.calibration.measured)

    def save_calibration(self) -> bool:
        """Save the colours measured well (True when some were); say which were not, and why."""
        try:
            result = self.service.save_calibration()
        except Exception as exc:
            self.calibration = CalibrationStatus(
                self.calibration.measured, (), (str(exc),), self.calibration.saved, self.calibration.reports
            )
            self._say(self._calibration_sentence(self.calibration), "warn")
            return False
        self.calibration = result
        ok = bool(result.saved)
        if ok and not result.problems:
            self._say(self.tr("Dice colours saved: the camera uses them now."), "good")
        elif ok:
            said = self.tr("Dice colours saved, but not these: {why}. The camera asks about their dice.")
            self._say(said.format(why=self._calibration_sentence(result)), "warn")
        else:
            self._say(self._calibration_sentence(result), "warn")
        return ok

    def _calibration_sentence(self, c: CalibrationStatus) -> str:
        said = EngineText(self.tr, lambda _id: None, self.tr.colour)  # calibrate.py speaks English
        problems = [said.sentence(p) for p in c.problems]
        notes = [said.sentence(n) for n in c.notes]
        if problems:
            return "; ".join(problems)
        if c.measured:
            text = self.tr("Measured: {colours}.").format(
                colours=", ".join(self.tr(x.capitalize()) for x in c.measured)
            )
            return text + (" " + _sentence_case("; ".join(notes)) if notes else "")
        return "; ".join(notes) or self.tr("No die found on a castle.")

    @staticmethod
    def state_word(state: str) -> str:
        """The English word (a msgid) for a colour's state (`companion.calibrate.ColourState` value)."""
        return STATE_WORDS[state]

    def calibration_rows(self) -> list[tuple[str, str]]:
        """(colour value, state) for every colour of the box: a `companion.calibrate.ColourState` value
        ("measured", "refused", "no-die", "not-in-view", "not-on-map", "saved", "not-measured")."""
        if self.calibration.reports:
            return [(r.colour.value, r.state.value) for r in self.calibration.reports]
        out = []
        for colour in ("red", "blue", "yellow", "green", "white", "black"):
            if colour in self.calibration.measured:
                state = "measured"
            elif colour in self.calibration.saved:
                state = "saved"
            else:
                state = "not-measured"
            out.append((colour, state))
        return out

    def calibration_reports(self) -> tuple[ColourReport, ...]:
        """Every colour's report for the screen: state, sentences (why a measurement is refused), how many
        dice, and the picture of what was measured (PNG bytes) when there is one."""
        return self.calibration.reports


# What the dice-colour step says of each colour (`companion.calibrate.ColourState` values).
STATE_WORDS: dict[str, str] = {
    "measured": N_("measured"),
    "saved": N_("saved"),
    "refused": N_("refused"),
    "no-die": N_("no die"),
    "not-in-view": N_("not in view"),
    "not-on-map": N_("castle not found"),
    "not-measured": N_("not measured"),
}


def _sentence_case(text: str) -> str:
    """`text` starting with a capital, as a sentence after a full stop does."""
    return text[:1].upper() + text[1:]

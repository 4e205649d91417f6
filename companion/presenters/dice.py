"""The dice panel: roller connected / simulated / none, roll buttons, the last rolls as dice faces with who
rolled, for what and where the dice came from (the roller, the tablet, typed in, the camera), and the
session's fairness: how often each face came up against a fair die (a chi-squared test), one tap away."""

from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass
from enum import Enum

from companion.errors import RollNotTakenError
from companion.i18n import N_, Translator
from companion.presenters.base import Presenter
from companion.services import Roller, RollerStatus, RollResult, UiClock
from companion.status_text import say
from engine.colours import Colour

DROPPED = N_("Button rolls that never reached the tablet: {count}. Roll those again.")
FAIRNESS_MIN_DICE = 30  # fewer dice than this say nothing about a die's fairness
CHI2_CRITICAL_5DF = 11.07  # 5 degrees of freedom, 5% level


class RollSource(Enum):
    ROLLER = "roller"
    BUTTON = "button"  # the roller's own button
    SCREEN = "screen"
    TYPED = "typed"
    CAMERA = "camera"
    SIMULATED = "simulated"

    @classmethod
    def of(cls, source: str) -> RollSource:
        """From a roll's recorded source ("device <id> #<seq>", "device <id> button #<seq>", "screen"...)."""
        words = source.lower().split()
        head = words[0] if words else ""
        if head == "device":
            return cls.BUTTON if "button" in words else cls.ROLLER
        try:
            return cls(head.split("#", 1)[0])
        except ValueError:
            return cls.SIMULATED


SOURCE_WORDS: dict[RollSource, str] = {  # translated where shown
    RollSource.ROLLER: N_("Dice roller"),
    RollSource.BUTTON: N_("Roller's button"),
    RollSource.SCREEN: N_("Rolled on the tablet"),
    RollSource.TYPED: N_("Typed in"),
    RollSource.CAMERA: N_("Read by the camera"),
    RollSource.SIMULATED: N_("Simulated"),
}


STATUS_WORDS: dict[RollerStatus, str] = {
    RollerStatus.CONNECTED: N_("The dice roller is connected."),
    RollerStatus.SIMULATED: N_("A simulated dice roller is in use."),
    RollerStatus.NONE: N_("No dice roller: dice are rolled on the tablet."),
    RollerStatus.RECONNECTING: N_("The dice roller went away: reconnecting..."),
    RollerStatus.CLOSED: N_("The dice roller is closed."),
}


@dataclass(frozen=True, slots=True)
class RollEntry:
    values: tuple[int, ...]
    source: RollSource
    detail: str  # the roll's number on the device ("#12"), its id for the curious
    who: Colour | None = None
    purpose: str = ""  # "Roll a die for the arena"


@dataclass(frozen=True, slots=True)
class Fairness:
    counts: tuple[int, int, int, int, int, int]  # faces 1..6
    dice: int
    chi2: float
    p_value: float

    @property
    def enough(self) -> bool:
        return self.dice >= FAIRNESS_MIN_DICE

    @property
    def suspicious(self) -> bool:
        return self.enough and self.chi2 > CHI2_CRITICAL_5DF


def chi2_p_value_5df(x: float) -> float:
    """P(chi-squared with 5 degrees of freedom >= x), exactly (odd degrees of freedom have a closed form)."""
    if x <= 0:
        return 1.0
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3)


def fairness(values: list[int]) -> Fairness:
    counts = [0] * 6
    for v in values:
        if 1 <= v <= 6:
            counts[v - 1] += 1
    n = sum(counts)
    expected = n / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts) if n else 0.0
    c = counts
    return Fairness((c[0], c[1], c[2], c[3], c[4], c[5]), n, chi2, chi2_p_value_5df(chi2) if n else 1.0)


class DicePresenter(Presenter):
    """The status follows the roller's connection events (`roller_changed`, posted to the UI thread)."""

    def __init__(
        self,
        roller: Roller,
        clock: UiClock,
        keep: int = 12,
        threaded: bool = True,
        tr: Translator | None = None,
    ) -> None:
        super().__init__()
        self.roller = roller
        self.clock = clock
        self.tr = tr or Translator()
        self.threaded = threaded
        self.rolls: deque[RollResult] = deque(maxlen=keep)  # the raw results, newest first
        self.entries: deque[RollEntry] = deque(maxlen=keep)  # the same, as shown
        self.faces: dict[RollSource, list[int]] = {}  # every die of this session, by source
        self.busy = False
        self.error = ""
        self.show_fairness = False

    @property
    def status(self) -> RollerStatus:
        return self.roller.status

    @property
    def status_text(self) -> str:
        """The roller's own word on its state (port, device, firmware, what went wrong), in words."""
        return say(self.tr, self.roller.status_text)

    def button_rolls_dropped(self, count: int) -> None:
        """The roller made `count` button rolls that never reached the tablet (UI thread): say so."""
        self.error = self.tr(DROPPED).format(count=count)
        self.changed()

    def status_words(self) -> str:
        return self.tr(STATUS_WORDS[self.status])

    def roller_changed(self) -> None:
        """The roller connected, went away, reconnected or restarted (on the UI thread)."""
        self.changed()

    def record(self, result: RollResult, who: Colour | None = None, purpose: str = "") -> None:
        """Rolls made elsewhere (battle wizard, button on the device) show up here too."""
        source = RollSource.of(result.source)
        detail = next((w for w in result.source.split() if w.startswith("#")), "")
        self.rolls.appendleft(result)
        self.entries.appendleft(RollEntry(tuple(result.values), source, detail, who, purpose))
        self.faces.setdefault(source, []).extend(result.values)
        self.changed()

    def source_words(self, entry: RollEntry) -> str:
        words = self.tr(SOURCE_WORDS[entry.source])
        return f"{words} {entry.detail}" if entry.detail else words

    def fairness(self, sources: tuple[RollSource, ...] = (RollSource.ROLLER, RollSource.BUTTON)) -> Fairness:
        """The session's dice from these sources (by default the roller's) against a fair die."""
        return fairness([v for s in sources for v in self.faces.get(s, [])])

    def fairness_sentence(self, f: Fairness) -> str:
        if not f.enough:
            return self.tr("{n} dice so far: at least {min} are needed to judge the dice.").format(
                n=f.dice, min=FAIRNESS_MIN_DICE
            )
        if f.suspicious:
            uneven = self.tr(
                "Chi-squared {chi2:.1f} (p = {p:.3f}): faces this uneven are rare; check the roller."
            )
            return uneven.format(chi2=f.chi2, p=f.p_value)
        return self.tr("Chi-squared {chi2:.1f} (p = {p:.2f}): no sign of a biased die.").format(
            chi2=f.chi2, p=f.p_value
        )

    def toggle_fairness(self) -> None:
        self.show_fairness = not self.show_fairness
        self.changed()

    def roll(self, n: int = 1) -> None:
        if self.busy:
            return
        self.busy = True
        self.error = ""
        self.changed()

        def work() -> None:
            try:
                result = self.roller.roll(n)
                self.clock.schedule_once(lambda _dt: self._done(result, ""), 0)
            except RollNotTakenError:  # the display may show dice that do not count
                text = self.tr(RollNotTakenError.SENTENCE)
                self.clock.schedule_once(lambda _dt: self._done(None, text), 0)
            except Exception as exc:  # shown as a status, never a crash
                text = str(exc) or type(exc).__name__
                self.clock.schedule_once(lambda _dt: self._done(None, text), 0)

        if self.threaded:
            threading.Thread(target=work, name="dice-roll", daemon=True).start()
        else:
            work()

    def _done(self, result: RollResult | None, error: str) -> None:
        self.busy = False
        self.error = error
        if result is not None:
            self.record(result)
        else:
            self.changed()

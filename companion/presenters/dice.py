"""The dice panel: roller connected / simulated / none, a roll button, the last rolls with their source."""

from __future__ import annotations

import threading
from collections import deque

from companion.errors import RollNotTakenError
from companion.i18n import N_, Translator
from companion.presenters.base import Presenter
from companion.services import Roller, RollerStatus, RollResult, UiClock

DROPPED = N_("Button rolls that never reached the tablet: {count}. Roll those again.")


class DicePresenter(Presenter):
    """The status follows the roller's connection events (`roller_changed`, posted to the UI thread)."""

    def __init__(
        self,
        roller: Roller,
        clock: UiClock,
        keep: int = 8,
        threaded: bool = True,
        tr: Translator | None = None,
    ) -> None:
        super().__init__()
        self.roller = roller
        self.clock = clock
        self.tr = tr or Translator()
        self.threaded = threaded
        self.rolls: deque[RollResult] = deque(maxlen=keep)
        self.busy = False
        self.error = ""

    @property
    def status(self) -> RollerStatus:
        return self.roller.status

    @property
    def status_text(self) -> str:
        return self.roller.status_text

    def roller_changed(self) -> None:
        """The roller connected, went away, reconnected or restarted (on the UI thread)."""
        self.changed()

    def button_rolls_dropped(self, count: int) -> None:
        """The roller made `count` button rolls that never reached the tablet (UI thread): say so."""
        self.error = self.tr(DROPPED).format(count=count)
        self.changed()

    def record(self, result: RollResult) -> None:
        """Rolls made elsewhere (battle wizard, button on the device) show up here too."""
        self.rolls.appendleft(result)
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
            self.rolls.appendleft(result)
        self.changed()

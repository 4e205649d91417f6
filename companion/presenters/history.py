"""History: every event in words; undo; rewind to any point after a confirmation."""

from __future__ import annotations

from collections.abc import Callable

from companion.i18n import Translator
from companion.presenters.base import Presenter
from companion.services import EventLine, GameSession


class HistoryPresenter(Presenter):
    def __init__(
        self,
        session: GameSession,
        tr: Translator | None = None,
        on_changed_game: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.tr = tr or Translator()
        self.on_changed_game = on_changed_game
        self.lines: list[EventLine] = []
        self.confirming: EventLine | None = None  # the rewind target awaiting "yes"
        self.reload()

    def reload(self) -> None:
        self.lines = self.session.history()
        self.changed()

    def can_undo(self) -> bool:
        return bool(self.lines)

    def undo(self) -> None:
        if not self.lines:
            return
        self.session.undo()
        self._done()

    def ask_rewind(self, line: EventLine) -> str:
        """First tap: ask. Returns the question to show."""
        self.confirming = line
        self.changed()
        undone = len(self.lines) - line.index - 1
        return self.tr("Go back to just after this? {n} later moves will be undone.").format(n=undone)

    def confirm_rewind(self) -> None:
        if self.confirming is None:
            return
        target = self.confirming.index + 1  # keep this event, drop everything after it
        self.confirming = None
        self.session.rewind_to(target)
        self._done()

    def cancel_rewind(self) -> None:
        self.confirming = None
        self.changed()

    def _done(self) -> None:
        self.reload()
        if self.on_changed_game is not None:
            self.on_changed_game()

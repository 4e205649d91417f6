"""History: every move in words, newest first, turn by turn; undo; rewind to any point after a question."""

from __future__ import annotations

from functools import partial
from typing import Any

from companion.controls import Panel, button, text
from companion.presenters.history import HistoryPresenter
from companion.screens.base import BaseScreen
from companion.theme import PALETTE, THEME
from companion.widgets import ShapeMark


class HistoryScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        h: HistoryPresenter | None = app.history
        if h is None:
            return
        tr = self.tr
        self.ids.undo.greyed = not h.can_undo()
        asking = h.confirming is not None
        box = self.ids.confirm_box
        box.opacity = 1 if asking else 0
        box.disabled = not asking
        box.height = THEME.tap + THEME.px(16) if asking else 0
        shown = h.lines[-80:]
        if not self.changed_key("lines", (tuple(shown), app.lang)):
            return
        lines = self.ids.lines
        lines.clear_widgets()
        turn = None
        for line in reversed(shown):
            if line.turn != turn:
                turn = line.turn
                lines.add_widget(
                    text(tr("Turn {n}").format(n=turn), "caption", bold=True, color=PALETTE.accent)
                )
            lines.add_widget(self._row(h, line))
        if not shown:
            lines.add_widget(text(tr("No moves yet."), "body", color=PALETTE.text_dim))

    def _row(self, h: HistoryPresenter, line: Any) -> Panel:
        tr = self.tr
        card = Panel(orientation="horizontal", size_hint_y=None, padding=(THEME.pad, THEME.px(4)))
        if line.actor is not None:
            card.add_widget(ShapeMark(colour=line.actor.value, size_hint_x=None, width=THEME.px(28)))
        words = text(f"{line.index + 1}. {line.text}", "body", size_hint_y=1)
        card.add_widget(words)
        card.add_widget(
            button(
                tr("Back to here"),
                partial(self._ask, line),
                role="quiet",
                size_hint_x=None,
                width=THEME.px(170),
                height=THEME.px(48),
                pos_hint={"center_y": 0.5},
            )
        )
        card.height = THEME.row
        words.bind(texture_size=lambda _w, ts: setattr(card, "height", max(THEME.row, ts[1] + THEME.px(14))))
        return card

    def _ask(self, line: Any) -> None:
        self.ids.question.text = self.app_ref.history.ask_rewind(line)

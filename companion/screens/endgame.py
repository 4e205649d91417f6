"""End of game: the winner, every player's points over the turns, the final ranking and the score history."""

from __future__ import annotations

from companion.controls import Panel, row, text
from companion.presenters.endgame import EndGamePresenter
from companion.screens.base import BaseScreen
from companion.theme import PALETTE, THEME
from companion.widgets import ShapeMark


class EndGameScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        e: EndGamePresenter | None = app.endgame
        if e is None:
            return
        tr = self.tr
        self.ids.winner.text = e.headline()
        chart = self.ids.chart
        chart.words = {"turn": tr("Turn"), "target": tr("Target {n}")}
        chart.target = app.session.snapshot().target
        chart.curves = e.curves()
        records = e.save()
        ranking = e.ranking()
        if not self.changed_key("lists", (tuple(records), tuple(ranking), app.lang)):
            return
        box = self.ids.ranking
        box.clear_widgets()
        for place, colour, name, points in ranking:
            card = Panel(
                orientation="horizontal",
                size_hint_y=None,
                height=THEME.row,
                padding=(THEME.pad, THEME.px(4)),
                edge=list(PALETTE.accent if place == 1 else (0, 0, 0, 0)),
            )
            card.add_widget(text(f"{place}.", "label", bold=True, size_hint=(None, 1), width=THEME.px(34)))
            card.add_widget(ShapeMark(colour=colour.value, size_hint_x=None, width=THEME.px(32)))
            card.add_widget(text(name, "label", bold=True, size_hint_y=1))
            card.add_widget(
                text(
                    str(points), "heading", bold=True, halign="right", size_hint=(None, 1), width=THEME.px(60)
                )
            )
            box.add_widget(card)
        rec_box = self.ids.records
        rec_box.clear_widgets()
        for rec in records:
            line = row(None, spacing=THEME.gap)
            name = text(rec.name, "body", bold=True, size_hint=(0.35, None))
            words = text(e.record_text(rec), "body", color=PALETTE.text_dim, size_hint=(0.65, None))
            line.add_widget(name)
            line.add_widget(words)
            line.height = max(THEME.px(32), words.height)
            words.bind(height=lambda _w, h, ln=line: setattr(ln, "height", max(THEME.px(32), h)))
            rec_box.add_widget(line)

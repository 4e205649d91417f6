"""The dice panel: the roller's state, roll buttons, the last rolls as dice faces with who rolled, for what
and where the dice came from; and one tap away, the session's fairness (faces counted, chi-squared)."""

from __future__ import annotations

from typing import Any

from kivy.uix.boxlayout import BoxLayout
from kivy.utils import escape_markup

from companion.controls import Panel, panel, row, text
from companion.presenters.dice import DicePresenter, RollEntry
from companion.screens.base import BaseScreen
from companion.theme import PALETTE, THEME
from companion.widgets import DieFace, FaceBars, ShapeMark


class DiceScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        d: DicePresenter | None = app.dice
        if d is None:
            return
        tr = self.tr
        self.ids.status.text = (
            f"{d.status_words()}\n[size={int(THEME.caption)}]{escape_markup(d.status_text)}[/size]"
        )
        self.ids.error.text = d.error
        self.ids.fairness_button.text = tr("Last rolls") if d.show_fairness else tr("Fairness of the dice")
        self.ids.right_title.text = tr("Fairness of the dice") if d.show_fairness else tr("Last rolls")
        names = {}
        if app.session is not None:
            names = {p.colour: p.name for p in app.session.snapshot().players}
        key = (d.show_fairness, tuple(d.entries), app.lang, tuple(names.items()))
        if not self.changed_key("rolls", key):
            return
        box = self.ids.rolls
        box.clear_widgets()
        if d.show_fairness:
            self._fairness(d, box)
            return
        if not d.entries:
            box.add_widget(text(tr("No dice rolled yet in this session."), "body", color=PALETTE.text_dim))
        for i, e in enumerate(d.entries):
            box.add_widget(self._entry(d, e, names, newest=i == 0))

    def _entry(self, d: DicePresenter, e: RollEntry, names: dict[Any, str], newest: bool) -> Panel:
        tr = self.tr
        card = Panel(
            orientation="horizontal",
            size_hint_y=None,
            height=THEME.px(88 if newest else 72),
            padding=(THEME.pad, THEME.px(8)),
            edge=list(PALETTE.accent if newest else (0, 0, 0, 0)),
        )
        face = THEME.px(60 if newest else 46)
        faces = BoxLayout(
            size_hint_x=None, width=(face + THEME.gap) * max(1, len(e.values)), spacing=THEME.gap
        )
        colour = e.who.value if e.who is not None else ""
        for v in e.values:
            faces.add_widget(DieFace(value=v, colour=colour))
        card.add_widget(faces)
        words = BoxLayout(orientation="vertical", padding=(THEME.pad, 0))
        who = names.get(e.who, tr(e.who.value.capitalize())) if e.who is not None else ""
        title = " · ".join(x for x in (who, e.purpose) if x) or tr("A free roll")
        head = row(THEME.px(30))
        if e.who is not None:
            head.add_widget(ShapeMark(colour=e.who.value, size_hint_x=None, width=THEME.px(24)))
        head.add_widget(text(title, "label", bold=True, size_hint_y=1))
        words.add_widget(head)
        total = f"  ·  {tr('total')} {sum(e.values)}" if len(e.values) > 1 else ""
        words.add_widget(text(d.source_words(e) + total, "caption", color=PALETTE.text_dim, size_hint_y=1))
        card.add_widget(words)
        return card

    def _fairness(self, d: DicePresenter, box: Any) -> None:
        tr = self.tr
        f = d.fairness()
        card = panel(padding=THEME.pad, spacing=THEME.gap)
        card.add_widget(
            text(tr("Dice from the roller this session: {n}").format(n=f.dice), "label", bold=True)
        )
        bars = FaceBars(
            counts=list(f.counts),
            expected=f.dice / 6 if f.dice else 0.0,
            size_hint_y=None,
            height=THEME.px(240),
        )
        card.add_widget(bars)
        card.add_widget(
            text(
                tr("The dashed line is what a fair die gives on average."), "caption", color=PALETTE.text_dim
            )
        )
        card.add_widget(
            text(d.fairness_sentence(f), "body", color=PALETTE.warn if f.suspicious else PALETTE.text)
        )
        box.add_widget(card)

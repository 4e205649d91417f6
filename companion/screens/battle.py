"""The battle screen: the order of battle as a named track, both sides with their combat scores, what each
played, who acts now and their choices; with real cards the conflict-card ritual (lay face down, reveal
together, enter both); with cards held by the app a pass-the-tablet cover before anyone's hand shows; and at
the end a summary of what the battle came to."""

from __future__ import annotations

from functools import partial
from typing import Any

from kivy.uix.anchorlayout import AnchorLayout
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.controls import Panel, button, panel, row, text
from companion.presenters.battle import BattlePresenter, BattleSummary, Ritual
from companion.screens.base import BaseScreen, option_button, verdict_text
from companion.services import BattleView, OptionKind, TableSnapshot
from companion.theme import PALETTE, THEME
from companion.widgets import ShapeMark


class BattleScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        b: BattlePresenter | None = app.battle
        tr = self.tr
        if b is not None and b.summary is not None and b.battle is None:
            self._overlay(("summary", b.summary, app.lang), lambda: self._summary(b, b.summary))
            return
        cover = b.cover_for() if b is not None else None
        if b is not None and cover is not None:
            name = app.session.snapshot().player(cover).name
            self._overlay(("cover", cover, name, app.lang), partial(self._cover, b, cover, name))
            return
        self._overlay(None, None)
        if b is None or b.battle is None:
            self._empty()
            return
        v = b.battle
        snap = app.session.snapshot()
        self.ids.title.text = tr("Battle for {territory}").format(territory=v.territory_name)
        notes = list(v.notes) + ([tr("No support cards here (mountains)")] if v.support_blocked else [])
        self.ids.notes.text = "  ·  ".join(notes)
        self._stages(b)
        self._sides(b, v, snap)
        self.ids.explanation.text = verdict_text(b.explanation)
        self.ids.prompt.text = self._prompt(b, snap)
        ritual = b.ritual()
        shown = b.options_for_prompted()[:18]
        key = (
            app.lang,
            ritual,
            tuple(sorted((c.value, o.key) for c, o in b.picked.items())),
            b.rolling,
            b.roll_problem,
            tuple((o.key, o.enabled) for o in shown),
        )
        if not self.changed_key("options", key):
            return
        opts = self.ids.options
        opts.clear_widgets()
        if ritual is Ritual.LAY:
            self._lay(b, opts)
        elif ritual is Ritual.ENTER:
            self._enter(b, opts, snap)
        else:
            self._choices(b, shown, opts)

    def _empty(self) -> None:
        tr = self.tr
        self.ids.title.text = tr("No battle")
        self.ids.notes.text = ""
        self.ids.prompt.text = ""
        self.ids.explanation.text = ""
        self.ids.sides.clear_widgets()
        self.ids.stages.clear_widgets()
        self.ids.options.clear_widgets()
        self.forget()
        self.ids.options.add_widget(
            text(
                tr("A battle starts when a player advances into a rival's territory."),
                "body",
                color=PALETTE.text_dim,
                halign="center",
            )
        )

    def _prompt(self, b: BattlePresenter, snap: TableSnapshot) -> str:
        tr = self.tr
        if b.rolling:
            return tr("Rolling...")
        ritual = b.ritual()
        if ritual is Ritual.LAY:
            return tr("Both players: lay a conflict card face down")
        if ritual is Ritual.ENTER:
            return tr("Reveal both cards together, then enter what they show")
        who = b.prompted()
        if who is None:
            return ""
        name = snap.player(who).name
        if any(o.kind is OptionKind.CONFLICT for o in b.options_for_prompted()):
            return tr("{name}: choose your conflict card").format(name=name)
        return tr("{name}, your move").format(name=name)

    # ------------------------------------------------------------------------------------ the two sides

    def _sides(self, b: BattlePresenter, v: BattleView, snap: TableSnapshot) -> None:
        """Both sides, built once per battle; each move only changes their numbers and words (building widgets
        is what makes a frame slow)."""
        tr = self.tr
        names = (snap.player(v.attacker).name, snap.player(v.defender).name)
        if self.changed_key("sides", (v.attacker, v.defender, names, self.app_ref.lang)):
            sides = self.ids.sides
            sides.clear_widgets()
            self._side_labels: list[tuple[Any, Any]] = []
            for colour, role, name in (
                (v.attacker, tr("Attacker"), names[0]),
                (v.defender, tr("Defender"), names[1]),
            ):
                card = Panel(orientation="vertical", padding=THEME.pad, spacing=THEME.px(2))
                head = row(THEME.px(40))
                head.add_widget(ShapeMark(colour=colour.value, size_hint_x=None, width=THEME.px(40)))
                head.add_widget(text(name, "heading", bold=True, size_hint_y=1))
                card.add_widget(head)
                card.add_widget(text(role, "caption", color=PALETTE.text_dim))
                score = text("", "display", bold=True, halign="center", size_hint_y=1, grow=False)
                played = text("", "body", halign="center", color=PALETTE.text_dim)
                card.add_widget(score)
                card.add_widget(played)
                sides.add_widget(card)
                self._side_labels.append((score, played))
            vs = Label(text=tr("vs"), font_size=THEME.heading, color=PALETTE.text_dim, size_hint_x=None)
            vs.bind(texture_size=lambda w, ts: setattr(w, "width", ts[0] + THEME.px(12)))
            sides.add_widget(vs, index=1)
        status = dict(b.conflict_status())
        for (score, played), colour, points in zip(
            self._side_labels, (v.attacker, v.defender), (v.attacker_score, v.defender_score), strict=True
        ):
            score.text = str(points)
            played.text = status.get(colour, "")

    # ------------------------------------------------------------------------------ order of battle

    def _stages(self, b: BattlePresenter) -> None:
        """The order of battle, built once; each stage change only recolours it."""
        items = b.stages()
        if self.changed_key("stages", (self.app_ref.lang, len(items))):
            box = self.ids.stages
            box.clear_widgets()
            box.add_widget(text(self.tr("Order of battle"), "caption", color=PALETTE.text_dim, bold=True))
            self._stage_rows: list[tuple[Panel, Any, Any]] = []
            for item in items:
                card = Panel(orientation="horizontal", size_hint_y=None, padding=(THEME.px(8), THEME.px(4)))
                num = text(
                    str(item.number), "body", bold=True, size_hint=(None, 1), width=THEME.px(26), grow=False
                )
                words = text(item.title, "body", size_hint_y=1)
                card.add_widget(num)
                card.add_widget(words)
                words.bind(
                    texture_size=lambda w, ts, c=card: setattr(
                        c, "height", max(THEME.px(40), ts[1] + THEME.px(10))
                    )
                )
                card.height = THEME.px(40)
                box.add_widget(card)
                self._stage_rows.append((card, num, words))
        for (card, num, words), item in zip(self._stage_rows, items, strict=True):
            current = item.state == "current"
            colour = (
                PALETTE.text if current else PALETTE.text_dim if item.state == "done" else PALETTE.text_faint
            )
            card.fill = list(PALETTE.accent_dim if current else PALETTE.bg)
            card.edge = list(PALETTE.accent if current else (0, 0, 0, 0))
            num.color = words.color = colour
            words.bold = current

    # -------------------------------------------------------------------------------------- choices

    def _choices(self, b: BattlePresenter, shown: list[Any], opts: Any) -> None:
        tr = self.tr
        grid = _grid(3)
        for o in shown:
            grid.add_widget(option_button(o, b.tap, height=THEME.tap_big))
            if o.kind is OptionKind.ROLL and o.enabled and b.roll_problem:
                # The roller failed or may show dice that do not count: roll again above, or here.
                grid.add_widget(
                    button(tr("Roll on the tablet"), partial(b.screen_roll, o), height=THEME.tap_big)
                )
        opts.add_widget(grid)
        roll = next(
            (o for o in shown if o.kind is OptionKind.ROLL and o.enabled and (o.value or 1) == 1), None
        )
        if roll is not None:  # rolled with a real die at the table: tap the number it shows
            opts.add_widget(text(tr("Rolled a real die? Tap what it shows:"), "body", color=PALETTE.text_dim))
            dice = _grid(6)
            for pips in range(1, 7):
                dice.add_widget(
                    button(
                        str(pips), partial(b.enter_roll, roll, (pips,)), font="heading", height=THEME.tap_big
                    )
                )
            opts.add_widget(dice)

    def _lay(self, b: BattlePresenter, opts: Any) -> None:
        tr = self.tr
        opts.add_widget(
            text(
                tr("Each player lays a conflict card face down in front of them (none: lay nothing)."),
                "label",
            )
        )
        opts.add_widget(
            text(tr("When both are down, turn them over together."), "body", color=PALETTE.text_dim)
        )
        opts.add_widget(
            button(tr("Both cards are down: reveal them"), b.lay_cards, role="primary", height=THEME.tap_big)
        )

    def _enter(self, b: BattlePresenter, opts: Any, snap: TableSnapshot) -> None:
        tr = self.tr
        columns = BoxLayout(size_hint_y=None, spacing=THEME.pad)
        heights = []
        for colour, cards in b.conflict_choices():
            col = panel(spacing=THEME.px(6))
            head = row(THEME.px(40))
            head.add_widget(ShapeMark(colour=colour.value, size_hint_x=None, width=THEME.px(36)))
            head.add_widget(
                text(
                    tr("{name}'s card").format(name=snap.player(colour).name),
                    "label",
                    bold=True,
                    size_hint_y=1,
                )
            )
            col.add_widget(head)
            picked = b.picked.get(colour)
            for o in cards:
                col.add_widget(
                    button(o.label, partial(b.pick, o), role="chosen" if o == picked else "normal")
                )
            columns.add_widget(col)
            heights.append(col)
        columns.height = max((c.height for c in heights), default=0)
        for c in heights:
            c.bind(height=lambda *_a: setattr(columns, "height", max(x.height for x in heights)))
        opts.add_widget(columns)
        opts.add_widget(
            button(
                tr("Enter both cards"),
                b.enter_cards,
                role="primary",
                greyed=not b.can_enter(),
                height=THEME.tap_big,
            )
        )

    # ---------------------------------------------------------------------------- cover and summary

    def _overlay(self, key: Any, build: Any) -> None:
        over = self.ids.overlay
        main = self.ids.main
        active = key is not None
        main.opacity = 0 if active else 1
        main.disabled = active
        if not self.changed_key("overlay", key):
            return
        over.clear_widgets()
        if build is not None:
            over.add_widget(build())

    def _cover(self, b: BattlePresenter, who: Any, name: str) -> Any:
        tr = self.tr
        box, card = _centred_card(620)
        card.add_widget(ShapeMark(colour=who.value, size_hint_y=None, height=THEME.px(96)))
        card.add_widget(
            text(tr("Pass the tablet to {name}").format(name=name), "title", bold=True, halign="center")
        )
        card.add_widget(
            text(
                tr("Only {name} looks: the next screen shows {name}'s cards.").format(name=name),
                "body",
                halign="center",
                color=PALETTE.text_dim,
            )
        )
        card.add_widget(
            button(
                tr("I am {name}: show my cards").format(name=name),
                b.uncover,
                role="primary",
                height=THEME.tap_big,
            )
        )
        return box

    def _summary(self, b: BattlePresenter, s: BattleSummary | None) -> Any:
        assert s is not None
        tr = self.tr
        box, card = _centred_card(760)
        card.add_widget(text(s.headline, "title", bold=True, halign="center"))
        scores = row(THEME.px(110), spacing=THEME.pad)
        for colour, name, score in (s.attacker, s.defender):
            side = Panel(
                orientation="vertical",
                padding=THEME.px(6),
                edge=list(PALETTE.accent if colour is s.winner else (0, 0, 0, 0)),
            )
            head = row(THEME.px(36))
            head.add_widget(ShapeMark(colour=colour.value, size_hint_x=None, width=THEME.px(32)))
            head.add_widget(text(name, "label", bold=True, size_hint_y=1))
            side.add_widget(head)
            side.add_widget(text(str(score), "score", bold=True, halign="center", size_hint_y=1, grow=False))
            scores.add_widget(side)
        card.add_widget(scores)
        for line in s.lines:
            card.add_widget(text(line, "body"))
        buttons = row(THEME.tap_big)
        buttons.add_widget(
            button(tr("Back to the table"), self._back_to_table, role="primary", height=THEME.tap_big)
        )
        buttons.add_widget(button(tr("Undo the last move"), self._undo, role="quiet", height=THEME.tap_big))
        card.add_widget(buttons)
        return box

    def _back_to_table(self) -> None:
        if self.app_ref.battle is not None:
            self.app_ref.battle.dismiss_summary()
        self.app_ref.go("table")

    def _undo(self) -> None:
        if self.app_ref.history is not None:
            self.app_ref.history.undo()


def _centred_card(width: float) -> tuple[AnchorLayout, Panel]:
    """A card in the middle of the screen, over everything (the cover, the summary)."""
    box = AnchorLayout()
    card = panel(
        size_hint_x=None,
        width=THEME.px(width),
        padding=THEME.pad_big,
        spacing=THEME.pad,
        edge=list(PALETTE.accent),
    )
    box.add_widget(card)
    return box, card


def _grid(cols: int) -> Any:
    from kivy.uix.gridlayout import GridLayout

    g = GridLayout(cols=cols, spacing=THEME.gap, size_hint_y=None)
    g.bind(minimum_height=g.setter("height"))
    return g

"""The table screen: the map (tap a tile for everything about it), whose turn and which step, the last move
with its undo, a battle under way with the way into it, the camera's proposal or disagreement, and the moves
the engine allows now (greyed ones explain themselves)."""

from __future__ import annotations

from functools import partial
from typing import Any

from kivy.properties import BooleanProperty
from kivy.uix.boxlayout import BoxLayout

from companion.controls import Panel, button, panel, row, text
from companion.presenters.table import PendingState, TablePresenter
from companion.presenters.tiles import TileDetail
from companion.presenters.turn import TurnPresenter
from companion.screens.base import BaseScreen, option_button, verdict_text
from companion.theme import PALETTE, THEME
from companion.widgets import ShapeMark


class TableScreen(BaseScreen):
    card_right = BooleanProperty(False)  # the tile card sits on the side of the map away from its tile

    def on_kv_post(self, *_a: Any) -> None:
        self.ids.hexmap.on_tile = self._tile_tapped

    def _tile_tapped(self, tile_id: str) -> None:
        if self.app_ref is not None and self.app_ref.table is not None:
            self.app_ref.table.select_tile(tile_id)

    def refresh(self) -> None:
        app = self.app_ref
        t: TablePresenter | None = app.table
        if t is None:
            return
        tr = app.tr
        hexmap = self.ids.hexmap
        drawn = {  # set only what changed: each change redraws the whole map
            "snapshot": t.snapshot,
            "marks": t.highlighted_tiles(),
            "callouts": t.callouts(),
            "selected": t.selected_tile or "",
            "words": {"capacity": tr("max {n}")},
        }
        for name, value in drawn.items():
            if getattr(hexmap, name) != value:
                setattr(hexmap, name, value)
        self._tile_card(t)
        snap = t.snapshot
        self.ids.turn_mark.opacity = 1 if snap.current is not None else 0
        if snap.current is not None:
            self.ids.turn_mark.colour = snap.current.value
        self.ids.turn_title.text = t.turn_title()
        self.ids.steps.current = snap.step
        self.ids.step_name.text = t.step_name()
        self.ids.next_step.text = t.next_step_name()
        self._banner(t)
        if self.changed_key("proposal", (t.pending, t.proposal_text(), app.lang, tuple(t.setup_lines()))):
            self._proposal(t, self.ids.proposal)
        self._last_move(t)
        self._options()

    # ------------------------------------------------------------------------------------ the tapped tile

    def _tile_card(self, t: TablePresenter) -> None:
        d = t.tile_detail()
        card = self.ids.tile_card
        if not self.changed_key("tile", (d, self.app_ref.lang)):
            return
        card.clear_widgets()
        if d is not None:
            hexmap = self.ids.hexmap
            tile = t.snapshot.tile(d.id)
            size, ox, oy = hexmap.layout(t.snapshot)
            self.card_right = hexmap.centre(tile, size, ox, oy)[0] < hexmap.center_x
            card.add_widget(tile_card(d, lambda: t.select_tile(None), self.tr))

    # ------------------------------------------------------------------------------- battle under way

    def _banner(self, t: TablePresenter) -> None:
        b = t.battle_banner()
        box = self.ids.banner
        if not self.changed_key("banner", (b, self.app_ref.lang)):
            return
        box.clear_widgets()
        if b is None:
            return
        tr = self.tr
        card = panel(edge=list(PALETTE.bad))
        card.add_widget(text(b.title, "label", bold=True))
        scores = row(THEME.px(40))
        for colour, name, score in (b.attacker, b.defender):
            scores.add_widget(ShapeMark(colour=colour.value, size_hint_x=None, width=THEME.px(30)))
            scores.add_widget(text(f"{name}  {score}", "label", bold=True, size_hint_y=1))
        card.add_widget(scores)
        card.add_widget(
            text(f"{b.stage} · {b.waiting}" if b.waiting else b.stage, "caption", color=PALETTE.text_dim)
        )
        card.add_widget(button(tr("Go to the battle"), lambda: self.app_ref.go("battle"), role="primary"))
        box.add_widget(card)

    # ------------------------------------------------------------------------------------ the last move

    def _last_move(self, t: TablePresenter) -> None:
        """The last move with its undo: built once, then only its words change (every move changes them)."""
        box = self.ids.last_move
        line = t.last_move()
        tr = self.tr
        if self.changed_key("last", self.app_ref.lang):
            box.clear_widgets()
            card = Panel(orientation="horizontal", size_hint_y=None, padding=(THEME.pad, THEME.px(6)))
            self._last_mark = ShapeMark(size_hint_x=None, width=THEME.px(28))
            self._last_words = words = text("", "body", size_hint_y=1)
            card.add_widget(self._last_mark)
            card.add_widget(words)
            card.add_widget(
                button(
                    tr("Undo"),
                    self._undo,
                    fit=True,
                    role="quiet",
                    size_hint_x=None,
                    width=THEME.px(110),
                    pos_hint={"center_y": 0.5},
                )
            )

            def fit(*_a: Any) -> None:
                card.height = max(THEME.tap + THEME.px(12), words.texture_size[1] + THEME.px(16))

            words.bind(texture_size=fit)
            box.add_widget(card)
            self._last_card, self._last_fit = card, fit
        card = self._last_card
        card.opacity = 0 if line is None else 1
        card.disabled = line is None
        if line is None:
            card.height = 0
            return
        self._last_fit()
        self._last_words.text = tr("Last move: {move}").format(move=line.text)
        self._last_mark.opacity = 0 if line.actor is None else 1
        if line.actor is not None:
            self._last_mark.colour = line.actor.value

    def _undo(self) -> None:
        if self.app_ref.history is not None:
            self.app_ref.history.undo()

    # -------------------------------------------------------------------- camera proposal and set-up

    def _proposal(self, t: TablePresenter, box: Any) -> None:
        tr = self.tr
        box.clear_widgets()
        if t.pending is PendingState.PROPOSAL:
            card = panel(edge=list(PALETTE.good))
            card.add_widget(text(tr("Camera saw: {move}").format(move=t.proposal_text()), "label", bold=True))
            buttons = row(THEME.tap_big)
            buttons.add_widget(button(tr("Confirm"), t.confirm, role="primary", height=THEME.tap_big))
            buttons.add_widget(button(tr("Not yet"), t.dismiss_proposal, role="quiet", height=THEME.tap_big))
            card.add_widget(buttons)
            box.add_widget(card)
        elif t.pending in (PendingState.DISCREPANCY, PendingState.WAITING_FOR_TABLE):
            card = panel(edge=list(PALETTE.warn))
            card.add_widget(text(t.proposal_text(), "body", bold=True, color=PALETTE.warn))
            buttons = row(THEME.tap)
            buttons.add_widget(button(tr("Fix the table"), t.fix_table, role="primary"))
            buttons.add_widget(button(tr("The camera is wrong"), t.camera_wrong))
            buttons.add_widget(button(tr("Rewind"), lambda: self.app_ref.go("history"), role="quiet"))
            card.add_widget(buttons)
            box.add_widget(card)
        elif t.setup_lines():
            card = panel(edge=list(PALETTE.accent))
            card.add_widget(text(tr("Set up the table as the game has it:"), "label", bold=True))
            for line in t.setup_lines():
                card.add_widget(text(line, "caption"))
            card.add_widget(button(tr("The table is set up"), t.dismiss_setup, role="primary"))
            box.add_widget(card)

    # --------------------------------------------------------------------------------------- options

    def _options(self) -> None:
        app = self.app_ref
        p: TurnPresenter | None = app.turn
        groups = self.ids.groups
        opts = self.ids.options
        if p is None:
            groups.clear_widgets()
            opts.clear_widgets()
            return
        self.ids.explanation.text = verdict_text(p.explanation) or (
            app.table.message.sentence if app.table and app.table.message else ""
        )
        all_groups = p.groups()
        key = (
            app.lang,
            p.selected_group,
            p.selected_target,
            tuple(p.editing.items()) if p.editing is not None else None,
            tuple((g.kind, g.enabled, tuple((o.key, o.enabled) for o in g.options)) for g in all_groups),
            tuple(o.key for o in p.quick()),
        )
        if not self.changed_key("options", key):
            return
        groups.clear_widgets()
        opts.clear_widgets()
        opts.cols = 2
        for o in p.quick():  # one tap, no group to open first
            groups.add_widget(option_button(o, p.tap))
        for g in all_groups:
            chosen = p.selected_group is g.kind
            groups.add_widget(
                button(
                    g.title,
                    partial(_toggle_group, p, g.kind),
                    greyed=not g.enabled,
                    role="chosen" if chosen else "normal",
                )
            )
        if p.selected_group is None:
            return
        if p.editing is not None:
            _editor_rows(self, p, opts)
            return
        choices = p.target_choices()
        if choices:
            for target, name, enabled, rep in choices[:30]:
                opts.add_widget(button(name, partial(p.tap_target, target, rep), greyed=not enabled))
            return
        for o in p.visible_options()[:24]:
            opts.add_widget(option_button(o, p.tap))


def tile_card(d: TileDetail, close: Any, tr: Any) -> Panel:
    """Everything about one tile: kind and name, worth, capacity, holder, supply, abilities, knights."""
    card = panel(edge=list(PALETTE.accent), padding=THEME.pad)
    card.add_widget(text(d.kind, "caption", color=PALETTE.accent, bold=True))
    card.add_widget(text(d.title, "heading", bold=True))
    for f in d.facts:
        card.add_widget(text(f, "body"))
    for a in d.abilities:
        card.add_widget(text(a, "body", color=PALETTE.info))
    if d.warning:
        card.add_widget(text(d.warning, "body", color=PALETTE.warn))
    for colour, name, n in d.knights:
        line = row(THEME.px(34))
        line.add_widget(ShapeMark(colour=colour.value, size_hint_x=None, width=THEME.px(30)))
        knights = tr("1 knight") if n == 1 else tr("{n} knights").format(n=n)
        line.add_widget(text(f"{name}: {knights}", "body", size_hint_y=1))
        card.add_widget(line)
    card.add_widget(button(tr("Close"), close, role="quiet"))
    return card


def _editor_rows(screen: TableScreen, p: TurnPresenter, opts: Any) -> None:
    """Redistribution: one row per place with - and +, what is left to place, the engine's verdict, Done."""
    tr = screen.tr
    opts.cols = 1
    for loc, name, n, before, supplied in p.editor_rows():
        mark = "" if supplied else "  (" + tr("no supply") + ")"
        small = int(THEME.caption)
        change = f" [size={small}]({n - before:+d})[/size]" if n != before else ""
        line = row(THEME.tap)
        line.add_widget(text(f"{name}{mark}", "body", size_hint_y=1))
        stepper = BoxLayout(size_hint_x=None, width=THEME.px(240), spacing=THEME.gap)
        stepper.add_widget(
            button("-", partial(p.adjust, loc, -1), font="heading", size_hint_x=None, width=THEME.tap)
        )
        stepper.add_widget(
            text(
                f"{n}{change}", "heading", bold=True, halign="center", size_hint_y=1, markup=True, grow=False
            )
        )
        stepper.add_widget(
            button("+", partial(p.adjust, loc, +1), font="heading", size_hint_x=None, width=THEME.tap)
        )
        line.add_widget(stepper)
        opts.add_widget(line)
    left = p.moved()
    verdict = p.redistribution_verdict()
    if left == 1:
        status = tr("1 knight to place")
    elif left > 1:
        status = tr("{n} knights to place").format(n=left)
    elif left == -1:
        status = tr("1 knight too many")
    elif left < 0:
        status = tr("{n} knights too many").format(n=-left)
    else:
        status = verdict.sentence if not verdict.ok else tr("Allowed.")
    opts.add_widget(text(status, "body", color=PALETTE.warn if not verdict.ok else PALETTE.good))
    opts.add_widget(button(tr("Done"), p.apply_redistribution, greyed=not verdict.ok, role="primary"))


def _toggle_group(p: TurnPresenter, kind: Any) -> None:
    p.select_group(None if p.selected_group is kind else kind)

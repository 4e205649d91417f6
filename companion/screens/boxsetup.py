"""Box setup: each tile of the owner's box checked against our guesses (value and capacity each with their own
- and +, well apart), saved, printed as a sticker sheet; then the dice colours, measured with the camera while
everyone watches the preview."""

from __future__ import annotations

from functools import partial
from typing import Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.image import Image
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from companion.controls import Panel, button, row, text
from companion.presenters.boxsetup import BoxRow, BoxSetupPresenter
from companion.screens.base import TONE_COLOUR, PreviewScreen, show_frame
from companion.theme import PALETTE, THEME
from companion.widgets import ShapeMark

NAME_MIN = 260.0  # dp: the tile's name column never gets narrower than this
STEPPER_WIDTH = 200.0  # dp: one - value + group
STEPPER_GAP = 40.0  # dp between the value's + and the capacity's -: never a mis-tap
MATCH_WIDTH = 150.0


class BoxSetupScreen(PreviewScreen):
    def tick(self) -> None:
        self._preview()  # the dice-colour step shows the camera's picture; the rest does not change by itself

    def refresh(self) -> None:
        app = self.app_ref
        p: BoxSetupPresenter | None = app.box_presenter
        tr = self.tr
        if p is None:
            self.ids.heading.text = tr("Box setup")
            self.ids.subtitle.text = tr("Box setup needs the app started with `seneschal app`.")
            return
        self.ids.status.text = p.status
        self.ids.status.color = TONE_COLOUR.get(p.tone, PALETTE.text)
        if p.calibrating:
            self.ids.heading.text = tr("Dice colours")
            self.ids.subtitle.text = p.instruction()
            self._calibration(p)
        else:
            self.ids.heading.text = tr("Box setup: check each tile against your box")
            left = p.unconfirmed()
            self.ids.subtitle.text = (
                tr(
                    "{n} tiles still show our guess: tap - or + where yours differs, Matches where it agrees."
                ).format(n=left)
                if left
                else tr("Every tile is checked.")
            )
            self._tiles(p)
        self._actions(p)

    # ------------------------------------------------------------------------------------------ tiles

    def _tiles(self, p: BoxSetupPresenter) -> None:
        rows = p.rows()
        if not self.changed_key("body", ("tiles", tuple(rows), self.app_ref.lang)):
            return
        body = self.ids.body
        body.clear_widgets()
        body.add_widget(self._header())
        scroll = ScrollView(do_scroll_x=False)
        grid = BoxLayout(orientation="vertical", size_hint_y=None, spacing=THEME.px(6))
        grid.bind(minimum_height=grid.setter("height"))
        for r in rows:
            grid.add_widget(self._row(p, r))
        scroll.add_widget(grid)
        body.add_widget(scroll)

    def _header(self) -> BoxLayout:
        """Column titles over the rows, laid out as the rows are (same padding, spacing and widths)."""
        tr = self.tr
        head = row(THEME.px(30), padding=(THEME.pad, 0), spacing=THEME.pad)
        head.add_widget(text(tr("Tile"), "caption", bold=True, color=PALETTE.text_dim, size_hint_y=1))
        for i, title in enumerate((tr("Victory points"), tr("Capacity"))):
            if i:
                head.add_widget(Widget(size_hint_x=None, width=THEME.px(STEPPER_GAP)))
            head.add_widget(
                text(
                    title,
                    "caption",
                    bold=True,
                    color=PALETTE.text_dim,
                    halign="center",
                    size_hint=(None, 1),
                    width=THEME.px(STEPPER_WIDTH),
                )
            )
        head.add_widget(Widget(size_hint_x=None, width=THEME.px(MATCH_WIDTH)))
        return head

    def _row(self, p: BoxSetupPresenter, r: BoxRow) -> Panel:
        tr = self.tr
        line = Panel(
            orientation="horizontal",
            size_hint_y=None,
            height=THEME.px(72),
            padding=(THEME.pad, THEME.px(6)),
            spacing=THEME.pad,
        )
        who = BoxLayout(orientation="vertical", size_hint_min_x=THEME.px(NAME_MIN))
        who.add_widget(text(r.name, "label", bold=True, size_hint_y=1, grow=False, valign="bottom"))
        kind = tr.kind(r.kind)
        state = tr("our guess") if r.guessed else tr("checked")
        colour = PALETTE.warn if r.guessed else PALETTE.good
        dim = "".join(f"{int(c * 255):02x}" for c in PALETTE.text_dim[:3])
        tone = "".join(f"{int(c * 255):02x}" for c in colour[:3])
        facts = f"[color={dim}]{r.id} · {kind}[/color]  [b][color={tone}]{state}[/color][/b]"
        who.add_widget(text(facts, "caption", markup=True, size_hint_y=1, grow=False, valign="top"))
        line.add_widget(who)
        line.add_widget(_stepper(r.value, partial(p.adjust, r.id, "value")))
        line.add_widget(Widget(size_hint_x=None, width=THEME.px(STEPPER_GAP)))  # no value + by capacity -
        line.add_widget(_stepper(r.capacity, partial(p.adjust, r.id, "capacity")))
        line.add_widget(
            button(
                tr("Matches"),
                partial(p.confirm, r.id),
                role="quiet" if r.guessed else "normal",
                greyed=not r.guessed,
                size_hint=(None, None),
                width=THEME.px(MATCH_WIDTH),
                height=THEME.tap,
                pos_hint={"center_y": 0.5},
            )
        )
        return line

    # ---------------------------------------------------------------------------------- dice colours

    def _calibration(self, p: BoxSetupPresenter) -> None:
        tr = self.tr
        rows = p.calibration_rows()
        if not self.changed_key("body", ("dice", tuple(rows), self.app_ref.lang)):
            return
        body = self.ids.body
        body.clear_widgets()
        split = BoxLayout(spacing=THEME.pad)
        view = Panel(size_hint_x=0.58)
        preview = Image(fit_mode="contain")
        self._image = preview
        view.add_widget(preview)
        if self.app_ref.camera is None or not self.app_ref.camera.enabled:
            view.add_widget(
                text(
                    tr("No camera: start the app with --camera to measure the dice."),
                    "body",
                    color=PALETTE.warn,
                    halign="center",
                )
            )
        split.add_widget(view)
        side = BoxLayout(orientation="vertical", spacing=THEME.px(6), size_hint_x=0.42)
        for colour, state in rows:
            line = Panel(
                orientation="horizontal", padding=(THEME.pad, THEME.px(4)), size_hint_y=None, height=THEME.row
            )
            line.add_widget(ShapeMark(colour=colour, size_hint_x=None, width=THEME.px(40)))
            line.add_widget(text(tr(colour.capitalize()), "label", bold=True, size_hint_y=1))
            good = state in ("measured", "saved")
            line.add_widget(
                text(
                    tr(p.state_word(state)),
                    "body",
                    color=PALETTE.good if good else PALETTE.text_dim,
                    halign="right",
                    size_hint_y=1,
                )
            )
            side.add_widget(line)
        side.add_widget(BoxLayout())
        split.add_widget(side)
        body.add_widget(split)
        self._preview()

    def _preview(self) -> None:
        p = self.app_ref.box_presenter if self.app_ref is not None else None
        image = getattr(self, "_image", None)
        camera = self.app_ref.camera if self.app_ref is not None else None
        if p is None or not p.calibrating or image is None or camera is None:
            return
        frame = camera.preview()
        if frame is not None:
            show_frame(image, frame)

    # --------------------------------------------------------------------------------------- actions

    def _actions(self, p: BoxSetupPresenter) -> None:
        tr = self.tr
        key = (p.calibrating, p.measuring, p.printing, p.can_save_calibration(), self.app_ref.lang)
        if not self.changed_key("actions", key):
            return
        bar = self.ids.actions
        bar.clear_widgets()
        h = THEME.tap_big
        if p.calibrating:
            bar.add_widget(
                button(
                    tr("Measuring...") if p.measuring else tr("Measure"), p.measure, role="primary", height=h
                )
            )
            bar.add_widget(
                button(tr("Save colours"), p.save_calibration, greyed=not p.can_save_calibration(), height=h)
            )
            bar.add_widget(button(tr("Back to the tiles"), p.stop_calibration, role="quiet", height=h))
            return
        bar.add_widget(button(tr("Save"), p.save, role="primary", height=h))
        bar.add_widget(
            button(tr("Writing...") if p.printing else tr("Print stickers"), p.print_stickers, height=h)
        )
        bar.add_widget(button(tr("Dice colours"), p.start_calibration, height=h))
        bar.add_widget(button(tr("Back"), lambda: self.app_ref.go("start"), role="quiet", height=h))


def _stepper(value: int, adjust: Any) -> Panel:
    """- value +, framed on its own so two steppers side by side are never mistaken for one."""
    box = Panel(
        orientation="horizontal",
        size_hint=(None, None),
        width=THEME.px(STEPPER_WIDTH),
        height=THEME.tap + THEME.px(8),
        padding=THEME.px(4),
        spacing=THEME.px(4),
        fill=list(PALETTE.bg),
        edge=list(PALETTE.line),
        pos_hint={"center_y": 0.5},
    )
    box.add_widget(
        button("-", lambda: adjust(-1), font="heading", size_hint_x=None, width=THEME.tap, height=THEME.tap)
    )
    box.add_widget(text(str(value), "heading", bold=True, halign="center", size_hint_y=1, grow=False))
    box.add_widget(
        button("+", lambda: adjust(+1), font="heading", size_hint_x=None, width=THEME.tap, height=THEME.tap)
    )
    return box

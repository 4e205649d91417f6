"""The camera panel: the live preview with the reading drawn on it (tile outlines: read, unsure, hidden), a
legend over it counting what was read, and the camera's state in words with what to do about it."""

from __future__ import annotations

from companion.controls import Panel, panel, row, text
from companion.i18n import N_
from companion.presenters.camera import CameraPresenter
from companion.screens.base import TONE_COLOUR, PreviewScreen, show_frame
from companion.theme import PALETTE, THEME
from companion.widgets import ShapeMark

OUTLINE_KEY = (  # the colours vision.annotate outlines tiles in, as the legend explains them
    ((0.0, 1.0, 0.0, 1.0), N_("read")),
    ((1.0, 0.65, 0.0, 1.0), N_("unsure")),
    ((1.0, 0.0, 0.0, 1.0), N_("hidden (a hand in the way?)")),
)


class CameraScreen(PreviewScreen):
    """The live preview refreshes twice a second while the screen is shown (frames come from the feed)."""

    def refresh(self) -> None:
        app = self.app_ref
        c: CameraPresenter | None = app.camera
        if c is None:
            return
        self.ids.headline.text = c.headline()
        self.ids.detail.text = c.detail()
        self.ids.light.fill = list(TONE_COLOUR[c.tone()])
        self.ids.reconnect.greyed = not c.enabled
        frame = c.preview()
        if frame is not None:
            show_frame(self.ids.preview, frame)
        self._legend(c)

    def _legend(self, c: CameraPresenter) -> None:
        summary = c.summary()
        names = {}
        if self.app_ref.session is not None:
            names = {p.colour: p.name for p in self.app_ref.session.snapshot().players}
        if not self.changed_key("legend", (summary, self.app_ref.lang, tuple(names.items()))):
            return
        box = self.ids.legend
        box.clear_widgets()
        if summary is None:
            return
        tr = self.tr
        card = panel(fill=[*PALETTE.surface[:3], 0.88], padding=THEME.pad, spacing=THEME.px(4))
        card.add_widget(text(tr("What the camera read"), "label", bold=True))
        card.add_widget(text(tr("{n} tiles").format(n=summary.tiles), "body"))
        for colour, n in summary.knights:
            line = row(THEME.px(30))
            line.add_widget(ShapeMark(colour=colour.value, size_hint_x=None, width=THEME.px(26)))
            who = names.get(colour, tr(colour.value.capitalize()))
            knights = tr("1 knight") if n == 1 else tr("{n} knights").format(n=n)
            line.add_widget(text(f"{who}: {knights}", "body", size_hint_y=1))
            card.add_widget(line)
        for line in c.unsure_lines(summary):
            card.add_widget(text(line, "body", color=PALETTE.warn))
        for rgba, words in OUTLINE_KEY:
            line = row(THEME.px(26))
            swatch = Panel(
                size_hint=(None, None),
                width=THEME.px(26),
                height=THEME.px(8),
                fill=list(rgba),
                pos_hint={"center_y": 0.5},
                padding=0,
            )
            line.add_widget(swatch)
            line.add_widget(text(tr(words), "caption", color=PALETTE.text_dim, size_hint_y=1))
            card.add_widget(line)
        box.add_widget(card)

"""New game: players (castle colour with its shape, name in a text field, who starts), optional rules, map."""

from __future__ import annotations

from functools import partial
from typing import Any

from companion.controls import Field, button, row, text
from companion.presenters.newgame import VARIANTS, MapSource, NewGamePresenter
from companion.screens.base import BaseScreen
from companion.theme import PALETTE, THEME
from companion.widgets import ShapeMark

MAP_TITLES = (
    (MapSource.DEFAULT, "Default map"),
    (MapSource.CAMERA, "Read from camera"),
    (MapSource.SAVED, "Saved map"),
)


class NewGameScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        p: NewGamePresenter = app.newgame
        tr = self.tr
        # Rows are rebuilt only when players or castles change, never while a name is being typed.
        key = (app.lang, tuple(pl.colour for pl in p.players), p.first)
        if self.changed_key("players", key):
            rows = self.ids.players
            rows.clear_widgets()
            for pl in p.players:
                line = row(THEME.tap)
                line.add_widget(ShapeMark(colour=pl.colour.value, size_hint_x=None, width=THEME.px(44)))
                line.add_widget(
                    button(
                        tr(pl.colour.value.capitalize()),
                        partial(p.cycle_colour, pl.colour),
                        colour=pl.colour,
                        size_hint_x=None,
                        width=THEME.px(120),
                    )
                )
                name = Field(text=pl.name, size_hint_x=1.0, size_hint_y=None, height=THEME.tap)
                name.bind(text=partial(_renamed, p, pl.colour))
                line.add_widget(name)
                starts = p.first is pl.colour
                line.add_widget(
                    text(
                        tr("starts") if starts else "",
                        "body",
                        bold=True,
                        color=PALETTE.accent,
                        size_hint=(None, 1),
                        width=THEME.px(96),
                        halign="center",
                    )
                )
                line.add_widget(
                    button(
                        tr("Remove"),
                        partial(p.remove_player, pl.colour),
                        role="quiet",
                        greyed=len(p.players) <= 2,
                        size_hint_x=None,
                        width=THEME.px(130),
                    )
                )
                rows.add_widget(line)
        self.ids.add_player.greyed = len(p.players) >= 6
        if self.changed_key("choices", (app.lang, tuple(sorted(p.variants)), p.map_source)):
            self._choices(p)
        self.ids.problems.text = "\n".join([tr(x) for x in p.problems] + p.refused)
        self.ids.camera_note.text = p.camera_note
        self.ids.camera_tip.text = p.camera_tip

    def _choices(self, p: NewGamePresenter) -> None:
        tr = self.tr
        opts = self.ids.variants
        opts.clear_widgets()
        for v in VARIANTS:
            on = v in p.variants
            opts.add_widget(
                button(
                    tr(v.replace("_", " ").capitalize()),
                    partial(p.toggle_variant, v),
                    role="chosen" if on else "quiet",
                    check="on" if on else "off",
                )
            )
        maps = self.ids.maps
        maps.clear_widgets()
        for src, title in MAP_TITLES:
            maps.add_widget(
                button(
                    tr(title),
                    partial(p.set_map_source, src),
                    role="chosen" if p.map_source is src else "quiet",
                )
            )


def _renamed(p: NewGamePresenter, colour: Any, _widget: Any, words: str) -> None:
    p.rename(colour, words)

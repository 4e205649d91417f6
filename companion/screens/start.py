"""The start screen: the games left unfinished (one tap resumes), a new game, box setup, settings."""

from __future__ import annotations

from functools import partial

from companion.controls import Panel, button, text
from companion.i18n import Translator, is_default_name
from companion.screens.base import BaseScreen
from companion.theme import PALETTE, THEME
from engine.colours import Colour


class StartScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        tr = self.tr
        games = app.services.storage.unfinished()
        self.ids.resume_title.text = tr("Resume where you left off") if games else tr("No unfinished game")
        if not self.changed_key("games", (tuple(games), app.lang)):
            return
        box = self.ids.resume_list
        box.clear_widgets()
        for g in games[:5]:
            card = Panel(
                orientation="horizontal",
                size_hint_y=None,
                height=THEME.tap_big + THEME.px(16),
                padding=(THEME.pad, THEME.px(8)),
            )
            words = tr("{players} · {n} moves · started {started}").format(
                players=", ".join(_called(name, tr) for name in g.players),
                n=g.moves,
                started=g.started[:16].replace("T", " "),
            )
            card.add_widget(text(words, "label", size_hint_y=1))
            card.add_widget(
                button(
                    tr("Resume"),
                    partial(app.resume, g.id),
                    role="primary",
                    size_hint_x=None,
                    width=THEME.px(170),
                    height=THEME.tap,
                    pos_hint={"center_y": 0.5},
                )
            )
            box.add_widget(card)
        if not games:
            box.add_widget(
                text(
                    tr("Start a new game below; it is saved after every move."),
                    "body",
                    color=PALETTE.text_dim,
                )
            )


def _called(name: str, tr: Translator) -> str:
    """A stored player's name as the screen says it: a player called by their colour ("Red", "Rood") is
    called so in the active language."""
    colour = next((c for c in Colour if is_default_name(c, name)), None)
    return tr.player(colour, name) if colour is not None else name

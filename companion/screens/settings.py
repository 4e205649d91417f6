"""Settings: the language (English, Dutch, Swedish), stored for this tablet."""

from __future__ import annotations

from functools import partial

from companion.controls import button
from companion.screens.base import BaseScreen
from companion.theme import THEME


class SettingsScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        self.ids.back.text = self.tr("Back to the table") if app.session is not None else self.tr("Back")
        if not self.changed_key("languages", app.tr.lang):
            return
        box = self.ids.languages
        box.clear_widgets()
        for code, name in app.settings.languages():
            box.add_widget(
                button(
                    name,
                    partial(app.set_language, code),
                    height=THEME.tap_big,
                    role="chosen" if code == app.tr.lang else "quiet",
                )
            )

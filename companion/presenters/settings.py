"""Settings: the language (English, Dutch, Swedish) and other per-tablet choices, stored in the database."""

from __future__ import annotations

from companion.i18n import LANGUAGES, Translator
from companion.presenters.base import Presenter
from companion.services import Storage


class SettingsPresenter(Presenter):
    def __init__(self, storage: Storage, tr: Translator) -> None:
        super().__init__()
        self.storage = storage
        self.tr = tr
        saved = storage.get_setting("language", tr.lang)
        if saved in LANGUAGES and saved != tr.lang:
            tr.set_language(saved)

    def languages(self) -> list[tuple[str, str]]:
        return list(LANGUAGES.items())

    def set_language(self, lang: str) -> None:
        self.tr.set_language(lang)
        self.storage.set_setting("language", lang)
        self.changed()

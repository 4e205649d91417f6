"""The navigation bar under every game screen: one named tab per screen, the shown one marked, the battle tab
calling attention while a battle is under way."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kivy.uix.boxlayout import BoxLayout

from companion.controls import BigButton, button
from companion.i18n import Translator
from companion.presenters.base import NAV, NAV_TITLES
from companion.theme import THEME


class NavBar(BoxLayout):  # type: ignore[misc]
    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.tabs: dict[str, BigButton] = {}
        self._scale = 0.0

    def build(self, go: Callable[[str], None], tr: Translator) -> None:
        self.clear_widgets()
        self.spacing = THEME.px(4)
        self.padding = (THEME.px(4), THEME.px(4))
        self.tabs = {}
        for name in NAV:
            tab = button(
                tr(NAV_TITLES[name]), partial(go, name), role="quiet", height=THEME.nav - THEME.px(8)
            )
            self.tabs[name] = tab
            self.add_widget(tab)
        self._scale = THEME.scale

    def update(self, current: str, battle_on: bool, tr: Translator, go: Callable[[str], None]) -> None:
        if self._scale != THEME.scale or not self.tabs:
            self.build(go, tr)
        for name, tab in self.tabs.items():
            tab.text = tr(NAV_TITLES[name])
            if name == current:
                tab.role = "primary"
            elif name == "battle" and battle_on:
                tab.role = "warn"
            else:
                tab.role = "quiet"

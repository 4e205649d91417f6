"""What every screen shares: the thin Screen base (it only draws its presenter and forwards taps) and the
helpers that turn presenter views into the app's controls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.clock import Clock
from kivy.graphics.texture import Texture
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.controls import BigButton, button
from companion.i18n import Translator
from companion.services import Option, VerdictView
from companion.theme import PALETTE, THEME


class BaseScreen(Screen):  # type: ignore[misc]
    app_ref = ObjectProperty(None, allownone=True)

    def changed_key(self, name: str, key: Any) -> bool:
        """True (and remembered) when what a container shows changed. Rebuilding buttons renders every text
        again, which is what makes a frame slow; most refreshes change nothing in most containers. The
        window's scale is part of every key: a resize rebuilds with the new sizes."""
        keys: dict[str, Any] = self.__dict__.setdefault("_shown_keys", {})
        key = (THEME.scale, key)
        if keys.get(name) == key:
            return False
        keys[name] = key
        return True

    def forget(self) -> None:
        """Rebuild everything on the next refresh (after a resize or a language change)."""
        self.__dict__.pop("_shown_keys", None)

    def refresh(self) -> None:
        """Redraw from the presenters (called after every change they announce)."""

    @property
    def tr(self) -> Translator:
        tr: Translator = self.app_ref.tr
        return tr


class PreviewScreen(BaseScreen):
    """A screen with the camera's live picture: `tick()` runs twice a second while the screen is shown (the
    frames come from the feed; nothing is drawn while nobody looks)."""

    _ticker: Any = None

    def on_enter(self, *_a: Any) -> None:
        self._ticker = Clock.schedule_interval(lambda _dt: self.tick(), 0.5)

    def on_leave(self, *_a: Any) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def tick(self) -> None:
        self.refresh()


def show_frame(image_widget: Any, frame: Any) -> None:
    """Blit a BGR uint8 frame into an Image widget (flipped: Kivy textures start at the bottom row)."""
    h, w = frame.shape[:2]
    tex = image_widget.texture
    if tex is None or tuple(tex.size) != (w, h):
        tex = Texture.create(size=(w, h), colorfmt="bgr")
        tex.flip_vertical()
    tex.blit_buffer(frame.tobytes(), colorfmt="bgr", bufferfmt="ubyte")
    image_widget.texture = tex
    image_widget.canvas.ask_update()


def verdict_text(expl: VerdictView | None) -> str:
    if expl is None:
        return ""
    return f"{expl.sentence}  [{expl.citation}]" if expl.citation else str(expl.sentence)


def option_button(o: Option, tap: Callable[[Option], Any], height: float | None = None) -> BigButton:
    """An option of the engine's: tinted with its player's colour when allowed, greyed (and explaining
    itself when tapped) when not."""
    return button(
        o.label,
        lambda: tap(o),
        greyed=not o.enabled,
        colour=o.actor if o.enabled and o.actor is not None else None,
        height=height,
        grow=True,  # a long combination of cards takes a third line rather than spilling out
    )


TONE_COLOUR = {
    "good": PALETTE.good,
    "warn": PALETTE.warn,
    "bad": PALETTE.bad,
    "info": PALETTE.text_dim,
    "off": PALETTE.text_faint,
}

"""What keeps the app's frames short: fresh textures for changed labels, scroll bars that do not animate,
and a frozen start-up heap.

Measured with `python bench/app.py` (docs/performance.md): a frame that changed the text of a few labels took
0.3–1.6 s, all of it in uploading the new text into the label's old texture. That texture is still part of
the frame being drawn, so the GL driver first finishes drawing it (Mesa's software renderer waits for its
rasteriser threads; GPU drivers stall or copy the same way). A label given a new texture has nothing to wait
for. The other long frames were Python's full garbage collections walking the ~120 000 objects Kivy, the
engine's catalogue and the screens leave behind at start-up; frozen, they are no longer walked. A scroll
bar's fade redrew the whole window for half a second after every move (software rendering competing with the
camera's reader for the cores); the bar now dims in one frame.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

_installed: list[Callable[[Any], None]] = []
_scroll_tuned: list[Callable[..., None]] = []


def fresh_label_textures() -> None:
    """Make every Kivy text render into a new texture instead of overwriting the one on screen (once)."""
    if _installed:
        return
    from kivy.core.text import LabelBase

    refresh: Callable[[Any], None] = LabelBase.refresh

    def fresh_refresh(label: Any) -> None:
        label.texture = None  # LabelBase.refresh then creates a texture the pending frame does not use
        refresh(label)

    LabelBase.refresh = fresh_refresh
    _installed.append(refresh)


def still_scroll_bars() -> None:
    """A scroll view whose content changed lights its bar and, half a second later, dims it at once instead
    of fading it over half a second (once). Kivy's fade is an animation: 30 frames of the whole window drawn
    again after every move, each competing with the camera's reader for the cores (software rendering)."""
    if _scroll_tuned:
        return
    from kivy.uix.scrollview import ScrollView

    def _bind_inactive_bar_color(view: Any, *_a: Any) -> None:  # the name Kivy's WeakMethod looks up
        view.funbind("bar_color", view._change_bar_color)
        view.fbind("bar_inactive_color", view._change_bar_color)
        view._bar_color = view.bar_inactive_color

    ScrollView._bind_inactive_bar_color = _bind_inactive_bar_color
    _scroll_tuned.append(_bind_inactive_bar_color)


def freeze_heap() -> int:
    """Move every object alive now out of the collector's reach (the start-up heap lives as long as the app);
    returns how many objects are frozen. Later garbage is collected as usual."""
    gc.freeze()
    return gc.get_freeze_count()

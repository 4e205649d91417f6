"""What keeps the app's frames short: fresh textures for changed labels and a frozen start-up heap.

Measured with `python bench/app.py` (docs/performance.md): a frame that changed the text of a few labels took
0.3–1.6 s, all of it in uploading the new text into the label's old texture. That texture is still part of
the frame being drawn, so the GL driver first finishes drawing it (Mesa's software renderer waits for its
rasteriser threads; GPU drivers stall or copy the same way). A label given a new texture has nothing to wait
for. The other long frames were Python's full garbage collections walking the ~120 000 objects Kivy, the
engine's catalogue and the screens leave behind at start-up; frozen, they are no longer walked.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

_installed: list[Callable[[Any], None]] = []


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


def freeze_heap() -> int:
    """Move every object alive now out of the collector's reach (the start-up heap lives as long as the app);
    returns how many objects are frozen. Later garbage is collected as usual."""
    gc.freeze()
    return gc.get_freeze_count()

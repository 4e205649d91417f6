"""Draw what the reader saw on the frame: tiles with their ids and hex coordinates, dice, counts, status."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from engine.colours import Colour
from engine.hexgrid import Hex
from vision.pipeline import FrameResult
from vision.sources import Status

Image = npt.NDArray[np.uint8]

# Outline colours (BGR) for drawing dice of each player.
INK: dict[Colour, tuple[int, int, int]] = {
    Colour.RED: (40, 40, 230),
    Colour.BLUE: (230, 120, 30),
    Colour.YELLOW: (0, 220, 255),
    Colour.GREEN: (40, 200, 40),
    Colour.WHITE: (255, 255, 255),
    Colour.BLACK: (20, 20, 20),
}
UNKNOWN_INK = (255, 0, 255)
SHORT = {Colour.RED: "R", Colour.BLUE: "B", Colour.YELLOW: "Y", Colour.GREEN: "G", Colour.WHITE: "W",
         Colour.BLACK: "K"}


def _text(img: Image, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int],  # noqa: PLR0917
          thickness: int = 1) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thickness + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)


def counts_label(counts: dict[Colour, int]) -> str:
    return " ".join(f"{SHORT[c]}{n}" for c, n in sorted(counts.items(), key=lambda kv: kv[0].value))


def annotate(image: Image, result: FrameResult) -> Image:
    """A copy of `image` with the reading drawn on it."""
    out = image.copy()
    w = out.shape[1]
    s = max(0.5, w / 1920)
    thick = max(1, round(2 * s))
    hex_of: dict[str, Hex] = {tid: hx for hx, tid in (result.raw.tiles.items() if result.raw else ())}
    stable = result.reading
    if result.map is not None:
        for tid, poly in result.map.polygons.items():
            if tid in result.occluded:
                colour = (0, 0, 255)
            elif tid in stable.unsure:
                colour = (0, 165, 255)
            else:
                colour = (0, 255, 0)
            pts = np.round(poly).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [pts], True, colour, thick, cv2.LINE_AA)
            cx, cy = (int(v) for v in poly.mean(axis=0))
            hx = hex_of.get(tid)
            label = tid if hx is None else f"{tid} ({hx.q},{hx.r})"
            org = (cx - int(45 * s), cy - int(22 * s))
            _text(out, label, org, 0.5 * s, (255, 255, 255), max(1, thick // 2))
            counts = dict(stable.knights_at(tid))
            if counts:
                _text(out, counts_label(counts), (cx - int(30 * s), cy + int(36 * s)), 0.6 * s, (0, 255, 255),
                      thick)
        for art, quad in (result.artefacts.regions.items() if result.artefacts else ()):
            side = stable.artefacts.get(art)
            colour = (200, 200, 200) if side is None else (0, 255, 0) if side else (0, 0, 255)
            cv2.polylines(out, [np.round(quad).astype(np.int32).reshape(-1, 1, 2)], True, colour, thick)
            cx, cy = (int(v) for v in quad.mean(axis=0))
            word = "?" if side is None else "up" if side else "down"
            _text(out, f"{art} {word}", (cx - int(40 * s), cy), 0.5 * s, colour, max(1, thick // 2))
    if result.knights is not None:
        for die in result.knights.dice:
            x0, y0, x1, y1 = die.box
            ink = UNKNOWN_INK if die.colour is None else INK[die.colour]
            cv2.rectangle(out, (x0, y0), (x1, y1), ink, thick)
            mark = f"{die.value}" + ("?" if die.unsure or die.colour is None else "")
            _text(out, mark, (x1 + 2, y0 + int(12 * s)), 0.5 * s, ink, max(1, thick // 2))
    ok = result.status in (Status.OK, Status.HALF_BOARD)
    banner = f"frame {result.frame_index}: {result.status.value} - {result.message}"
    cv2.rectangle(out, (0, 0), (w, int(34 * s)), (0, 0, 0), -1)
    _text(out, banner[:140], (int(8 * s), int(24 * s)), 0.7 * s, (0, 255, 0) if ok else (0, 0, 255), thick)
    return out

"""Printing the figures, listing the misreadings, and drawing what was read against the truth."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench.realtable.protocol import Miss, SceneRun, Tally
from bench.realtable.scene import Scene, Truth
from engine.colours import Colour

HEADER = (
    f"{'group':<34} {'mode':<14} {'frames':>6} {'map':>7} {'tiles':>7} {'knights':>8} {'occupied':>8} "
    f"{'flagged':>7} {'silent':>7} {'unread':>7} {'locs':>6} {'p50 ms':>7} {'p95 ms':>7}"
)


def pct(n: int, d: int, width: int = 7) -> str:
    return f"{'n/a':>{width}}" if d == 0 else f"{100.0 * n / d:{width - 1}.2f}%"


def row(group: str, mode: str, t: Tally) -> str:
    if t.blurred and not t.locations:
        return (
            f"{group:<34} {mode:<14} {t.frames:>6} {pct(t.map_exact, t.frames)} "
            f"{pct(t.tiles_right, t.tiles)}   read anyway {t.blurred_read}/{t.blurred} frames, "
            f"{t.blurred_stated} locations stated, {t.blurred_stated_wrong} of them wrong   "
            f"{t.p50:7.1f} {t.p(95):7.1f}"
        )
    return (
        f"{group:<34} {mode:<14} {t.frames:>6} {pct(t.map_exact, t.frames)} {pct(t.tiles_right, t.tiles)} "
        f"{pct(t.right, t.locations, 8)} {pct(t.occupied_right, t.occupied, 8)} "
        f"{pct(t.flagged, t.locations)} {pct(t.silent, t.locations)} {pct(t.unread, t.locations)} "
        f"{t.locations:>6} {t.p50:7.1f} {t.p(95):7.1f}"
    )


def extras(t: Tally) -> str:
    parts = []
    if t.refused:
        parts.append(f"frames not read {t.refused}")
    if t.hand:
        parts.append(f"under a hand {t.hand} (flagged {t.hand_flagged})")
    if t.hidden:
        parts.append(
            f"a die hidden behind another {t.hidden} (right {t.hidden_right}, flagged {t.hidden_flagged})"
        )
    if t.flagged_for:
        why = ", ".join(f"{doubt} {n}" for doubt, n in t.flagged_for.most_common())
        parts.append(f"flagged for: {why}")
    if t.play_ms:
        frames = len(t.play_ms)
        parts.append(f"in play p50 {t.in_play(50):.1f} / p95 {t.in_play(95):.1f} ms ({frames} frames)")
    if t.cards_up or t.cards_down or t.cards_covered_up:
        parts.append(
            f"artefact cards face up read {t.cards_up_read}/{t.cards_up}, "
            f"face down read as up {t.cards_false_up}/{t.cards_down}, "
            f"face up with the sticker partly covered read {t.cards_covered_up_read}/{t.cards_covered_up}"
        )
    return "; ".join(parts)


def calibration_line(runs: Sequence[SceneRun]) -> str:
    refused = sum(r.calibrated.refused for r in runs)
    nothing = sum(r.calibrated.calibration is None for r in runs)
    colours = sum(len(r.scene.colours) for r in runs)
    unmeasured = sum(len(r.calibrated.unmeasured) for r in runs)
    lost = sum(len(r.calibrated.not_found) for r in runs)
    return (
        f"calibration: a colour refused in {refused}/{len(runs)} set-ups, nothing saved in {nothing}, "
        f"colours left unmeasured {unmeasured}/{colours} (castle not found {lost})"
    )


def misses_text(misses: Iterable[Miss], limit: int) -> list[str]:
    out = []
    by_group: dict[tuple[str, str], list[Miss]] = {}
    for m in misses:
        by_group.setdefault((m.group, m.mode), []).append(m)
    for (group, mode), ms in by_group.items():
        out.append(f"{group} / {mode}: {len(ms)} locations not right")
        for m in ms[:limit]:
            stated = "silent" if m.on_map else f"unread, status {m.status}"
            what = f"FLAGGED: {m.doubt}" if m.flagged else stated
            extra = ", a die hidden" if m.hidden else ""
            out.append(
                f"  seed {m.seed} frame {m.frame} {m.location}: truth {counts(m.truth)} read "
                f"{counts(m.read)} ({what}{extra})"
            )
    return out


def counts(c: dict[Colour, int]) -> str:
    return "{" + ", ".join(f"{k.value} {v}" for k, v in sorted(c.items(), key=lambda kv: kv[0].value)) + "}"


def save_failures(run: SceneRun, group: str, out: Path) -> int:
    """Each kept frame as the reader saw it (PNG) and an overlay: per location the truth and what was read
    (green right, orange flagged, red silently wrong), the truth's dice boxes."""
    out.mkdir(parents=True, exist_ok=True)
    slug = group.replace(" ", "_").replace("°", "deg").replace("/", "-")
    for index, image, truth, result in run.saved:
        stem = f"{slug}_seed{run.scene.seed}_f{index}"
        cv2.imwrite(str(out / f"{stem}.png"), image)
        cv2.imwrite(str(out / f"{stem}_overlay.png"), overlay(run.scene, image, truth, result))
    return len(run.saved)


def overlay(scene: Scene, image: np.ndarray, truth: Truth, result: Any) -> np.ndarray:
    img = (image.astype(np.float32) * 0.6).astype(np.uint8)
    for _loc, _colour, _value, box, showing in truth.boxes:
        x0, y0, x1, y1 = (round(v) for v in box)
        cv2.rectangle(img, (x0, y0), (x1, y1), (200, 200, 200) if showing >= 0.5 else (0, 165, 255), 1)
    raw = result.raw
    cam = scene.camera
    for t in scene.tiles:
        if not (t.tile.startswith("T") or t.tile.startswith("K")):
            continue
        uv, z = cam.project(np.array([[t.x, t.y, 0.0]]))
        if z[0] <= 0:
            continue
        u, v = cam.distorted(uv)[0]
        if not (0 <= u < cam.width and 0 <= v < cam.height):
            continue
        want = truth.knights.get(t.tile, {})
        seen = dict(raw.knights_at(t.tile)) if raw is not None else {}
        flagged = raw is not None and t.tile in raw.unsure
        if t.tile in truth.covered:
            colour = (255, 200, 0)
        elif seen == want and not flagged:
            colour = (0, 220, 0)
        elif flagged:
            colour = (0, 165, 255)
        else:
            colour = (0, 0, 255)
        lines = [
            t.tile + (" hand" if t.tile in truth.covered else ""),
            "T " + short(want),
            "R " + short(seen) + ("?" if flagged else ""),
        ]
        for k, text in enumerate(lines):
            pos = (int(u) - 40, int(v) - 14 + 15 * k)
            cv2.putText(img, text, pos, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(img, text, pos, cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    status = getattr(result, "status", None)
    cv2.putText(
        img,
        f"status {getattr(status, 'value', status)}; blurred {truth.blurred}",
        (10, 24),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.7,
        (255, 255, 255),
        2,
        cv2.LINE_AA,
    )
    return img


LETTER = {
    Colour.RED: "R",
    Colour.BLUE: "B",
    Colour.YELLOW: "Y",
    Colour.GREEN: "G",
    Colour.WHITE: "W",
    Colour.BLACK: "K",
}


def short(c: dict[Colour, int]) -> str:
    """Counts in a few letters: {red: 3, black: 12} -> "R3 K12"."""
    return " ".join(f"{LETTER[k]}{v}" for k, v in sorted(c.items(), key=lambda kv: kv[0].value)) or "-"


def fmt_ms(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.1f}"

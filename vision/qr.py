"""Find and decode our QR stickers in a frame.

Two backends. zxing-cpp (default) reads every code of a whole 1080p frame in one call. pyzbar is slower and
misses small codes in a whole frame, so with it we first locate candidate regions (busy, high-contrast patches
of sticker size) and decode each one upscaled. Both return the code's four corners in the code's own
orientation (top-left, top-right, bottom-right, bottom-left): the reader needs to know which way a sticker
points to find its tile's centre. Corner order is checked against the finder patterns, whatever the backend
says.

A code that is not ours (a phone number on the box lid, a malformed or newer payload) is listed in
`DecodeResult.ignored` with the reason and logged; it never becomes a tag.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import DecoderUnavailableError, FrameError, TagRejection, UnknownTagError
from vision.tags import QR_MODULES, TagPayload, parse_payload

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]


PYZBAR_MODULE_PX = 3.5  # zbar reads 3-4 px modules well; its cost grows with the pixels it scans
PYZBAR_MAX_UPSCALE = 3.0  # the most zbar's candidate crops are enlarged by


class Backend(Enum):
    ZXING = "zxing"
    PYZBAR = "pyzbar"


@dataclass(frozen=True, slots=True, eq=False)
class TagDetection:
    """One of our stickers found in a frame."""

    payload: TagPayload
    corners: FloatArray  # 4x2 image px: code's top-left, top-right, bottom-right, bottom-left
    backend: Backend = Backend.ZXING

    @property
    def id(self) -> str:
        return self.payload.id

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return (float(c[0]), float(c[1]))

    @property
    def module_px(self) -> float:
        """Mean module size in pixels (how sharp the code is at this distance)."""
        # in plain floats, numpy's norm and mean's numbers at a twentieth of the time: a still table's check
        # (`mapreader.unmoved`) asks it of every sticker read, and spent 3 ms a frame here
        c = self.corners.tolist()
        total = 0.0
        for (x0, y0), (x1, y1) in zip(c, c[1:] + c[:1], strict=True):
            total += math.sqrt((x0 - x1) * (x0 - x1) + (y0 - y1) * (y0 - y1))
        return total / len(c) / QR_MODULES

    @property
    def up(self) -> tuple[float, float]:
        """Unit vector (image px) from the code's bottom edge towards its top edge."""
        top = (self.corners[0] + self.corners[1]) / 2
        bottom = (self.corners[3] + self.corners[2]) / 2
        v = top - bottom
        n = float(np.linalg.norm(v)) or 1.0
        return (float(v[0]) / n, float(v[1]) / n)

    def __repr__(self) -> str:
        c = self.centre
        return f"TagDetection({self.payload.text!r}, centre=({c[0]:.1f}, {c[1]:.1f}), {self.backend.value})"


@dataclass(frozen=True, slots=True, eq=False)
class IgnoredCode:
    """A QR code in the frame that is not one of our stickers, with the reason."""

    text: str
    reason: TagRejection
    detail: str
    corners: FloatArray | None = None


@dataclass(frozen=True, slots=True)
class DecodeResult:
    tags: tuple[TagDetection, ...]
    ignored: tuple[IgnoredCode, ...] = ()
    backend: Backend = Backend.ZXING
    elapsed_ms: float = 0.0
    candidates: int = 0  # regions tried (pyzbar) or calls made
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __iter__(self) -> Iterator[TagDetection]:
        return iter(self.tags)

    def __len__(self) -> int:
        return len(self.tags)

    def by_id(self) -> dict[str, list[TagDetection]]:
        out: dict[str, list[TagDetection]] = {}
        for t in self.tags:
            out.setdefault(t.payload.id, []).append(t)
        return out


def to_gray(image: npt.NDArray[np.generic]) -> Image:
    """A grey uint8 view of a BGR / BGRA / grey frame; raises FrameError for anything else."""
    if not isinstance(image, np.ndarray):
        raise FrameError(f"a frame is a numpy image, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise FrameError(f"a frame is 8-bit (uint8), got dtype {image.dtype}")
    if image.ndim == 2:
        gray = image
    elif image.ndim == 3 and image.shape[2] == 3:
        gray = np.asarray(cv2.cvtColor(np.asarray(image, np.uint8), cv2.COLOR_BGR2GRAY), np.uint8)
    elif image.ndim == 3 and image.shape[2] == 4:
        gray = np.asarray(cv2.cvtColor(np.asarray(image, np.uint8), cv2.COLOR_BGRA2GRAY), np.uint8)
    elif image.ndim == 3 and image.shape[2] == 1:
        gray = image[:, :, 0]
    else:
        raise FrameError(f"a frame is H x W (grey) or H x W x 3 (BGR), got shape {image.shape}")
    if gray.shape[0] < 16 or gray.shape[1] < 16:
        raise FrameError(f"frame too small to hold a code: {gray.shape[1]}x{gray.shape[0]}")
    return np.ascontiguousarray(gray)


def decode_tags(
    image: npt.NDArray[np.generic],
    backend: Backend = Backend.ZXING,
    *,
    regions: Sequence[tuple[int, int, int, int]] | None = None,
    upscale: float = 1.0,
    sharpen: float = 0.0,
    deblur: float = 0.0,
) -> DecodeResult:
    """Decode every QR code in `image` (BGR or grey uint8) and keep ours.

    `regions` (x0, y0, x1, y1) restricts decoding to those crops (each decoded separately; duplicates across
    overlapping regions are merged); `upscale` > 1 enlarges each crop first (small codes in a 1080p frame);
    `sharpen` > 0 (True: 1.0) applies an unsharp mask of that amount before enlarging (blurred small codes);
    `deblur` > 0 applies a strong one (that amount) after enlarging, for the last tries on codes blurred
    across their 2 px modules.
    Raises FrameError for something that is not an image; an image without codes gives an empty result.
    """
    start = time.perf_counter()
    gray = to_gray(image)
    raw: list[tuple[str, FloatArray]] = []
    notes: list[str] = []
    calls = 0
    if backend is Backend.ZXING:
        _require(backend)
        if regions is None:
            if upscale == 1.0:
                raw.extend(_zxing_read(gray))
                calls = 1
            else:
                regions = [(0, 0, gray.shape[1], gray.shape[0])]
        if regions is not None:
            for box in regions:
                raw.extend(_in_region(gray, box, upscale, _zxing_read, sharpen, deblur=deblur))
                calls += 1
    elif backend is Backend.PYZBAR:
        _require(backend)
        if regions is None:
            regions = find_candidates(gray)
            notes.append(f"{len(regions)} candidate regions")
            if upscale == 1.0 and regions:
                # one enlargement for all, taking the typical candidate's box for ~1.4 stickers of 25 modules
                # and their quiet zone. A tile's two stickers often make one candidate, so this overstates
                # modules (about 1.5x on seed 200004's set-up); `mapreader` enlarges fully when it reads none
                typical = float(np.median([min(b[2] - b[0], b[3] - b[1]) for b in regions]))
                module = typical / 1.4 / (QR_MODULES + 2 * 2)
                upscale = min(PYZBAR_MAX_UPSCALE, max(1.0, PYZBAR_MODULE_PX / max(module, 0.25)))
        for box in regions:
            raw.extend(_in_region(gray, box, upscale, _pyzbar_read, sharpen, deblur=deblur))
            calls += 1
    else:  # pragma: no cover - exhaustive Enum
        raise ValueError(f"unknown backend {backend!r}")
    tags, ignored = _classify(gray, _dedupe(raw), backend)
    elapsed = (time.perf_counter() - start) * 1000.0
    return DecodeResult(tuple(tags), tuple(ignored), backend, elapsed, calls, tuple(notes))


# --- backends -----------------------------------------------------------------------------------------------


def _require(backend: Backend) -> None:
    """Raise DecoderUnavailableError when the backend's library cannot be loaded."""
    try:
        if backend is Backend.ZXING:
            import zxingcpp  # noqa: F401
        else:
            from pyzbar import pyzbar  # noqa: F401
    except (ImportError, OSError) as exc:  # OSError: the zbar shared library is missing
        raise DecoderUnavailableError(f"QR backend {backend.value} is not available: {exc}") from exc


def _zxing_read(gray: Image) -> list[tuple[str, FloatArray]]:
    import zxingcpp

    out: list[tuple[str, FloatArray]] = []
    formats = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
    # Turning only helps 1D codes, and our stickers are never light on dark: the same codes read on 1080p
    # and 4K tables of every difficulty (1524 codes, seeds 200000..) at three quarters of the time.
    found = zxingcpp.read_barcodes(
        gray, formats=formats, try_downscale=False, try_rotate=False, try_invert=False
    )
    for b in found:
        p = b.position
        corners = np.array(
            [
                [p.top_left.x, p.top_left.y],
                [p.top_right.x, p.top_right.y],
                [p.bottom_right.x, p.bottom_right.y],
                [p.bottom_left.x, p.bottom_left.y],
            ],
            np.float64,
        )
        # zxing reports module-centre-ish integer corners of the symbol; they are on the code's outline
        out.append((_text(b.bytes, b.text), corners))
    return out


def _pyzbar_read(gray: Image) -> list[tuple[str, FloatArray]]:
    from pyzbar import pyzbar

    out: list[tuple[str, FloatArray]] = []
    for d in pyzbar.decode(gray, symbols=[pyzbar.ZBarSymbol.QRCODE]):
        pts = np.array([[p.x, p.y] for p in d.polygon], np.float64)
        if len(pts) < 3:
            continue
        quad = _quad(pts)
        out.append((_text(d.data, None), quad))
    return out


def _text(data: bytes, text: str | None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return text if text is not None else data.decode("latin-1")


def _quad(pts: FloatArray) -> FloatArray:
    hull = cv2.convexHull(pts.astype(np.float32))[:, 0, :]
    if len(hull) == 4:
        return np.asarray(hull, np.float64)
    peri = cv2.arcLength(hull, True)
    approx = cv2.approxPolyDP(hull, 0.04 * peri, True)[:, 0, :]
    if len(approx) == 4:
        return np.asarray(approx, np.float64)
    box = cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32)))
    return np.asarray(box, np.float64)


def _in_region(
    gray: Image,
    box: tuple[int, int, int, int],
    upscale: float,
    read: Callable[[Image], list[tuple[str, FloatArray]]],
    sharpen: float = 0.0,
    *,
    deblur: float = 0.0,
) -> list[tuple[str, FloatArray]]:
    h, w = gray.shape
    x0, y0, x1, y1 = (max(0, int(box[0])), max(0, int(box[1])), min(w, int(box[2])), min(h, int(box[3])))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    crop = gray[y0:y1, x0:x1]
    scale = upscale
    if sharpen:  # unsharp mask at the crop's own resolution (cheaper than after enlarging, as good)
        soft = cv2.GaussianBlur(crop, (0, 0), 1.0)
        crop = np.asarray(cv2.addWeighted(crop, 1.0 + sharpen, soft, -float(sharpen), 0.0), np.uint8)
    if scale != 1.0:
        crop = np.asarray(cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC), np.uint8)
    if deblur > 0.0:  # the blur spans about a source pixel: undo it at the enlarged scale
        soft = cv2.GaussianBlur(crop, (0, 0), 0.8 * scale)
        crop = np.asarray(cv2.addWeighted(crop, 1.0 + deblur, soft, -deblur, 0.0), np.uint8)
    found: list[tuple[str, FloatArray]] = read(np.ascontiguousarray(crop))
    return [(t, c / scale + [x0, y0]) for t, c in found]


def _dedupe(raw: list[tuple[str, FloatArray]]) -> list[tuple[str, FloatArray]]:
    out: list[tuple[str, FloatArray]] = []
    centres: list[tuple[str, float, float]] = []  # plain floats: numpy's overhead dominated on 4 corners
    for text, corners in raw:
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = corners.tolist()
        cx, cy = (x0 + x1 + x2 + x3) / 4.0, (y0 + y1 + y2 + y3) / 4.0
        near = 0.3 * math.sqrt((x0 - x2) * (x0 - x2) + (y0 - y2) * (y0 - y2))
        if any(t == text and math.sqrt((ox - cx) ** 2 + (oy - cy) ** 2) < near for t, ox, oy in centres):
            continue
        out.append((text, corners))
        centres.append((text, cx, cy))
    return out


def _classify(
    gray: Image, raw: list[tuple[str, FloatArray]], backend: Backend
) -> tuple[list[TagDetection], list[IgnoredCode]]:
    tags: list[TagDetection] = []
    ignored: list[IgnoredCode] = []
    for text, corners in raw:
        try:
            payload = parse_payload(text)
        except UnknownTagError as exc:
            log.info("%s", exc)
            ignored.append(IgnoredCode(exc.text, exc.reason, exc.detail, corners))
            continue
        # zxing reports corners in the code's own orientation; zbar's order depends on the scan direction
        oriented = (
            _clockwise_keep_start(corners) if backend is Backend.ZXING else orient_corners(gray, corners)
        )
        tags.append(TagDetection(payload, oriented, backend))
    return tags, ignored


# --- corner order -------------------------------------------------------------------------------------------

_FINDER = np.ones((7, 7), np.float32)  # 1 = dark module
_FINDER[1:6, 1:6] = 0.0
_FINDER[2:5, 2:5] = 1.0
_CHECK_MODULE_PX = 4  # the code is warped to this many pixels per module to look at its corners
# A finder pattern as a camera sees one whose modules are about 2 px: light where the pattern is light,
# blurred by about 0.4 of a module. Compared by correlation, so light, contrast and blur matter little.
_FINDER_LOOK = cv2.GaussianBlur(
    cv2.resize(1.0 - _FINDER, (7 * _CHECK_MODULE_PX,) * 2, interpolation=cv2.INTER_NEAREST), (0, 0), 1.5
)
_FINDER_LOOK -= _FINDER_LOOK.mean()
_FINDER_LOOK_NORM2 = float((_FINDER_LOOK * _FINDER_LOOK).sum())


def orient_corners(gray: Image, corners: FloatArray) -> FloatArray:
    """Order a code's outline corners as top-left, top-right, bottom-right, bottom-left of the code itself:
    clockwise in the image (the table is never seen mirrored), starting so that the corner without a finder
    pattern is bottom-right. Falls back to the given order when the code is too small to check.

    Each of the four turns is scored by how much its top-left, top-right and bottom-left corners look like a
    finder pattern and its bottom-right does not (normalised correlation with `_FINDER_LOOK`). Thresholding
    the code into modules first turned 15 % of 1080p codes (modules of 2 px) the wrong way, and put their
    tiles on a neighbouring hex; this turns none of 1136 (codes read by zxing, whose order is known). One
    warp serves all four turns: a warp per turn samples each a quarter module elsewhere (8 of 1136 wrong)."""
    pts = np.asarray(corners, np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    order = np.argsort(ang)  # increasing angle = clockwise with y down
    cw = pts[order]
    side = float(np.linalg.norm(cw[0] - cw[2])) / math.sqrt(2.0)
    if side < QR_MODULES * 1.2:
        # too small to check finders: trust the backend's order, made clockwise
        return _clockwise_keep_start(pts)
    n = QR_MODULES * _CHECK_MODULE_PX
    f = 7 * _CHECK_MODULE_PX
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    patch = cv2.warpPerspective(
        gray, cv2.getPerspectiveTransform(cw.astype(np.float32), dst), (n, n), flags=cv2.INTER_LINEAR
    ).astype(np.float32)
    # cw's corners in order; a finder pattern looks the same turned, so one warp serves all four turns
    look = [
        _looks_like_finder(patch[:f, :f]),
        _looks_like_finder(patch[:f, -f:]),
        _looks_like_finder(patch[-f:, -f:]),
        _looks_like_finder(patch[-f:, :f]),
    ]
    # corner k as top-left: finders at it and the corners after and before it, none at the one opposite
    scores = [look[k] + look[(k + 1) % 4] + look[(k + 3) % 4] - look[(k + 2) % 4] for k in range(4)]
    best = int(np.argmax(scores))
    return np.asarray(np.roll(cw, -best, axis=0), np.float64)


def _looks_like_finder(block: npt.NDArray[np.float32]) -> float:
    """Normalised correlation of a code's corner (7 x 7 modules) with a finder pattern, -1..1."""
    a = block - block.mean()
    norm = math.sqrt(float((a * a).sum()) * _FINDER_LOOK_NORM2)
    return float((a * _FINDER_LOOK).sum()) / norm if norm > 0 else 0.0


def _clockwise_keep_start(pts: FloatArray) -> FloatArray:
    area = 0.0
    corners = pts.tolist()
    for i in range(4):
        x0, y0 = corners[i]
        x1, y1 = corners[(i + 1) % 4]
        area += x0 * y1 - x1 * y0
    if area >= 0:  # clockwise in image coordinates (y down)
        return pts
    return np.asarray(np.array([pts[0], pts[3], pts[2], pts[1]]), np.float64)


# --- candidate regions (pyzbar) -----------------------------------------------------------------------------


def find_candidates(
    gray: Image, *, min_side_px: float = 20.0, max_side_frac: float = 0.5
) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) around patches that look like QR stickers: white paper with a busy black and
    white texture inside. Works at reduced resolution; boxes are in full-frame pixels, with margin."""
    h, w = gray.shape
    factor = max(1, round(max(w, h) / 1920)) * 2
    small = cv2.resize(gray, (w // factor, h // factor), interpolation=cv2.INTER_AREA) if factor > 1 else gray
    # local contrast: a QR code is the busiest black-and-white patch on a table (its energy is several times
    # that of tile art, text or wood grain); opening removes thin busy lines (tile edges, text) that would
    # otherwise join neighbouring codes into one region
    grad = cv2.morphologyEx(small, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    energy = cv2.blur(grad, (5, 5))
    thr = max(55.0, float(np.percentile(energy, 75)) * 2.5)
    mask = (energy > thr).astype(np.uint8) * 255
    k = max(5, round(min_side_px / factor / 3) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), np.uint8)
    n, _labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    boxes: list[tuple[int, int, int, int]] = []
    max_side = max_side_frac * min(w, h)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        side = max(bw, bh) * factor
        if side < min_side_px or side > max_side:
            continue
        if area < 0.25 * bw * bh:  # thin lines (tile edges) are not codes
            continue
        if max(bw, bh) > 3 * min(bw, bh):
            continue
        m = 0.2 * side
        boxes.append(
            (int(x * factor - m), int(y * factor - m), int((x + bw) * factor + m), int((y + bh) * factor + m))
        )
    return _split_large(boxes)


def _split_large(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Cut regions much larger than the typical one (neighbouring stickers merged into one patch) into
    overlapping windows that each hold any one sticker whole: zbar slows down sharply on crops that hold
    many codes."""
    if len(boxes) < 3:
        return boxes
    # specks (pips, text) are far smaller than stickers: judge sizes among the larger boxes only
    sides = np.array([min(b[2] - b[0], b[3] - b[1]) for b in boxes], np.float64)
    typical = float(np.median(sides[sides >= np.median(sides)]))
    big = sides >= 0.4 * typical
    boxes = [b for b, keep in zip(boxes, big, strict=True) if keep]
    size, step = 1.75 * typical, 0.75 * typical
    out: list[tuple[int, int, int, int]] = []
    for b in boxes:
        w, h = b[2] - b[0], b[3] - b[1]
        if max(w, h) <= 1.8 * typical:
            out.append(b)
            continue
        xs = np.arange(b[0], max(b[0] + 1, b[2] - size + step), step)
        ys = np.arange(b[1], max(b[1] + 1, b[3] - size + step), step)
        for y0 in ys:
            for x0 in xs:
                out.append((int(x0), int(y0), int(min(x0 + size, b[2])), int(min(y0 + size, b[3]))))
    return out

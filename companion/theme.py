"""The app's one visual language: a palette, a type scale, spacing and touch sizes, growing with the window.

A design is drawn for a 1280x800 dp window; a bigger window (1920x1200) scales every size by the same factor,
so the layout grows instead of leaving empty space, and a finger's target never falls under 48 dp. Sizes are
Kivy properties of `THEME`, so kv rules written as `height: T.tap` or `font_size: T.body` follow a resize.
"""

from __future__ import annotations

from kivy.event import EventDispatcher
from kivy.metrics import Metrics
from kivy.properties import NumericProperty

from engine.colours import Colour

RGBA = tuple[float, float, float, float]

DESIGN_SIZE = (1280.0, 800.0)  # dp
MAX_SCALE = 2.0
MIN_TOUCH = 48.0  # dp: the smallest target a finger may be asked to hit


def _hex(code: str, alpha: float = 1.0) -> RGBA:
    code = code.lstrip("#")
    r, g, b = (int(code[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return (r, g, b, alpha)


class Palette:
    """Warm dark surfaces (a tablet on a games table, often in dim light), parchment text, one gold accent for
    "now" and "do this", orange for "look here" (a problem, a discrepancy), green for done."""

    bg: RGBA = _hex("1c1916")
    surface: RGBA = _hex("29241f")
    surface_hi: RGBA = _hex("35302a")
    line: RGBA = _hex("4d443a")
    text: RGBA = _hex("f3ede3")
    text_dim: RGBA = _hex("bdb2a3")
    text_faint: RGBA = _hex("8a8073")
    on_accent: RGBA = _hex("1c1916")
    accent: RGBA = _hex("e3b447")
    accent_dim: RGBA = _hex("7a6331")
    button: RGBA = _hex("4a3f33")
    button_down: RGBA = _hex("65564a")
    button_quiet: RGBA = _hex("302a24")
    greyed: RGBA = _hex("2f2c29")
    greyed_text: RGBA = _hex("7d766d")
    warn: RGBA = _hex("ef8a3c")
    bad: RGBA = _hex("e25b4b")
    good: RGBA = _hex("7cc47f")
    done: RGBA = _hex("4f7d52")
    info: RGBA = _hex("8fb8e8")
    field: RGBA = _hex("3a332c")
    field_edge: RGBA = _hex("8a7a63")
    paper: RGBA = _hex("f4efe4")  # the chart's background
    ink: RGBA = _hex("2c2824")


PALETTE = Palette()

# Player colours: saturated enough for a marker, each with a shape (never colour alone) and a text colour that
# reads on it.
PLAYER_RGB: dict[Colour, tuple[float, float, float]] = {
    Colour.RED: (0.85, 0.16, 0.16),
    Colour.BLUE: (0.18, 0.40, 0.90),
    Colour.YELLOW: (0.96, 0.80, 0.15),
    Colour.GREEN: (0.15, 0.65, 0.30),
    Colour.WHITE: (0.95, 0.95, 0.92),
    Colour.BLACK: (0.12, 0.12, 0.14),
}
DARK_TEXT_ON = frozenset({Colour.YELLOW, Colour.WHITE})


def on_player(colour: Colour) -> RGBA:
    """The text colour that reads on a player's colour."""
    return PALETTE.on_accent if colour in DARK_TEXT_ON else PALETTE.text


def player_rgba(colour: Colour, alpha: float = 1.0, shade: float = 1.0) -> RGBA:
    r, g, b = PLAYER_RGB[colour]
    return (r * shade, g * shade, b * shade, alpha)


# The type scale, in sp at the design size: every text in the app is one of these.
TYPE_SCALE: dict[str, float] = {
    "caption": 15.0,  # secondary facts, axis labels
    "body": 18.0,  # sentences, list rows
    "label": 20.0,  # buttons
    "heading": 24.0,  # a panel's title
    "title": 30.0,  # a screen's title, the turn line
    "score": 34.0,  # every player's score, readable from across the table
    "display": 60.0,  # the battle's combat scores
}
# Spacing and touch sizes, in dp at the design size.
SIZES: dict[str, float] = {
    "gap": 8.0,
    "pad": 12.0,
    "pad_big": 20.0,
    "radius": 8.0,
    "tap": 56.0,  # an ordinary button
    "tap_big": 68.0,  # the one thing to do now
    "row": 52.0,  # a list row
    "bar": 92.0,  # the score bar
    "nav": 64.0,
}


def scale_for(width: float, height: float, density: float = 1.0) -> float:
    """How much the design grows for a window of this size (pixels) at this density: 1 at 1280x800 dp, more
    for bigger windows (up to 2), never less than 1 so no target shrinks under its design size."""
    w, h = width / density, height / density
    return max(1.0, min(MAX_SCALE, w / DESIGN_SIZE[0], h / DESIGN_SIZE[1]))


class Theme(EventDispatcher):  # type: ignore[misc]
    """Pixel sizes for the current window. kv rules bind to these properties."""

    scale = NumericProperty(1.0)
    u = NumericProperty(1.0)  # pixels per design dp
    caption = NumericProperty(15.0)
    body = NumericProperty(18.0)
    label = NumericProperty(20.0)
    heading = NumericProperty(24.0)
    title = NumericProperty(30.0)
    score = NumericProperty(34.0)
    display = NumericProperty(60.0)
    gap = NumericProperty(8.0)
    pad = NumericProperty(12.0)
    pad_big = NumericProperty(20.0)
    radius = NumericProperty(8.0)
    tap = NumericProperty(56.0)
    tap_big = NumericProperty(68.0)
    row = NumericProperty(52.0)
    bar = NumericProperty(92.0)
    nav = NumericProperty(64.0)

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)
        self.apply(1.0)

    def fit(self, width: float, height: float) -> bool:
        """Follow a window of this size in pixels; True when the sizes changed."""
        scale = scale_for(width, height, float(Metrics.density))
        if abs(scale - self.scale) < 1e-3:
            return False
        self.apply(scale)
        return True

    def apply(self, scale: float) -> None:
        self.scale = scale
        dp = float(Metrics.dp) * scale
        sp = float(Metrics.sp) * scale
        self.u = dp
        for name, size in TYPE_SCALE.items():
            setattr(self, name, size * sp)
        for name, size in SIZES.items():
            setattr(self, name, size * dp)

    def px(self, design_dp: float) -> float:
        """A design size in dp, in pixels now."""
        return float(design_dp * self.u)

    def font(self, role: str) -> float:
        """A role of the type scale ("body", "title"...), in pixels now."""
        return float(getattr(self, role))


THEME = Theme()

"""What the device shows: the last roll on a 7-LED die face and/or a small text display.

A view has show(dice, source) and tick(now_ms); the device calls show() on every roll and tick() every loop.
"""

from .protocol import CAP_DISPLAY, CAP_LEDS

# Which of the four LED groups light for each face of a classic 7-LED die face:
# group 0 centre, group 1 one diagonal pair, group 2 the other diagonal pair, group 3 the middle pair.
FACES = (
    (0, 0, 0, 0),  # blank
    (1, 0, 0, 0),
    (0, 1, 0, 0),
    (1, 1, 0, 0),
    (0, 1, 1, 0),
    (1, 1, 1, 0),
    (0, 1, 1, 1),
)


class PipLeds:
    """Shows the last roll on one LED die face, cycling through the dice when there are several.

    `pins` are four outputs with value(v): centre, diagonal A, diagonal B, middle pair. Each die shows for
    `show_ms`, then all LEDs go dark for `gap_ms` (so 5, 5 reads as two dice); a single die stays lit.
    """

    capability = CAP_LEDS

    def __init__(self, pins, clock, show_ms=800, gap_ms=200):
        if len(pins) != 4:
            raise ValueError("PipLeds needs 4 pins")
        self._pins = pins
        self._clock = clock
        self.show_ms = show_ms
        self.gap_ms = gap_ms
        self._dice = []
        self._since = 0
        self._lit = None
        self._set(0)

    def _set(self, face):
        if face != self._lit:
            levels = FACES[face]
            for i in range(4):
                self._pins[i].value(levels[i])
            self._lit = face

    def show(self, dice, source):
        self._dice = list(dice)
        self._since = self._clock.ticks_ms()
        self._set(self._dice[0] if self._dice else 0)

    def face_at(self, now):
        """The face lit at time `now` (0 = dark)."""
        if not self._dice:
            return 0
        if len(self._dice) == 1:
            return self._dice[0]
        period = self.show_ms + self.gap_ms
        t = self._clock.ticks_diff(now, self._since) % (period * len(self._dice))
        index, phase = divmod(t, period)
        return self._dice[index] if phase < self.show_ms else 0

    def tick(self, now):
        self._set(self.face_at(now))


class TextDisplay:
    """The last roll on a framebuf-style display (e.g. micropython-lib's SSD1306 128x32: fill/text/show)."""

    capability = CAP_DISPLAY

    def __init__(self, fb):
        self._fb = fb
        self.lines = []
        self._draw(["Dice roller", "ready"])

    def _draw(self, lines):
        self.lines = lines
        self._fb.fill(0)
        for i, line in enumerate(lines):
            self._fb.text(line, 0, 8 * i, 1)
        self._fb.show()

    def show(self, dice, source):
        values = [str(d) for d in dice]
        self._draw([
            f"{source}: {len(dice)} dice",
            " ".join(values[:5]),
            " ".join(values[5:]),
            f"sum {sum(dice)}",
        ])

    def tick(self, now):
        pass

"""Debounced push button, polled from the main loop (no interrupts, so nothing runs outside the loop)."""


class Debouncer:
    """Reports a press once the pin has read "pressed" steadily for `stable_ms`.

    `pin` needs only `value()`. Wired to ground with the internal pull-up, a pressed button reads 0
    (active_low=True). The state at construction is taken as settled, so a button held during boot does not
    roll.
    """

    def __init__(self, pin, clock, stable_ms=30, active_low=True):
        self._pin = pin
        self._clock = clock
        self.stable_ms = stable_ms
        self._active_low = active_low
        now = clock.ticks_ms()
        level = self._read()
        self._raw = level
        self._raw_since = now
        self.pressed = level

    def _read(self):
        v = self._pin.value()
        return (v == 0) if self._active_low else (v != 0)

    def poll(self, now):
        """Sample the pin; True exactly once per debounced press."""
        level = self._read()
        if level != self._raw:
            self._raw = level
            self._raw_since = now
            return False
        if level != self.pressed and self._clock.ticks_diff(now, self._raw_since) >= self.stable_ms:
            self.pressed = level
            return level
        return False

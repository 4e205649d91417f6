"""A stand-in for the RP2040 `machine` module, so firmware/main.py itself runs under the unix MicroPython.

Used by test_firmware_micropython.py. Environment: STUB_BUTTON_HELD=1 holds the button at boot;
STUB_MAX_FEEDS=N ends the run (SystemExit) after N watchdog feeds; STUB_RESET_CAUSE sets reset_cause().
On exit the LED pin levels are printed to stderr as `LEDS pin=level ...`.
"""

import os
import sys

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5

_pins = {}


def reset_cause():
    return int(os.getenv("STUB_RESET_CAUSE") or PWRON_RESET)


def unique_id():
    return b"\xe6\x61\x41\x03\xe7\x45\x2d\x2f"


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, ident, mode=-1, pull=-1):
        self.ident = ident
        self.mode = mode
        self.level = 0 if (ident == 15 and os.getenv("STUB_BUTTON_HELD")) else 1
        if mode == Pin.OUT:
            self.level = 0
        _pins[ident] = self

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0
        return None


class WDT:
    def __init__(self, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        self.limit = int(os.getenv("STUB_MAX_FEEDS") or 500)

    def feed(self):
        self.feeds += 1
        if self.feeds >= self.limit:
            levels = []
            for ident in (16, 17, 18, 19):
                if ident in _pins:
                    levels.append(str(ident) + "=" + str(_pins[ident].level))
            sys.stderr.write("LEDS " + " ".join(levels) + "\n")
            sys.stderr.write("WDT " + str(self.timeout) + " fed " + str(self.feeds) + "\n")
            raise SystemExit(0)


class I2C:
    def __init__(self, bus, sda=None, scl=None, freq=400000):
        self.bus = bus

    def scan(self):
        return []


class UART:
    def __init__(self, bus, baud=115200, tx=None, rx=None, timeout=0):
        self.bus = bus

    def any(self):
        return 0

    def read(self):
        return None

    def write(self, data):
        return len(data)

"""Dice roller firmware library: protocol codec, dice from random bytes, the device core.

Runs under MicroPython (copied to the board as /dice) and CPython (imported as firmware.dice). Nothing here
touches hardware: firmware/main.py builds the real pins, stream, watchdog and random source and passes them
in.
"""

FIRMWARE_VERSION = (2, 0, 0)

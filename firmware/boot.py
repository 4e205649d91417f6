"""Runs before main.py on every reset. Nothing to set up: USB CDC is the MicroPython default.

Kept so that `mpremote cp firmware/boot.py :` replaces any boot.py an earlier project left on the board.
"""

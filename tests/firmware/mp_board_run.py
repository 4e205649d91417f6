"""Runs firmware/main.py under the unix MicroPython with the stub `machine` module (board_stub/).

    micropython tests/firmware/mp_board_run.py REPO_ROOT

The protocol then runs on this process's stdin/stdout, exactly as on the board's USB port.
"""

import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, ROOT)
sys.path.insert(0, ROOT + "/firmware")
sys.path.insert(0, ROOT + "/tests/firmware/board_stub")

import main  # noqa: E402, F401  (runs the firmware)

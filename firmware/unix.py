"""The dice core under the unix MicroPython: the real interpreter, for host tests and `firmware/sim.py
--micropython` (the simulator's pty and faults around the firmware as MicroPython runs it).

    micropython firmware/unix.py [DEVICE_ID_HEX [RESET_CAUSE]]

The protocol runs on stdin/stdout, exactly as on the board's USB port; every device event is one JSON line on
stderr ({"kind", "seq", "value", "session"}), written before the frame it concerns. Ends when stdin closes.
"""

import json
import os
import sys
import time

_parts = sys.argv[0].split("/")
sys.path.append("/".join(_parts[:-2]) or ".")  # the repository root, so `firmware.dice` imports

from firmware.dice import protocol  # noqa: E402
from firmware.dice.device import Device  # noqa: E402
from firmware.dice.streams import StdioStream  # noqa: E402


def on_event(kind, seq, value, session):
    sys.stderr.write(json.dumps({"kind": kind, "seq": seq, "value": value, "session": session}) + "\n")


def main(argv):
    device_id = protocol.unhexlify(argv[1]) if len(argv) > 1 else b"SENESIM1"
    reset_cause = int(argv[2]) if len(argv) > 2 else 0
    device = Device(
        StdioStream(eof_ends=True), os.urandom, time, device_id=device_id, reset_cause=reset_cause,
        on_event=on_event,
    )
    try:
        device.run()
    except EOFError:  # the host's end closed: this "board" is unplugged
        return


main(sys.argv)

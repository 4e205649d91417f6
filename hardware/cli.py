"""`python -m hardware` (or `seneschal dice` once dispatched): talk to a dice roller from the shell.

    python -m hardware list                         # USB ports that look like rollers, and which answer HELLO
    python -m hardware roll 2 --port /dev/pts/3     # roll on the device; one JSON line per roll
    python -m hardware roll 2 --screen              # no device: roll on screen (secrets)
    python -m hardware roll --typed "3 5"           # physical dice, validated
    python -m hardware info|ping|status [--port URL]
    python -m hardware watch --port URL             # print button rolls, dropped ones, connection changes

Without --port the roller is found by USB id: 2e8a:0005 (MicroPython on an RP2040) unless --usb-id VID:PID
is given (repeatable). Malformed input (a number that is not finite or out of range included): a message on
stderr and exit code 2; a roller that cannot be reached, misbehaves, or (watch) stops answering: a message and
exit code 1.
"""

from __future__ import annotations

import argparse
import json
import math
import queue
import sys
import time
from collections.abc import Callable, Sequence

from hardware.client import KEEPALIVE, DiceRoller
from hardware.discovery import DEFAULT_USB_IDS, candidate_ports, discover, find_roller
from hardware.errors import HardwareError, RollInputError
from hardware.events import (
    ButtonRollEvent,
    ButtonRollsDroppedEvent,
    ConnectionEvent,
    ConnectionState,
    DiceEvent,
)
from hardware.rolls import MAX_DICE, MIN_DICE, ScreenRoller, typed_roll

MAX_SECONDS = 3600.0  # --timeout, --keepalive
MAX_DURATION = 7 * 24 * 3600.0  # --duration
MAX_COUNT = 100_000  # --count


def _dice_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of dice: {text!r}") from None
    if not MIN_DICE <= n <= MAX_DICE:
        raise argparse.ArgumentTypeError(f"{n} dice: a roll has {MIN_DICE}..{MAX_DICE}")
    return n


def _seconds(limit: float) -> Callable[[str], float]:
    """A number of seconds: finite, above 0, at most `limit` (nan and inf never reach a timer)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if not math.isfinite(value) or not 0 < value <= limit:
            raise argparse.ArgumentTypeError(f"{text!r} seconds: must be above 0 and at most {limit:g}")
        return value

    return parse


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 1..{MAX_COUNT}")
    return value


def _usb_id(text: str) -> tuple[int, int]:
    vid, sep, pid = text.partition(":")
    try:
        ids = (int(vid, 16), int(pid, 16))
    except ValueError:
        ids = (-1, -1)
    if not sep or not all(0 <= i <= 0xFFFF for i in ids):
        raise argparse.ArgumentTypeError(f"not a USB id VID:PID in hex, e.g. 2e8a:0005: {text!r}")
    return ids


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="seneschal dice", description="Talk to the USB dice roller.")
    sub = parser.add_subparsers(dest="command", required=True)
    port = argparse.ArgumentParser(add_help=False)
    port.add_argument("--port", help="pyserial URL or device path (default: find the roller by USB id)")
    port.add_argument("--timeout", type=_seconds(MAX_SECONDS), default=2.0, metavar="S",
                      help="seconds per request (default 2)")
    usb = argparse.ArgumentParser(add_help=False)
    usb.add_argument("--usb-id", type=_usb_id, action="append", dest="usb_ids", metavar="VID:PID",
                     help="USB id to look for, hex (repeatable; default 2e8a:0005, MicroPython on RP2040)")
    port = argparse.ArgumentParser(add_help=False, parents=[port, usb])
    sub.add_parser("list", parents=[usb], help="list candidate ports and the rollers among them")
    sub.add_parser("info", parents=[port], help="print the roller's HELLO")
    roll = sub.add_parser("roll", parents=[port], help="roll dice; prints one JSON line per roll")
    roll.add_argument("n", nargs="?", type=_dice_count, help="number of dice (1..10)")
    roll.add_argument("--count", type=_count, default=1, help=f"how many rolls, 1..{MAX_COUNT} (default 1)")
    how = roll.add_mutually_exclusive_group()
    how.add_argument("--screen", action="store_true", help="roll on screen instead of on the device")
    how.add_argument("--typed", metavar="DICE", help="record physical dice typed in, e.g. '3 5'")
    ping = sub.add_parser("ping", parents=[port], help="measure round trips")
    ping.add_argument("--count", type=_count, default=5, help=f"how many pings, 1..{MAX_COUNT} (default 5)")
    sub.add_parser("status", parents=[port], help="print the device's health counters")
    watch = sub.add_parser("watch", parents=[port], help="print button rolls, dropped ones and connection "
                           "changes; exit 1 when the roller stops answering or goes away")
    watch.add_argument("--duration", type=_seconds(MAX_DURATION), default=None, metavar="S",
                       help="stop after S seconds (exit 0)")
    watch.add_argument("--keepalive", type=_seconds(MAX_SECONDS), default=KEEPALIVE, metavar="S",
                       help=f"PING when idle this long (default {KEEPALIVE:g})")
    return parser


def _open(
    args: argparse.Namespace, usb_ids: list[tuple[int, int]], events: queue.Queue[DiceEvent]
) -> DiceRoller:
    url = args.port if args.port is not None else find_roller(usb_ids, timeout=args.timeout)
    # Only `watch` lives long enough to need the keepalive; it reports a lost roller, never waits for it.
    keepalive = args.keepalive if args.command == "watch" else None
    roller = DiceRoller(url, keepalive=keepalive, reconnect=False, on_event=events.put)
    roller.open(args.timeout)
    return roller


def _event_line(event: DiceEvent) -> str:
    if isinstance(event, ButtonRollEvent):
        return json.dumps({"event": "button", **event.roll.to_json()})
    if isinstance(event, ButtonRollsDroppedEvent):
        return json.dumps({"event": "dropped", "count": event.count, "device_id": event.device_id})
    return json.dumps({"event": event.state.value, "device_id": event.info.device_id if event.info else None,
                       "reason": event.reason})


def _watch(roller: DiceRoller, events: queue.Queue[DiceEvent], duration: float | None) -> int:
    """Print events until `duration` is up (0) or the roller is lost (1: hung, unplugged)."""
    deadline = None if duration is None else time.monotonic() + duration
    while deadline is None or time.monotonic() < deadline:
        try:
            event = events.get(timeout=0.1)
        except queue.Empty:
            continue
        print(_event_line(event), flush=True)
        if isinstance(event, ConnectionEvent) and event.state is ConnectionState.DISCONNECTED:
            print(f"seneschal dice: roller on {roller.port_name!r} lost: {event.reason}", file=sys.stderr)
            return 1
    return 0


def _run(args: argparse.Namespace) -> int:
    usb_ids: list[tuple[int, int]] = args.usb_ids or list(DEFAULT_USB_IDS)
    if args.command == "list":
        for candidate in candidate_ports(usb_ids):
            print(f"{candidate.device}  {candidate.vid:04x}:{candidate.pid:04x}  {candidate.description}")
        for info in discover(usb_ids):
            print(json.dumps({"port": info.port, "device_id": info.device_id, "firmware": info.firmware}))
        return 0
    if args.command == "roll" and (args.screen or args.typed is not None):
        if args.typed is not None:
            print(json.dumps(typed_roll(args.typed, args.n).to_json()))
            return 0
        if args.n is None:
            raise RollInputError("roll --screen needs a number of dice")
        for _ in range(args.count):
            print(json.dumps(ScreenRoller().roll(args.n).to_json()))
        return 0
    if args.command == "roll" and args.n is None:
        raise RollInputError("roll needs a number of dice (1..10)")
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = _open(args, usb_ids, events)
    try:
        if args.command == "info":
            hello = roller.info
            assert hello is not None
            caps = [c.name for c in type(hello.capabilities) if c and c in hello.capabilities]
            print(json.dumps({"port": hello.port, "device_id": hello.device_id, "firmware": hello.firmware,
                              "protocol": hello.protocol_version, "max_dice": hello.max_dice,
                              "capabilities": caps}))
        elif args.command == "roll":
            for _ in range(args.count):
                print(json.dumps(roller.roll(args.n, args.timeout).to_json()), flush=True)
        elif args.command == "ping":
            for _ in range(args.count):
                print(f"{roller.ping(timeout=args.timeout) * 1000:.3f} ms", flush=True)
        elif args.command == "status":
            status = roller.status(args.timeout)
            print(json.dumps({"reset_cause": status.reset.name.lower(), "uptime_s": status.uptime_s,
                              **status.counters()}))
        else:
            return _watch(roller, events, args.duration)
    finally:
        roller.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # argparse has printed the usage or the problem (exit 2), or --help (0)
        return int(exc.code or 0)
    try:
        return _run(args)
    except (RollInputError, ValueError) as exc:
        print(f"seneschal dice: {exc}", file=sys.stderr)
        return 2
    except HardwareError as exc:
        print(f"seneschal dice: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130

"""The `seneschal` command: one entry point, each subcommand owned by the package it belongs to.

Subcommands are imported lazily so that, for example, `seneschal referee` never loads Kivy or OpenCV.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

# subcommand -> (module, function, one-line help). Each target takes argv (without the subcommand) and
# returns a process exit code.
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": (
        "companion.demo",
        "main",
        "start the app with a synthetic camera, a scripted game and a simulated dice roller",
    ),
    "app": ("companion.demo", "main_app", "start the app for a real table (camera and roller optional)"),
    "replay": (
        "companion.replay",
        "main",
        "run the demo pipeline with no window and check it against the script",
    ),
    "referee": (
        "engine.cli",
        "main",
        "check a scenario's actions against the rules and print verdicts as JSON lines",
    ),
    "vision": ("vision.cli", "main", "read a table image or video and print the reading as JSON"),
    "tags": ("vision.sheet", "main", "write the printable sheet of QR stickers for the box"),
    "dice": ("hardware.cli", "main", "talk to the USB dice roller (list, info, roll, ping, status, watch)"),
    "dice-sim": (
        "firmware.sim",
        "main",
        "run the dice roller firmware on this computer behind a pseudo-terminal",
    ),
}


def _usage() -> str:
    lines = ["usage: seneschal COMMAND [ARGS...]", "", "commands:"]
    width = max(len(name) for name in SUBCOMMANDS)
    for name, (_module, _func, text) in SUBCOMMANDS.items():
        lines.append(f"  {name.ljust(width)}  {text}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        print(f"seneschal: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, func_name, _text = SUBCOMMANDS[name]
    module = importlib.import_module(module_name)
    func: Callable[[list[str]], int] = getattr(module, func_name)
    return int(func(rest) or 0)


if __name__ == "__main__":
    raise SystemExit(main())

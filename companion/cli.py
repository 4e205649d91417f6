"""The `seneschal` command: one entry point, each subcommand owned by the package it belongs to.

Subcommands are imported lazily so that, for example, `seneschal referee` never loads Kivy or OpenCV.
"""

from __future__ import annotations

import importlib
import os
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


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("seneschal")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(_usage(), file=sys.stderr)
        return 2
    if args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0
    if args[0] == "--version":
        print(f"seneschal {_version()}")
        return 0
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        print(
            f"seneschal: unknown command {name!r}; the commands are {', '.join(SUBCOMMANDS)} "
            "(see `seneschal --help`)",
            file=sys.stderr,
        )
        return 2
    module_name, func_name, _text = SUBCOMMANDS[name]
    module = importlib.import_module(module_name)
    func: Callable[[list[str]], int] = getattr(module, func_name)
    try:
        code = int(func(rest) or 0)
        sys.stdout.flush()  # inside the try: a reader gone away shows up here, not at exit
    except BrokenPipeError:
        return _reader_went_away()
    except KeyboardInterrupt:  # Ctrl-C: the user knows why it stopped
        print(file=sys.stderr)
        return 130
    return code


def _reader_went_away() -> int:
    """The output's reader closed it (`seneschal referee game.json | head`): stop quietly, as `cat` does.
    Standard output is pointed at /dev/null so that Python's final flush has nowhere to fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away


if __name__ == "__main__":
    raise SystemExit(main())

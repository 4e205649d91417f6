"""Command-line arguments for the app's commands (`seneschal demo|app|replay`): one-line errors and checked
values, so that a bad argument is refused before anything starts, opens or is created.

A refused argument prints `seneschal demo: argument --size: ... (see seneschal demo --help)` on stderr and the
command exits with 2, the code every `seneschal` command gives bad input.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

EXIT_BAD_INPUT = 2
MIN_WINDOW = (320, 240)
MAX_WINDOW = (7680, 4320)  # 8K: anything larger is a typo, and SDL would try to allocate it
SQLITE_MAGIC = b"SQLite format 3\x00"


class Parser(argparse.ArgumentParser):
    """`argparse` whose errors are one line on stderr (no usage block) and exit code 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | int:
    """The parsed arguments, or the exit code when parsing ended the command (--help: 0, an error: 2)."""
    try:
        return parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT


def fail(prog: str, message: str) -> int:
    """Say what is wrong with the input in one line; the exit code for it."""
    print(f"{prog}: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def window_size(text: str) -> tuple[int, int]:
    """`1280x800` → (1280, 800), within MIN_WINDOW..MAX_WINDOW."""
    m = re.fullmatch(r"\s*(\d{1,6})\s*[xX×]\s*(\d{1,6})\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"a window size is WIDTHxHEIGHT in pixels (1280x800), not {text!r}")
    w, h = int(m[1]), int(m[2])
    (lo_w, lo_h), (hi_w, hi_h) = MIN_WINDOW, MAX_WINDOW
    if not (lo_w <= w <= hi_w and lo_h <= h <= hi_h):
        raise argparse.ArgumentTypeError(
            f"a window of {w}x{h} cannot be shown: from {lo_w}x{lo_h} to {hi_w}x{hi_h} pixels"
        )
    return w, h


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1 is needed, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1 is needed, got {value}")
    return value


def seconds(most: float) -> Callable[[str], float]:
    """A type for a duration in seconds from 0 to `most`."""

    def parse_seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a number of seconds is needed, got {text!r}") from None
        if not (math.isfinite(value) and 0 <= value <= most):
            raise argparse.ArgumentTypeError(f"seconds must be from 0 to {most:g}, got {text!r}")
        return value

    parse_seconds.__name__ = "seconds"
    return parse_seconds


def output_file(text: str) -> Path:
    """A file to write: not a folder, in a folder that exists (nothing is created but the file)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty file name")
    path = Path(text).expanduser()
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"the folder {str(path.parent)!r} does not exist")
    return path


def game_database(text: str) -> Path:
    """A game database to open or create: an SQLite file, or a new file in a folder that exists."""
    path = output_file(text)
    if path.exists():
        try:
            with path.open("rb") as f:
                head = f.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"cannot read {text!r}: {exc.strerror}") from None
        if head and head != SQLITE_MAGIC:
            raise argparse.ArgumentTypeError(f"{text!r} is not a game database (not an SQLite file)")
    return path

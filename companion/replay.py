"""`seneschal replay --headless [SCRIPT]`: the demo's pipeline with no window — synthetic frames → vision →
reconciliation → engine → storage — printing the event log and the final scores. Exit code 1 when any step
disagrees with the script, 2 for bad input. `--write-script PATH` writes the default script and does nothing
else."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from companion.cliargs import Parser, fail, game_database, output_file, parse, positive_int
from companion.errors import CompanionError, StorageError
from companion.pipeline import ScriptError, TruthReader, load_script, make_script, replay

PROG = "seneschal replay"
DEFAULT_MOVES, DEFAULT_SEED = 60, 7


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description=__doc__)
    p.add_argument("script", nargs="?", help="a demo script (JSON); default: the demo's seeded 3-player game")
    p.add_argument("--headless", action="store_true", help="no window (the only mode for now)")
    p.add_argument(
        "--moves",
        type=positive_int,
        help=f"moves of the default script (default {DEFAULT_MOVES}; fewer when someone wins)",
    )
    p.add_argument("--seed", type=int, help=f"seed of the default script (default {DEFAULT_SEED})")
    p.add_argument(
        "--reader",
        choices=("vision", "truth"),
        default="vision",
        help="vision: read the synthetic frames; truth: use the renderer's ground truth",
    )
    p.add_argument(
        "--db", type=game_database, help="SQLite file to store the game in (default: a temporary file)"
    )
    p.add_argument("--keep-going", action="store_true", help="report every disagreement, not just the first")
    p.add_argument("--write-script", metavar="PATH", type=output_file, help="write the script used and exit")
    return p


def _conflict(args: argparse.Namespace) -> str:
    """What in the arguments would be ignored without a word ("" when nothing is)."""
    if args.script and (args.moves is not None or args.seed is not None):
        return "--moves and --seed make the default script; they cannot change a script file"
    if args.write_script:
        ignored = [f for f, on in (("--headless", args.headless), ("--db", args.db), ("--keep-going",
                   args.keep_going), ("--reader", args.reader != "vision"), ("SCRIPT", args.script)) if on]
        if ignored:
            return f"--write-script only writes the default script; it does not take {', '.join(ignored)}"
    elif not args.headless:
        return "only --headless is supported (use `seneschal demo` for the window)"
    return ""


def main(argv: list[str] | None = None) -> int:
    args = parse(_parser(), argv)
    if isinstance(args, int):
        return args
    problem = _conflict(args)
    if problem:
        return fail(PROG, problem)
    moves = DEFAULT_MOVES if args.moves is None else args.moves
    seed = DEFAULT_SEED if args.seed is None else args.seed
    try:
        script = load_script(args.script) if args.script else make_script(seed, moves)
    except ScriptError as exc:
        return fail(PROG, str(exc))
    if args.write_script:
        try:
            args.write_script.write_text(json.dumps(script.to_json(), indent=1), encoding="utf-8")
        except OSError as exc:
            return fail(PROG, f"cannot write {str(args.write_script)!r}: {exc.strerror}")
        return 0
    from companion.storage import SqliteStorage

    with tempfile.TemporaryDirectory() as tmp:
        try:
            storage = SqliteStorage(args.db or Path(tmp) / "replay.sqlite3")
        except StorageError as exc:
            return fail(PROG, str(exc))
        try:
            reader = TruthReader() if args.reader == "truth" else None
            return replay(script, storage, sys.stdout, reader=reader, stop_on_error=not args.keep_going)
        except CompanionError as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
            return 1
        finally:
            storage.close()


if __name__ == "__main__":
    raise SystemExit(main())

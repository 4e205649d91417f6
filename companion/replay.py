"""`seneschal replay --headless [SCRIPT]`: the demo's pipeline with no window — synthetic frames → vision →
reconciliation → engine → storage — printing the event log and the final scores. Exit code 1 when any step
disagrees with the script, 2 for bad input."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from companion.errors import CompanionError
from companion.pipeline import ScriptError, TruthReader, load_script, make_script, replay


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="seneschal replay", description=__doc__)
    parser.add_argument(
        "script", nargs="?", help="a demo script (JSON); default: the demo's seeded 3-player game"
    )
    parser.add_argument("--headless", action="store_true", help="no window (the only mode for now)")
    parser.add_argument("--moves", type=int, default=60, help="moves of the default script (default 60)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the default script (default 7)")
    parser.add_argument(
        "--reader",
        choices=("vision", "truth"),
        default="vision",
        help="vision: read the synthetic frames; truth: use the renderer's ground truth",
    )
    parser.add_argument("--db", help="SQLite file to store the game in (default: a temporary file)")
    parser.add_argument(
        "--keep-going", action="store_true", help="report every disagreement, not just the first"
    )
    parser.add_argument("--write-script", metavar="PATH", help="write the script used and exit")
    args = parser.parse_args(argv)
    if not args.headless and not args.write_script:
        print(
            "seneschal replay: only --headless is supported (use `seneschal demo` for the window)",
            file=sys.stderr,
        )
        return 2
    try:
        script = load_script(args.script) if args.script else make_script(args.seed, args.moves)
    except ScriptError as exc:
        print(f"seneschal replay: {exc}", file=sys.stderr)
        return 2
    if args.write_script:
        import json

        Path(args.write_script).write_text(json.dumps(script.to_json(), indent=1), encoding="utf-8")
        return 0
    from companion.storage import SqliteStorage

    with tempfile.TemporaryDirectory() as tmp:
        storage = SqliteStorage(args.db or Path(tmp) / "replay.sqlite3")
        try:
            reader = TruthReader() if args.reader == "truth" else None
            return replay(script, storage, sys.stdout, reader=reader, stop_on_error=not args.keep_going)
        except CompanionError as exc:
            print(f"seneschal replay: {exc}", file=sys.stderr)
            return 1
        finally:
            storage.close()


if __name__ == "__main__":
    raise SystemExit(main())

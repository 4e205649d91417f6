"""`seneschal referee SCENARIO.json...`: check scenarios' actions against the rules, one JSON line per action.

Each line says whether the action was accepted or refused, the reason code, the sentence and the citation, and
the events it produced (a resolved battle also gets a `battle` summary with both final combat scores and the
margin). A refused action changes nothing and play goes on with the next one. The last line has every player's
score and the winner, if any. Malformed input gets one clear message on stderr and exit code 2, never a
traceback. Exit code 1 when the scenario's own expectations fail (or, with --strict, when an action is
refused). Several scenarios are refereed one after the other, each line then naming its `scenario`; the exit
code is the worst of theirs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from engine.errors import EngineError
from engine.scenario import final_line, load_scenario, run, step_line

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"seneschal referee: {message} (see `seneschal referee --help`)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="seneschal referee", description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument(
        "scenarios", nargs="+", metavar="SCENARIO", help="scenario JSON files (docs/scenarios.md); - is stdin"
    )
    p.add_argument("--strict", action="store_true", help="exit with 1 when any action is refused")
    p.add_argument("--pretty", action="store_true", help="indent each JSON document (no longer one per line)")
    return p


def _emit(obj: dict[str, Any], out: TextIO, pretty: bool) -> None:
    out.write(json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None) + "\n")


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if args.scenarios.count("-") > 1:
        print("seneschal referee: standard input (-) can be read only once", file=err)
        return EXIT_BAD_INPUT
    several = len(args.scenarios) > 1
    codes = [
        _referee(name, out, err, strict=args.strict, pretty=args.pretty, tag=name if several else None)
        for name in args.scenarios
    ]
    return max(codes)


def _referee(name: str, out: TextIO, err: TextIO, *, strict: bool, pretty: bool, tag: str | None) -> int:
    """One scenario: its lines on `out` (each naming `tag` if given), its problems on `err`; its exit code."""
    try:
        if name == "-":
            text = sys.stdin.read()
            try:
                source: Any = json.loads(text)
            except json.JSONDecodeError as exc:
                print(f"seneschal referee: standard input is not valid JSON: {exc.msg} at line {exc.lineno} "
                      f"column {exc.colno}", file=err)
                return EXIT_BAD_INPUT
        else:
            source = name
        scenario = load_scenario(source)
    except (EngineError, ValueError) as exc:
        print(f"seneschal referee: {exc}", file=err)
        return EXIT_BAD_INPUT

    def emit(line: dict[str, Any]) -> None:
        _emit({"scenario": tag, **line} if tag is not None else line, out, pretty)

    failed = False
    refused = False
    state = scenario.start
    try:
        for result in run(scenario):
            emit(step_line(result))
            state = result.state
            failed = failed or bool(result.failures)
            refused = refused or not result.verdict.ok
    except EngineError as exc:  # an engine bug must still not be a traceback at the table
        print(f"seneschal referee: the engine failed while replaying the scenario: {exc}", file=err)
        return EXIT_BAD_INPUT
    final_failures = scenario.expect.failures(state) if scenario.expect is not None else []
    emit(final_line(state, final_failures))
    if failed or final_failures:
        return EXIT_FAILED
    if refused and strict:
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())

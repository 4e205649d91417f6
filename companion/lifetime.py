"""Child processes that end with the app, however it ends.

The app starts helpers in processes of their own: the camera reader (`companion.feedproc`) and the demo's dice
simulator (`python -m firmware.sim`). A window closed normally stops them; a killed app (SIGKILL, a crash, the
terminal closed) must not leave them running. On Linux each child asks the kernel for SIGTERM when its parent
dies (`prctl(PR_SET_PDEATHSIG)`); SIGTERM sent to the app itself unwinds it like a closed window, so it stops
them in order. Elsewhere (Android keeps one process; macOS and Windows run the demo rarely) only the orderly
paths apply.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable
from types import FrameType

_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        func: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return func


def die_with_parent(parent_pid: int | None = None, sig: int = signal.SIGTERM) -> bool:
    """In a child process: be sent `sig` when the parent dies (Linux). If the parent is already gone (it died
    before we asked), go now. True when the kernel will see to it. `parent_pid` defaults to the parent now."""
    prctl = _prctl()
    expected = os.getppid() if parent_pid is None else parent_pid
    if prctl is None or prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        return False
    if os.getppid() != expected:
        os.kill(os.getpid(), sig)
    return True


def tied_to_us(cmd: list[str]) -> list[str]:
    """`cmd` run so that it dies with this process (Linux): through `python -m companion.lifetime`, which asks
    for the signal and then becomes `cmd` (exec keeps the request). No `preexec_fn`, which is unsafe in a
    process with threads. The kernel ties the signal to the creating THREAD: start it from the main thread."""
    if _prctl() is None:
        return list(cmd)
    return [sys.executable, "-m", "companion.lifetime", str(os.getpid()), "--", *cmd]


def exit_on_sigterm() -> None:
    """SIGTERM (what `kill` and desktop sessions send) unwinds the app like a closed window: its `finally`
    blocks stop the camera and the roller. Main thread only."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def main(argv: list[str] | None = None) -> int:
    """`python -m companion.lifetime PARENT_PID -- CMD [ARGS...]`: CMD, dying with PARENT_PID."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3 or args[1] != "--" or not args[0].isdigit():
        print("usage: python -m companion.lifetime PARENT_PID -- CMD [ARGS...]", file=sys.stderr)
        return 2
    die_with_parent(int(args[0]))
    try:
        os.execvp(args[2], args[2:])
    except OSError as exc:
        print(f"companion.lifetime: cannot run {args[2]!r}: {exc.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    raise SystemExit(main())

"""Child processes that end with the app, however it ends.

The app starts helpers in processes of their own: the camera reader (`companion.feedproc`) and the demo's dice
simulator (`python -m firmware.sim`). A window closed normally stops them; a killed app (SIGKILL, a crash, the
terminal closed) must not leave them running. On Linux each child asks the kernel for SIGTERM when its parent
dies (`prctl(PR_SET_PDEATHSIG)`); SIGTERM sent to the app itself unwinds it like a closed window, so it stops
them in order. Elsewhere (Android keeps one process; macOS and Windows run the demo rarely) only the orderly
paths apply.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
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
    for the signal, leaves the terminal (its own process group, so Ctrl-C reaches only the app, which ends its
    children in order; standard input from /dev/null) and then becomes `cmd` (exec keeps all that). No
    `preexec_fn`, which is unsafe in a process with threads. The kernel ties the signal to the creating
    THREAD: start it from the main thread."""
    if _prctl() is None:
        return list(cmd)
    return [sys.executable, "-m", "companion.lifetime", str(os.getpid()), "--", *cmd]


def ignore_ctrl_c() -> None:
    """In a child process: Ctrl-C in the terminal reaches every process of the group, but only the app should
    act on it (it stops its children in order, or they die with it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def ctrl_c_ignored_by_children() -> Iterator[None]:
    """Processes started inside start with Ctrl-C ignored (exec keeps an ignored signal ignored, and Python
    then installs no KeyboardInterrupt for it), so a Ctrl-C during their start-up imports prints nothing.
    Only the main thread can change a signal's handling; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


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
    os.setpgid(0, 0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    try:
        os.execvp(args[2], args[2:])
    except OSError as exc:
        print(f"companion.lifetime: cannot run {args[2]!r}: {exc.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    raise SystemExit(main())

"""Child processes that end with the app, however it ends.

The app starts helpers in processes of their own: the camera reader (`companion.feedproc`) and the demo's dice
simulator (`python -m firmware.sim`). A window closed normally stops them; a killed app (SIGKILL, a crash, the
terminal closed) must not leave them running. On Linux each child asks the kernel for SIGTERM when its parent
dies (`prctl(PR_SET_PDEATHSIG)`); Ctrl-C or SIGTERM sent to the app itself stops it like a closed window, so
it stops them in order. Elsewhere (Android keeps one process; macOS and Windows run the demo rarely) only the
orderly paths apply.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

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
    act on it (it stops its children in order, or they die with it). A Ctrl-C held back while the child
    started (`ctrl_c_held_from_children`) is dropped with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # not on Windows
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def ctrl_c_held_from_children() -> Iterator[None]:
    """Processes started inside start with Ctrl-C blocked (the signal mask survives fork and exec), so a
    Ctrl-C during their start-up imports prints nothing; they ignore it for good with `ignore_ctrl_c`. Here
    a Ctrl-C is held, not lost: the kernel hands it to another thread or delivers it when this one
    unblocks it. Where there are no signal masks (Windows) this does nothing."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def exit_on_sigterm() -> None:
    """SIGTERM (what `kill` and desktop sessions send) unwinds the app while it starts, like a closed window:
    its `finally` blocks stop the camera and the roller. Main thread only. Once the window runs,
    `StopSignals` takes over."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


class StopSignals:
    """While the window runs, Ctrl-C (SIGINT) and SIGTERM ask the app to stop in order instead of raising
    where the main thread happens to be: an exception raised in a finalizer that the garbage collector runs
    there (Kivy's clipboard probe leaves `subprocess.Popen`s in a reference cycle) is printed as "Exception
    ignored in Popen.__del__" and lost, and the app ran on. The handler only notes the signal; the app polls
    `asked` on its clock and stops; `exit()` then ends the command as the signal would have
    (KeyboardInterrupt, or SystemExit(128 + n)). A second Ctrl-C before the app stopped raises at once. Main
    thread only."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: int | None = None
        self._before: dict[int, Any] = {}

    @property
    def asked(self) -> bool:
        return self.received is not None

    def _handler(self, signum: int, _frame: FrameType | None) -> None:
        if signum == signal.SIGINT and self.received == signal.SIGINT:
            raise KeyboardInterrupt  # Ctrl-C again: the user insists
        self.received = signum

    def __enter__(self) -> StopSignals:
        self._before = {s: signal.signal(s, self._handler) for s in self.SIGNALS}
        return self

    def __exit__(self, *_exc: object) -> None:
        for s, handler in self._before.items():
            signal.signal(s, handler)

    def exit(self) -> None:
        """Ends the command as the signal received would have; nothing when none came."""
        if self.received == signal.SIGINT:
            raise KeyboardInterrupt
        if self.received is not None:
            raise SystemExit(128 + self.received)


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

"""No process is left behind: the demo's dice simulator and the camera process end with the app, however the
app ends (closed, SIGTERM, SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.lifetime import StopSignals, ctrl_c_held_from_children, tied_to_us

ROOT = Path(__file__).resolve().parents[2]
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")


def _children(pid: int) -> dict[int, str]:
    """Running (not zombie) children of `pid`, with their command lines."""
    out: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out[int(entry.name)] = cmd
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def _wait(cond: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


PARENT = """
import subprocess, sys, time
from companion.lifetime import StopSignals, ctrl_c_held_from_children, tied_to_us
child = subprocess.Popen(tied_to_us([sys.executable, "-c", "import time; time.sleep(60)"]))
print(child.pid, flush=True)
time.sleep(60)
"""


@linux_only
def test_a_child_tied_to_us_dies_when_we_are_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.kill()
    parent.wait()
    assert _wait(lambda: not _alive(child), 5), "the child outlived its killed parent"


def test_tied_to_us_runs_the_command_itself() -> None:
    out = subprocess.run(
        tied_to_us([sys.executable, "-c", "import os; print(os.getppid())"]),
        capture_output=True, text=True, cwd=ROOT, check=True,
    )
    assert int(out.stdout) == os.getpid()  # the launcher became the command (exec), no process in between


def test_the_launcher_refuses_a_bad_command_line() -> None:
    from companion.lifetime import main

    assert main(["x", "--", "true"]) == 2
    assert main(["1"]) == 2


@linux_only
def test_die_with_parent_sees_a_parent_already_gone() -> None:
    """A parent that died before the child asked: the child goes at once (the race the check closes)."""
    code = (
        "import os, time\n"
        "from companion.lifetime import die_with_parent\n"
        "die_with_parent(parent_pid=os.getppid() + 999999)\n"
        "time.sleep(30)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=20, check=False)
    assert proc.returncode == -signal.SIGTERM


class _InACycle:
    """Garbage only the cyclic collector frees (as Kivy's clipboard probe leaves its `Popen`s): its
    finalizer is where the Ctrl-C lands."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # bytecode: the handler runs here, inside the finalizer
            pass


@pytest.fixture
def pythons_ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler, whatever this process inherited: a job started in the background has
    Ctrl-C ignored, and then no Ctrl-C lands anywhere."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("pythons_ctrl_c")
def test_a_ctrl_c_landing_in_a_finalizer_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    lost: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: lost.append(u.exc_value))
    _InACycle()
    gc.collect()  # the default handler raises KeyboardInterrupt in __del__: printed and swallowed
    assert [type(e) for e in lost] == [KeyboardInterrupt]
    with StopSignals() as signals:
        _InACycle()
        gc.collect()
        assert signals.asked and len(lost) == 1  # noted, nothing raised anywhere
    with pytest.raises(KeyboardInterrupt):
        signals.exit()


def test_stop_signals_note_sigterm_and_a_second_ctrl_c_raises() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with StopSignals() as signals:
        signal.raise_signal(signal.SIGTERM)
        assert signals.received == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is before
    with pytest.raises(SystemExit) as ended:
        signals.exit()
    assert ended.value.code == 128 + signal.SIGTERM
    with StopSignals() as again, pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
        assert again.asked
        signal.raise_signal(signal.SIGINT)
    StopSignals().exit()  # no signal: nothing


@linux_only
def test_a_ctrl_c_while_children_start_is_held_not_lost() -> None:
    with StopSignals() as signals:
        with ctrl_c_held_from_children():
            os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):
            pass
        assert signals.asked


def _demo(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"), HOME=str(tmp_path))
    return subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "demo", "--size", "640x400", *extra],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its own process group, as in a terminal
    )


@linux_only
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_demo_leaves_no_process_behind(tmp_path: Path, sig: signal.Signals) -> None:
    demo = _demo(tmp_path, "--no-camera")
    try:
        assert _wait(lambda: any("firmware.sim" in c for c in _children(demo.pid).values()), 60), (
            "the demo did not start its dice simulator"
        )
        kids = list(_children(demo.pid))
        demo.send_signal(sig)
        code = demo.wait(20)
        assert code == (-signal.SIGKILL if sig is signal.SIGKILL else 128 + signal.SIGTERM)
        assert _wait(lambda: not any(_alive(k) for k in kids), 10), {
            k: c for k, c in _children(1).items() if k in kids
        }
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()


@linux_only
@pytest.mark.slow
def test_ctrl_c_ends_the_demo_and_its_camera_quietly(tmp_path: Path) -> None:
    """Ctrl-C reaches the terminal's whole process group: the app stops, its children follow, nobody prints
    a traceback."""
    demo = _demo(tmp_path)
    try:
        assert _wait(lambda: len(_children(demo.pid)) >= 2, 60), _children(demo.pid)  # simulator and camera
        kids = list(_children(demo.pid))
        time.sleep(1.0)
        os.killpg(demo.pid, signal.SIGINT)
        _out, err = demo.communicate(timeout=30)
        assert demo.returncode == 130, err
        assert "Traceback" not in err, err[-3000:]
        assert _wait(lambda: not any(_alive(k) for k in kids), 10)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.communicate()

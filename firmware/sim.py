"""A simulated dice roller: the firmware's own core (firmware.dice.device) behind a pseudo-terminal.

`seneschal dice-sim` (or `python -m firmware.sim`) prints `PORT /dev/pts/N` as its first line of stdout;
open that path with pyserial exactly like the real board. Faults can be injected on the "wire": whole
outgoing frames dropped, bytes corrupted in both directions, responses delayed, the device unplugged (and
replugged, which reboots it, as unplugging a bus-powered board does), rebooted in place (the port stays
open) or hung (the port stays open, nothing answers). In-process use for tests:

    with Simulator(seed=1) as sim:
        port = sim.port          # pyserial opens it
        ...
        sim.rolls                # [(seq, [dice...]), ...] as the device rolled them

CPython only (POSIX ptys); standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import select
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from firmware.dice import protocol
from firmware.dice.device import Device

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


class Faults:
    """Fault settings; probabilities are 0..1."""

    def __init__(self, drop: float = 0.0, corrupt: float = 0.0, delay_ms: int = 0) -> None:
        for name, value in (("drop", drop), ("corrupt", corrupt)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} probability must be within 0..1, got {value!r}")
        if delay_ms < 0:
            raise ValueError(f"delay must be >= 0 ms, got {delay_ms!r}")
        self.drop = drop
        self.corrupt = corrupt
        self.delay_ms = delay_ms


class PtyStream:
    """The device's end of the pty, as the non-blocking stream Device expects, with faults on the wire."""

    def __init__(self, fd: int, faults: Faults, rng: random.Random, clock: SimClock) -> None:
        self.fd = fd
        self._faults = faults
        self._rng = rng
        self._clock = clock
        self._held: list[tuple[int, bytes]] = []  # (release ms, bytes) for --delay
        self._backlog = bytearray()  # written by the device, not yet taken by the pty
        self.frames_out = 0
        self.dropped = 0
        self.corrupted = 0
        self.closed = False
        # --reset-after / --hang-after: the core may send `cut_after` frames; the next one it tries to send
        # is lost because the core dies (reboots or hangs) while sending it; then `cut` is set.
        self.cut_after: int | None = None
        self.cut = False

    def _corrupt(self, data: bytes) -> bytes:
        p = self._faults.corrupt
        if p <= 0:
            return data
        out = bytearray(data)
        for i in range(len(out)):
            if self._rng.random() < p:
                out[i] ^= self._rng.randrange(1, 256)
                self.corrupted += 1
        return bytes(out)

    def read(self) -> bytes | None:
        if self.closed:
            return None
        try:
            data = os.read(self.fd, 4096)
        except (BlockingIOError, InterruptedError):
            return None
        except OSError:  # the other side is gone; the device just sees silence
            return None
        return self._corrupt(data) if data else None

    def write(self, data: bytes) -> None:
        if self.cut:
            return
        if self.cut_after is not None and self.frames_out >= self.cut_after:
            self.cut = True
            return
        self.frames_out += 1
        if self._faults.drop and self._rng.random() < self._faults.drop:
            self.dropped += 1
            return
        data = self._corrupt(bytes(data))
        if self._faults.delay_ms:
            self._held.append((self._clock.ticks_ms() + self._faults.delay_ms, data))
        else:
            self._backlog += data
        self.pump()

    def next_deadline_ms(self) -> int | None:
        return self._held[0][0] if self._held else None

    def wants_write(self) -> bool:
        return bool(self._backlog)

    def discard_input(self) -> None:
        """A hung core reads nothing, but the USB stack still takes bytes: swallow them (no writer stalls)."""
        with contextlib.suppress(OSError):
            while not self.closed and os.read(self.fd, 4096):
                pass

    def pump(self) -> None:
        """Move due delayed frames to the backlog and write what the pty accepts."""
        now = self._clock.ticks_ms()
        while self._held and self._held[0][0] <= now:
            self._backlog += self._held.pop(0)[1]
        if self.closed or not self._backlog:
            return
        try:
            n = os.write(self.fd, self._backlog)
        except (BlockingIOError, InterruptedError):
            n = 0
        except OSError:
            n = len(self._backlog)  # nobody to take it: like USB CDC with no host, the bytes are lost
        del self._backlog[:n]
        if len(self._backlog) > MAX_BACKLOG:
            del self._backlog[: len(self._backlog) - MAX_BACKLOG]


class Simulator:
    """Runs the firmware core in a thread behind a pty. start() returns the port path; stop() ends it.

    unplug_after: close the pty after the device has written that many frames; replug_after: seconds later
    open a new pty and boot a fresh device (new session, empty cache), reachable through the same `link` path.
    reset_after: the device sends that many frames, then reboots (watchdog) while sending the next one, which
    is lost: a new boot on the SAME pty, empty cache, no session (ROLL gets NO_SESSION until a HELLO_REQ).
    hang_after: the device sends that many frames, then hangs while sending the next one: the pty stays
    open, bytes written to it are swallowed, nothing is answered, buttons do nothing (nor does the watchdog).
    """

    def __init__(
        self,
        *,
        drop: float = 0.0,
        corrupt: float = 0.0,
        delay_ms: int = 0,
        unplug_after: int | None = None,
        replug_after: float | None = None,
        reset_after: int | None = None,
        hang_after: int | None = None,
        seed: int | None = None,
        button_every: float | None = None,
        device_id: bytes = DEFAULT_DEVICE_ID,
        link: str | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.faults = Faults(drop, corrupt, delay_ms)
        if unplug_after is not None and unplug_after < 0:
            raise ValueError(f"unplug_after must be >= 0, got {unplug_after!r}")
        if replug_after is not None and replug_after < 0:
            raise ValueError(f"replug_after must be >= 0, got {replug_after!r}")
        for name, count in (("reset_after", reset_after), ("hang_after", hang_after)):
            if count is not None and count < 0:
                raise ValueError(f"{name} must be >= 0, got {count!r}")
        if reset_after is not None and hang_after is not None:
            raise ValueError("reset_after and hang_after cannot be combined")
        if button_every is not None and button_every <= 0:
            raise ValueError(f"button_every must be > 0 seconds, got {button_every!r}")
        if len(device_id) != protocol.DEVICE_ID_LEN:
            raise ValueError(f"device id must be {protocol.DEVICE_ID_LEN} bytes, got {device_id.hex()!r}")
        self.unplug_after = unplug_after
        self.replug_after = replug_after
        self.reset_after = reset_after
        self.hang_after = hang_after
        self.hung = threading.Event()
        self.button_every = button_every
        self.device_id = device_id
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
        self.rolls: list[tuple[int, list[int]]] = []
        self.boots = 0
        self.device: Device | None = None
        self.stream: PtyStream | None = None
        self._slave_fd: int | None = None
        self._slave_path: str | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._plugged = threading.Event()
        self.unplugged_for_good = threading.Event()
        self._lock = threading.Lock()
        self.error: BaseException | None = None

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
        self._plug()
        self._thread = threading.Thread(target=self._run, name="dice-sim", daemon=True)
        self._thread.start()
        return self.port

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
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

    # ---- pty and device

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
        self.stream = PtyStream(master, self.faults, self._fault_rng, self.clock)
        if self.boots == 0:  # the reset or hang happens once, in the first boot
            self.stream.cut_after = self.reset_after if self.reset_after is not None else self.hang_after
        self._boot(reset_cause=0)
        self._plugged.set()

    def _boot(self, reset_cause: int) -> None:
        assert self.stream is not None
        self.boots += 1
        self.device = Device(
            self.stream,
            self._random_bytes,
            self.clock,
            button=self.button,
            device_id=self.device_id,
            reset_cause=reset_cause,
            on_event=self._record,
        )

    def _core_died(self, stream: PtyStream) -> None:
        """The core died sending a frame (--reset-after, --hang-after): reboot in place, or hang."""
        if self.hang_after is not None:
            self.device = None
            self._record("hang", None, None)
            self.hung.set()
            return
        self._record("reset", None, "watchdog")
        stream.cut, stream.cut_after = False, None
        self._boot(reset_cause=1)  # 1 = watchdog (STATUS reset_cause)

    def _unplug(self) -> None:
        self._plugged.clear()
        if self.link is not None and os.path.lexists(self.link):
            os.unlink(self.link)
        if self.stream is not None and not self.stream.closed:
            self.stream.closed = True
            os.close(self.stream.fd)
        if self._slave_fd is not None:
            os.close(self._slave_fd)
            self._slave_fd = None
        self.device = None

    def _record(self, kind: str, seq: int | None, value: Any) -> None:
        event = {"t": round(time.monotonic(), 4), "boot": self.boots, "kind": kind, "seq": seq,
                 "value": value}
        with self._lock:
            self.events.append(event)
            if kind == "roll":
                self.rolls.append((seq if seq is not None else -1, list(value)))
        if self._on_event is not None:
            self._on_event(event)

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
            device, stream = self.device, self.stream
            if self.hung.is_set() and stream is not None:
                if not stream.closed:
                    select.select([stream.fd], [], [], 0.01)
                    stream.discard_input()
                    stream.pump()  # frames sent before the hang (held by --delay) still leave
                else:
                    self._stop.wait(0.01)
                continue
            if device is None or stream is None:
                if replug_at is not None and now >= replug_at:
                    self._plug()
                    replug_at = None
                    continue
                self._stop.wait(0.01)
                continue
            timeout = 0.01  # the button, resends and delayed frames need a tick even when the wire is idle
            deadline = stream.next_deadline_ms()
            if deadline is not None:
                timeout = max(0.0, min(timeout, (deadline - self.clock.ticks_ms()) / 1000))
            wlist = [stream.fd] if stream.wants_write() else []
            select.select([stream.fd], wlist, [], timeout)
            device.step()
            if stream.cut:
                self._core_died(stream)
            stream.pump()
            if self.unplug_after is not None and stream.frames_out >= self.unplug_after:
                self._unplug()
                self.unplug_after = None
                if self.replug_after is None:
                    self.unplugged_for_good.set()
                    return
                replug_at = time.monotonic() + self.replug_after


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be within 0..1, got {text!r}")
    return value


def _non_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def _count(text: str) -> int:
    value = int(text)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seneschal dice-sim",
        description="Run the dice roller firmware on this computer behind a pseudo-terminal. The first "
        "line of output is 'PORT <path>'; open that path like the real device. Stop with Ctrl-C or SIGTERM.",
    )
    parser.add_argument("--drop", type=_probability, default=0.0, metavar="P",
                        help="drop each outgoing frame with probability P")
    parser.add_argument("--corrupt", type=_probability, default=0.0, metavar="P",
                        help="flip each byte, in both directions, with probability P")
    parser.add_argument("--delay", type=_non_negative, default=0.0, metavar="MS",
                        help="delay every outgoing frame by MS milliseconds")
    parser.add_argument("--unplug-after", type=_count, default=None, metavar="N",
                        help="close the port after the device has sent N frames")
    parser.add_argument("--replug-after", type=_non_negative, default=None, metavar="S",
                        help="after an unplug, come back (rebooted) after S seconds at the same --link path")
    parser.add_argument("--reset-after", type=_count, default=None, metavar="N",
                        help="after sending N frames the device reboots (watchdog) while sending the next, "
                        "which is lost; the port stays open; the new boot has no session and an empty cache")
    parser.add_argument("--hang-after", type=_count, default=None, metavar="N",
                        help="after sending N frames the device hangs: the port stays open, nothing answers")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed the dice and the faults (reproducible runs)")
    parser.add_argument("--button-every", type=_positive, default=None, metavar="S",
                        help="press the button every S seconds")
    parser.add_argument("--device-id", type=_device_id, default=DEFAULT_DEVICE_ID, metavar="HEX",
                        help="8-byte device id as 16 hex digits")
    parser.add_argument("--link", default=None, metavar="PATH",
                        help="keep a symlink to the current pty here and print it as the port "
                        "(default with --replug-after: a temporary path)")
    parser.add_argument("--log", default=None, metavar="FILE",
                        help="append one JSON line per device event (rolls with seq and dice, button, "
                        "errors)")
    parser.add_argument("--duration", type=_positive, default=None, metavar="S",
                        help="exit after S seconds (default: run until interrupted)")
    return parser


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

    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    sim = Simulator(
        drop=args.drop,
        corrupt=args.corrupt,
        delay_ms=int(args.delay),
        unplug_after=args.unplug_after,
        replug_after=args.replug_after,
        reset_after=args.reset_after,
        hang_after=args.hang_after,
        seed=args.seed,
        button_every=args.button_every,
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
        while not stop.is_set() and not sim.unplugged_for_good.is_set():
            if sim.error is not None:
                print(f"seneschal dice-sim: device loop failed: {sim.error!r}", file=sys.stderr)
                return 1
            if deadline is not None and time.monotonic() >= deadline:
                break
            stop.wait(0.05)
        return 0
    finally:
        sim.stop()
        if log is not None:
            log.close()


if __name__ == "__main__":
    raise SystemExit(main())

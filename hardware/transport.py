"""Bytes ↔ frames over a serial port: a reader thread in the manner of pyserial's `serial.threaded`.

`open_port` opens any pyserial URL (a device name such as /dev/ttyACM0 or COM3, a pty path,
`socket://host:port`, `loop://`). `FrameTransport` owns one open port: its reader thread feeds a
`FrameDecoder`, drops a half-received frame when the sender goes quiet for longer than the inter-byte timeout,
and hands every decoded message to the client. Tests pass any object with the `SerialPort` surface instead of
a real port.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

import serial

from hardware.errors import DeviceDisconnectedError, DeviceNotFoundError, DeviceTimeoutError, ProtocolError
from hardware.protocol import FrameDecoder, Message, encode_frame

log = logging.getLogger(__name__)

DEFAULT_BAUDRATE = 115200  # ignored by USB CDC and ptys, used by real UARTs
READ_POLL = 0.01  # the reader thread's read timeout: how often it checks inter-byte timeouts and shutdown
DEFAULT_INTER_BYTE_TIMEOUT = 0.05
DEFAULT_WRITE_TIMEOUT = 1.0
# What pyserial raises when a port fails; TypeError/AttributeError come from a posix port whose fd was closed
# under it by another thread.
_PORT_ERRORS = (serial.SerialException, OSError, TypeError, AttributeError)


class LinkDownError(DeviceDisconnectedError):
    """A write refused because the link was already down: not one byte of it reached the port."""


class SerialPort(Protocol):
    """The part of `serial.Serial` the transport uses. `read` returns b"" after the port's read timeout."""

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...

    @property
    def in_waiting(self) -> int: ...


def open_port(
    url: str,
    baudrate: int = DEFAULT_BAUDRATE,
    read_timeout: float = READ_POLL,
    write_timeout: float = DEFAULT_WRITE_TIMEOUT,
) -> SerialPort:
    """Open `url` with pyserial; `DeviceNotFoundError` quoting the URL when it cannot be opened.

    Device ports are locked (flock) so that a second program, or a second roller object, gets a clear error
    instead of silently sharing the byte stream.
    """
    try:
        port: SerialPort = serial.serial_for_url(
            url, baudrate=baudrate, timeout=read_timeout, write_timeout=write_timeout, exclusive=True
        )
    except (serial.SerialException, OSError, ValueError) as exc:
        raise DeviceNotFoundError(f"cannot open dice roller port {url!r}: {exc}") from exc
    return port


class FrameTransport:
    """One open port, framed. Callbacks run on the reader thread: keep them short and never block on I/O.

    `on_lost(exc)` is called once if the port fails (unplugged, closed by the other end); a deliberate
    `close()` does not call it.
    """

    def __init__(
        self,
        port: SerialPort,
        on_message: Callable[[Message], None],
        on_lost: Callable[[BaseException], None],
        *,
        on_drop: Callable[[ProtocolError], None] | None = None,
        inter_byte_timeout: float = DEFAULT_INTER_BYTE_TIMEOUT,
        name: str = "dice roller",
    ) -> None:
        self.port = port
        self.name = name
        self.inter_byte_timeout = inter_byte_timeout
        self.decoder = FrameDecoder(on_drop=on_drop)
        self._on_message = on_message
        self._on_lost = on_lost
        self._write_lock = threading.Lock()
        self._alive = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"{name} reader", daemon=True)
        self.last_byte = time.monotonic()  # when the port last gave us any byte at all, valid or not

    def start(self) -> None:
        self._alive.set()
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._alive.is_set()

    def on_reader_thread(self) -> bool:
        """Whether the caller is this transport's reader thread (where every callback runs)."""
        return threading.current_thread() is self._thread

    def write(self, data: bytes) -> None:
        """Write raw bytes; `DeviceDisconnectedError` / `DeviceTimeoutError` if the port fails or stalls.

        Only `LinkDownError` guarantees that nothing was written: pyserial can fail a write after sending it.
        """
        if not self._alive.is_set():
            raise LinkDownError(f"{self.name}: port is closed; cannot write {data.hex(' ')!r}")
        try:
            with self._write_lock:
                self.port.write(data)
        except serial.SerialTimeoutException as exc:
            raise DeviceTimeoutError(f"{self.name}: write of {data.hex(' ')!r} timed out") from exc
        except _PORT_ERRORS as exc:
            # TypeError/AttributeError: pyserial's posix port after its fd was closed under it.
            raise DeviceDisconnectedError(f"{self.name}: write of {data.hex(' ')!r} failed: {exc}") from exc

    def send(self, message: Message) -> None:
        self.write(encode_frame(message))

    def close(self) -> None:
        """Stop the reader thread and close the port. Idempotent; safe from any thread, even the reader."""
        self._closed = True
        self._alive.clear()
        cancel = getattr(self.port, "cancel_read", None)
        if callable(cancel):
            with contextlib.suppress(*_PORT_ERRORS):
                cancel()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        try:
            self.port.close()
        except _PORT_ERRORS as exc:
            log.debug("%s: closing port: %s", self.name, exc)

    def _run(self) -> None:
        last_byte = time.monotonic()
        error: BaseException | None = None
        while self._alive.is_set():
            try:
                data = self.port.read(self.port.in_waiting or 1)
            except _PORT_ERRORS as exc:
                error = exc
                break
            now = time.monotonic()
            if self.decoder.pending and now - last_byte > self.inter_byte_timeout:
                self.decoder.drop_partial()
            if not data:
                continue
            last_byte = self.last_byte = now
            for message in self.decoder.feed(data):
                try:
                    self._on_message(message)
                except Exception:  # a faulty callback must not kill the link
                    log.exception("%s: handling %r", self.name, message)
        self._alive.clear()
        if error is not None and not self._closed:
            # Report first: closing can be slow (pyserial's socket:// close sleeps 0.3 s).
            try:
                self._on_lost(error)
            except Exception:
                log.exception("%s: handling the lost connection", self.name)
            with contextlib.suppress(*_PORT_ERRORS):
                self.port.close()

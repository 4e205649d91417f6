"""Byte streams for the device core: the USB CDC port (MicroPython's stdin/stdout) and a UART.

Both are non-blocking, as `Device` expects: read() returns the bytes waiting (or None), write() sends all.
"""


class StdioStream:
    """stdin/stdout as a binary stream: the board's USB CDC port, or a pipe under the unix MicroPython.

    stdin.buffer blocks, so it is polled first. With `eof_ends=True` (the unix port, whose stdin is a pipe),
    read() raises EOFError once the other end has closed; the board's USB port never ends.
    """

    def __init__(self, eof_ends=False):
        import select
        import sys

        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._eof_ends = eof_ends

    def read(self):
        data = b""
        while len(data) < 64 and self._poll.poll(0):
            chunk = self._in.read(1)
            if not chunk:
                if self._eof_ends and not data:
                    raise EOFError("stdin closed")
                break
            data += chunk
        return data or None

    def write(self, data):
        self._out.write(data)


class UartStream:
    def __init__(self, uart):
        self._uart = uart

    def read(self):
        return self._uart.read() if self._uart.any() else None

    def write(self, data):
        view = memoryview(data)
        while view:
            n = self._uart.write(view)
            if n:
                view = view[n:]

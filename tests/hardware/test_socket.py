"""`socket://host:port`: the same client over TCP (a roller behind a network serial server), including a drop
of the connection and the reconnect that follows."""

from __future__ import annotations

import queue
import socket
import threading

import pytest

from hardware import ConnectionEvent, ConnectionState, DeviceDisconnectedError, DiceEvent, DiceRoller
from hardware.protocol import Capability, FrameDecoder, Hello, HelloRequest, Result, RollRequest, encode_frame

DEVICE_ID = bytes.fromhex("0011223344556677")


class TcpDevice:
    """A minimal device on a TCP port: answers HELLO and ROLL (each die = its position mod 6 + 1), and on
    each connection hangs up on the ROLL after the first `serve`, as when a cable is pulled."""

    def __init__(self, serve: int) -> None:
        self.serve = serve
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                self._serve(conn)

    def _serve(self, conn: socket.socket) -> None:
        decoder = FrameDecoder()
        rolls = 0
        while True:
            data = conn.recv(256)
            if not data:
                return
            for message in decoder.feed(data):
                if isinstance(message, HelloRequest):
                    hello = Hello(message.seq, 2, (2, 0, 0), Capability.NONE, 10, DEVICE_ID, 1, 2, 0)
                    conn.sendall(encode_frame(hello))
                elif isinstance(message, RollRequest):
                    if rolls == self.serve:
                        return
                    rolls += 1
                    dice = tuple(i % 6 + 1 for i in range(message.count))
                    conn.sendall(encode_frame(Result(message.seq, message.session, dice)))

    def close(self) -> None:
        self.server.close()


def test_rolls_over_socket_and_reconnects_when_the_connection_drops() -> None:
    """The roll in flight at the hang-up fails (the device may have rolled it); the next one reconnects."""
    device = TcpDevice(serve=3)
    events: queue.Queue[DiceEvent] = queue.Queue()
    roller = DiceRoller(f"socket://127.0.0.1:{device.port}", keepalive=None, backoff=(0.02, 0.1),
                        on_event=events.put)
    info = roller.open()
    assert info.device_id == DEVICE_ID.hex()
    dice = [roller.roll(n, timeout=3.0).dice for n in (1, 2, 3)]
    assert dice == [(1,), (1, 2), (1, 2, 3)]
    with pytest.raises(DeviceDisconnectedError, match="went away during RollRequest"):
        roller.roll(4, timeout=3.0)
    assert roller.roll(5, timeout=3.0).dice == (1, 2, 3, 4, 5)
    roller.close()
    device.close()
    states = []
    while not events.empty():
        event = events.get()
        if isinstance(event, ConnectionEvent):
            states.append(event.state)
    assert states == [ConnectionState.CONNECTED, ConnectionState.DISCONNECTED, ConnectionState.CONNECTED,
                      ConnectionState.CLOSED]
    assert device.connections == 2

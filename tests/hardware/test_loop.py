"""pyserial's `loop://`: the transport over a real pyserial object; a looped-back port is not a roller."""

from __future__ import annotations

import queue
import threading

import pytest

from hardware import DeviceTimeoutError, DiceRoller
from hardware.errors import ProtocolError
from hardware.protocol import ButtonRoll, Message, Ping, Result, RollRequest, encode_frame
from hardware.transport import FrameTransport, open_port


def test_frames_written_to_loop_come_back_decoded() -> None:
    got: queue.Queue[Message] = queue.Queue()
    drops: list[ProtocolError] = []
    lost: list[BaseException] = []
    transport = FrameTransport(open_port("loop://"), got.put, lost.append, on_drop=drops.append)
    transport.start()
    sent: list[Message] = [
        RollRequest(1, 9, 2), Result(1, 9, (6, 2)), Ping(2, b"\x00\x00"), ButtonRoll(3, 9, (1,))
    ]
    for message in sent:
        transport.send(message)
    transport.write(b"garbage without a delimiter\x00")
    transport.send(Result(4, 9, (5,)))
    received = [got.get(timeout=2) for _ in range(len(sent) + 1)]
    transport.close()
    assert received == [*sent, Result(4, 9, (5,))]
    assert len(drops) == 1 and transport.decoder.dropped == 1
    assert not lost  # a deliberate close is not a lost connection


def test_inter_byte_timeout_drops_a_half_frame_on_loop() -> None:
    got: queue.Queue[Message] = queue.Queue()
    dropped = threading.Event()
    transport = FrameTransport(
        open_port("loop://"), got.put, lambda exc: None, on_drop=lambda e: dropped.set(),
        inter_byte_timeout=0.02,
    )
    transport.start()
    frame = encode_frame(Result(9, 9, (3, 4)))
    transport.write(frame[:4])
    assert dropped.wait(2)
    transport.write(frame)  # a whole frame after the stale half is still decoded
    assert got.get(timeout=2) == Result(9, 9, (3, 4))
    transport.close()


def test_a_looped_back_port_is_not_mistaken_for_a_roller() -> None:
    # Our own HELLO_REQ comes back: a host-type frame, never an answer, so the handshake times out.
    roller = DiceRoller("loop://", keepalive=None, reconnect=False)
    with pytest.raises(DeviceTimeoutError, match="loop://"):
        roller.open(timeout=0.3)
    assert roller.stats.stale_replies >= 1
    roller.close()

"""The program at a person's seat in ``referee play``. To the referee it is a bot like
any other, started, sandboxed and timed the same way: it says hello and answers each
request with the request's own ``seq``. It hands every message from the referee to the
terminal that ``referee play`` holds, over the unix socket ``seat.sock`` in its own
folder (one length-prefixed msgpack frame each way), and answers an ``act`` with the
reply body the person's terminal sends back (``{"action": ...}`` or ``{"error": ...}``).
"""

from __future__ import annotations

import os
import socket
import struct
import sys

import msgpack
import zmq

SOCKET_NAME = "seat.sock"
HEADER = struct.Struct(">I")


def send_frame(conn: socket.socket, data: bytes) -> None:
    conn.sendall(HEADER.pack(len(data)) + data)


def recv_frame(conn: socket.socket) -> bytes | None:
    """The next frame; None once the other side has closed."""
    head = _exactly(conn, HEADER.size)
    return None if head is None else _exactly(conn, HEADER.unpack(head)[0])


def _exactly(conn: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> int:
    desk = socket.socket(socket.AF_UNIX)
    desk.connect(SOCKET_NAME)  # in the working directory: this program's own folder
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(os.environ["REFEREE_ENDPOINT"])
    sock.send(msgpack.packb({"type": "hello", "token": os.environ["REFEREE_TOKEN"],
                             "protocol": 2}))
    while True:
        frame = sock.recv()
        send_frame(desk, frame)
        msg = msgpack.unpackb(frame)
        if msg.get("type") == "act":
            body = recv_frame(desk)
            if body is None:  # the terminal has gone: the person left
                return 0
            sock.send(msgpack.packb({"type": "action", "seq": msg["seq"],
                                     **msgpack.unpackb(body)}))
        elif msg.get("type") in ("bye", "refused"):
            return 0


if __name__ == "__main__":
    sys.exit(main())

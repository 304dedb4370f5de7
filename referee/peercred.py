"""Who is on the other end of a connection to the referee's socket (Linux).

The kernel records which process connected a unix socket (``SO_PEERCRED``: its pid as
seen from the referee's pid namespace, so a sandboxed bot's host pid). libzmq reports
it for every message of an ipc connection as the message property ``Peer-Address``,
``"<address>:<uid>:<gid>:<pid>"``; on a socket the referee holds itself it is read
with ``getsockopt``. A process belongs to a launched bot when that bot's process is
the process itself or one of its ancestors (``/proc/PID/stat``).

Elsewhere (no ``SO_PEERCRED``, no ``/proc``) every function here says None: nobody can
be told apart, and the callers say what that means.

>>> parse_peer_address("localhost:0:0:4242"), parse_peer_address(":501:20:")
(4242, None)
"""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import Container

import zmq

_UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid
# Deeper than any real process tree: a walk up that goes on longer is given up.
MAX_ANCESTRY = 64


def parse_peer_address(address: str) -> int | None:
    """The pid in a libzmq ``Peer-Address``, or None when it holds none."""
    pid = address.rsplit(":", 1)[-1]
    return int(pid) if pid.isdigit() and int(pid) > 0 else None


def frame_pid(frame: zmq.Frame) -> int | None:
    """The pid of the process that opened the connection ``frame`` came in on (a frame
    received with ``copy=False``), or None where the transport does not say."""
    try:
        return parse_peer_address(frame.get("Peer-Address"))
    except (zmq.ZMQError, ValueError):  # no such property on this platform or transport
        return None


def socket_pid(sock: socket.socket) -> int | None:
    """The pid of the process that connected the unix socket ``sock``, or None."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    pid = _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))[0]
    return pid if pid > 0 else None


def parent_pid(pid: int) -> int | None:
    """The parent of process ``pid``, or None if there is no such process (or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (in parentheses) may hold anything, spaces and ')' too.
    fields = stat[stat.rindex(b")") + 2:].split(b" ", 2)
    return int(fields[1])


def tree_root(pid: int, roots: Container[int], launcher: int | None = None) -> int | None:
    """The first of ``roots`` met walking up from ``pid`` (itself first) to init, or None:
    which launched process, if any, ``pid`` descends from. With ``launcher``, a child of
    ``launcher`` met first is the root too: a process it has just started may act before
    it is told the pid (``Popen`` returns after the child runs)."""
    for _ in range(MAX_ANCESTRY):
        if pid in roots:
            return pid
        if pid <= 1:
            return None
        parent = parent_pid(pid)
        if parent is None:
            return None
        if parent == launcher:
            return pid
        pid = parent
    return None


def descends_from(pid: int, root: int) -> bool:
    """Whether process ``pid`` is ``root`` or one of its descendants."""
    return tree_root(pid, (root,)) == root


def have_peer_credentials() -> bool:
    """Whether this platform names the peer process of a unix socket."""
    return hasattr(socket, "SO_PEERCRED") and os.path.isdir("/proc")

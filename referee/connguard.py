"""Connection caps on the referee's ROUTER: how many connections each bot may hold.

Every connection costs the referee a file descriptor, and libzmq aborts the whole
process when it cannot accept one more (``EMFILE``), so a bot whose children open
thousands of connections could end the run, or another run on the same machine. A
socket monitor reports each connection libzmq accepts, with its descriptor; a thread of
its own reads those reports as they come and looks at the connection on a duplicate of
that descriptor: the process that opened it (``SO_PEERCRED``), and which launched bot's
process tree that process is in. It closes at once (``shutdown``: libzmq sees the end
and releases the descriptor) every connection that

- comes from no bot's tree (another run's bots, anything else on the machine): ``foreign``.
  A child of the referee's is a bot's root even before ``admit`` names it: under load a
  bot can connect before the referee, back from starting it, has noted its pid;
- would be more than MAX_CONNECTIONS_PER_BOT of one bot process's tree, or comes from a
  tree that has had MAX_STRIKES connections closed for sending junk before a hello
  (``hang_up``): ``bot_cap``;
- would be more than ``total_cap`` in all (half the referee's open-files limit, so the
  other half stays for its own files): ``total_cap``.

A process of a tree that has had MAX_STRIKES connections closed for junk and still
opens connections is killed (``killed``): it would otherwise reconnect without end, and
each connection costs the referee's I/O thread what it sends before it is cut.

Connections from the referee's own process (tests, ``referee check``) count toward the
total only. Where the platform cannot name a connection's process the guard does not
run (see SPEC.md section 6).
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import struct
import threading
import time
from dataclasses import dataclass, field

import zmq

from referee.peercred import descends_from, have_peer_credentials, socket_pid, tree_root

MAX_CONNECTIONS_PER_BOT = 8
MIN_TOTAL_CAP = 16
# Connections of one bot's tree closed for sending anything but a hello first, after
# which the tree may open no new connection (those it holds stay).
MAX_STRIKES = 8
# Reads of 64 kB that ``_cut`` makes at most (a unix socket queues far less).
MAX_CUT_READS = 256
# How long the owner found for a pid is taken as known: far shorter than it takes to
# cycle through the pid space, so a pid reused meanwhile is not mistaken.
OWNER_CACHE_S = 0.5
_EVENT = struct.Struct("=Hi")  # a monitor event's first frame: event, value (the fd)
_ACCEPTED, _DISCONNECTED = int(zmq.EVENT_ACCEPTED), int(zmq.EVENT_DISCONNECTED)
_STOPPED = int(zmq.EVENT_MONITOR_STOPPED)
_CLOSED = -1  # owner of a descriptor the guard has shut down (its end is on its way)


@dataclass
class GuardCounters:
    """Connections the guard closed, by why, and the most it saw open at once."""

    foreign: int = 0
    bot_cap: int = 0
    total_cap: int = 0
    peak: int = 0
    killed: int = 0
    errors: int = 0  # reports the guard failed to judge (a bug): their connections stay
    bot_cap_by_name: dict[str, int] = field(default_factory=dict)
    killed_by_name: dict[str, int] = field(default_factory=dict)


def total_cap_for_this_process() -> int:
    """Half of the open-files limit: the other half stays for the referee's own files."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return max(MIN_TOTAL_CAP, soft // 2)


class ConnectionGuard:
    """Watches the connections a ROUTER bound to the ipc socket ``path`` accepts, and
    closes those beyond the caps (see the module)."""

    def __init__(self, router: zmq.Socket, path: str, total_cap: int | None = None):
        self.path = path
        self.total_cap = total_cap_for_this_process() if total_cap is None else total_cap
        self.counters = GuardCounters()
        self._router = router
        self._me = os.getpid()
        self._roots: dict[int, str] = {}  # launched pid -> its bot's name
        self._dismissed: set[int] = set()  # launched pids ended (until a pid is reused)
        self._open: dict[int, tuple[int, int]] = {}  # fd -> (inode, owner pid / _CLOSED)
        self._per_owner: dict[int, int] = {}
        self._total = 0
        self._strikes: dict[int, int] = {}  # launched pid -> its connections hung up
        self._killed: set[int] = set()  # pids killed for connecting while barred
        # pid -> (its owner, when that was found): a flood comes from few processes, and
        # reading /proc for each connection would let the flood outrun the guard.
        self._owners: dict[int, tuple[int | None, float]] = {}
        # Our own monitor socket rather than pyzmq's get_monitor_socket: libzmq drops
        # reports a full pipe cannot take, and one lost report would be a connection
        # never judged (or one never let go); no high-water mark, no loss.
        address = f"inproc://referee-connection-guard-{id(self)}"
        router.monitor(address, _ACCEPTED | _DISCONNECTED | _STOPPED)
        monitor = router.context.socket(zmq.PAIR)
        monitor.rcvhwm = 0
        monitor.connect(address)
        self._thread = threading.Thread(target=self._run, args=(monitor,),
                                        name="referee-connection-guard", daemon=True)
        self._thread.start()

    @staticmethod
    def available() -> bool:
        return have_peer_credentials()

    @property
    def thread_id(self) -> int:
        """The guard's thread (its native id)."""
        assert self._thread.native_id is not None  # set once the thread started
        return self._thread.native_id

    @property
    def open_connections(self) -> int:
        return self._total

    def admit(self, pid: int, name: str) -> None:
        """Process ``pid`` (just launched) and its descendants are bot ``name``."""
        self._dismissed.discard(pid)
        self._roots[pid] = name

    def dismiss(self, pid: int) -> None:
        """Process ``pid`` is ended: whatever of its tree still connects is foreign."""
        self._roots.pop(pid, None)
        self._dismissed.add(pid)

    def hang_up(self, fd: int, pid: int) -> bool:
        """Close the connection on descriptor ``fd`` (a message's ``SRCFD``) if it is
        still one of our socket's, opened by process ``pid``: the number may have been
        reused since; then nothing is done. Whether it was closed."""
        sock = _socket_at(fd)
        if sock is None:
            return False
        with sock:
            try:
                if not self._ours(sock) or socket_pid(sock) != pid:
                    return False
            except OSError:
                return False
            _cut(sock)
            owner = self._owner(sock)
            if owner is not None and owner != self._me:
                barred = self._strikes.get(owner, 0) >= MAX_STRIKES
                self._strikes[owner] = self._strikes.get(owner, 0) + 1
                if barred:
                    self._kill(sock, owner)
        return True

    def close(self) -> None:
        """Stop the monitor and wait for the thread (before the ROUTER is closed)."""
        try:
            self._router.disable_monitor()
        except zmq.ZMQError:
            pass
        self._thread.join(5.0)

    # ------------------------------------------------------------- the thread

    def _run(self, monitor: zmq.Socket) -> None:
        try:
            while True:
                try:
                    frames = monitor.recv_multipart()
                except zmq.ZMQError:  # the context is ending
                    return
                event, fd = _EVENT.unpack_from(frames[0])
                if event == _STOPPED:
                    return
                try:
                    if event == _ACCEPTED:
                        self._accepted(fd)
                    elif event == _DISCONNECTED:
                        self._disconnected(fd)
                except OSError:  # the connection went while it was looked at
                    continue
                except Exception:  # this thread must go on reading: with
                    # no reader, libzmq's I/O thread blocks on the next report and the
                    # referee with it. The connection is left open; the count says so.
                    self.counters.errors += 1
        finally:
            monitor.close(0)

    def _disconnected(self, fd: int) -> None:
        gone = self._open.pop(fd, None)
        if gone is not None and gone[1] != _CLOSED:
            self._total -= 1
            left = self._per_owner.get(gone[1], 0) - 1
            if left > 0:
                self._per_owner[gone[1]] = left
            else:
                self._per_owner.pop(gone[1], None)

    def _accepted(self, fd: int) -> None:
        """Look at what descriptor ``fd`` holds now: by the time the report is read
        libzmq may have closed the connection it was about and reused the number for a
        newer one (whose own report follows). Whatever it holds is judged on its own
        merits, once (by inode)."""
        sock = _socket_at(fd)
        if sock is None:  # closed already, or the number went to a file of ours
            return
        with sock:
            if self._ours(sock):
                self._judge(fd, sock)

    def _judge(self, fd: int, sock: socket.socket) -> None:
        inode = os.fstat(sock.fileno()).st_ino
        known = self._open.get(fd)
        if known is not None and known[0] == inode:
            return  # already judged
        self._disconnected(fd)  # what had this number before is gone
        owner = self._owner(sock)
        why = self._refusal(owner)
        if why is None:
            self._open[fd] = (inode, owner)
            self._per_owner[owner] = self._per_owner.get(owner, 0) + 1
            self._total += 1
            self.counters.peak = max(self.counters.peak, self._total)
            return
        self._open[fd] = (inode, _CLOSED)
        _cut(sock)
        c = self.counters
        setattr(c, why, getattr(c, why) + 1)
        if why == "bot_cap":
            name = self._roots.get(owner, "?")
            c.bot_cap_by_name[name] = c.bot_cap_by_name.get(name, 0) + 1
            if self._strikes.get(owner, 0) >= MAX_STRIKES:
                self._kill(sock, owner)

    def _kill(self, sock: socket.socket, owner: int) -> None:
        """Kill the process behind ``sock``, which connected although its tree was barred
        (seen here or, usually first, in the hub's hang-up of what it sent), once."""
        try:
            pid = socket_pid(sock)
        except OSError:
            return
        if pid is None or pid in self._killed:
            return
        if len(self._killed) > 4096:
            self._killed.clear()
        if _kill_in_tree(pid, owner):
            self._killed.add(pid)
            name = self._roots.get(owner, "?")
            self.counters.killed += 1
            self.counters.killed_by_name[name] = self.counters.killed_by_name.get(name, 0) + 1

    def _ours(self, sock: socket.socket) -> bool:
        """An accepted connection on our ipc socket (not a listener, not a pipe of ours
        that happens to have the number now)."""
        try:
            return (sock.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_STREAM
                    and not sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                    and sock.getsockname() == self.path)
        except OSError:  # not a socket, or not a unix one
            return False

    def _owner(self, sock: socket.socket) -> int | None:
        """The launched pid whose tree opened ``sock`` (our own pid for the referee's own
        connections), or None."""
        try:
            pid = socket_pid(sock)
        except OSError:
            return None
        if pid is None:
            return None
        if pid == self._me:
            return pid
        now = time.monotonic()
        cached = self._owners.get(pid)
        if cached is not None and now - cached[1] < OWNER_CACHE_S:
            return cached[0]
        owner = tree_root(pid, self._roots, launcher=self._me)
        if owner in self._dismissed:
            owner = None
        if len(self._owners) > 4096:
            self._owners.clear()
        self._owners[pid] = (owner, now)
        return owner

    def _refusal(self, owner: int | None) -> str | None:
        if owner is None:
            return "foreign"
        if owner != self._me and (self._per_owner.get(owner, 0) >= MAX_CONNECTIONS_PER_BOT
                                  or self._strikes.get(owner, 0) >= MAX_STRIKES):
            return "bot_cap"
        if self._total >= self.total_cap:
            return "total_cap"
        return None


_SINK = bytearray(1 << 16)


def _kill_in_tree(pid: int, root: int) -> bool:
    """SIGKILL process ``pid`` if it is ``root`` or one of its descendants: through a
    pidfd, checked after it is opened, so that a pid reused since is never signalled.
    Whether it was killed."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:  # gone already
        return False
    try:
        if not descends_from(pid, root):
            return False
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        return True
    except OSError:
        return False
    finally:
        os.close(pidfd)


def _socket_at(fd: int) -> socket.socket | None:
    """A socket object on a duplicate of descriptor ``fd`` (family and type given: no
    probing), or None if ``fd`` is closed or not a socket."""
    try:
        dup = os.dup(fd)
    except OSError:
        return None
    try:
        return socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, dup)
    except OSError:  # not a socket
        os.close(dup)
        return None


def _cut(sock: socket.socket) -> None:
    """End a connection libzmq holds, on a duplicate of its descriptor: shut it down,
    then throw away what the peer had sent that libzmq has not read yet (a reader that
    shuts down still gets what is queued; a flood queues thousands of messages), so
    that libzmq finds the end at once. The peer can send nothing more."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
        for _ in range(MAX_CUT_READS):
            if not sock.recv_into(_SINK, len(_SINK), socket.MSG_DONTWAIT):
                return
    except OSError:  # nothing more queued (EAGAIN), or gone already
        return

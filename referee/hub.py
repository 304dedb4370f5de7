"""The referee's one ZeroMQ ROUTER socket and who is who on it.

Every launched bot process gets a secret token. A ``hello`` presenting it is accepted
only from that process or one of its descendants (the kernel names the process behind
each ipc connection: ``referee.peercred``), and binds the token to the routing identity
the ROUTER assigned to that connection; from then on only frames from that identity
speak for that process. Another process presenting the token is refused, and the token
stays free for its own process. A second connection presenting a token already bound is
refused. Frames from identities that are bound to nothing are dropped and counted,
never attributed to a bot; one larger than a hello can be is dropped unread.

What one connection can cost the referee per turn of its loop is bounded: at most
FRAMES_PER_TURN of its frames are read, the rest are dropped unread; a bound peer that
owes no reply (``awaits``) has its frames dropped unread; before a request goes out,
what that peer sent before it is taken off the socket and dropped (a reply must answer
a request it has seen). ``referee.connguard`` caps the connections themselves.
"""

from __future__ import annotations

import math
import os
import secrets
import shutil
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import zmq

from protocol.codec import MessageError, decode, encode
from protocol.messages import (
    HELLO_MAX_BYTES,
    PROTOCOL_VERSION,
    Hello,
    expects_reply,
    parse_bot_message,
    refused,
    welcome,
)
from referee.connguard import ConnectionGuard, GuardCounters
from referee.cpuwait import threads_of_this_process
from referee.peercred import descends_from, frame_pid

# A hard transport cap well above the codec's limit: libzmq drops a peer that sends more.
TRANSPORT_MAX_BYTES = 1 << 20
# The most frames one turn takes off the socket (and each drain before a request):
# peers that never stop sending must not keep the runner from its deadlines and the
# other seats (and its memory bounded).
MAX_FRAMES_PER_POLL = 1000
# The most messages queued in the referee for one connection; libzmq reads no more of it
# until some are taken. A bot owes one reply at a time; a flood waits on its own side,
# and what a connection closed for flooding had queued is all that is left to drop.
RCVHWM = 64
# The most messages of one connection read per turn (counted again from each request
# it is sent); the ROUTER takes one message of each connection with something queued in
# turn, so every other peer has been heard by the time one goes over.
FRAMES_PER_TURN = 4
# Identities of strangers' connections closed, kept to drop what they still had queued.
MAX_HUNG_UP = 10_000
# A connection that was refused is not closed before this long after, so that the
# refusal reaches it (closing at once would cut it off).
REFUSAL_GRACE_S = 0.2
# A turn takes no new frame after this long (the caller's work on each item included),
# so that the loop gets back to its deadlines and free game slots.
TURN_S = 0.005
# How long ``poll`` watches the socket before it sleeps in recv. While a CPU sits idle
# in a bot's turn it halts (on a VM: the hypervisor takes it back), and waking it for
# each hand-off that brings the reply back (zmq's I/O thread, then this thread) costs
# about 25 µs, more than the referee's own work per decision. Watching for a fast
# bot's reply keeps this CPU awake; it yields at every look, so any thread that wants
# this CPU (a bot, zmq's I/O thread) gets it first. A watch that comes to nothing (a
# bot that thinks longer) makes the next 1, 2, 4 ... MAX_SKIP waits sleep at once,
# until a watch pays again: a slow bot costs SPIN_S of CPU every MAX_SKIP decisions.
# Never with one usable CPU: there is nothing to keep awake.
SPIN_S = 100e-6
MAX_SKIP = 64
# Plain ints: ``int & zmq.POLLIN`` builds an enum member on every call (0.6 µs).
_NOBLOCK = int(zmq.NOBLOCK)
_SNDMORE_NOBLOCK = int(zmq.SNDMORE | zmq.NOBLOCK)
_POLLIN = int(zmq.POLLIN)
_EVENTS = int(zmq.EVENTS)
_RCVMORE = int(zmq.RCVMORE)

Peer = TypeVar("Peer")


@dataclass
class HubCounters:
    """Messages the hub dropped and connections it closed, by why."""

    unbound: int = 0           # from a connection that never said hello: not a valid hello
    unbound_oversize: int = 0  # the same, larger than a hello can be: dropped unread
    unbound_closed: int = 0    # connections closed for sending anything but a hello first
    refused: int = 0           # hellos with an unknown or already-bound token
    foreign_hello: int = 0     # a valid token from a process it was not issued to
    duplicate_hello: int = 0   # a second hello on an already-bound connection
    flood: int = 0             # over FRAMES_PER_TURN of one connection in a turn, or from
    #                            a stranger's connection being closed: unread
    unsolicited: int = 0       # from a bound peer that owed no reply: unread
    connections_foreign: int = 0    # connections closed: opened by no bot's processes
    connections_bot_cap: int = 0    # closed: over a bot's connection cap
    connections_total_cap: int = 0  # closed: over the referee's total
    processes_killed: int = 0       # bot processes that kept connecting after a ban
    guard_errors: int = 0           # connections the guard failed to judge (a bug)

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass(slots=True)
class Incoming(Generic[Peer]):
    """A frame from a bound peer: either a decoded message or the reason it is bad.
    ``received_at`` (``time.perf_counter``) is the last moment before it was read at
    which the socket was seen to hold nothing unread: it came after that. For a frame
    that woke the referee's wait, that is when it was taken off the socket; for one
    that waited while the referee did other work (other frames of the same turn
    included), when that work began, so the work is never charged to a bot."""

    peer: Peer
    received_at: float
    message: dict[str, Any] | None = None
    error: str | None = None
    hello: bool = field(default=False)


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity API on this platform
        return os.cpu_count() or 1


def _always(peer: Any) -> bool:
    return True


class Hub(Generic[Peer]):
    """Binds the ROUTER, issues tokens, and turns frames into ``Incoming`` items."""

    def __init__(self, endpoint: str | None = None, other_users: bool = False,
                 awaits: Callable[[Peer], bool] = _always):
        """Bind ``endpoint``, by default an ipc socket in a private temporary directory;
        ``other_users`` opens that socket to bots running as another user (they still
        need a token to be heard). ``awaits(peer)`` says whether a bound peer owes a
        reply now; the frames of one that does not are dropped unread."""
        self._tmpdir: str | None = None
        if endpoint is None:
            self._tmpdir = tempfile.mkdtemp(prefix="referee-")
            os.chmod(self._tmpdir, 0o711 if other_users else 0o700)
            endpoint = f"ipc://{self._tmpdir}/router"
        before = threads_of_this_process()
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        # ZeroMQ's I/O thread (it carries every message) and reaper, started with the
        # first socket; named by themselves a moment later, so told apart by their ids.
        self.zmq_threads = threads_of_this_process() - before
        self.sock.linger = 0
        self.sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.sock.setsockopt(zmq.MAXMSGSIZE, TRANSPORT_MAX_BYTES)
        self.sock.setsockopt(zmq.RCVHWM, RCVHWM)
        self.sock.bind(endpoint)
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        if other_users and self._tmpdir:
            os.chmod(f"{self._tmpdir}/router", 0o666)
        self.guard: ConnectionGuard | None = None
        if self.endpoint.startswith("ipc://") and ConnectionGuard.available():
            self.guard = ConnectionGuard(self.sock, self.endpoint.removeprefix("ipc://"))
        self._awaits = awaits
        self._rcvtimeo = -1  # the socket's RCVTIMEO (ms); -1, libzmq's default: none
        self._clear_at = time.perf_counter()  # the socket last seen with nothing unread
        self._may_spin = _usable_cpus() > 1
        self._skip = 0  # waits that sleep at once before the next watch (SPIN_S)
        self._backoff = 1  # the skip after the next watch that comes to nothing
        self._by_token: dict[str, Peer] = {}
        self._by_identity: dict[bytes, Peer] = {}
        self._identity_of: dict[int, bytes] = {}
        self._bound_tokens: set[str] = set()
        self._names: dict[int, str] = {}
        self._options: dict[int, Mapping[str, str]] = {}  # what each peer's welcome says
        self._pid_of: dict[int, int] = {}  # peer -> the pid its token was issued to
        self._turn: dict[bytes, int] = {}  # messages per identity this turn
        self._taken = 0  # frames taken off the socket this turn
        self._turn_ends = 0.0
        self._mid_message = False  # the next frame on the socket continues a message
        # A drain found the socket empty since this turn last looked: the turn ends there
        # (saves looking again; whatever came since waits for the next turn).
        self._seen_empty = False
        # Messages taken off while a request went out, judged when ``incoming`` gets
        # to them: (identity, count this turn, first frame, frames, stamp).
        self._backlog: deque[tuple[bytes, int, zmq.Frame, int, float]] = deque()
        self._counters = HubCounters()
        self._hung_up: set[bytes] = set()  # strangers' connections being closed
        self._refused_at: dict[bytes, float] = {}  # strangers' connections refused, when
        self._drops: dict[str, dict[str, int]] = {}  # bot name -> kind -> count

    @property
    def threads(self) -> set[int]:
        """This hub's threads besides the caller's (native ids): ZeroMQ's, and the
        connection guard's, which shares the interpreter with the caller."""
        return self.zmq_threads | ({self.guard.thread_id} if self.guard is not None else set())

    # ------------------------------------------------------------- peers

    def new_token(self, peer: Peer, name: str, options: Mapping[str, str] | None = None) -> str:
        """A token for ``peer``; its ``welcome`` will carry ``name`` and ``options``."""
        token = secrets.token_hex(16)
        self._by_token[token] = peer
        self._names[id(peer)] = name
        self._options[id(peer)] = options or {}
        self._drops.setdefault(name, {"unsolicited": 0, "flood": 0})
        return token

    def launched(self, peer: Peer, pid: int) -> None:
        """``peer``'s token was given to process ``pid``: only it and its descendants
        may present it, and their connections count toward that process's cap."""
        self._pid_of[id(peer)] = pid
        if self.guard is not None:
            self.guard.admit(pid, self._names[id(peer)])

    def forget(self, peer: Peer) -> None:
        """Unbind a peer whose process is gone; its token and identity die with it."""
        ident = self._identity_of.pop(id(peer), None)
        if ident is not None:
            self._by_identity.pop(ident, None)
        for tok in [t for t, p in self._by_token.items() if p is peer]:
            del self._by_token[tok]
            self._bound_tokens.discard(tok)
        self._names.pop(id(peer), None)
        self._options.pop(id(peer), None)
        pid = self._pid_of.pop(id(peer), None)
        if pid is not None and self.guard is not None:
            self.guard.dismiss(pid)

    @property
    def counters(self) -> HubCounters:
        """Everything dropped or closed so far (the guard's closings included)."""
        out = HubCounters(**self._counters.as_dict())
        if self.guard is not None:
            g: GuardCounters = self.guard.counters
            out.connections_foreign = g.foreign
            out.connections_bot_cap = g.bot_cap
            out.connections_total_cap = g.total_cap
            out.processes_killed = g.killed
            out.guard_errors = g.errors
        return out

    def drops_by_bot(self) -> dict[str, dict[str, int]]:
        """Per bot name: frames dropped unread (``unsolicited``, ``flood``), connections
        closed over its cap (``connections_closed``) and processes of its tree killed for
        connecting on after that (``processes_killed``)."""
        g = self.guard.counters if self.guard is not None else GuardCounters()
        return {name: {**drops, "connections_closed": g.bot_cap_by_name.get(name, 0),
                       "processes_killed": g.killed_by_name.get(name, 0)}
                for name, drops in self._drops.items()}

    # ------------------------------------------------------------- sending

    def send(self, peer: Peer, message: dict[str, Any]) -> bool:
        """Send to a bound peer; False if it is not (or no longer) connected. Before a
        request, whatever the peer sent until now is dropped: a reply must come after
        the request it answers."""
        ident = self._identity_of.get(id(peer))
        if ident is None:
            return False
        if expects_reply(message):
            self._drain_before_request(ident, peer)
            self._turn.pop(ident, None)  # its reply is one more message this turn
        return self._send_raw(ident, message)

    def _drain_before_request(self, target: bytes, peer: Peer) -> None:
        """Take what is queued off the socket (up to MAX_FRAMES_PER_POLL frames): the
        target's messages are unsolicited, those in the backlog too; the others' wait
        in the backlog."""
        get, recv = self.sock.get, self.sock.recv
        budget = self._taken + MAX_FRAMES_PER_POLL
        if self._mid_message:
            self._discard_rest(budget)
        while not self._mid_message and self._taken < budget:
            if not get(_EVENTS) & _POLLIN:
                self._seen_empty = True
                self._clear_at = time.perf_counter()
                break
            ident = recv(_NOBLOCK)
            self._taken += 1
            n = self._turn.get(ident, 0) + 1
            self._turn[ident] = n
            first, parts = self._rest(budget)
            if ident == target:
                self._drop(peer, "unsolicited")
            else:
                self._backlog.append((ident, n, first, parts, self._clear_at))
        if self._backlog and any(e[0] == target for e in self._backlog):  # came too early
            for entry in [e for e in self._backlog if e[0] == target]:
                self._backlog.remove(entry)
                self._drop(peer, "unsolicited")

    def _send_raw(self, ident: bytes, message: dict[str, Any]) -> bool:
        # Two plain sends with int flags: send_multipart's per-part checks and enum
        # arithmetic cost more than the message itself on this hot path.
        try:
            self.sock.send(ident, _SNDMORE_NOBLOCK)
            self.sock.send(encode(message), _NOBLOCK)
        except zmq.ZMQError:
            return False
        return True

    # ------------------------------------------------------------- receiving

    def poll(self, timeout_ms: float) -> list[Incoming[Peer]]:
        """``incoming``, all at once."""
        return list(self.incoming(timeout_ms))

    def incoming(self, timeout_ms: float) -> Iterator[Incoming[Peer]]:
        """Wait up to ``timeout_ms`` for frames (now, before returning), then yield the
        items of those queued, one at a time: each frame is judged when the caller has
        dealt with the one before (it may have sent a request meanwhile). At most
        MAX_FRAMES_PER_POLL frames; the ROUTER takes one message of each connection in
        turn, so every peer's frames get through."""
        # The wait: watch the socket a moment (SPIN_S), then sleep in a recv bounded by
        # RCVTIMEO. Not zmq_poll then recv: zmq_poll, like each EVENTS check, looks into
        # the socket's command mailbox, a syscall; this costs 4 µs less CPU.
        self._turn.clear()
        self._taken = 0
        self._seen_empty = False
        self._turn_ends = time.perf_counter() + TURN_S
        if self._mid_message:
            self._discard_rest(MAX_FRAMES_PER_POLL)
            if self._mid_message:
                return self._take(None)
        # Whole ms, rounded up: a wait of 0 would only look (-1 would block forever).
        timeout = 0 if self._backlog else max(0, math.ceil(timeout_ms))
        # Frames already queued came in while the referee was busy since it last saw the
        # socket empty: they are stamped with that moment, so the referee's work is never
        # charged to a bot (the runner then counts from the request, if it went out later).
        queued = self.sock.get(_EVENTS) & _POLLIN
        if not queued and self._may_spin and timeout:
            self._watch()
        if timeout != self._rcvtimeo:
            self.sock.setsockopt(zmq.RCVTIMEO, timeout)
            self._rcvtimeo = timeout
        try:
            ident = self.sock.recv(0)
        except zmq.Again:
            self._clear_at = time.perf_counter()
            return self._take(None)
        if not queued:  # it woke the wait: it came just now
            self._clear_at = time.perf_counter()
        self._taken = 1
        return self._take(ident)

    def _take(self, ident: bytes | None) -> Iterator[Incoming[Peer]]:
        """The items of this turn, from ``ident``'s message (its first frame is taken)
        on; see ``incoming``."""
        get, recv = self.sock.get, self.sock.recv
        while True:
            if ident is not None:  # first: the rest of its message is still on the socket
                item = self._read(ident)
                ident = None
            elif self._backlog:
                who, n, first, parts, stamp = self._backlog.popleft()
                item = self._judge(who, self._by_identity.get(who), n, first, parts, stamp)
            elif self._seen_empty:  # a drain has just looked: what came since can wait
                break
            elif (self._mid_message or self._taken >= MAX_FRAMES_PER_POLL
                    or time.perf_counter() >= self._turn_ends):
                break  # what is left waits for the next turn, stamped as it is now
            elif get(_EVENTS) & _POLLIN:
                ident = recv(_NOBLOCK)
                self._taken += 1
                continue
            else:
                self._clear_at = time.perf_counter()
                break
            if item is not None:
                yield item

    def _read(self, ident: bytes) -> Incoming[Peer] | None:
        """The rest of the message whose identity frame was just taken, judged."""
        stamp = self._clear_at
        peer = self._by_identity.get(ident)
        n = self._turn.get(ident, 0) + 1
        self._turn[ident] = n
        if peer is not None and n <= FRAMES_PER_TURN and self._awaits(peer):
            # The hot path: a reply that may be the one awaited, copied into bytes.
            payload = self.sock.recv(_NOBLOCK)
            self._taken += 1
            if not self.sock.get(_RCVMORE):
                return self._from_peer(peer, payload, stamp)
            parts = 1 + self._discard_rest(MAX_FRAMES_PER_POLL)
            return Incoming(peer, stamp, error=f"{parts} frames in one message; "
                                               "send exactly one")
        first, parts = self._rest(MAX_FRAMES_PER_POLL)
        return self._judge(ident, peer, n, first, parts, stamp)

    def _rest(self, budget: int) -> tuple[zmq.Frame, int]:
        """The message's first frame (not copied) and how many frames it has (those
        beyond the budget stay on the socket, for ``_discard_rest`` to drop)."""
        first = self.sock.recv(_NOBLOCK, copy=False)
        self._taken += 1
        return first, 1 + self._discard_rest(budget)

    def _discard_rest(self, budget: int) -> int:
        """Drop the rest of the current message unread while the frames taken stay
        under ``budget``; how many were dropped. A message of more frames than that is
        finished on later turns (``_mid_message``)."""
        get, recv = self.sock.get, self.sock.recv
        dropped = 0
        while get(_RCVMORE):
            if self._taken >= budget:
                self._mid_message = True
                return dropped
            recv(_NOBLOCK, copy=False)
            self._taken += 1
            dropped += 1
        self._mid_message = False
        return dropped

    def _judge(self, ident: bytes, peer: Peer | None, n: int, first: zmq.Frame, parts: int,
               stamp: float) -> Incoming[Peer] | None:
        """A message read without the hot path: n-th of its connection this turn."""
        if ident in self._hung_up:  # what a closed stranger still had queued: the most
            self._counters.flood += 1  # common frame of a flood, so dropped first thing
            return None
        if peer is None:
            return self._from_stranger(ident, n, first, parts, stamp)
        if not self._awaits(peer):
            self._drop(peer, "unsolicited")
        elif n > FRAMES_PER_TURN:
            self._drop(peer, "flood")
        elif parts != 1:
            return Incoming(peer, stamp, error=f"{parts} frames in one message; "
                                               "send exactly one")
        else:
            return self._from_peer(peer, first, stamp)
        return None

    def _drop(self, peer: Peer, kind: str) -> None:
        setattr(self._counters, kind, getattr(self._counters, kind) + 1)
        name = self._names.get(id(peer))
        if name is not None:
            self._drops[name][kind] += 1

    def _from_peer(self, peer: Peer, payload: bytes | zmq.Frame,
                   stamp: float) -> Incoming[Peer] | None:
        try:
            msg = decode(payload)
        except MessageError as exc:
            return Incoming(peer, stamp, error=str(exc))
        if msg["type"] == "hello":
            self._counters.duplicate_hello += 1
            return None
        return Incoming(peer, stamp, message=msg)

    def _from_stranger(self, ident: bytes, n: int, frame: zmq.Frame, parts: int,
                       stamp: float) -> Incoming[Peer] | None:
        """A message from a connection that has not said hello: only a hello counts.
        A connection that sends anything else first is closed (it reconnects, if it
        will, as a new stranger): what it has queued costs nothing more."""
        c = self._counters
        if n > FRAMES_PER_TURN:
            c.flood += 1
            self._hang_up(ident, frame)
            return None
        if len(frame) > HELLO_MAX_BYTES:
            c.unbound_oversize += 1
            self._hang_up(ident, frame)
            return None
        try:
            if parts != 1:
                raise MessageError("expected one frame")
            hello = parse_bot_message(decode(frame))
        except MessageError:
            hello = None
        if not isinstance(hello, Hello):
            c.unbound += 1
            self._hang_up(ident, frame)
            return None
        peer = self._by_token.get(hello.token)
        if peer is None or hello.token in self._bound_tokens:
            c.refused += 1
            why = "token already in use" if peer is not None else "unknown token"
            self._refuse(ident, why)
            return None
        if not self._issued_to_sender(peer, frame):
            c.foreign_hello += 1
            self._refuse(ident, "token not issued to this process")
            return None
        if hello.protocol != PROTOCOL_VERSION:
            self._send_raw(ident, refused(f"protocol {hello.protocol} not supported; "
                                          f"this referee speaks {PROTOCOL_VERSION}"))
            return Incoming(peer, stamp, error=f"protocol version {hello.protocol} not "
                                               "supported", hello=True)
        self._bound_tokens.add(hello.token)
        self._by_identity[ident] = peer
        self._identity_of[id(peer)] = ident
        self._send_raw(ident, welcome(self._names[id(peer)], self._options[id(peer)]))
        return Incoming(peer, stamp, message={"type": "hello"}, hello=True)

    def _refuse(self, ident: bytes, why: str) -> None:
        self._refused_at[ident] = time.perf_counter()
        self._send_raw(ident, refused(why))

    def _hang_up(self, ident: bytes, frame: zmq.Frame) -> None:
        """Close the connection ``frame`` came in on, where the guard can (once: what
        it still has queued is dropped unread)."""
        pid = frame_pid(frame)
        if self.guard is None or pid is None:
            return
        refused_at = self._refused_at.get(ident)
        if refused_at is not None and time.perf_counter() - refused_at < REFUSAL_GRACE_S:
            return
        if len(self._hung_up) >= MAX_HUNG_UP:  # identities are never reused: forget old ones
            self._hung_up.clear()
            self._refused_at.clear()
        self._hung_up.add(ident)
        try:
            fd = frame.get(zmq.SRCFD)
        except zmq.ZMQError:
            return
        if self.guard.hang_up(fd, pid):
            self._counters.unbound_closed += 1

    def _issued_to_sender(self, peer: Peer, frame: zmq.Frame) -> bool:
        """Whether the process behind ``frame``'s connection is the one ``peer``'s token
        was issued to, or a descendant. Where the transport does not name the process
        (not Linux), or the token was not issued to a process, the token is all there is."""
        root = self._pid_of.get(id(peer))
        pid = frame_pid(frame)
        return root is None or pid is None or descends_from(pid, root)

    def quiet_since(self) -> float:
        """A moment after which every frame not yet read came in (``time.perf_counter``):
        now, if nothing is unread; else the last moment the socket was seen holding
        nothing unread. A bot whose reply is not read yet had not answered by then."""
        if not (self._backlog or self._mid_message or self.sock.get(_EVENTS) & _POLLIN):
            self._clear_at = time.perf_counter()
        return self._clear_at

    # ------------------------------------------------------------- waiting

    def _watch(self) -> None:
        """Watch the socket for up to SPIN_S, unless the last watches came to nothing
        (see SPIN_S)."""
        if self._skip:
            self._skip -= 1
            return
        until = time.perf_counter() + SPIN_S
        while True:  # poll() has just looked: yield before looking again
            os.sched_yield()
            if self.sock.get(_EVENTS) & _POLLIN:
                break
            if time.perf_counter() >= until:
                self._skip, self._backoff = self._backoff, min(2 * self._backoff, MAX_SKIP)
                return
        self._backoff = 1

    def close(self) -> None:
        if self.guard is not None:
            self.guard.close()
        self.sock.close(0)
        self.ctx.term()
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

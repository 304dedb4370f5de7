"""The referee's one ZeroMQ ROUTER socket and who is who on it.

Every launched bot process gets a secret token. The first ``hello`` that presents a
token binds it to the routing identity the ROUTER assigned to that connection; from
then on only frames from that identity speak for that process. A second connection
presenting a token already bound is refused. Frames from identities that are bound
to nothing are dropped and counted, never attributed to a bot.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import zmq

from protocol.codec import MessageError, decode, encode
from protocol.messages import PROTOCOL_VERSION, Hello, parse_bot_message, refused, welcome
from referee.cpuwait import threads_of_this_process

# A hard transport cap well above the codec's limit: libzmq drops a peer that sends more.
TRANSPORT_MAX_BYTES = 1 << 20
# The most frames one ``poll`` takes off the socket: peers that never stop sending must
# not keep the runner from its deadlines and the other seats (and its memory bounded).
MAX_FRAMES_PER_POLL = 1000
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

Peer = TypeVar("Peer")


@dataclass
class HubCounters:
    """Messages the hub dropped, by why."""

    unbound: int = 0          # from a connection that never presented a valid token
    refused: int = 0          # hellos with an unknown or already-bound token
    duplicate_hello: int = 0  # a second hello on an already-bound connection

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass
class Incoming(Generic[Peer]):
    """A frame from a bound peer: either a decoded message or the reason it is bad.
    ``received_at`` (``time.perf_counter``) is when it was taken off the socket, or, if
    it was already waiting when the referee came back from other work, when that work
    began."""

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


class Hub(Generic[Peer]):
    """Binds the ROUTER, issues tokens, and turns frames into ``Incoming`` items."""

    def __init__(self, endpoint: str | None = None, other_users: bool = False):
        """Bind ``endpoint``, by default an ipc socket in a private temporary directory;
        ``other_users`` opens that socket to bots running as another user (they still
        need a token to be heard)."""
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
        self.sock.bind(endpoint)
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        if other_users and self._tmpdir:
            os.chmod(f"{self._tmpdir}/router", 0o666)
        self._rcvtimeo = -1  # the socket's RCVTIMEO (ms); -1, libzmq's default: none
        self._busy_since = time.perf_counter()  # when the last poll returned
        self._may_spin = _usable_cpus() > 1
        self._skip = 0  # waits that sleep at once before the next watch (SPIN_S)
        self._backoff = 1  # the skip after the next watch that comes to nothing
        self._by_token: dict[str, Peer] = {}
        self._by_identity: dict[bytes, Peer] = {}
        self._identity_of: dict[int, bytes] = {}
        self._bound_tokens: set[str] = set()
        self._names: dict[int, str] = {}
        self.counters = HubCounters()

    def new_token(self, peer: Peer, name: str) -> str:
        token = secrets.token_hex(16)
        self._by_token[token] = peer
        self._names[id(peer)] = name
        return token

    def forget(self, peer: Peer) -> None:
        """Unbind a peer whose process is gone; its token and identity die with it."""
        ident = self._identity_of.pop(id(peer), None)
        if ident is not None:
            self._by_identity.pop(ident, None)
        for tok in [t for t, p in self._by_token.items() if p is peer]:
            del self._by_token[tok]
            self._bound_tokens.discard(tok)
        self._names.pop(id(peer), None)

    def send(self, peer: Peer, message: dict[str, Any]) -> bool:
        """Send to a bound peer; False if it is not (or no longer) connected."""
        ident = self._identity_of.get(id(peer))
        if ident is None:
            return False
        return self._send_raw(ident, message)

    def poll(self, timeout_ms: float) -> list[Incoming[Peer]]:
        """Wait up to ``timeout_ms`` for frames, then drain those queued (at most
        MAX_FRAMES_PER_POLL; the ROUTER fair-queues, so every peer's frames get through)."""
        # The wait: watch the socket a moment (SPIN_S), then sleep in a recv bounded by
        # RCVTIMEO. Not zmq_poll then recv: zmq_poll, like each EVENTS check, looks into
        # the socket's command mailbox, a syscall; this costs 4 µs less CPU.
        out: list[Incoming[Peer]] = []
        timeout = max(0, int(timeout_ms))  # RCVTIMEO -1 would block forever
        # Frames already queued came in while the referee was busy since the last poll:
        # they are stamped with the moment that work began, so it is never charged to a
        # bot (the runner then counts from the request, if it went out later).
        stamp = self._busy_since if self.sock.get(zmq.EVENTS) & _POLLIN else None
        if stamp is None and self._may_spin and timeout:
            self._watch()
        if timeout != self._rcvtimeo:
            self.sock.setsockopt(zmq.RCVTIMEO, timeout)
            self._rcvtimeo = timeout
        try:
            frames = self._recv_frames(0)
        except zmq.Again:
            self._busy_since = time.perf_counter()
            return out
        for taken in range(1, MAX_FRAMES_PER_POLL + 1):
            item = self._handle(frames, time.perf_counter() if stamp is None else stamp)
            if item is not None:
                out.append(item)
            if taken == MAX_FRAMES_PER_POLL or not self.sock.get(zmq.EVENTS) & _POLLIN:
                break
            frames = self._recv_frames(_NOBLOCK)
        self._busy_since = time.perf_counter()
        return out

    def _watch(self) -> None:
        """Watch the socket for up to SPIN_S, unless the last watches came to nothing
        (see SPIN_S)."""
        if self._skip:
            self._skip -= 1
            return
        until = time.perf_counter() + SPIN_S
        while True:  # poll() has just looked: yield before looking again
            os.sched_yield()
            if self.sock.get(zmq.EVENTS) & _POLLIN:
                break
            if time.perf_counter() >= until:
                self._skip, self._backoff = self._backoff, min(2 * self._backoff, MAX_SKIP)
                return
        self._backoff = 1

    def _recv_frames(self, flags: int) -> list[bytes]:
        """One whole multipart message; the first frame's ``flags`` say whether to wait
        (the rest of a message is always there once its first frame is)."""
        recv, more = self.sock.recv, self.sock.get
        frames = [recv(flags)]
        while more(zmq.RCVMORE):
            frames.append(recv(_NOBLOCK))
        return frames

    def _handle(self, frames: list[bytes], now: float) -> Incoming[Peer] | None:
        ident, payload = frames[0], frames[1:]
        peer = self._by_identity.get(ident)
        if peer is not None:
            if len(payload) != 1:
                return Incoming(peer, now, error=f"{len(payload)} frames in one message; "
                                                 "send exactly one")
            try:
                msg = decode(payload[0])
            except MessageError as exc:
                return Incoming(peer, now, error=str(exc))
            if msg["type"] == "hello":
                self.counters.duplicate_hello += 1
                return None
            return Incoming(peer, now, message=msg)
        return self._maybe_hello(ident, payload, now)

    def _maybe_hello(self, ident: bytes, payload: list[bytes], now: float) -> Incoming[Peer] | None:
        try:
            if len(payload) != 1:
                raise MessageError("expected one frame")
            hello = parse_bot_message(decode(payload[0]))
        except MessageError:
            self.counters.unbound += 1
            return None
        if not isinstance(hello, Hello):
            self.counters.unbound += 1
            return None
        peer = self._by_token.get(hello.token)
        if peer is None or hello.token in self._bound_tokens:
            self.counters.refused += 1
            why = "token already in use" if peer is not None else "unknown token"
            self._send_raw(ident, refused(why))
            return None
        if hello.protocol != PROTOCOL_VERSION:
            self._send_raw(ident, refused(f"protocol {hello.protocol} not supported; "
                                          f"this referee speaks {PROTOCOL_VERSION}"))
            return Incoming(peer, now, error=f"protocol version {hello.protocol} not supported",
                            hello=True)
        self._bound_tokens.add(hello.token)
        self._by_identity[ident] = peer
        self._identity_of[id(peer)] = ident
        self._send_raw(ident, welcome(self._names[id(peer)]))
        return Incoming(peer, now, message={"type": "hello"}, hello=True)

    def _send_raw(self, ident: bytes, message: dict[str, Any]) -> bool:
        # Two plain sends with int flags: send_multipart's per-part checks and enum
        # arithmetic cost more than the message itself on this hot path.
        try:
            self.sock.send(ident, _SNDMORE_NOBLOCK)
            self.sock.send(encode(message), _NOBLOCK)
        except zmq.ZMQError:
            return False
        return True

    def close(self) -> None:
        self.sock.close(0)
        self.ctx.term()
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

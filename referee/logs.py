"""Bot output: every bot process's stdout and stderr, copied into size-capped files.

Bots write into pipes; one thread (``LogPump``) drains all of them, so a bot that prints
megabytes never blocks on a full pipe and never slows the referee's event loop. Each
stream keeps its first ``cap_bytes`` bytes; the rest is read and dropped, and a last
line says how much was dropped. Lines the referee writes into a log start with
``[referee]`` (``[referee: ...]`` for the cap), so they cannot be mistaken for the bot's:
``mark`` notes where each game starts, just before the first thing the bot writes in it.
A log that cannot be written (a full disk) is dropped too: the pump goes on draining
every pipe, and says so once through ``warn``. (Only a log file that cannot even be
opened for another reason than room is an error.)
"""

from __future__ import annotations

import os
import queue
import select
import selectors
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from referee.journal import STORAGE_ERRNOS

CHUNK = 1 << 16


def game_marker(game: int, seat: int) -> str:
    """The line that marks in a bot's log where a game starts."""
    return f"[referee] --- game {game} (seat {seat}) ---\n"


@dataclass
class LogStream:
    """One pipe being copied; ``done`` is set once it has ended and its file is whole."""

    pipe: IO[bytes]
    out: IO[bytes] | None  # None once the file cannot be written
    path: Path
    left: int
    dropped: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    mark: bytes = b""  # written before the next bytes the bot writes


class LogPump:
    """Drains pipes into capped files on a background thread.

    >>> import subprocess, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> pump = LogPump(cap_bytes=10)
    >>> p = subprocess.Popen(["echo", "hello, world"], stdout=subprocess.PIPE)
    >>> done = pump.attach(p.stdout, folder / "out.log").done; _ = p.wait(); pump.close()
    >>> (folder / "out.log").read_text()
    'hello, wor\\n[referee: 3 more bytes dropped: the log cap is 10 bytes]\\n'
    """

    def __init__(self, cap_bytes: int, warn: Callable[[str], None] | None = None):
        """``warn`` is told (once) when a log file cannot be written."""
        self.cap_bytes = cap_bytes
        self._warn = warn
        self._warned = False
        self._selector = selectors.DefaultSelector()
        self._incoming: queue.SimpleQueue[LogStream | tuple[LogStream, str] | None] = \
            queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._run, name="bot-logs", daemon=True)
        self._thread.start()

    def attach(self, pipe: IO[bytes], path: Path) -> LogStream:
        """Copy ``pipe`` (the read end of a bot's stdout or stderr) into ``path``."""
        stream = LogStream(pipe, None, path, self.cap_bytes)
        try:
            # Unbuffered: a failed write fails here, not in a flush at close.
            stream.out = open(path, "ab", buffering=0)  # noqa: SIM115 - the pump closes it
        except OSError as exc:
            if exc.errno not in STORAGE_ERRNOS:
                raise  # not for want of room: the run directory is not as we made it
            self._failed(stream, exc)
        self._incoming.put(stream)
        os.write(self._wake_w, b".")
        return stream

    def mark(self, stream: LogStream, line: str) -> None:
        """Write ``line`` into the stream's file before the next bytes the bot writes
        (what it wrote before this call comes first, as far as it is in the pipe)."""
        self._incoming.put((stream, line))
        os.write(self._wake_w, b".")

    def close(self) -> None:
        """Copy what is left in the pipes of processes that have exited, then stop."""
        self._incoming.put(None)
        os.write(self._wake_w, b".")
        self._thread.join()
        os.close(self._wake_r)
        os.close(self._wake_w)
        self._selector.close()

    def _run(self) -> None:
        stopping = False
        while True:
            ready = self._selector.select(timeout=0 if stopping else None)
            if stopping and not any(key.data for key, _ in ready):
                # Nothing left to read now. A pipe still open belongs to a process that
                # is still running (the runner ends bots before the pump): do not wait.
                for key in list(self._selector.get_map().values()):
                    if key.data is not None:
                        self._finish(key.data)
                return
            for key, _ in ready:
                if key.data is None:
                    os.read(self._wake_r, 4096)
                    stopping |= self._take_new()
                elif not key.data.done.is_set():  # a mark may have drained it to its end
                    self._copy(key.data)

    def _take_new(self) -> bool:
        stop = False
        while not self._incoming.empty():
            item = self._incoming.get()
            if item is None:
                stop = True
            elif isinstance(item, tuple):
                stream, line = item
                if not stream.done.is_set():
                    # What is in the pipe now was written before the mark.
                    while not stream.done.is_set() and \
                            select.select([stream.pipe], [], [], 0)[0]:
                        self._copy(stream)
                    stream.mark = line.encode()
            else:
                self._selector.register(item.pipe, selectors.EVENT_READ, item)
        return stop

    def _copy(self, s: LogStream) -> None:
        data = os.read(s.pipe.fileno(), CHUNK)
        if not data:
            self._finish(s)
            return
        keep = data[: s.left]
        if keep and s.mark:  # the referee's line, not counted against the bot's cap
            self._write(s, s.mark)
            s.mark = b""
        s.left -= len(keep)
        s.dropped += len(data) - self._write(s, keep)

    def _write(self, s: LogStream, data: bytes) -> int:
        """Write ``data`` to the stream's file; the bytes written."""
        if s.out is None or not data:
            return 0
        try:
            return s.out.write(data) or 0
        except OSError as exc:
            self._failed(s, exc)
            return 0

    def _failed(self, s: LogStream, exc: OSError) -> None:
        if s.out is not None:
            try:
                s.out.close()
            except OSError:
                pass
            s.out = None
        if self._warn and not self._warned:
            self._warned = True
            self._warn(f"warning: cannot write {s.path} ({exc.strerror or exc}): bot output "
                       "that cannot be written is dropped")

    def _finish(self, s: LogStream) -> None:
        self._selector.unregister(s.pipe)
        if s.dropped:
            self._write(s, f"\n[referee: {s.dropped} more bytes dropped: the log cap is "
                           f"{self.cap_bytes} bytes]\n".encode())
        if s.out is not None:
            s.out.close()
        s.pipe.close()
        s.done.set()

"""Bot output: every bot process's stdout and stderr, copied into size-capped files.

Bots write into pipes; one thread (``LogPump``) drains all of them, so a bot that prints
megabytes never blocks on a full pipe and never slows the referee's event loop. Each
stream keeps its first ``cap_bytes`` bytes; the rest is read and dropped, and a last
line says how much was dropped. Lines the referee writes into a log start with
``[referee]`` (``[referee: ...]`` for the cap), so they cannot be mistaken for the bot's:
``mark`` notes where each game starts, after everything the bot wrote before the mark and
at the start of a line (a line the bot has not finished is never cut in two).
A log that cannot be written (a full disk) is dropped too: the pump goes on draining
every pipe, and says so once through ``warn``. (Only a log file that cannot even be
opened for another reason than room is an error.)
"""

from __future__ import annotations

import os
import selectors
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from referee.rundir import STORAGE_ERRNOS, open_append

CHUNK = 1 << 16
# Reads ``mark`` makes at most to take what the pipe held (64 kB by default, and at most
# 1 MB however the bot sizes it): the caller's thread never copies for long.
MARK_READS = 16


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
    mark: bytes = b""  # written before the next line the bot writes
    mid_line: bool = False  # the bot's last byte copied was not a newline


class LogPump:
    """Drains pipes into capped files on a background thread.

    >>> import subprocess, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> pump = LogPump(cap_bytes=10)
    >>> p = subprocess.Popen(["echo", "hello, world"], stdout=subprocess.PIPE)
    >>> done = pump.attach(p.stdout, folder / "out.log", folder).done; _ = p.wait(); pump.close()
    >>> (folder / "out.log").read_text()
    'hello, wor\\n[referee: 3 more bytes dropped: the log cap is 10 bytes]\\n'
    """

    def __init__(self, cap_bytes: int, warn: Callable[[str], None] | None = None):
        """``warn`` is told (once) when a log file cannot be written."""
        self.cap_bytes = cap_bytes
        self._warn = warn
        self._warned = False
        self._selector = selectors.DefaultSelector()
        # Held while copying: ``mark`` copies on the caller's thread, then sets the mark,
        # so the mark falls exactly after what the bot wrote before the call.
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._run, name="bot-logs", daemon=True)
        self._thread.start()

    @property
    def thread_id(self) -> int:
        """The pump's thread (its native id), which shares the interpreter with the
        referee's loop."""
        assert self._thread.native_id is not None  # set once the thread started
        return self._thread.native_id

    def attach(self, pipe: IO[bytes], path: Path, root: Path) -> LogStream:
        """Copy ``pipe`` (the read end of a bot's stdout or stderr) into ``path``, a file
        of the run directory ``root`` (``rundir.open_append``: no symbolic link followed)."""
        stream = LogStream(pipe, None, path, self.cap_bytes)
        try:
            # Unbuffered: a failed write fails here, not in a flush at close.
            stream.out = open_append(root, path)
        except OSError as exc:
            if exc.errno not in STORAGE_ERRNOS:
                raise  # not for want of room: the run directory is not as we made it
            self._failed(stream, exc)
        os.set_blocking(pipe.fileno(), False)  # ``mark`` may have emptied a pipe seen ready
        with self._lock:  # epoll takes a new descriptor while the pump waits
            self._selector.register(pipe, selectors.EVENT_READ, stream)
        return stream

    def mark(self, stream: LogStream, line: str) -> None:
        """Write ``line`` into the stream's file after what the bot wrote before this
        call, before the next line it writes."""
        with self._lock:
            for _ in range(MARK_READS):
                if stream.done.is_set() or not self._copy(stream):
                    break
            if not stream.done.is_set():
                stream.mark = line.encode()

    def close(self) -> None:
        """Copy what is left in the pipes of processes that have exited, then stop."""
        os.write(self._wake_w, b".")
        self._thread.join()
        os.close(self._wake_r)
        os.close(self._wake_w)
        self._selector.close()

    def _run(self) -> None:
        stopping = False
        while True:
            ready = self._selector.select(timeout=0 if stopping else None)
            with self._lock:
                if stopping and not any(key.data for key, _ in ready):
                    # Nothing left to read now. A pipe still open belongs to a process
                    # that is still running (the runner ends bots before the pump): do
                    # not wait.
                    for key in list(self._selector.get_map().values()):
                        if key.data is not None:
                            self._finish(key.data)
                    return
                for key, _ in ready:
                    if key.data is None:
                        os.read(self._wake_r, 4096)
                        stopping = True
                    elif not key.data.done.is_set():  # a mark may have drained it
                        self._copy(key.data)

    def _copy(self, s: LogStream) -> bool:
        """Copy what the pipe holds, up to CHUNK; False if it held nothing."""
        try:
            data = os.read(s.pipe.fileno(), CHUNK)
        except BlockingIOError:
            return False
        if not data:
            self._finish(s)
            return False
        keep = data[: s.left]
        s.left -= len(keep)
        written = 0
        if keep and s.mark:  # the referee's line, not counted against the bot's cap
            cut = keep.find(b"\n") + 1 if s.mid_line else 0
            if cut or not s.mid_line:
                written = self._write(s, keep[:cut])
                self._write(s, s.mark)
                s.mark, keep, s.mid_line = b"", keep[cut:], False
        if keep:
            s.mid_line = not keep.endswith(b"\n")
        s.dropped += len(data) - written - self._write(s, keep)
        return True

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

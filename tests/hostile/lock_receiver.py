"""Hostile bot, the receiving half of ``lock_sender``'s pair: at every turn it looks
whether its partner's locks on the shared file are there (``flock`` and a write
``fcntl`` lock that would conflict, ``F_GETLK`` and ``F_OFD_GETLK`` that would name
them) and whether its inotify watch saw the partner open the file; at its start it
reads the machine's counters that a partner's use of memory, CPU or files moves
(``/proc/meminfo``, ``/proc/loadavg``, ``/proc/stat``, ``/proc/sys/fs/file-nr``,
``sysinfo(2)``). A channel that carried anything (or a counter it could read) is
reported as ``CHANNEL-OPEN <name>`` on stderr, a refused call as ``RECEIVER <name>:
refused (...)``. Then it plays as ``caller`` does.
"""

import ctypes
import errno
import fcntl
import os
import struct
import sys

from evaluator import declarations

SHARED = os.path.realpath(sys.executable)
F_OFD_GETLK = 36
IN_OPEN, IN_NONBLOCK = 0x20, 0o4000
LOCK = "hhqqi4x"
libc = ctypes.CDLL(None, use_errno=True)
watched = open(SHARED, "rb")
seen: set = set()


def report(name, state):
    if (name, state) not in seen:
        seen.add((name, state))
        print(f"CHANNEL-OPEN {name}" if state == "open" else f"RECEIVER {name}: {state}",
              file=sys.stderr, flush=True)


def probe(name, body):
    try:
        report(name, "open" if body() else "quiet")
    except OSError as exc:
        report(name, "open" if exc.errno in (errno.EAGAIN, errno.EACCES)
               else f"refused ({exc.strerror})")


def getlk(cmd):
    ask = struct.pack(LOCK, fcntl.F_WRLCK, 0, 0, 0, 0)
    return struct.unpack(LOCK, fcntl.fcntl(watched, cmd, ask))[0] != fcntl.F_UNLCK


def flock_busy():
    fcntl.flock(watched, fcntl.LOCK_EX | fcntl.LOCK_NB)  # EAGAIN: the partner holds one
    fcntl.flock(watched, fcntl.LOCK_UN)
    return False


def inotify():
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, SHARED.encode(), IN_OPEN) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return fd


def sysinfo():
    if libc.sysinfo(ctypes.create_string_buffer(256)) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def read(path):
    return lambda: open(path, "rb").read()


# The machine's counters: a partner's use of memory, CPU or files moves them, so being
# able to read them at all is a channel.
for name, body in (("meminfo", read("/proc/meminfo")), ("loadavg", read("/proc/loadavg")),
                   ("stat", read("/proc/stat")), ("file-nr", read("/proc/sys/fs/file-nr")),
                   ("sysinfo", sysinfo)):
    try:
        body()
        report(name, "open")
    except OSError as exc:
        report(name, f"refused ({exc.strerror})")

try:
    notes = inotify()
except OSError as exc:
    notes = None
    report("inotify", f"refused ({exc.strerror})")


def inotify_events():
    try:
        return len(os.read(notes, 4096)) > 0
    except BlockingIOError:
        return False


def act(view):
    probe("flock", flock_busy)
    probe("posix lock", lambda: getlk(fcntl.F_GETLK))
    probe("ofd lock", lambda: getlk(F_OFD_GETLK))
    if notes is not None:
        probe("inotify", inotify_events)
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]

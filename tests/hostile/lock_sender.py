"""Hostile bot, one of a colluding pair sandboxed at one table (with ``lock_receiver``):
it signals through kernel objects of a file both sandboxes see read-only (this
Python's interpreter, the same inode in every sandbox). From its start it holds a
``flock``, a POSIX record lock and an open-file-description lock on it, and it opens
the file at every turn (inotify ``IN_OPEN`` for the receiver to watch). It reports on
stderr (``SENDER ...``) which of these the kernel let it make, then plays as ``caller``.
"""

import fcntl
import os
import struct
import sys

from evaluator import declarations

SHARED = os.path.realpath(sys.executable)
F_OFD_SETLK = 37
held = open(SHARED, "rb")


def attempt(what, body):
    try:
        body()
        result = "made"
    except OSError as exc:
        result = f"refused ({exc.strerror})"
    print(f"SENDER {what}: {result}", file=sys.stderr, flush=True)


attempt("flock", lambda: fcntl.flock(held, fcntl.LOCK_SH | fcntl.LOCK_NB))
attempt("posix lock", lambda: fcntl.lockf(held, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 0))
attempt("ofd lock", lambda: fcntl.fcntl(held, F_OFD_SETLK,
                                        struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 1, 1, 0)))


def act(view):
    with open(SHARED, "rb"):  # an IN_OPEN event in every sandbox that watches it
        pass
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]

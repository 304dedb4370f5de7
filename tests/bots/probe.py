"""Plays like caller; on its first decision it probes its sandbox and reports on stderr.

It tries the network (a TCP connection to the port written in ``probe_port.txt``
beside it), a write into its own folder, and a write into ``$HOME``; one line each:
``network: open|blocked``, ``write beside me: ok|blocked``, ``write home: ok|blocked``.
"""

import os
import socket
import sys
from pathlib import Path

from evaluator import declarations

HERE = Path(__file__).resolve().parent
probed = False


def attempt(what, fn):
    try:
        fn()
        print(f"{what}: ok", file=sys.stderr)
    except OSError:
        print(f"{what}: blocked", file=sys.stderr)


def probe():
    port = int((HERE / "probe_port.txt").read_text())
    attempt("network", lambda: socket.create_connection(("127.0.0.1", port), timeout=2).close())
    attempt("write beside me", lambda: (HERE / "written.txt").write_text("x"))
    attempt("write home", lambda: (Path(os.environ["HOME"]) / "written.txt").write_text("x"))


def act(view):
    global probed
    if not probed:
        probed = True
        probe()
    return "call" if view.can_call else declarations(view.ruleset)[0]

"""The referee's exit codes (the README's table) and how SIGTERM ends a command."""

from __future__ import annotations

import signal

EXIT_OK, EXIT_NONCOMPLIANT, EXIT_USAGE, EXIT_BOT_START, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 128 + signal.SIGTERM
EXIT_SPRT_INCONCLUSIVE, EXIT_SPRT_USAGE = 2, 5
EXIT_TIME_BUDGET = 124  # `run` stopped by --max-time (as timeout(1) says it)


class Terminated(KeyboardInterrupt):
    """SIGTERM, outside a run (which stops cleanly for it, as for Ctrl-C), or a second
    one in a run."""


_terminated = False  # a Terminated was raised (typer turns it into exit 130 otherwise)


def terminate() -> None:
    """Raise Terminated, and remember it: the command ends with EXIT_TERMINATED."""
    global _terminated
    _terminated = True
    raise Terminated


def was_terminated() -> bool:
    """Whether ``terminate`` was called in this process."""
    return _terminated

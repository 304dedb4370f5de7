"""Plays like caller, but writes 2 MB to stdout and 2 MB to stderr on every decision.

Its logs must stay capped, and the referee must not slow down for it.
"""

import sys

from evaluator import declarations

LINE = "x" * 1023 + "\n"


def act(view):
    sys.stdout.write(LINE * 2048)
    sys.stderr.write(LINE * 2048)
    return "call" if view.can_call else declarations(view.ruleset)[0]

"""Faulty bot: plays like caller, then its process dies on its 8th decision, after
saying so on stderr.

``referee check`` asks fewer turns than that, so it passes the check (and enters a
league's pool), then crashes in play: a fault ``crash`` whose detail quotes its stderr
(``crash_late: ... stderr``), a line only its author may read.
"""

import os
import sys

from evaluator import declarations

decisions = 0


def act(view):
    global decisions
    decisions += 1
    if decisions == 8:
        print("crash_late: eighth decision; a line of its author's stderr", file=sys.stderr,
              flush=True)
        os._exit(1)
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]

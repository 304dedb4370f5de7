"""Faulty bot: plays legally (like caller), then its process dies on its 3rd decision.

Call when there is something to call, else open with the weakest declaration. On the
3rd decision of the process it first starts a child process that would sleep for ten
minutes (its command line names this file), says why on stderr, then calls
``os._exit(1)``. The referee
forfeits it (fault ``crash``), ends its whole process group (the orphaned child too),
and starts a fresh process for its next game, which dies the same way.
"""

import os
import subprocess
import sys

from evaluator import declarations

decisions = 0


def act(view):
    global decisions
    decisions += 1
    if decisions == 3:
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", __file__])
        print("crash_mid_game: third decision, goodbye", file=sys.stderr, flush=True)
        os._exit(1)
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]

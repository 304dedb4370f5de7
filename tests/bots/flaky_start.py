"""Faulty bot: its first process plays like caller and dies on its 3rd decision; the
next one exits before saying hello (a failed start); every later one plays normally.

It counts its processes in a file next to itself (``flaky_start.count``). The referee
must try it again at once, so that no game is lost to that one failed start. Only
misbehaves when started by the referee (``REFEREE_TOKEN`` set).
"""

import os
import sys
from pathlib import Path

from evaluator import declarations

COUNT = Path(__file__).with_suffix(".count")
process = 0
if os.environ.get("REFEREE_TOKEN"):
    process = int(COUNT.read_text()) + 1 if COUNT.exists() else 1
    COUNT.write_text(str(process))
    if process == 2:
        print("flaky_start: not today", file=sys.stderr)
        sys.exit(5)

decisions = 0


def act(view):
    global decisions
    decisions += 1
    if process == 1 and decisions == 3:
        os._exit(1)
    return "call" if view.can_call else declarations(view.ruleset)[0]

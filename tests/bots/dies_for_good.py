"""Faulty bot: crashes mid-game, and then cannot be restarted.

Its first process plays like caller and dies (``os._exit(1)``) on its 3rd decision; it
leaves a marker file next to itself (``dies_for_good.started``), and every later process
that finds it exits at once with code 4, before saying hello. The referee must forfeit
it (``crash``) at the start of every later game and still play the whole run. Only
misbehaves when started by the referee (``REFEREE_TOKEN`` set).
"""

import os
import sys
from pathlib import Path

from evaluator import declarations

MARK = Path(__file__).with_suffix(".started")

if os.environ.get("REFEREE_TOKEN"):
    if MARK.exists():
        print("dies_for_good: already died once", file=sys.stderr)
        sys.exit(4)
    MARK.write_text("started\n")

decisions = 0


def act(view):
    global decisions
    decisions += 1
    if decisions == 3:
        os._exit(1)
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]

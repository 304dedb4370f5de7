"""Faulty bot: dies before it ever connects.

Hosted through the SDK like any ``.py`` bot, but at import (when started by the
referee, i.e. with ``REFEREE_TOKEN`` in its environment) it prints one line to stderr and
exits with code 3, so the referee must report that it could not be started. Imported
anywhere else (pytest's doctest collection) it does nothing.
"""

import os
import sys

if os.environ.get("REFEREE_TOKEN"):
    print("crash_at_start: giving up before saying hello", file=sys.stderr)
    sys.exit(3)


def act(view):
    return "call"

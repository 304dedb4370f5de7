"""The bots' clock: neither the referee's own work nor time in which the referee did not
run at all is charged to a bot (a real ROUTER and DEALER; a real run, stopped and
continued from outside)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import msgpack
import zmq

from referee.hub import Hub
from referee.show.html import replay_pending

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import FAULTY, POLISH, REFEREE, assert_nothing_left, bot_dir, good  # noqa: E402


def connected() -> tuple[Hub, zmq.Socket, object]:
    hub: Hub[object] = Hub()
    peer = object()
    token = hub.new_token(peer, "probe")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger = 0
    dealer.connect(hub.endpoint)
    dealer.send(msgpack.packb({"type": "hello", "token": token, "protocol": 2}))
    deadline = time.monotonic() + 5
    while not any(i.hello for i in hub.poll(50)):
        assert time.monotonic() < deadline, "no hello"
    assert dealer.poll(5000)
    dealer.recv()  # welcome
    return hub, dealer, peer


def test_a_reply_that_waited_while_the_referee_worked_is_stamped_when_the_work_began():
    hub, dealer, peer = connected()
    try:
        hub.poll(0)  # the referee goes to work now
        work_began = time.perf_counter()
        dealer.send(msgpack.packb({"type": "action", "seq": 1, "action": {"kind": "call"}}))
        time.sleep(0.05)  # the referee's own work: 50 ms
        items = hub.poll(100)
        assert [i.peer for i in items] == [peer]
        assert items[0].received_at <= work_began  # not 50 ms later
    finally:
        dealer.close()
        hub.close()


def test_a_reply_the_referee_waited_for_is_stamped_when_it_came():
    hub, dealer, peer = connected()
    sent: list[float] = []

    def reply() -> None:  # the bot answers 20 ms into the referee's wait
        sent.append(time.perf_counter())
        dealer.send(msgpack.packb({"type": "action", "seq": 1, "action": {"kind": "call"}}))

    try:
        hub.poll(0)
        timer = threading.Timer(0.02, reply)
        timer.start()
        items = hub.poll(1000)
        timer.join()
        assert [i.peer for i in items] == [peer]
        assert sent[0] <= items[0].received_at <= time.perf_counter()
    finally:
        dealer.close()
        hub.close()


def test_a_reply_left_unread_came_after_the_socket_was_last_seen_empty():
    """The runner judges deadlines at ``quiet_since``: a reply still unread (the
    referee's turn ended before it) may have come in time, so the moment is the last one
    the socket held nothing unread, not now; with nothing unread, it is now."""
    hub, dealer, peer = connected()
    try:
        hub.poll(0)
        seen_empty = time.perf_counter()
        dealer.send(msgpack.packb({"type": "action", "seq": 1, "action": {"kind": "call"}}))
        time.sleep(0.05)
        assert hub.quiet_since() <= seen_empty  # not 50 ms later
        assert [i.peer for i in hub.poll(100)] == [peer]
        before = time.perf_counter()
        assert before <= hub.quiet_since() <= time.perf_counter()
    finally:
        dealer.close()
        hub.close()


def test_time_in_which_the_referee_did_not_run_is_not_charged(tmp_path: Path) -> None:
    """SIGSTOP the referee for 100 ms, 30 times at random moments, with a 100 ms move
    time and no bank: the bots answered long before, but the referee could not look,
    wherever in its loop it was stopped. No timeouts."""
    out = tmp_path / "run"
    caller = good(tmp_path, "caller.py")[0]
    proc = subprocess.Popen([str(REFEREE), "run", "--bots", caller, caller, "--games", "1000",
                             "--move-time", "100ms", "--time-bank", "0", "--seed", "1",
                             "--out", str(out)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    journal = out / "games.jsonl"
    deadline = time.monotonic() + 60
    while not (journal.exists() and journal.read_text().count("\n") >= 5):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.01)
    stops, pauses = 0, random.Random(1)
    while stops < 30 and proc.poll() is None:
        proc.send_signal(signal.SIGSTOP)
        time.sleep(0.1)
        proc.send_signal(signal.SIGCONT)
        stops += 1
        time.sleep(pauses.uniform(0.01, 0.05))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert stops == 30  # the run outlasted them
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(records) == 1000
    assert [f for r in records for f in r["faults"]] == []
    assert_nothing_left(tmp_path)


# The contention the busy-machine tests build: the bots run on one CPU that spinning
# processes keep busy, the referee on the machine's other CPUs, each ahead of the
# machine's ordinary work where the user may raise a priority (root), so that what else
# runs on the machine changes little. Each spinner has a session of its own, so that it
# weighs as much as a bot's process tree where the kernel groups processes by session
# (autogroups) and the referee gives each bot a cgroup of its own.
CONTENDED_CPU = max(os.sched_getaffinity(0))
REFEREE_CPUS = (os.sched_getaffinity(0) - {CONTENDED_CPU}) or {CONTENDED_CPU}
PRIORITY = -5


def on_cpus(cpus: set[int]) -> Callable[[], None]:
    """For a child before exec: onto ``cpus``, at PRIORITY where it may."""
    def preexec() -> None:
        os.sched_setaffinity(0, cpus)
        with contextlib.suppress(PermissionError):
            os.nice(PRIORITY)
    return preexec


def busy_machine(n: int = 8) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             preexec_fn=on_cpus({CONTENDED_CPU}), start_new_session=True)
            for _ in range(n)]


def on_the_busy_cpu(tmp_path: Path, source: Path, lowest: bool = False) -> str:
    """A copy of the bot file ``source`` that moves itself onto the busy CPU as it
    starts; ``lowest``: and to the lowest priority there once started (a start at it
    would take minutes)."""
    text = source.read_text()
    assert not (lowest and "def on_game_start" in text), "the hook would replace the bot's"
    bot = bot_dir(tmp_path) / source.name
    head = f"import os as _os\n_os.sched_setaffinity(0, {{{CONTENDED_CPU}}})\n"
    tail = textwrap.dedent("""

        def on_game_start(info):
            _os.nice(19 - _os.nice(0))
        """) if lowest else ""
    bot.write_text(head + text + tail)
    return str(bot)


def run_loaded(tmp_path: Path, bots: list[str], games: int, concurrency: int) -> list[dict]:
    """A run at 50 ms a move and no bank while the busy CPU is busy; the journal's
    records. The bots get a generous start timeout: the start is not what these tests
    are about."""
    out = tmp_path / "run"
    hogs = busy_machine()
    try:
        proc = subprocess.run(
            [str(REFEREE), "run", "--bots", *bots, "--players", str(len(bots)),
             "--games", str(games), "--concurrency", str(concurrency), "--move-time", "50ms",
             "--time-bank", "0", "--start-timeout", "240s", "--seed", "3", "--out", str(out)],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
            preexec_fn=on_cpus(REFEREE_CPUS))
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == games
    # The replay page may take a process of its own (replay_after_run).
    deadline = time.monotonic() + 120
    while replay_pending(out):
        assert time.monotonic() < deadline, "the replay page was not written"
        time.sleep(0.1)
    assert_nothing_left(tmp_path)
    return records


def test_time_a_bot_waited_for_a_cpu_is_not_charged(tmp_path: Path) -> None:
    """Each decision of these bots (10 ms of CPU time) waits for the busy CPU, at the
    lowest priority there, longer than the move time: charged its wall time, nearly
    every one would time out."""
    bot = on_the_busy_cpu(tmp_path, FAULTY / "thinker.py", lowest=True)
    records = run_loaded(tmp_path, [bot] * 4, games=8, concurrency=2)
    assert [f for r in records for f in r["faults"]] == []


def test_on_a_busy_machine_a_bot_that_sleeps_or_computes_too_long_still_times_out(
        tmp_path: Path) -> None:
    """``late`` sleeps 30 s, ``burner`` computes for 0.1 s of CPU time, each on its
    first decision of every game: both time out in every game (again if the next
    request comes while they are still at it), and nobody else does.

    Neither is charged the time the referee itself did not run or its threads waited
    for a CPU, which on a loaded machine can be most of a short sleep: this sleep is
    far longer than any such wait (and costs the test nothing: ``late`` forfeits after
    three timeouts and its process is ended). The burner's CPU time is a floor that no
    load lowers."""
    bots = [on_the_busy_cpu(tmp_path, POLISH / "caller.py"),
            f"{on_the_busy_cpu(tmp_path, FAULTY / 'late.py')},arg=30",
            on_the_busy_cpu(tmp_path, FAULTY / "burner.py")]
    records = run_loaded(tmp_path, bots, games=6, concurrency=2)
    for rec in records:
        faults = {(f["bot"], f["label"]) for f in rec["faults"]}
        assert faults == {("burner", "timeout"), ("late", "timeout")}, rec["faults"]

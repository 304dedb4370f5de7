"""The bots' clock: neither the referee's own work nor time in which the referee did not
run at all is charged to a bot (a real ROUTER and DEALER; a real run, stopped and
continued from outside)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgpack
import zmq

from referee.hub import Hub

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import FAULTY, REFEREE, assert_nothing_left, good  # noqa: E402


def connected() -> tuple[Hub, zmq.Socket, object]:
    hub: Hub[object] = Hub()
    peer = object()
    token = hub.new_token(peer, "probe")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger = 0
    dealer.connect(hub.endpoint)
    dealer.send(msgpack.packb({"type": "hello", "token": token, "protocol": 1}))
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


def test_time_in_which_the_referee_did_not_run_is_not_charged(tmp_path: Path) -> None:
    """SIGSTOP the referee for 300 ms, several times, with a 100 ms move time and no
    bank: the bots answered long before, but the referee could not look. No timeouts."""
    out = tmp_path / "run"
    caller = good(tmp_path, "caller.py")[0]
    proc = subprocess.Popen([str(REFEREE), "run", "--bots", caller, caller, "--games", "300",
                             "--move-time", "100ms", "--time-bank", "0", "--seed", "1",
                             "--out", str(out)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    journal = out / "games.jsonl"
    deadline = time.monotonic() + 60
    while not (journal.exists() and journal.read_text().count("\n") >= 5):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.01)
    for _ in range(5):
        proc.send_signal(signal.SIGSTOP)
        time.sleep(0.3)
        proc.send_signal(signal.SIGCONT)
        time.sleep(0.05)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(records) == 300
    assert [f for r in records for f in r["faults"]] == []
    assert_nothing_left(tmp_path)


# The contention the busy-machine tests build: the referee, its bots and two spinning
# processes share one CPU, at a priority above the machine's ordinary work (as root), so
# that what else runs on the machine (other test runs, other users) changes little.
CONTENDED_CPU = max(os.sched_getaffinity(0))
PRIORITY = -5


def contended() -> None:
    """In a child before exec: onto the contended CPU, ahead of the machine's other work
    where the user may raise a priority (root)."""
    os.sched_setaffinity(0, {CONTENDED_CPU})
    with contextlib.suppress(PermissionError):
        os.nice(PRIORITY)


def busy_machine(n: int = 2) -> list[subprocess.Popen]:
    """Processes that keep the contended CPU busy: without the CPU-wait rule, 8 games of
    4 trivial bots at 50 ms there get timeouts."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=contended)
            for _ in range(n)]


def run_loaded(tmp_path: Path, bots: list[str], games: int, concurrency: int) -> list[dict]:
    """A run at 50 ms a move and no bank on a busy machine; the journal's records.

    The bots get a generous start timeout: starting 32 sandboxed interpreters on a
    third of one CPU takes 20 s here and longer on a slower machine, and the start is
    not what these tests are about."""
    out = tmp_path / "run"
    hogs = busy_machine()
    try:
        proc = subprocess.run(
            [str(REFEREE), "run", "--bots", *bots, "--players", str(len(bots)),
             "--games", str(games), "--concurrency", str(concurrency), "--move-time", "50ms",
             "--time-bank", "0", "--start-timeout", "240s", "--seed", "3", "--out", str(out)],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
            preexec_fn=contended)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == games
    assert_nothing_left(tmp_path)
    return records


def test_time_a_bot_waited_for_a_cpu_is_not_charged(tmp_path: Path) -> None:
    caller = good(tmp_path, "caller.py")[0]
    records = run_loaded(tmp_path, [caller] * 4, games=200, concurrency=8)
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
    caller = good(tmp_path, "caller.py")[0]
    bots = [caller, f"{FAULTY / 'late.py'},arg=30", str(FAULTY / "burner.py")]
    records = run_loaded(tmp_path, bots, games=6, concurrency=2)
    for rec in records:
        faults = {(f["bot"], f["label"]) for f in rec["faults"]}
        assert faults == {("burner", "timeout"), ("late", "timeout")}, rec["faults"]

"""Attacks on the referee's socket: real bot processes, real runs, no mocks.

Tokens bound to the process they were issued to (a token read from ``/proc`` is
useless), connection caps (a bot whose children open thousands of connections, another
run's bot), connections that never say hello (60 kB messages, endless junk), replies
sent before their request, duplicated map keys. The bots write their reports beside
themselves, so the runs are without a sandbox (``--sandbox none``: the token theft is an
attack of that mode; the caps hold in every mode). Each test checks that the attack
fails, the run completes with the honest bots untouched, the drops are counted
(``counters.json``), the referee's descriptors and memory stay bounded, and nothing is
left running.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    BIN,
    REFEREE,
    assert_nothing_left,
    bot_dir,
    check_run,
    decisions_in_transcripts,
    decisions_timed,
    good,
    hostile,
    lines,
    play,
    read_jsonl,
    wait_for,
)

from referee.connguard import MAX_CONNECTIONS_PER_BOT  # noqa: E402
from referee.journal import read_games, read_transcripts  # noqa: E402
from referee.peercred import have_peer_credentials  # noqa: E402

needs_peercred = pytest.mark.skipif(not have_peer_credentials(),
                                    reason="needs SO_PEERCRED and /proc (Linux)")
NOT_YOURS = {"type": "refused", "reason": "token not issued to this process"}


@pytest.fixture(autouse=True)
def _this_python_first(monkeypatch):
    """The raw bots start with ``#!/usr/bin/env python3``: make that this interpreter."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Sampler:
    """Samples a process's open descriptors and resident memory until stopped."""

    def __init__(self, pid: int):
        self.pid, self.fds, self.rss = pid, [0], [0.0]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.fds.append(len(os.listdir(f"/proc/{self.pid}/fd")))
                self.rss.append(rss_mb(self.pid))
            except OSError:
                return
            time.sleep(0.005)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def cli_run(tmp_path: Path, bots: list[str], *args: str, out_name: str = "run",
            files: int | None = None, timeout: float = 120,
            ) -> tuple[subprocess.CompletedProcess, Sampler, Path]:
    """``referee run`` in a subprocess (with an open-files limit of ``files``, hard and
    soft, if given), its descriptors and memory sampled while it runs."""
    out = tmp_path / out_name
    limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))) \
        if files else None
    proc = subprocess.Popen([str(REFEREE), "run", "--bots", *bots, "--seed", "5",
                             "--sandbox", "none", "--out", str(out), *args], cwd=tmp_path,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=limit, env={**os.environ, "COLUMNS": "200"})
    sampler = Sampler(proc.pid)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        sampler.stop()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), sampler, out


def counters(out: Path) -> dict:
    return json.loads((out / "counters.json").read_text())


# ------------------------------------------------------------- token binding


@needs_peercred
def test_a_token_read_from_proc_is_refused_and_its_bot_still_plays(tmp_path):
    """Without a sandbox, ``environ_thief`` reads the other bots' tokens from
    /proc/*/environ before they say hello (``late_hello`` waits for it) and presents
    them: each is refused as not issued to its process, the theft is counted, and the
    victim says hello afterwards and plays every decision of its own."""
    bots = [hostile(tmp_path, "environ_thief"), hostile(tmp_path, "late_hello"),
            *good(tmp_path, "caller.py")]
    runner, out = play(tmp_path, bots, games=3, sandbox="none")
    labels, forfeits, _ = check_run(out, None, 3)
    assert not labels and not forfeits
    answers = json.loads((bot_dir(tmp_path) / "environ_thief.json").read_text())
    victim = (bot_dir(tmp_path) / "victim.token8").read_text()
    assert answers[victim] == NOT_YOURS, answers  # taken before the victim's hello
    assert all(a in (NOT_YOURS, {"type": "refused", "reason": "token already in use"})
               for a in answers.values()), answers
    hub = runner.hub.counters
    assert hub.foreign_hello == sum(a == NOT_YOURS for a in answers.values()) >= 1, hub
    # The victim's seat was never played by anyone else, and it played every game.
    assert decisions_timed(out, "late_hello") == decisions_in_transcripts(out, "late_hello") > 0
    for name in ("environ_thief", "late_hello", "caller"):
        assert runner.counters[name].restarts == 0
    assert_nothing_left(tmp_path)


@needs_peercred
def test_a_descendant_of_the_launched_process_may_say_hello(tmp_path):
    """A bot whose launched process forks and lets its child connect (a wrapper, or the
    real bot under bubblewrap) is in its own process tree: its hello is accepted."""
    runner, out = play(tmp_path, [hostile(tmp_path, "forked_hello"), *good(tmp_path)],
                       games=3, sandbox="none")
    labels, forfeits, _ = check_run(out, None, 3)
    assert not labels and not forfeits
    assert decisions_timed(out, "forked_hello") == decisions_in_transcripts(
        out, "forked_hello") > 0
    assert runner.hub.counters.foreign_hello == runner.hub.counters.refused == 0
    assert_nothing_left(tmp_path)


# ------------------------------------------------------------- connection caps


@needs_peercred
def test_thousands_of_connections_cannot_exhaust_the_referees_descriptors(tmp_path):
    """``conn_flood``'s children open 1,440 raw connections and 160 DEALERs at once; the
    referee runs with an open-files limit of 512, so without the cap per bot libzmq runs out of
    descriptors and aborts the process ("Too many open files", SIGABRT: checked by
    hand with the guard turned off). The excess is closed as it comes:
    the run completes, nobody faults, the descriptors stay under the limit, and the
    closed connections are counted, against that bot."""
    bots = [hostile(tmp_path, "conn_flood"), *good(tmp_path)]
    proc, sampler, out = cli_run(tmp_path, bots, "--games", "12", "--no-duplicate",
                                 "--move-time", "30s", files=512, timeout=180)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    labels, forfeits, _ = check_run(out, None, 12)
    assert not labels and not forfeits
    made = [json.loads(p.read_text()) for p in bot_dir(tmp_path).glob("conn_flood.*.json")]
    assert len(made) == 8 and sum(m["raw_connected"] for m in made) > 512, made
    c = counters(out)
    closed = c["bots"]["conn_flood"]["connections_closed"]
    assert closed >= sum(m["raw_connected"] for m in made) - MAX_CONNECTIONS_PER_BOT, c
    assert c["hub"]["connections_bot_cap"] == closed
    assert all(c["bots"][b]["connections_closed"] == 0 for b in ("caller", "random_bot"))
    assert max(sampler.fds) < 512, max(sampler.fds)
    assert max(sampler.rss) < 300, max(sampler.rss)
    assert_nothing_left(tmp_path)


@needs_peercred
def test_another_runs_bot_cannot_connect_to_this_run(tmp_path):
    """Two runs on one machine: a bot of run A connects to run B's socket (20
    connections, a hello, junk). Run B closes every one of them (they come from no
    process of its own bots), counts them, and plays on undisturbed; both complete."""
    b_bots = good(tmp_path, "thinker.py", "caller.py")
    b_proc = subprocess.Popen([str(REFEREE), "run", "--bots", *b_bots, "--games", "12",
                               "--sandbox", "none",
                               "--no-duplicate", "--seed", "3", "--out",
                               str(tmp_path / "run_b")], cwd=tmp_path, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        endpoint = _endpoint_of_children(b_proc.pid, timeout_s=20)
        (bot_dir(tmp_path) / "target.txt").write_text(endpoint)
        runner, out_a = play(tmp_path, [hostile(tmp_path, "neighbour"), *good(tmp_path)],
                             games=3, out_name="run_a", sandbox="none")
        assert wait_for(bot_dir(tmp_path) / "neighbour.json", 10)
        _, err = b_proc.communicate(timeout=120)
    finally:
        b_proc.kill()
        b_proc.wait()
    assert b_proc.returncode == 0, err
    check_run(out_a, None, 3)
    labels, forfeits, _ = check_run(tmp_path / "run_b", None, 12)
    assert not labels and not forfeits
    # Each connection is closed as soon as the guard has looked at it; what came in on
    # it before that is at most a refused hello and junk from a stranger.
    report = json.loads((bot_dir(tmp_path) / "neighbour.json").read_text())
    assert all(a == {"type": "refused", "reason": "unknown token"} for a in report["answers"])
    hub = counters(tmp_path / "run_b")["hub"]
    assert hub["connections_foreign"] >= report["connections"], hub
    assert hub["refused"] <= report["connections"] and hub["foreign_hello"] == 0, hub
    assert_nothing_left(tmp_path)


def _endpoint_of_children(pid: int, timeout_s: float) -> str:
    """The ``REFEREE_ENDPOINT`` in the environment of a child of process ``pid``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for p in Path("/proc").iterdir():
            try:
                if not p.name.isdigit() or (p / "stat").read_text().rsplit(")", 1)[1].split()[1] \
                        != str(pid):
                    continue
                env = dict(e.split(b"=", 1) for e in (p / "environ").read_bytes().split(b"\0")
                           if b"=" in e)
            except (OSError, IndexError):
                continue
            if b"REFEREE_ENDPOINT" in env:
                return env[b"REFEREE_ENDPOINT"].decode()
        time.sleep(0.02)
    raise AssertionError("run B started no bot")


# ------------------------------------------------------- connections without a hello


@needs_peercred
def test_large_messages_before_hello_are_dropped_unread_and_the_run_keeps_its_pace(tmp_path):
    """``big_stranger``'s child sends valid 60 kB messages without end on connections
    that never say hello (such a flood once stalled a run: 0 games in 170 s). Each is
    dropped unread and its connection closed; the honest bots' decisions stay fast."""
    bots = [hostile(tmp_path, "big_stranger"), *good(tmp_path)]
    started = time.monotonic()
    proc, sampler, out = cli_run(tmp_path, bots, "--games", "30", "--no-duplicate",
                                 "--move-time", "1s", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 60
    labels, forfeits, _ = check_run(out, None, 30)
    assert not labels and not forfeits
    sent = int((bot_dir(tmp_path) / "big_stranger.sent").read_text().split()[0])
    hub = counters(out)["hub"]
    assert sent > 0 and hub["unbound_oversize"] >= 1 and hub["unbound_closed"] >= 1, hub
    assert hub["unbound"] == hub["refused"] == 0, hub  # nothing of it was ever decoded
    for rec in read_games(out):
        for t in rec["timing"]:
            assert t["max_ms"] < 500, t
    assert max(sampler.rss) < 300, max(sampler.rss)
    assert_nothing_left(tmp_path)


@needs_peercred
def test_a_bots_children_flooding_without_hello_change_no_result(tmp_path):
    """``flood_player`` plays like ``caller`` while its child floods junk without end
    from six connections that never say hello: the games come out exactly as with
    ``caller`` in its seat, the flood is counted, the child is killed once its tree is
    barred and it connects again, and the referee's memory stays put."""
    base_bots = good(tmp_path, "caller.py", "random_bot.py")
    base, out_base = play(tmp_path, [*base_bots, str(Path(base_bots[0]))], games=6,
                          out_name="base", sandbox="none")
    before = rss_mb()
    peak: list[float] = []
    runner, out = play(tmp_path, [*base_bots, hostile(tmp_path, "flood_player")], games=6,
                       sandbox="none", progress=lambda r, rec: peak.append(rss_mb()))
    labels, forfeits, _ = check_run(out, None, 6)
    assert not labels and not forfeits
    places = {r["game"]: r["places"] for r in read_games(out)}
    assert places == {r["game"]: r["places"] for r in read_games(out_base)}
    hub = runner.hub.counters
    assert hub.unbound >= 1 and hub.unbound_closed >= 1 and hub.flood >= 1, hub
    assert hub.processes_killed >= 1, hub
    assert runner.counters_report()["bots"]["flood_player"]["processes_killed"] == \
        hub.processes_killed
    assert max(peak) - before < 100, (before, peak)
    assert_nothing_left(tmp_path)


# ------------------------------------------------------------------ the wire rules


def test_a_reply_sent_before_its_request_never_counts(tmp_path):
    """``presender`` answers, right after each opening declaration, its next request
    blind: every millisecond for 100 ms, a reply with the ``seq`` after the one it just
    answered, the top declaration, never played for real. While ``seq`` counted up by
    one, the first of those that reached the referee after the request went out was
    taken. Now none count: what the transcripts show it did is exactly its real
    replies; each reply sent ahead is dropped, as unsolicited (before the request), or
    as stale (after it: its ``seq`` is a guess)."""
    runner, out = play(tmp_path, [hostile(tmp_path, "presender"),
                                  *good(tmp_path, "thinker.py", "caller.py")], games=4,
                       sandbox="none")
    labels, forfeits, _ = check_run(out, None, 4)
    assert not labels and not forfeits
    logs = list(bot_dir(tmp_path).glob("presender.*.jsonl"))
    assert len(logs) == 1
    decisions = read_jsonl(logs[0])
    played = []
    records = {r["game"]: r for r in read_games(out)}
    for g, t in sorted(read_transcripts(out).items()):
        me = records[g]["seats"].index("presender")
        for e in t["events"]:
            if e["type"] == "declared" and e["seat"] == me:
                played.append(("raise", e["round"]))
            elif e["type"] == "called" and e["seat"] == me and not e["automatic"]:
                played.append(("call", e["round"]))
    assert played == [(d["action"]["kind"], d["round"]) for d in decisions]
    ahead = sum(d["ahead"] for d in decisions)
    c = runner.counters_report()["bots"]["presender"]
    # Some were in flight when their request went out (stale); the last game's last
    # ones may never be read (the run ended).
    assert c["stale"] > 0 and c["unsolicited"] > 0, (c, ahead)
    assert c["unsolicited"] + c["stale"] + c["flood"] <= ahead, (c, ahead)
    assert_nothing_left(tmp_path)


def test_duplicated_map_keys_make_a_reply_malformed(tmp_path):
    """A key given twice (at the top or inside ``action``) would be resolved to its last
    value by a lenient decoder: the reply is malformed, and says why."""
    runner, out = play(tmp_path, [hostile(tmp_path, "dupkey_bot"), *good(tmp_path)], games=4,
                       sandbox="none")
    labels, forfeits, entries = check_run(out, "dupkey_bot", 4)
    sent = [ln.split()[1] for ln in lines((out / "logs" / "dupkey_bot.0.stdout.log").read_text())
            if ln.startswith("dup ")]
    assert set(sent) == {"top", "nested"}, sent
    assert labels == Counter({"malformed": len(sent)}) and not forfeits
    expected = ["map key 'action' appears twice" if w == "top" else "map key 'kind' appears twice"
                for w in sent]
    assert [f["detail"] for f in entries] == expected
    assert_nothing_left(tmp_path)


def test_counters_json_names_every_kind_of_drop(tmp_path):
    """``counters.json`` carries every counter JOURNAL.md documents, per bot and for
    the socket, from a run with a flood in it."""
    proc, _, out = cli_run(tmp_path, [hostile(tmp_path, "flood_bot"), *good(tmp_path)],
                           "--games", "2", "--no-duplicate")
    assert proc.returncode == 0, proc.stderr
    c = counters(out)
    assert set(c["bots"]["flood_bot"]) == {"stale", "unsolicited", "flood",
                                           "connections_closed", "processes_killed",
                                           "restarts", "start_failures"}
    assert set(c["hub"]) == {"unbound", "unbound_oversize", "unbound_closed", "refused",
                             "foreign_hello", "duplicate_hello", "flood", "unsolicited",
                             "connections_foreign", "connections_bot_cap",
                             "connections_total_cap", "processes_killed", "guard_errors"}
    assert c["bots"]["flood_bot"]["unsolicited"] == c["hub"]["unsolicited"] > 0
    assert c["hub"]["guard_errors"] == 0
    assert_nothing_left(tmp_path)

"""Hostile bots against the referee: real processes, the real ROUTER socket, no mocks.

Beyond the faulty bots of ``tests/test_faults.py`` (crashes, hangs, late and stale
replies, garbage, bad schema, oversize messages), these bots attack the referee: they
never connect, go silent, flood it, send decode bombs, forge sequence numbers, steal
tokens, claim routing identities, and leave children behind. Every test checks that
the run completes (or stops at once with exit code 3), that the offender gets the
right label, that nobody else is touched, that the journal verifies
(``referee.verify.verify_run``) and that no process is left.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    BIN,
    ROOT,
    assert_nothing_left,
    bot_dir,
    check_run,
    decisions_in_transcripts,
    decisions_timed,
    good,
    hostile,
    lines,
    no_traceback,
    play,
    read_jsonl,
    referee,
    wait_for,
)

from referee.journal import read_games, read_transcripts  # noqa: E402
from referee.verify import VerifyError, verify_run  # noqa: E402


@pytest.fixture(autouse=True)
def _this_python_first(monkeypatch):
    """The raw bots start with ``#!/usr/bin/env python3``: make that this interpreter."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()]


# ------------------------------------------------------------- cannot even start


@pytest.mark.parametrize("bot,start_timeout,why", [
    ("never_connects", "2s", "did not connect within 2000 ms"),
    # Refused (SPEC section 9): no point in waiting out the start timeout.
    ("wrong_protocol", "30s", "was refused: protocol version 1 not supported"),
])
def test_cli_bot_that_never_gets_in_stops_the_run_at_once(tmp_path, bot, start_timeout, why):
    bots = [hostile(tmp_path, bot), *good(tmp_path)]
    out = tmp_path / "run"
    started = time.monotonic()
    # The bot writes its pid beside itself for the test: no sandbox.
    proc = referee("run", "--sandbox", "none", "--strict-start",
                   "--bots", *bots, "--games", "2", "--start-timeout", start_timeout,
                   "--out", str(out), cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    no_traceback(proc)
    err = lines(proc.stderr)
    assert len(err) == 1, proc.stderr
    assert err[0].startswith(f"error: bot {bot} ") and why in err[0], err
    assert elapsed < 12, elapsed
    assert read_games(out) == []
    with pytest.raises(VerifyError, match="holds no games"):
        verify_run(out)
    assert not (out / "leaderboard.json").exists()
    assert_nothing_left(tmp_path, _pids(bot_dir(tmp_path) / f"{bot}.pid"))


# --------------------------------------------------------------- silent after hello


def test_silent_after_hello_times_out_then_forfeits(tmp_path):
    runner, out = play(tmp_path, [hostile(tmp_path, "silent_bot"), *good(tmp_path)],
                       games=2, move_ms=100, bank_ms=0)
    labels, forfeits, entries = check_run(out, "silent_bot", 2)
    # Three timeouts in a row each game: two lost rounds, then the forfeit.
    assert labels == Counter({"timeout": 6}), labels
    assert forfeits == Counter({"forfeit:faults": 2}), forfeits
    assert all(f["detail"] == "no reply within 100 ms" for f in entries), entries
    assert runner.counters["silent_bot"].restarts == 1  # killed after game 0, relaunched
    for rec in read_games(out):
        assert rec["places"][rec["seats"].index("silent_bot")] == 3
    assert_nothing_left(tmp_path)


# ------------------------------------------------------------------------ flooding


def test_unsolicited_flood_is_dropped_counted_and_harmless(tmp_path):
    # The good bots think 30 ms per decision: the flood that follows each of the flood
    # bot's opening declarations is on the referee's socket long before the flood bot
    # can be asked anything again, so every frame of it arrives while no request of its
    # own is open (or is drained before the next one goes out), and is dropped unread
    # as unsolicited: the stale replies and second hellos in it too. The counts are exact.
    bots = [hostile(tmp_path, "flood_bot"), *good(tmp_path, "thinker.py", "thinker.py")]
    runner, out = play(tmp_path, bots, games=3, move_ms=200, bank_ms=0)
    labels, forfeits, _ = check_run(out, None, 3)
    assert not labels and not forfeits
    bursts = [dict(kv.split("=") for kv in ln.split()[1:]) for ln in
              lines((out / "logs" / "flood_bot.0.stdout.log").read_text())
              if not ln.startswith("[referee]")]  # the referee's game marks
    assert len(bursts) >= 3
    sent = {k: sum(int(b[k]) for b in bursts) for k in ("unsolicited", "stale", "hello")}
    assert sum(sent.values()) >= 2000  # thousands of frames
    c = runner.counters_report()["bots"]["flood_bot"]
    assert c["unsolicited"] == sum(sent.values()) and c["stale"] == c["flood"] == 0, (c, sent)
    hub = runner.hub.counters
    assert hub.unsolicited == sum(sent.values()), hub
    assert hub.duplicate_hello == hub.unbound == hub.refused == hub.flood == 0, hub
    # Its own play went through untouched: every decision timed is an action played.
    assert decisions_timed(out, "flood_bot") == decisions_in_transcripts(out, "flood_bot") > 0
    for name in ("thinker", "thinker#2"):
        assert runner.counters[name].stale == runner.counters[name].unsolicited == 0
    for rec in read_games(out):  # the good bots never needed more than their move time
        for t in rec["timing"]:
            if t["bot"] != "flood_bot":
                assert t["decisions"] > 0 and t["max_ms"] < 200, t
    assert_nothing_left(tmp_path)


@pytest.mark.parametrize("bot", ["firehose", "swarm"])
def test_endless_flood_does_not_stall_the_run(tmp_path, bot):
    """Peers that never stop sending (``firehose`` on its own connection, ``swarm``
    from two connections that never say hello): the referee must not spend its life
    draining the socket (it once did: ``Hub.poll`` drained until the socket was empty,
    which with ``swarm`` is never). The run ends, on time, with the flooder charged
    and nobody else. Through the command line, so that a stall is a timeout here."""
    bots = [hostile(tmp_path, bot), *good(tmp_path)]
    out = tmp_path / "run"
    started = time.monotonic()
    proc = referee("run", "--bots", *bots, "--games", "2", "--no-duplicate", "--move-time", "500ms",
                   "--time-bank", "1s", "--seed", "3", "--out", str(out), cwd=tmp_path,
                   timeout=30)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert time.monotonic() - started < 20
    no_traceback(proc)
    assert proc.stderr.strip() == ""
    labels, forfeits, _ = check_run(out, bot, 2)
    if bot == "firehose":
        # Each fresh process answers once; every later request finds junk first.
        assert labels == Counter({"malformed": 6}), labels
        assert forfeits == Counter({"forfeit:faults": 2}), forfeits
    else:  # its own play is legal; the flood is nobody's
        assert not labels and not forfeits
    assert_nothing_left(tmp_path)


# ---------------------------------------------------------------------- decode bombs

BOMB_DETAILS = {
    "deep": "StackError",
    "depth9": "nested deeper than 8 levels",
    "array32": "exceeds max_array_len",
    "map32": "exceeds max_map_len",
    "str32": "not msgpack",
    "bin32": "not msgpack",
    "ext32": "max_ext_len",
    "timestamp": "max_ext_len",
    "ext_negative": "max_ext_len",
    "int_key": "not allowed for map key",
    "bin_key": "map keys must be strings",
    "trailing": "ExtraData",
    "empty": "not msgpack",
    "bad_utf8": "UnicodeDecodeError",
    "map65": "exceeds max_map_len(64)",
    "array4097": "exceeds max_array_len(4096)",
    "float_seq": "integer field 'seq'",
    "bool_seq": "integer field 'seq'",
}


def test_decode_bombs_are_malformed_and_never_crash_the_referee(tmp_path):
    runner, out = play(tmp_path, [hostile(tmp_path, "bomb_bot"), *good(tmp_path)], games=5)
    labels, forfeits, entries = check_run(out, "bomb_bot", 5)
    log = lines((out / "logs" / "bomb_bot.0.stdout.log").read_text())
    sent = [ln.split()[1] for ln in log if ln.startswith("bomb ")]
    assert set(sent) == set(BOMB_DETAILS), set(BOMB_DETAILS) - set(sent)
    # One malformed fault per bomb, in order, each saying what was wrong; never 3 in a
    # row (a legal answer follows every two bombs), so no forfeit.
    assert labels == Counter({"malformed": len(sent)}) and not forfeits
    assert len(entries) == len(sent)
    for name, fault in zip(sent, entries, strict=True):
        assert BOMB_DETAILS[name] in fault["detail"], (name, fault["detail"])
    assert runner.counters["bomb_bot"].restarts == 0
    # The same bombs on a connection that never said hello: the first one (larger than
    # a hello can be) is dropped unread and the connection closed; what it had sent
    # after is thrown away with it, or dropped unread.
    unbound = [int(ln.split()[1]) for ln in log if ln.startswith("unbound ")]
    assert unbound == [len(BOMB_DETAILS) + 2]
    hub = runner.hub.counters
    assert 1 <= hub.unbound + hub.unbound_oversize + hub.flood <= unbound[0], hub
    assert hub.unbound_oversize >= 1 and hub.unbound_closed == 1 and hub.refused == 0, hub
    assert hub.processes_killed == 0, hub  # one connection closed is one strike, not 19
    assert_nothing_left(tmp_path)


# ----------------------------------------------------------------- sequence numbers


def test_future_and_duplicate_sequence_numbers_are_stale_and_the_first_reply_counts(
        tmp_path):
    runner, out = play(tmp_path, [hostile(tmp_path, "seq_bot"), *good(tmp_path)], games=4,
                       sandbox="none")  # it writes beside itself for the test: no sandbox
    labels, forfeits, _ = check_run(out, None, 4)  # nobody faults, seq_bot included
    assert not labels and not forfeits
    logs = list(bot_dir(tmp_path).glob("seq_bot.*.jsonl"))
    assert len(logs) == 1  # one process for the whole run
    decisions = read_jsonl(logs[0])
    # A wrong seq while its request is open is stale; the duplicate that follows the
    # right reply comes when no request is open: unsolicited (unless the next request
    # to seq_bot went out while it was in flight: then it is a stale reply to that one).
    counts = runner.counters_report()["bots"]["seq_bot"]
    assert counts["stale"] + counts["unsolicited"] == sum(d["stale"] for d in decisions) > 0
    assert 0 < counts["unsolicited"] <= sum(1 for d in decisions if d["stale"] == 1), counts
    # What the transcripts say seq_bot did is exactly its first, right-seq replies.
    played = []
    records = {r["game"]: r for r in read_games(out)}
    for g, t in sorted(read_transcripts(out).items()):
        me = records[g]["seats"].index("seq_bot")
        for e in t["events"]:
            if e["type"] == "declared" and e["seat"] == me:
                played.append(("raise", e["round"]))
            elif e["type"] == "called" and e["seat"] == me and not e["automatic"]:
                played.append(("call", e["round"]))
    assert played == [(d["action"]["kind"], d["round"]) for d in decisions]
    for name in ("caller", "random_bot"):
        assert runner.counters[name].stale == runner.counters[name].unsolicited == 0
    assert_nothing_left(tmp_path)


# --------------------------------------------------------------------- stolen tokens


def test_stolen_and_reused_tokens_are_refused(tmp_path):
    bots = [hostile(tmp_path, "token_thief"), hostile(tmp_path, "token_sharer"),
            *good(tmp_path, "caller.py")]
    runner, out = play(tmp_path, bots, games=3, sandbox="none")  # bots share files: no sandbox
    labels, forfeits, _ = check_run(out, None, 3)
    assert not labels and not forfeits
    report = json.loads((bot_dir(tmp_path) / "thief.json").read_text())
    in_use = {"type": "refused", "reason": "token already in use"}
    assert report["stolen"] == report["own"] == report["stolen_again"] == in_use, report
    assert report["made_up"] == {"type": "refused", "reason": "unknown token"}, report
    assert report["more_on_stolen"] == [], report  # never sent a request for the victim
    hub = runner.hub.counters
    assert hub.refused == 4 and hub.unbound + hub.flood == report["forged"], hub
    for name in ("token_sharer", "token_thief", "caller"):
        c = runner.counters[name]
        assert c.stale == c.unsolicited == c.restarts == 0, (name, c)
    # The victim played every game, every decision its own.
    assert decisions_timed(out, "token_sharer") == decisions_in_transcripts(
        out, "token_sharer") > 0
    assert_nothing_left(tmp_path)


# ------------------------------------------------------------------ routing identity


def test_referee_does_not_let_a_peer_take_over_an_identity():
    """``ROUTER_HANDOVER`` would hand a connected bot's routing identity to any new
    connection that claims it; the referee must never turn it on."""
    for path in (ROOT / "referee").rglob("*.py"):
        assert "HANDOVER" not in path.read_text(), path


def test_claimed_routing_identity_cannot_speak_for_a_bot(tmp_path):
    """Identities: the ROUTER gives one (5 bytes, never shown to any peer) to each
    connection that does not set its own; our bots never set one. A peer that sets an
    identity already in use is ignored by libzmq (its frames are never delivered, and
    nothing is routed to it) unless ROUTER_HANDOVER is on, which the referee never sets
    (test above). A peer with a fresh identity is just another connection that never
    presented a valid token: its frames are dropped and counted (``unbound``).

    To make the attack as strong as it can be, the test reads the victim's real
    identity from the hub after game 0 and hands it to the thief. The run goes on, its
    hub answering the forged connections, until the thief has its report; then it stops."""
    bots_ = [hostile(tmp_path, "identity_thief"), *good(tmp_path)]
    folder = bot_dir(tmp_path)
    attacked = []

    def progress(runner, record):
        # The first game journalled: hand over the identity and hold the loop until the
        # frames are sent (the victim has requests to come). Later ones: stop once the
        # thief has its report (a game is journalled while the next is played, so this
        # is not blocked on: the hub must run to answer the thief).
        if not attacked:
            victim = next(i for i in runner.instances if i.spec.name == "caller")
            ident = runner.hub._identity_of[id(victim)]  # private: no peer can learn it
            # Whole or not at all: the thief reads it as soon as it exists.
            (folder / "identity.bin.tmp").write_bytes(ident)
            os.replace(folder / "identity.bin.tmp", folder / "identity.bin")
            attacked.append(wait_for(folder / "identity.sent", 10))
        elif (folder / "identity.json").exists():
            runner.stop()

    # The thief and the test share files: no sandbox (in one, it could not even try).
    runner, out = play(tmp_path, bots_, games=2000, progress=progress, sandbox="none")
    assert attacked == [True] and runner.stopping
    played = len(read_games(out))
    labels, forfeits, _ = check_run(out, None, played, complete=False)
    assert not labels and not forfeits
    report = json.loads((folder / "identity.json").read_text())
    assert report["victim"] == [], report  # nothing meant for the victim reached it
    assert report["fresh"] == [{"type": "refused", "reason": "token already in use"}]
    hub = runner.hub.counters
    assert hub.unbound + hub.flood >= report["forged"] and hub.refused >= 1, hub
    for name in ("caller", "random_bot", "identity_thief"):
        c = runner.counters[name]
        assert c.stale == c.unsolicited == c.restarts == 0, (name, c)
    # The victim's games after the attack: every decision timed is its own action.
    assert decisions_timed(out, "caller") == decisions_in_transcripts(out, "caller") > 0
    assert_nothing_left(tmp_path)


# ---------------------------------------------------------------- children left over


def test_children_of_a_crashing_bot_die_with_it(tmp_path):
    runner, out = play(tmp_path, [hostile(tmp_path, "forker"), *good(tmp_path)], games=2,
                       sandbox="none")  # it writes beside itself for the test: no sandbox
    labels, forfeits, entries = check_run(out, "forker", 2)
    assert labels == Counter({"crash": 2}) and forfeits == Counter({"forfeit:crash": 2})
    assert all("exited with code 1" in f["detail"] for f in entries), entries
    pids = _pids(bot_dir(tmp_path) / "children.txt")
    assert len(pids) == 4  # a child and a grandchild per game
    # They would sleep ten minutes; ending the bot's process group ended them.
    assert_nothing_left(tmp_path, pids)


# ------------------------------------------------------------------ the command line


def test_cli_run_with_hostile_bots(tmp_path):
    """Bombs and forged sequence numbers through the ``referee`` command, two games at
    a time: the run completes, exit code 0, nothing on stderr, no traceback."""
    bots = [hostile(tmp_path, "bomb_bot"), hostile(tmp_path, "seq_bot"), *good(tmp_path,
                                                                              "caller.py")]
    out = tmp_path / "run"
    # seq_bot writes beside itself for the test: no sandbox.
    proc = referee("run", "--sandbox", "none",
                   "--bots", *bots, "--games", "4", "--no-duplicate", "--concurrency", "2",
                   "--move-time", "200ms", "--time-bank", "1s", "--seed", "5",
                   "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    no_traceback(proc)
    assert proc.stderr.strip() == ""
    labels, forfeits, _ = check_run(out, "bomb_bot", 4)
    assert set(labels) == {"malformed"} and not forfeits
    board = json.loads((out / "leaderboard.json").read_text())
    rows = {r["bot"]: r for r in board["rows"]}
    assert rows["bomb_bot"]["faults"] == dict(labels)
    assert rows["seq_bot"]["faults"] == rows["caller"]["faults"] == {}
    assert_nothing_left(tmp_path)

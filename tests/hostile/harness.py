"""Shared plumbing of the hostile-bot tests (not a test module, not a bot).

Every match runs real bot processes over the referee's real ROUTER socket. Bots are
copied into the test's own ``tmp_path`` first, so that a process left behind can be told
apart from those of any other run (its command line holds ``tmp_path``). The raw bots of
this folder are executables (``#!/usr/bin/env python3``) that use ``rawwire.py`` from
``tests/bots``; the tests put this interpreter's folder first on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.config import RunConfig
from referee.journal import TRANSCRIPT_SCHEMA_VERSION, read_games, read_transcripts
from referee.process import resolve_bots
from referee.runner import Runner
from referee.sandbox import resolve
from referee.verify import verify_run

ROOT = Path(__file__).resolve().parents[2]
POLISH = ROOT / "bots" / "polish_poker"
HOSTILE = ROOT / "tests" / "hostile"
FAULTY = ROOT / "tests" / "bots"
BIN = Path(sys.executable).parent
SANDBOX = resolve("auto")[0]  # the CLI's default: bwrap wherever it works
REFEREE = BIN / "referee"
RESOLUTIONS = {"bluff", "wrong-call"}  # round-loss reasons that are not faults


def bot_dir(tmp_path: Path) -> Path:
    d = tmp_path / "bots"
    if not d.exists():
        d.mkdir()
        shutil.copy(FAULTY / "rawwire.py", d / "rawwire.py")
    return d


def hostile(tmp_path: Path, name: str) -> str:
    """A private copy of the hostile bot ``name`` of this folder (executable bit kept)."""
    d = bot_dir(tmp_path)
    shutil.copy(HOSTILE / name, d / name)
    return str(d / name)


def good(tmp_path: Path, *names: str) -> list[str]:
    """Private copies of reference bots from ``bots/`` (default: caller and random_bot)."""
    d = bot_dir(tmp_path)
    out = []
    for name in names or ("caller.py", "random_bot.py"):
        src = POLISH / name if (POLISH / name).exists() else HOSTILE / name
        shutil.copy(src, d / name)
        out.append(str(d / name))
    return out


def play(tmp_path: Path, bots: list[str], *, rules: str = "official", players: int = 3,
         games: int = 3, move_ms: int = 200, bank_ms: int = 1000, max_faults: int = 3,
         concurrency: int = 1, seed: int = 11, start_timeout_ms: int = 10_000,
         progress: Callable[[Runner, dict[str, Any]], None] | None = None,
         out_name: str = "run", sandbox: str = SANDBOX) -> tuple[Runner, Path]:
    """Play a match in this process, in the CLI's default sandbox unless told otherwise;
    the runner (for its counters) and the run folder."""
    out = tmp_path / out_name
    config = RunConfig(
        bots=tuple(resolve_bots(bots)), params={"ruleset": rules}, players=players, games=games,
        seed=seed, move_ms=move_ms, bank_ms=bank_ms, concurrency=concurrency,
        max_faults=max_faults, start_timeout_ms=start_timeout_ms, out=out, sandbox=sandbox)
    runner = Runner(config, progress=progress)
    runner.run()
    return runner, out


def check_transcripts(out: Path) -> None:
    """Each transcript is of the current schema and agrees with its game's line: the same seats and
    faults, a decision per decision timed (``timing``), at most one decision per event
    it caused, each fault of a decision (not a crash) at one."""
    transcripts = read_transcripts(out)
    for rec in read_games(out):
        t = transcripts[rec["game"]]
        assert t["schema_version"] == TRANSCRIPT_SCHEMA_VERSION and t["seats"] == rec["seats"]
        assert t["faults"] == rec["faults"]
        decisions = t["decisions"]
        for seat, timing in enumerate(rec["timing"]):
            mine = [ms for s, _, ms in decisions if s == seat]
            assert len(mine) == timing["decisions"]
            assert abs(sum(mine) - timing["total_ms"]) < 0.01 * (len(mine) + 1)
        marks = [e for _, e, _ in decisions]
        assert all(0 < a < b for a, b in zip(marks, marks[1:], strict=False)), marks
        assert all(e < len(t["events"]) for e in marks)
        timed = {(s, e) for s, e, _ in decisions}
        for f in rec["faults"]:
            assert f["label"] in ("crash", "start-failure") or (f["seat"], f["event"]) in timed


def check_run(out: Path, offender: str | None, games: int,
              complete: bool = True) -> tuple[Counter, Counter, list]:
    """Every game is journalled (the first ``games`` of a run that was stopped, unless
    ``complete``), complete and consistent (``verify_run``, and ``check_transcripts``),
    and only ``offender`` (if any) is ever charged. Returns the offender's fault labels,
    its forfeit reasons and its fault entries."""
    report = verify_run(out, complete)
    assert report.games == games
    check_transcripts(out)
    records = read_games(out)
    assert sorted(r["game"] for r in records) == list(range(games))
    transcripts = read_transcripts(out)
    assert sorted(transcripts) == list(range(games))
    labels: Counter = Counter()
    forfeits: Counter = Counter()
    entries: list[dict] = []
    for rec in records:
        seats = rec["seats"]
        assert len(seats) == rec["players"]
        assert sorted(rec["order"]) == sorted(seats), rec  # every seat finishes
        assert sorted(rec["places"]) == list(range(1, rec["players"] + 1))
        for f in rec["faults"]:
            assert offender is not None and f["bot"] == offender, f  # nobody else
            assert seats[f["seat"]] == offender and f["detail"], f
            labels[f["label"]] += 1
            entries.append(f)
        events = transcripts[rec["game"]]["events"]
        lost = [e for e in events if e["type"] == "round_lost" and e["reason"] not in RESOLUTIONS]
        gone = [e for e in events if e["type"] == "eliminated"]
        forfeited = [e for e in gone if e["reason"].startswith("forfeit:")]
        for e in lost + forfeited:
            assert seats[e["seat"]] == offender, e
        # Each fault lost a round, except one that made the bot forfeit.
        assert len(rec["faults"]) == len(lost) + len(forfeited), (rec["faults"], lost, forfeited)
        assert Counter(e["reason"] for e in lost) <= Counter(f["label"] for f in rec["faults"])
        for e in forfeited:
            # A forfeiter is out at once, below everyone still in.
            before = sum(1 for g in gone if events.index(g) < events.index(e))
            assert e["place"] == rec["players"] - before, (e, gone)
            assert rec["places"][e["seat"]] == e["place"]
            forfeits[e["reason"]] += 1
    return labels, forfeits, entries


def decisions_in_transcripts(out: Path, bot: str) -> int:
    """How many actions of ``bot`` the transcripts hold (declarations and own calls)."""
    n = 0
    records = {r["game"]: r for r in read_games(out)}
    for g, t in read_transcripts(out).items():
        seats = records[g]["seats"]
        for e in t["events"]:
            if e["type"] == "declared" or (e["type"] == "called" and not e["automatic"]):
                n += seats[e["seat"]] == bot
    return n


def decisions_timed(out: Path, bot: str) -> int:
    """How many decisions the referee timed for ``bot`` over the run."""
    return sum(t["decisions"] for r in read_games(out) for t in r["timing"] if t["bot"] == bot)


def read_jsonl(path: Path) -> list[Any]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def wait_for(path: Path, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


# --------------------------------------------------------------------- processes


def _procs() -> list[tuple[int, int, str, str]]:
    """(pid, ppid, state, cmdline) of every process we can see."""
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        out.append((int(p.name), int(ppid), state, cmd))
    return out


def pid_alive(pid: int) -> bool:
    """Running (a zombie has ended: it only waits for a parent that may be an init that
    does not reap, as in some containers)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def assert_nothing_left(tmp_path: Path, pids: list[int] = ()) -> None:
    """No process runs a file of this test (all are under ``tmp_path``), none of
    ``pids`` runs, and this process has no zombie children."""
    mark = f"{tmp_path}{os.sep}"
    deadline = time.monotonic() + 3.0
    while True:
        procs = _procs()
        left = [(pid, cmd) for pid, _, state, cmd in procs if mark in cmd and state != "Z"]
        left += [(pid, "listed") for pid in pids if pid_alive(pid)]
        zombies = [pid for pid, ppid, state, _ in procs if ppid == os.getpid() and state == "Z"]
        if not left and not zombies:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"left behind: {left}; zombie children: {zombies}")
        time.sleep(0.05)


# ---------------------------------------------------------------------- the CLI


def referee(*args: str, cwd: Path, timeout: float = 60,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the CLI; ``env``: variables to set beside this process's."""
    return subprocess.run([str(REFEREE), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "COLUMNS": "200", **(env or {})})


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr


def lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]

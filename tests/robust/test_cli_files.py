"""Options and files the command line must not take the wrong way: limits without a unit,
an unusable or taken ``--out``, bots the system cannot start, a journal with a bad line,
a journal with games missing, and ``sprt``'s exit codes, which must never be mistaken
for a verdict. Real referee processes, real bots."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from harness import assert_nothing_left  # noqa: E402
from support import bots, journal, one_error, referee, small_disk  # noqa: E402

RUN = ["--games", "12", "--seed", "4", "--players", "2"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run: 12 two-player games, duplicate groups of 2."""
    tmp = tmp_path_factory.mktemp("finished")
    caller, rnd = bots(tmp, "caller.py", "random_bot.py")
    res = referee("run", "--bots", caller, rnd, *RUN, "--out", str(tmp / "run"), tmp=tmp)
    assert res.returncode == 0, res.stderr
    return tmp / "run"


def copy_run(run: Path, to: Path) -> Path:
    to.mkdir(parents=True)
    for p in run.iterdir():
        if p.is_file():
            (to / p.name).write_bytes(p.read_bytes())
    return to


# ------------------------------------------------------------------------ limits


@pytest.mark.parametrize(("option", "value", "hint"), [
    ("--limit-memory", "2048", "2048M"),
    ("--limit-cpu", "90", "90s"),
])
def test_a_limit_without_a_unit_is_refused(tmp_path, tmpdir_env, option, value, hint):
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    for command in (["run", "--bots", caller, rnd], ["sprt", "--candidate", caller,
                                                     "--baseline", rnd]):
        res = referee(*command, option, value, "--out", str(tmp_path / "run"), tmp=tmpdir_env)
        one_error(res, 2 if command[0] == "run" else 5, option, "give a unit", hint)
    assert not (tmp_path / "run").exists()


def test_a_cpu_limit_with_a_unit_is_enforced(tmp_path, tmpdir_env):
    """spinner burns CPU on its first decision: under --limit-cpu 1s the kernel ends it,
    and it forfeits as a crash (a bare 1 used to be 1 ms: no limit at all)."""
    spinner, caller = bots(tmp_path, "spinner.py", "caller.py")
    run = tmp_path / "run"
    res = referee("run", "--bots", spinner, caller, "--games", "2", "--limit-cpu", "1s",
                  "--move-time", "30s", "--time-bank", "0s", "--out", str(run), tmp=tmpdir_env,
                  timeout=180)
    assert res.returncode == 0, res.stderr
    games, _ = journal(run)
    labels = {f["label"] for g in games for f in g["faults"] if f["bot"] == "spinner"}
    assert labels == {"crash"}, games
    assert_nothing_left(tmp_path)


def test_a_memory_limit_with_a_unit_is_enforced(tmp_path, tmpdir_env):
    """hog tries to hold 3 GiB: under --limit-memory 300M it fails or is killed, a fault
    of hog's (a bare 300 used to be 300 bytes >> 20 = 0: no limit at all)."""
    hog, caller = bots(tmp_path, "hog.py", "caller.py")
    run = tmp_path / "run"
    res = referee("run", "--bots", hog, caller, "--games", "2", "--limit-memory", "300M",
                  "--move-time", "20s", "--out", str(run), tmp=tmpdir_env, timeout=180)
    assert res.returncode == 0, res.stderr
    games, _ = journal(run)
    faults = [f for g in games for f in g["faults"]]
    assert faults and all(f["bot"] == "hog" for f in faults), faults
    # A MemoryError (address-space limit) or the OOM killer (the bot's cgroup).
    assert {f["label"] for f in faults} <= {"malformed", "crash"}, faults


# ------------------------------------------------------------------------- --out


def test_an_out_that_holds_a_run_is_refused_and_left_alone(finished, tmp_path, tmpdir_env):
    before = {p.name: p.read_bytes() for p in finished.iterdir() if p.is_file()}
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    res = referee("run", "--bots", caller, rnd, "--out", str(finished), tmp=tmpdir_env)
    one_error(res, 2, "already holds a run", f"referee resume {finished}")
    assert {p.name: p.read_bytes() for p in finished.iterdir() if p.is_file()} == before


@pytest.mark.parametrize(("out", "why"), [
    ("file", "is a file"),
    ("file/sub", "Not a directory"),
    ("/proc/referee-run", "proc file system"),
    ("/proc/self", "proc file system"),
    ("/sys/referee-run", "sysfs file system"),
])
def test_an_out_that_cannot_hold_a_run_is_exit_2(tmp_path, tmpdir_env, out, why):
    (tmp_path / "file").write_text("not a folder")
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    target = out if out.startswith("/") else str(tmp_path / out)
    res = referee("run", "--bots", caller, rnd, "--out", target, tmp=tmpdir_env)
    one_error(res, 2, "--out", why)
    assert list(tmpdir_env.iterdir()) == []


def test_an_out_on_a_read_only_file_system_is_exit_2(tmp_path, tmpdir_env):
    with small_disk(tmp_path / "disk", "1m") as disk:
        os.system(f"mount -o remount,ro {disk}")
        caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
        res = referee("run", "--bots", caller, rnd, "--out", str(disk / "run"), tmp=tmpdir_env)
        one_error(res, 2, "cannot be written", "Read-only file system")


def test_rate_into_an_out_that_cannot_be_written_is_exit_2(finished, tmp_path, tmpdir_env):
    (tmp_path / "file").write_text("not a folder")
    res = referee("rate", str(finished), "--out", str(tmp_path / "file"), tmp=tmpdir_env)
    one_error(res, 2, "is a file")
    proc = referee("rate", str(finished), "--out", "/proc/self/rated", tmp=tmpdir_env)
    one_error(proc, 2, "proc file system")


# ------------------------------------------------------------ bots that cannot start


GARBAGE = bytes(range(256)) * 4


@pytest.mark.parametrize(("content", "why"), [
    (GARBAGE, "neither an executable binary nor a script with a #! line"),
    (b"#!/nonexistent/python9\nprint(1)\n", "#! interpreter /nonexistent/python9 is missing"),
    (b"#!/usr/bin/env no-such-python9\nprint(1)\n", "runs no-such-python9, which is not on PATH"),
])
def test_a_bot_the_system_cannot_start(tmp_path, tmpdir_env, content, why):
    bad = tmp_path / "bad"
    bad.write_bytes(content)
    bad.chmod(0o755)
    (caller,) = bots(tmp_path, "caller.py")
    res = referee("run", "--bots", str(bad), caller, "--out", str(tmp_path / "run"),
                  tmp=tmpdir_env)
    one_error(res, 3, "bot bad", "cannot be started", why)
    sprt = referee("sprt", "--candidate", str(bad), "--baseline", caller,
                   "--out", str(tmp_path / "s"), tmp=tmpdir_env)
    one_error(sprt, 3, why)
    check = referee("check", str(bad), "--out", str(tmp_path / "check"), tmp=tmpdir_env)
    assert check.returncode == 3, check.stdout
    out = [ln for ln in check.stdout.splitlines() if ln.strip()]
    assert len(out) == 1 and out[0].startswith(f"FAIL start and hello: bot bad ({bad})")
    assert why in out[0]
    assert list(tmpdir_env.iterdir()) == []


def test_a_binary_for_no_machine_is_exit_3_at_start(tmp_path, tmpdir_env):
    """An ELF header with nothing behind it passes the file check; the kernel refuses to
    run it, and that is a bot that cannot start, not a referee failure."""
    bad = tmp_path / "elf"
    bad.write_bytes(b"\x7fELF" + GARBAGE)
    bad.chmod(0o755)
    (caller,) = bots(tmp_path, "caller.py")
    # Unsandboxed, the referee itself execs it (in the sandbox, bwrap does, and the bot
    # exits before hello: exit 3 as well).
    res = referee("run", "--bots", str(bad), caller, "--sandbox", "none", "--strict-start",
                  "--out", str(tmp_path / "run"), tmp=tmpdir_env)
    one_error(res, 3, "bot elf", "could not be started", "Exec format error")
    check = referee("check", str(bad), "--out", str(tmp_path / "check"), tmp=tmpdir_env)
    assert check.returncode == 3 and "FAIL start and hello" in check.stdout
    assert list(tmpdir_env.iterdir()) == []


def test_a_py_file_of_garbage_is_exit_3(tmp_path, tmpdir_env):
    """Hosted by the SDK, it fails as it is imported: a bot that exits before hello."""
    bad = tmp_path / "junk.py"
    bad.write_bytes(GARBAGE)
    (caller,) = bots(tmp_path, "caller.py")
    res = referee("run", "--bots", str(bad), caller, "--strict-start",
                  "--out", str(tmp_path / "run"), tmp=tmpdir_env)
    one_error(res, 3, "bot junk", "exited with code")
    check = referee("check", str(bad), "--out", str(tmp_path / "check"), tmp=tmpdir_env)
    assert check.returncode == 3 and "FAIL start and hello: exited with code" in check.stdout
    assert list(tmpdir_env.iterdir()) == []
    assert_nothing_left(tmp_path)


# ----------------------------------------------------------------------- journals


def test_resume_refuses_a_journal_with_a_bad_line_in_the_middle(finished, tmp_path,
                                                                 tmpdir_env):
    run = copy_run(finished, tmp_path / "run")
    lines = (run / "games.jsonl").read_text().splitlines(keepends=True)
    lines[4] = "{not json\n"
    bad = "".join(lines[:8])
    (run / "games.jsonl").write_text(bad)
    res = referee("resume", str(run), tmp=tmpdir_env)
    assert res.returncode == 2, res.stderr
    err = [ln for ln in res.stderr.splitlines() if ln.startswith("error")]
    assert len(err) == 1 and f"{run / 'games.jsonl'}:5: not a journal record" in err[0]
    assert (run / "games.jsonl").read_text() == bad  # nothing cut, nothing appended
    assert list(tmpdir_env.iterdir()) == []


def test_resume_refuses_a_transcript_with_a_bad_line_in_the_middle(finished, tmp_path,
                                                                    tmpdir_env):
    run = copy_run(finished, tmp_path / "run")
    lines = (run / "transcripts.jsonl").read_text().splitlines(keepends=True)
    lines[1] = "[1, 2]\n"
    (run / "transcripts.jsonl").write_text("".join(lines))
    res = referee("resume", str(run), tmp=tmpdir_env)
    assert res.returncode == 2 and "transcripts.jsonl:2:" in res.stderr, res.stderr


@pytest.mark.parametrize("damage", ["a game", "a duplicate group", "every game", "config"])
def test_verify_fails_a_journal_that_lacks_scheduled_games(finished, tmp_path, tmpdir_env,
                                                           damage):
    run = copy_run(finished, tmp_path / "run")
    assert referee("verify", str(run), tmp=tmpdir_env).returncode == 0
    games = [json.loads(ln) for ln in (run / "games.jsonl").read_text().splitlines()]
    keep = {"a game": [g for g in games if g["game"] != 7],
            "a duplicate group": [g for g in games if g["group"] != games[2]["group"]],
            "every game": [], "config": games}[damage]
    (run / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in keep))
    if damage == "config":
        (run / "config.json").unlink()
    res = referee("verify", str(run), tmp=tmpdir_env)
    want = {"a game": "1 of the 12 games the schedule has are missing from the journal (games 7)",
            "a duplicate group": "2 of the 12 games",
            "every game": "holds no games", "config": "has no config.json"}[damage]
    one_error(res, 1, want)


def test_verify_unfinished_checks_a_stopped_run_as_far_as_it_goes(finished, tmp_path,
                                                                  tmpdir_env):
    run = copy_run(finished, tmp_path / "run")
    games = (run / "games.jsonl").read_text().splitlines(keepends=True)
    (run / "games.jsonl").write_text("".join(games[:9]))
    one_error(referee("verify", str(run), tmp=tmpdir_env), 1, "3 of the 12 games",
              "--unfinished")
    ok = referee("verify", "--unfinished", str(run), tmp=tmpdir_env)
    assert ok.returncode == 0 and ok.stdout.startswith("ok: 9 games"), ok.stderr
    tampered = json.loads(games[8])
    tampered["places"] = tampered["places"][::-1]
    (run / "games.jsonl").write_text("".join(games[:8]) + json.dumps(tampered) + "\n")
    one_error(referee("verify", "--unfinished", str(run), tmp=tmpdir_env), 1, "places")


# ------------------------------------------------------------------- sprt's codes


@pytest.mark.parametrize(("extra", "code"), [
    (["--alpha", "0.7"], 5),
    (["--max-games", "1"], 5),
    (["--no-such-option"], 5),
    (["--limit-memory", "lots"], 5),
    (["--candidate-typo", "x"], 5),
])
def test_sprt_errors_are_never_a_verdict(tmp_path, tmpdir_env, extra, code):
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    res = referee("sprt", "--candidate", caller, "--baseline", rnd, *extra,
                  "--out", str(tmp_path / "run"), tmp=tmpdir_env)
    assert res.returncode == code, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr


def test_sprt_without_its_bots_is_usage_not_inconclusive(tmp_path, tmpdir_env):
    res = referee("sprt", tmp=tmpdir_env)
    assert res.returncode == 5, res.stderr
    (caller,) = bots(tmp_path, "caller.py")
    missing = referee("sprt", "--candidate", caller, "--baseline", str(tmp_path / "nope.py"),
                      tmp=tmpdir_env)
    one_error(missing, 5, "bot file not found")

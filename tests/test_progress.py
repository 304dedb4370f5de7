"""Progress off a terminal (the plain lines of ``run`` and ``sprt`` when the output goes to a
pipe) and the standings a stopped run prints: real runs of the bundled bots."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from referee.journal import GAMES_FILE
from referee.progress import PROGRESS_ENV, Eta, ProgressLines, progress_every_s

ROOT = Path(__file__).resolve().parents[1]
BOTS = {name: str(ROOT / "bots" / "polish_poker" / f"{name}.py")
        for name in ("caller", "random_bot", "statistician")}
REFEREE = str(Path(sys.executable).parent / "referee")
LINE = re.compile(r"^progress (\d+)/(\d+) games \((\d+)%\), (\d+\.\d) games/s, ETA (\S+), "
                  r"faults (\d+), leader (\S+) \(score (\d+\.\d)%\)(.*)$")


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([REFEREE, *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300, env=env())


def env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}


def progress_lines(stdout: str) -> list[re.Match[str]]:
    found = [LINE.match(line) for line in stdout.splitlines() if line.startswith("progress ")]
    assert found and all(found), stdout
    return [m for m in found if m is not None]


def test_run_off_a_terminal_prints_plain_progress_lines(tmp_path: Path) -> None:
    res = referee("run", "--in-process", "--bots", BOTS["caller"], BOTS["random_bot"],
                  BOTS["statistician"], "--games", "30", "--seed", "4", "--out",
                  str(tmp_path / "run"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    lines = progress_lines(res.stdout)
    done = [int(m[1]) for m in lines]
    assert {int(m[2]) for m in lines} == {30}
    # At least one at each tenth of the games (3 games each), the last at the end.
    assert len(lines) >= 10 and done == sorted(done) and done[-1] == 30
    assert lines[-1][3] == "100" and lines[-1][5] == "0s"
    assert all(float(m[4]) > 0 for m in lines)
    assert all(m[6] == "0" for m in lines)  # the bundled bots make no faults
    assert lines[-1][7] == "statistician"  # the best bot leads
    assert "\x1b" not in res.stdout  # plain text: no escape sequence, no bar


def test_sprt_off_a_terminal_prints_the_llr_and_its_bounds(tmp_path: Path) -> None:
    res = referee("sprt", "--candidate", BOTS["statistician"], "--baseline",
                  BOTS["random_bot"], "--max-games", "20", "--seed", "3", "--sandbox", "none",
                  "--out", str(tmp_path / "sprt"), cwd=tmp_path)
    assert res.returncode == 2, res.stderr  # inconclusive after 20 games
    lines = progress_lines(res.stdout)
    assert int(lines[-1][1]) == int(lines[-1][2]) == 20
    llr = [re.fullmatch(r", LLR ([+-]\d+\.\d\d) \[(-\d+\.\d\d), \+(\d+\.\d\d)\]", m[9])
           for m in lines]
    assert all(llr)
    assert all(-float(x[2]) == float(x[3]) > 0 for x in llr if x)  # symmetric bounds
    assert float(llr[-1][1]) > 0  # the candidate won: the LLR went up
    assert lines[-1][7] == "statistician"


def stop_after(args: list[str], out: Path, games: int, sig: signal.Signals
               ) -> tuple[int, str, str]:
    """Start ``referee ARGS``, send ``sig`` once ``games`` games are journalled; the exit
    code, stdout and stderr."""
    proc = subprocess.Popen([REFEREE, *args, "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=out.parent, env=env())
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            journal = out / GAMES_FILE
            if journal.is_file() and journal.read_bytes().count(b"\n") >= games:
                break
            time.sleep(0.1)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    return proc.returncode, stdout, stderr


def assert_standings(out: Path, stdout: str, stderr: str, names: tuple[str, ...]) -> None:
    journalled = (out / GAMES_FILE).read_bytes().count(b"\n")
    assert f"standings so far ({journalled} games in the journal):" in stdout
    table = stdout[stdout.index("standings so far"):]
    assert all(name in table for name in names)
    assert "Elo" in table and "score %" in table
    assert f"go on with: referee resume {out}" in stderr


def test_ctrl_c_prints_the_standings_so_far_then_the_resume_hint(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, stdout, stderr = stop_after(
        ["run", "--in-process", "--bots", BOTS["caller"], BOTS["random_bot"],
         BOTS["statistician"], "--games", "100000", "--seed", "6"], out, 20, signal.SIGINT)
    assert code == 130, stderr
    assert_standings(out, stdout, stderr, ("statistician", "caller", "random_bot"))


def test_sigterm_stops_an_sprt_with_its_standings(tmp_path: Path) -> None:
    out = tmp_path / "sprt"
    code, stdout, stderr = stop_after(
        ["sprt", "--candidate", BOTS["caller"], "--baseline", BOTS["random_bot"], "--elo1",
         "2", "--max-games", "100000", "--seed", "6", "--sandbox", "none"], out, 10,
        signal.SIGTERM)
    assert code == 143, stderr
    assert_standings(out, stdout, stderr, ("caller", "random_bot"))


def test_progress_lines_come_at_each_tenth_and_every_interval() -> None:
    now = [0.0]
    printed: list[str] = []
    eta = Eta(200)
    lines = ProgressLines(200, 0, printed.append, every_s=10.0, clock=lambda: now[0], eta=eta)
    for done in range(1, 201):
        now[0] += 0.01  # 100 games/s: 2 s in all, never 10 s between two lines
        eta.add({"duration_s": 0.01})
        lines.update(done, 0, "a (score 50.0%)")
    assert [line.split()[1] for line in printed] == [f"{k}/200" for k in range(20, 201, 20)]
    assert "100.0 games/s, ETA 1s" in printed[4]  # 100 of 200 done after 1 s
    quiet: list[str] = []
    slow = ProgressLines(None, 0, quiet.append, every_s=10.0, clock=lambda: now[0])
    now[0] += 9.0
    slow.update(1, 0, "-")
    assert quiet == []  # no total to take tenths of, and 9 s only
    now[0] += 2.0
    slow.update(2, 1, "-")
    assert quiet == ["progress 2 games, 0.2 games/s, ETA -, faults 1, leader -"]


def test_no_eta_from_the_first_seconds_of_a_run() -> None:
    # 4 games at once, games of 60 s: the first game to finish says nothing of the rest;
    # once three have, 96 left of which 4 in progress (half done): 94 games' work, 4 at once.
    eta = Eta(total=100, parallel=4)
    eta.add({"duration_s": 60.0})
    assert eta.left(done=1) is None
    for _ in range(3):
        eta.add({"duration_s": 60.0})
    assert eta.left(done=4) == (96 - 2) * 60.0 / 4


def test_the_interval_comes_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(PROGRESS_ENV, "2.5")
    assert progress_every_s() == 2.5
    for bad in ("0", "-3", "soon", "nan"):
        monkeypatch.setenv(PROGRESS_ENV, bad)
        assert progress_every_s() == 10.0

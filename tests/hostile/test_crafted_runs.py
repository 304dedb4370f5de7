"""Run directories made or changed by a stranger: ``resume``, ``verify``, ``show`` and
``rate`` take them as data. Real referee processes, real bot processes.

- Links: a ``logs/`` that is a symbolic link out of the run, its log files links to a
  host file. ``resume`` used to append a bot's output to that file and write the logs into
  the outside folder; now it refuses the run (exit 2, one line) and writes nothing.
- Seals: ``resume`` plays what ``config.json`` says (which files run, in which sandbox),
  so it takes one only with this host's seal (``referee.seal``).
- Caps: JSON nested thousands deep in ``config.json``, a journal line or a transcript
  crashed every reader with a RecursionError (exit 4); a record of 200,000 seats made a
  4.6 MB error line. Now each is one short line naming the file, exit 2.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import good, lines, no_traceback, referee  # noqa: E402

GAMES = ["--games", "2", "--players", "2", "--seed", "5", "--sandbox", "none",
         "--move-time", "5s"]
DEEP = 100_000  # far beyond Python's recursion limit
MAX_ERROR_CHARS = 600


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of two games between two bot processes, made on this host."""
    tmp = tmp_path_factory.mktemp("crafted")
    res = referee("run", "--bots", *good(tmp), *GAMES, "--out", str(tmp / "run"), cwd=tmp)
    assert res.returncode == 0, res.stderr
    return tmp / "run"


def unfinished(finished: Path, to: Path) -> Path:
    """A copy of the run with its last game taken out of the journal: resume plays it."""
    shutil.copytree(finished, to, symlinks=True)
    games = (to / "games.jsonl").read_text().splitlines(keepends=True)
    (to / "games.jsonl").write_text("".join(games[:-1]))
    return to


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def reader(*args: str) -> Ran:
    """A command that reads a run directory, run in this process (the readers start no
    bot; a referee process costs seconds to start on a loaded machine)."""
    res = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return Ran(res.exit_code, res.stdout, res.stderr)


def one_line(res: Ran | subprocess.CompletedProcess, code: int, *words: str) -> str:
    """The one error line of ``res``, which exited ``code`` and names ``words``."""
    no_traceback(res)
    err = lines(res.stderr)
    assert res.returncode == code and len(err) == 1, res.stderr[:2000]
    assert len(err[0]) < MAX_ERROR_CHARS, err[0][:2000]
    for word in words:
        assert word in err[0], err[0]
    return err[0]


# ------------------------------------------------------------------------ links


@pytest.mark.parametrize("trust", [False, True])
def test_resume_follows_no_link_out_of_the_run(finished: Path, tmp_path: Path,
                                                trust: bool) -> None:
    """``logs/`` a link to an outside folder, each log file there a link to a host file:
    nothing is written outside, even when the host vouches for the run (--trust)."""
    run = unfinished(finished, tmp_path / "run")
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("the host's file\n")
    for log in (run / "logs").iterdir():
        (outside / log.name).symlink_to(victim)
    shutil.rmtree(run / "logs")
    (run / "logs").symlink_to(outside)
    before = sorted(p.name for p in outside.iterdir())
    res = referee("resume", str(run), *(["--trust"] if trust else []), cwd=tmp_path)
    one_line(res, 2, f"{run / 'logs'} is a symbolic link", "refused")
    assert victim.read_text() == "the host's file\n"
    assert sorted(p.name for p in outside.iterdir()) == before
    assert len((run / "games.jsonl").read_text().splitlines()) == 1  # nothing played


def test_a_journal_that_is_a_link_or_a_fifo_is_refused(finished: Path, tmp_path: Path) -> None:
    """A journal linked to a host file is neither read nor cut by ``resume`` (which cuts a
    torn last line off); a FIFO in its place would make every reader wait for ever."""
    run = unfinished(finished, tmp_path / "run")
    victim = tmp_path / "victim.txt"
    victim.write_text("no newline at the end")  # what resume would cut as a torn line
    (run / "transcripts.jsonl").unlink()
    (run / "transcripts.jsonl").symlink_to(victim)
    one_line(referee("resume", str(run), cwd=tmp_path), 2, "transcripts.jsonl", "symbolic link")
    assert victim.read_text() == "no newline at the end"
    (run / "transcripts.jsonl").unlink()
    os.mkfifo(run / "transcripts.jsonl")
    for command in (["verify"], ["show", "--html"]):
        one_line(reader(command[0], str(run), *command[1:]), 2, "transcripts.jsonl",
                 "not a regular file")


# ------------------------------------------------------------------------ seals


def test_resume_takes_only_a_configuration_this_host_sealed(finished: Path,
                                                            tmp_path: Path) -> None:
    """A config.json changed after the run started (here: a bot's path to another file of
    the same content, which the sha256 check lets through) or without a seal is refused;
    --trust takes it and seals it anew."""
    run = unfinished(finished, tmp_path / "run")
    doc = json.loads((run / "config.json").read_text())
    bot = Path(doc["config"]["bots"][0]["path"])
    elsewhere = tmp_path / "elsewhere" / bot.name
    elsewhere.parent.mkdir()
    shutil.copy(bot, elsewhere)
    doc["config"]["bots"][0]["path"] = str(elsewhere)
    (run / "config.json").write_text(json.dumps(doc))
    one_line(referee("resume", str(run), cwd=tmp_path), 2, "was changed", "--trust")
    del doc["seal"]
    (run / "config.json").write_text(json.dumps(doc))
    one_line(referee("resume", str(run), cwd=tmp_path), 2, "not sealed", "--trust")
    res = referee("resume", str(run), "--trust", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert len((run / "games.jsonl").read_text().splitlines()) == 2
    assert json.loads((run / "config.json").read_text())["seal"]


def test_a_run_sealed_by_another_host_is_not_resumed(finished: Path, tmp_path: Path) -> None:
    run = unfinished(finished, tmp_path / "run")
    res = referee("resume", str(run), cwd=tmp_path,
                  env={"REFEREE_STATE_DIR": str(tmp_path / "another-host")})
    one_line(res, 2, "seal does not match")


# ------------------------------------------------------------------------- caps


def deep(n: int = DEEP) -> str:
    return "[" * n + "]" * n


def craft(finished: Path, to: Path, target: str) -> Path:
    """A copy of the run with ``target`` crafted: JSON nested DEEP deep in it (in its
    first line), or (``-seats``) a first record with ``seats`` many seats."""
    name, _, seats = target.partition("-")
    run = to / "run"
    shutil.copytree(finished, run, symlinks=True)
    path = run / name
    if name == "config.json":
        path.write_text(path.read_text().rstrip()[:-1] + ', "deep": ' + deep() + "}")
        return run
    records = [json.loads(ln) for ln in path.read_text().splitlines()]
    if seats:
        records[0]["seats"] = [f"bot-with-a-long-name-{i}" for i in range(int(seats))]
        first = json.dumps(records[0])
    else:
        first = json.dumps(records[0])[:-1] + ', "deep": ' + deep() + "}"
    path.write_text("\n".join([first, *map(json.dumps, records[1:])]) + "\n")
    return run


COMMANDS = {"verify": [], "rate": [], "show": ["0"], "show --html": ["--html", "--out"]}
# What each reader does not read: show reads no configuration, rate no transcript.
SKIPS = {("config.json", "show"), ("config.json", "show --html"),
         ("transcripts.jsonl", "rate")}


@pytest.mark.parametrize("target", ["config.json", "games.jsonl", "transcripts.jsonl",
                                    "games.jsonl-200000"])
def test_crafted_json_is_one_short_line_from_every_reader(finished: Path, tmp_path: Path,
                                                          target: str) -> None:
    """Nested 100,000 deep, or 200,000 seats (5.6 MB, beyond the cap of a journal line):
    one line naming the file (and line), exit 2."""
    run = craft(finished, tmp_path, target)
    name = target.partition("-")[0]
    where = str(run / name) if name == "config.json" else f"{run / name}:1"
    for what, command in COMMANDS.items():
        out = [str(tmp_path / "replay.html")] if command[-1:] == ["--out"] else []
        res = reader(what.split()[0], str(run), *command, *out)
        if (name, what) in SKIPS:
            assert res.returncode == 0, res.stderr
        else:
            one_line(res, 2, where)


def test_a_bad_value_is_quoted_short(finished: Path, tmp_path: Path) -> None:
    """20,000 seats fit a journal line: verify says they are not the schedule's, and
    rate that they are not the players, each in one short line."""
    run = craft(finished, tmp_path, "games.jsonl-20000")
    one_line(reader("verify", str(run)), 1, "game 0: seats", "characters)")
    res = reader("rate", str(run))
    assert res.returncode == 2 and len(lines(res.stderr)[0]) < MAX_ERROR_CHARS, res.stderr[:2000]

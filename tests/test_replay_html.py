"""replay.html without a browser: what `referee run` writes at its end, and each way
writing it can fail (one line; the journal and any earlier page stay as they were).
The page itself is tested in tests/browser/test_replay_page.py."""

from __future__ import annotations

import base64
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.show import html as html_module
from referee.show.html import write_replay
from referee.show.select import ShowError, replays

ROOT = Path(__file__).resolve().parents[1]
POLISH = ROOT / "bots" / "polish_poker"
BIN = Path(sys.executable).parent
NAME = "<b>x<i>y"
# A child that writes under a file size limit: what a full disk does to the writer. It
# must write no bytecode: Python installs a .pyc cut short by the limit, which breaks
# every later import of that module (where bytecode is written, as under tox).
FULL_DISK = """import resource, signal, sys
sys.dont_write_bytecode = True
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from referee.show.html import replay_after_run, write_replay
run = Path(sys.argv[1])
if sys.argv[2] == "write":
    write_replay(run, [0, 1], run / "replay.html")
else:
    lines = []
    print(replay_after_run(run, lines.append, lines.append), lines)
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "run"
    done = subprocess.run(
        [str(BIN / "referee"), "run", "--in-process", "--games", "6", "--seed", "3", "--out",
         str(out), "--bots", str(POLISH / "statistician.py"),
         f"{NAME}={POLISH / 'caller.py'}", str(POLISH / "random_bot.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"replays {out / 'replay.html'}" in done.stdout
    return out


def blobs(page: str) -> dict[int, dict]:
    """Each game's data as the page's script decodes it."""
    found = {}
    for part in page.split('<script type="application/gzip-base64" id="g-')[1:]:
        game, rest = part.split('">', 1)
        found[int(game)] = json.loads(gzip.decompress(base64.b64decode(
            rest.split("</script>", 1)[0])))
    return found


def test_a_run_writes_every_game_with_names_as_data(run: Path) -> None:
    page = (run / "replay.html").read_text()
    games = blobs(page)
    assert sorted(games) == list(range(6))
    for r in replays(run, range(6)):
        assert games[r.game]["names"] == list(r.names)
        assert [s[2] for s in games[r.game]["steps"]] == [s.text for s in r.steps]
        assert len(games[r.game]["times"]) == len(r.steps)
    assert NAME not in page  # in the index as \\u003c...: no markup, not even in a script
    index = page.split('id="replay-index">', 1)[1].split("</script>", 1)[0]
    assert NAME in json.loads(index)["bots"]
    assert "http:" not in page and "https:" not in page  # nothing from the network
    assert (run / "replay.html").stat().st_mode & 0o777 == 0o644  # as leaderboard.html


def test_bad_requests_are_one_line_errors_and_write_nothing(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    with pytest.raises(ShowError, match="has no journal"):
        write_replay(tmp_path, [0], out)
    with pytest.raises(ShowError, match="no game of"):
        write_replay(run, [], out)
    with pytest.raises(ShowError, match="^game 6 is not in the journal of "):
        write_replay(run, [0, 6], out)
    with pytest.raises(ShowError, match=f"^cannot write {tmp_path}/no/r.html: No such file"):
        write_replay(run, [0], tmp_path / "no" / "r.html")
    (tmp_path / "dir.html").mkdir()
    with pytest.raises(ShowError, match="^cannot write .*dir.html: Is a directory$"):
        write_replay(run, [0], tmp_path / "dir.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.html"]


def test_a_full_disk_keeps_the_page_that_was_there(run: Path) -> None:
    before = (run / "replay.html").read_bytes()
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(run), "write"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"referee.rundir.StorageError: cannot write {run / 'replay.html'}: File too large")
    assert (run / "replay.html").read_bytes() == before
    assert not [p for p in run.iterdir() if p.name.startswith(".replay.html.")]


def test_at_the_end_of_a_run_a_failed_page_is_one_line(run: Path) -> None:
    journal = {n: (run / n).read_bytes() for n in ("games.jsonl", "transcripts.jsonl")}
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(run), "after-run"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None " + repr([
        f"cannot write {run / 'replay.html'}: File too large; the journal is whole: "
        f"`referee show {run} --html` writes the replay again"])
    assert {n: (run / n).read_bytes() for n in journal} == journal


def test_the_end_of_a_large_run_says_how_to_write_its_replays(
        run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over ``RUN_END_GAMES`` games a run's end writes no page (here the bound is lowered
    to 5 for this 6-game run) and one line says which command does."""
    monkeypatch.setattr(html_module, "RUN_END_GAMES", 5)
    run = shutil.copytree(run, tmp_path / "run", ignore=shutil.ignore_patterns("replay.html"))
    errors: list[str] = []
    notes: list[str] = []
    assert html_module.replay_after_run(run, errors.append, notes.append) is None
    assert errors == [] and notes == [
        f"replays: a run of over 5 games writes none at its end; "
        f"`referee show {run} --html` writes them (6 games)"]
    assert not (run / "replay.html").exists()


def test_show_html_exit_codes(run: Path, tmp_path: Path) -> None:
    def show(*args: str, limit: bool = False) -> subprocess.CompletedProcess[str]:
        def small() -> None:
            import resource
            import signal
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        return subprocess.run([str(BIN / "referee"), "show", str(run), "--html", *args],
                              capture_output=True, text=True, timeout=120,
                              preexec_fn=small if limit else None,
                              env={**os.environ, "COLUMNS": "300", "PYTHONDONTWRITEBYTECODE": "1"})
    done = show("--out", str(tmp_path / "mine.html"), "--bot", NAME)
    assert done.returncode == 0, done.stderr
    assert sorted(blobs((tmp_path / "mine.html").read_text())) == [
        r.game for r in replays(run, range(6)) if NAME in r.names]
    done = show("--out", str(tmp_path / "no" / "r.html"))
    assert (done.returncode, len(done.stderr.strip().splitlines())) == (2, 1)
    done = show("--out", str(tmp_path / "full.html"), limit=True)
    assert (done.returncode, len(done.stderr.strip().splitlines())) == (4, 1), done.stderr
    assert "File too large" in done.stderr and not (tmp_path / "full.html").exists()


def test_sprt_writes_the_replay_of_its_games(tmp_path: Path) -> None:
    out = tmp_path / "sprt"
    done = subprocess.run(
        [str(BIN / "referee"), "sprt", "--candidate", str(POLISH / "statistician.py"),
         "--baseline", str(POLISH / "random_bot.py"), "--max-games", "4", "--seed", "1",
         "--sandbox", "none", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr  # inconclusive after 4 games
    assert sorted(blobs((out / "replay.html").read_text())) == [0, 1, 2, 3]


def test_a_run_whose_page_cannot_be_written_says_so_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "run"
    (out / "replay.html").mkdir(parents=True)  # where the page would go
    done = subprocess.run(
        [str(BIN / "referee"), "run", "--in-process", "--games", "2", "--seed", "3", "--out",
         str(out), "--bots", *(str(POLISH / f"{b}.py") for b in ("caller", "random_bot"))],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "300"})
    assert done.returncode == 0, done.stdout + done.stderr  # the run's result stands
    assert done.stderr.strip().splitlines() == [
        f"error: cannot write {out / 'replay.html'}: Is a directory; the journal is whole: "
        f"`referee show {out} --html` writes the replay again"]
    assert (out / "leaderboard.html").is_file() and len((out / "games.jsonl").read_text()
                                                        .splitlines()) == 2


def test_a_replay_too_long_for_the_end_of_a_run_is_written_after_it(
        run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the replay would take longer than ``INLINE_S`` (here 0 s), the run's end does
    not wait: a process of its own writes the page, and one line says which."""
    monkeypatch.setattr(html_module, "INLINE_S", 0.0)
    run = shutil.copytree(run, tmp_path / "run", ignore=shutil.ignore_patterns("replay.html"))
    errors: list[str] = []
    notes: list[str] = []
    assert html_module.replay_after_run(run, errors.append, notes.append) is None
    assert errors == [] and len(notes) == 1, notes
    pid = int(notes[0].split("; process ")[1].split()[0])
    assert notes[0].endswith(f"writes {run / 'replay.html'} now (its output in "
                             f"{run / 'replay.log'})")
    _, status = os.waitpid(pid, 0)  # the test's own child: wait for it, leave none behind
    assert os.waitstatus_to_exitcode(status) == 0, (run / "replay.log").read_text()
    assert sorted(blobs((run / "replay.html").read_text())) == list(range(6))


def test_a_game_whose_steps_the_page_builds_carries_its_transcript_as_journalled(
        tmp_path: Path) -> None:
    """Golf has a steps.js: its games are in the page as their packed transcripts (events
    and decisions, not the seed), after its script, written once; Polish Poker, which has
    none, is given its steps built (the other tests)."""
    out = tmp_path / "golf"
    done = subprocess.run(
        [str(BIN / "referee"), "run", "--in-process", "--game", "six-card-golf", "--games",
         "2", "--seed", "3", "--out", str(out), "--bots",
         *(str(ROOT / "bots" / "six_card_golf" / f"{b}.py") for b in ("greedy_bot",
                                                                      "random_bot"))],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    page = (out / "replay.html").read_text()
    assert "application/gzip-base64" not in page
    assert page.count('globalThis.replayGames = globalThis.replayGames || {})["six-card-golf"]'
                      ) == 1
    journalled = {json.loads(line)["game"]: json.loads(line)
                  for line in (out / "transcripts.jsonl").read_text().splitlines()}
    for r in replays(out, journalled):
        part = page.split(f'<script type="application/json" id="g-{r.game}">', 1)[1]
        doc = json.loads(part.split("</script>", 1)[0])
        assert doc == {"game": r.game, "game_type": "six-card-golf", "params": r.params,
                       "names": list(r.names), "places": list(r.places),
                       "scores": list(r.scores), "players": 2,
                       "faults": journalled[r.game]["faults"],
                       "packed": journalled[r.game]["packed"]}
        assert page.index('["six-card-golf"]') < page.index(f'id="g-{r.game}"')

"""``referee show RUN_DIR [GAME]`` on a real run (bot processes over ZeroMQ, one bot named
with Rich markup, one that only plays illegal actions): the bots' names, the cards as
dealt, every decision's time and every round's result are printed; ``--seat N`` never
prints a card another seat held before it was shown; filters pick the right game;
``--step`` pages through a game on a terminal; errors are one line and exit 2; a run
journalled with schema 2 transcripts is still shown."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.journal import decode_transcript, read_games, read_transcripts

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import FAULTY, REFEREE, check_transcripts, good, referee  # noqa: E402

EVIL = "[bold red]evil"  # a bot's name is data: printed as it is, never as markup
GAMES = 6  # one duplicate group of three players (every seating)
STEP = re.compile(r"^\[(\d+)\] ", re.M)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("show")
    caller, rnd = good(tmp)
    shutil.copy(FAULTY / "illegal.py", tmp / "bots" / "illegal.py")
    res = referee("run", "--bots", caller, f"{EVIL}={rnd}", str(tmp / "bots" / "illegal.py"),
                  "--players", "3", "--games", str(GAMES), "--seed", "5", "--out",
                  str(tmp / "run"), cwd=tmp, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    check_transcripts(tmp / "run")
    return tmp / "run"


def show(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return referee("show", *args, cwd=cwd)


def blocks(out: str) -> dict[int, str]:
    """The printed steps by index (``[k]`` numbers them from 1): each from its line to the
    next one."""
    marks = list(STEP.finditer(out))
    return {int(m.group(1)) - 1: out[m.start():(marks[i + 1].start() if i + 1 < len(marks)
                                            else len(out))]
            for i, m in enumerate(marks)}


def test_a_game_whole_names_cards_times_and_results(run: Path) -> None:
    transcript = read_transcripts(run)[1]
    res = show(str(run), "1", cwd=run.parent)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for seat, name in enumerate(transcript["seats"]):
        assert f"{name} (seat {seat})" in out
    assert EVIL in out  # not turned into a style
    deals = [e for e in transcript["events"] if e["type"] == "dealt"]
    for seat, hand in enumerate(deals[0]["hands"]):
        assert f"{transcript['seats'][seat]} (seat {seat}): {' '.join(hand)}" in out
    assert f"community: {deals[0]['community']}" in out
    # One time per decision, each on its step; one result per round and one for the game.
    assert len(re.findall(r"  \d+\.\d ms$", out, re.M)) == len(transcript["decisions"])
    ends = [e for e in transcript["events"] if e["type"] == "round_lost"
            or e["type"] == "eliminated" and e["reason"].startswith("forfeit:")]
    assert out.count("loses the round: ") + out.count(" forfeits (") == len(ends)
    assert "=> " + transcript["seats"][transcript["events"][-1]["order"][0]] in out
    assert "fault illegal: " in out  # each fault with its detail, on its step


def test_a_seat_sees_no_other_hand_before_it_is_shown(run: Path) -> None:
    transcript = read_transcripts(run)[0]
    events = transcript["events"]
    for seat in range(transcript["players"]):
        res = show(str(run), "0", "--seat", str(seat), cwd=run.parent)
        assert res.returncode == 0, res.stderr
        printed = blocks(res.stdout)
        assert f"what seat {seat} saw" in res.stdout
        steps = _steps(transcript)
        hidden: set[str] = set()
        for k, step in enumerate(steps):
            dealt = [e for e in events[: step.event + 1] if e["type"] == "dealt"][-1]
            hidden = {c for s, h in enumerate(dealt["hands"]) if s != seat for c in h}
            if step.result is None:  # before the round's end nothing else is shown
                assert not hidden & set(re.findall(r"\b\w\w\b", printed[k])), printed[k]
            if events[step.event]["type"] == "dealt":
                mine = " ".join(dealt["hands"][seat])
                assert f"(seat {seat}): {mine}" in printed[k]
                assert printed[k].count("??") == sum(len(h) for s, h in enumerate(
                    dealt["hands"]) if s != seat)
        assert hidden  # the check saw other hands


def _steps(transcript: dict) -> list:
    from referee.games import load_game
    from referee.journal import game_of

    return load_game(*game_of(transcript)).steps(transcript["players"], transcript["events"])


def test_filters_pick_the_first_game_that_matches(run: Path) -> None:
    records = sorted(read_games(run), key=lambda r: r["game"])
    lost = [r["game"] for r in records if r["places"][r["seats"].index(EVIL)] > 1]
    assert lost, f"{EVIL} won every game: pick another seed"
    res = show(str(run), "--bot", EVIL, "--lost", cwd=run.parent)
    assert res.returncode == 0, res.stderr
    assert f"game {lost[0]} ·" in res.stdout
    said = f"{len(lost)} games match; showing game {lost[0]}" if len(lost) > 1 \
        else f"1 game matches: game {lost[0]}"
    assert said in res.stdout
    faulty = [r["game"] for r in records if any(f["label"] == "illegal" for f in r["faults"])]
    res = show(str(run), "--fault", "illegal", cwd=run.parent)
    assert res.returncode == 0 and f"game {faulty[0]} ·" in res.stdout
    res = show(str(run), "--bot", "caller", cwd=run.parent)
    assert res.returncode == 0 and f"game {records[0]['game']} ·" in res.stdout
    assert f"{GAMES} games match; showing game 0" in res.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["nowhere"], "error: no run directory nowhere"),
    (["{run}", "99"], f"error: no game 99 in this run (its games: 0 to {GAMES - 1})"),
    (["{run}", "--bot", "nobody"], "error: no game of this run matches --bot 'nobody'"),
    (["{run}", "--fault", "timeout"], "error: no game of this run matches --fault 'timeout'"),
    (["{run}", "--lost"], "error: --lost needs --bot NAME: whose lost games?"),
    (["{run}", "0", "--seat", "3"], "error: no seat 3: game 0 has seats 0 to 2"),
    (["{run}", "0", "--bot", "caller"],
     "error: pick a game by its number or by filters, not both"),
    (["{run}", "--out", "x.html"],
     "error: --out PATH is where --html writes the replay; give --html too"),
    (["{run}", "--step"], "error: --step reads keys from a terminal, and stdin is not one; "
                          "leave --step out to print the whole game"),
])
def test_bad_requests_are_one_line_and_exit_2(run: Path, args: list[str],
                                              message: str) -> None:
    res = show(*(a.format(run=run) for a in args), cwd=run.parent)
    assert (res.returncode, res.stderr.strip(), res.stdout) == (2, message, "")


def test_a_transcript_line_that_is_not_a_record_is_one_line(run: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(run, bad)
    lines = (bad / "transcripts.jsonl").read_text().splitlines()
    lines[0] = lines[0][: len(lines[0]) // 2]
    (bad / "transcripts.jsonl").write_text("\n".join(lines) + "\n")
    res = show(str(bad), "0", cwd=tmp_path)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "the transcript of game 0 is not a record" in res.stderr
    res = show(str(tmp_path), cwd=tmp_path)  # a directory without a journal
    assert res.returncode == 2 and "has no journal (games.jsonl)" in res.stderr


def test_a_schema_2_run_is_still_shown(run: Path, tmp_path: Path) -> None:
    """Names from games.jsonl; no times (schema 2 transcripts had none)."""
    old = tmp_path / "old"
    shutil.copytree(run, old)
    docs = [decode_transcript(json.loads(line))
            for line in (old / "transcripts.jsonl").read_text().splitlines()]
    (old / "transcripts.jsonl").write_text("".join(
        json.dumps({**{k: v for k, v in d.items() if k not in ("seats", "decisions", "faults")},
                    "schema_version": 2}) + "\n" for d in docs))
    assert referee("verify", str(old), cwd=tmp_path).returncode == 0
    res = show(str(old), "1", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    names = read_transcripts(run)[1]["seats"]
    for seat, name in enumerate(names):
        assert f"{name} (seat {seat})" in res.stdout
    assert not re.search(r"\d ms$", res.stdout, re.M)
    assert res.stdout.count("loses the round: ") > 0


def test_step_pages_through_a_game_on_a_terminal(run: Path) -> None:
    """Space and Enter go on, b goes back, q quits; the screen shows one step at a time."""
    main, sub = pty.openpty()
    proc = subprocess.Popen([str(REFEREE), "show", str(run), "0", "--step", "--seat", "1"],
                            stdin=sub, stdout=sub, stderr=sub, cwd=run.parent,
                            env={**os.environ, "COLUMNS": "120", "LINES": "60"})
    os.close(sub)
    seen = b""

    def until(text: bytes) -> None:
        nonlocal seen
        deadline = time.monotonic() + 60
        while text not in seen:
            assert time.monotonic() < deadline, seen[-2000:]
            if select.select([main], [], [], 0.5)[0]:
                try:
                    seen += os.read(main, 65536)
                except OSError:
                    break

    try:
        until(b"step 1 of ")
        for key, want in ((b" ", b"step 2 of "), (b"\r", b"step 3 of "), (b"b", b"step 2 of")):
            seen = b""
            os.write(main, key)
            until(want)
        assert b"what seat 1 saw" in seen
        os.write(main, b"q")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)


def test_verify_holds_the_transcripts_names_and_faults_to_the_journal(run: Path,
                                                                     tmp_path: Path) -> None:
    """What ``show`` takes from a schema 3 transcript must be what ``games.jsonl`` says."""
    for field, change in (("seats", lambda v: v[::-1]), ("faults", lambda v: v[1:])):
        bad = tmp_path / field
        shutil.copytree(run, bad)
        docs = [json.loads(line) for line in (bad / "transcripts.jsonl").read_text().splitlines()]
        docs[0][field] = change(docs[0][field])
        (bad / "transcripts.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
        res = referee("verify", str(bad), cwd=tmp_path)
        assert res.returncode == 1 and f"game {docs[0]['game']}: {field} " in res.stderr, (
            res.stderr)

"""Secret deals: no bot computes a card before its seat is shown it (SECURITY.md).

Real ``referee run`` commands, real bot processes. ``deal_thief.py`` looks for the run's
seed and deal secret wherever a bot might (``config.json``, the journal, its ancestors'
command lines, environments and open files, the seed it is sent), rebuilds the schedule
and the deals with the installed ``referee`` package, and reports per round and source
whether it predicted every hand. With ``--seed`` and no secret it predicts them all (the
research mode, and the proof that the attack is real); with a deal secret nothing but the
secret itself helps, and the secret is readable only by the referee's user, in the run
directory, unless the bot shares that user without a sandbox (trusted mode).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    REFEREE,
    ROOT,
    assert_nothing_left,
    bot_dir,
    good,
    lines,
    no_traceback,
    referee,
)

from bots.polish_poker import caller, random_bot  # noqa: E402
from referee import sandbox  # noqa: E402
from referee.deals import SECRET_FILE, Deals  # noqa: E402
from referee.games.polish_poker.engine import PolishPoker  # noqa: E402
from referee.inprocess import LocalBot, LocalRunner  # noqa: E402
from referee.journal import read_games, read_results, read_transcripts, untimed  # noqa: E402
from referee.schedule import LEGACY_SEED_SHIFT, ScheduledGame  # noqa: E402
from referee.tournament import load_config, make_format  # noqa: E402
from referee.verify import verify_run  # noqa: E402

HOSTILE = Path(__file__).resolve().parent
GAMES = ["--games", "12", "--move-time", "5s", "--time-bank", "20s", "--sandbox", "none"]
SEED_SOURCES = ("config", "cmdline", "journal", "environment", "bot seed")
VERDICT = re.compile(r"^game (\d+) round (\d+) (.+): (predicted|missed)$")


def thief_bots(tmp_path: Path) -> list[str]:
    d = bot_dir(tmp_path)
    shutil.copy(HOSTILE / "deal_thief.py", d / "deal_thief.py")
    return ["--bots", str(d / "deal_thief.py"), *good(tmp_path, "caller.py", "random_bot.py")]


def pair(tmp_path: Path) -> list[str]:
    """Two reference bots: a run needs no more to be dealt."""
    return ["--bots", *good(tmp_path, "caller.py", "random_bot.py")]


def key_file(tmp_path: Path, name: str = "deal.key") -> Path:
    path = tmp_path / name
    path.write_bytes(os.urandom(32))
    path.chmod(0o600)
    return path


def run(tmp_path: Path, bots: list[str], *extra: str, out: str = "run") -> Path:
    res = referee("run", *bots, *extra, "--out", str(tmp_path / out), cwd=tmp_path,
                  timeout=300)
    assert res.returncode == 0, res.stderr
    no_traceback(res)
    return tmp_path / out


def verdicts(out: Path) -> dict[str, Counter]:
    """Per source, how many rounds the thief predicted and missed."""
    found: dict[str, Counter] = {}
    for log in (out / "logs").glob("deal_thief.*.stderr.log"):
        for line in log.read_text().splitlines():
            m = VERDICT.match(line)
            if m:
                found.setdefault(m[3], Counter())[m[4]] += 1
    return found


def first_deals(out: Path, deals: Deals) -> tuple[list, list]:
    """Each journalled game's round-1 deal as the engine makes it from its seed through
    ``deals``, and as its transcript says it was."""
    made, dealt = [], []
    transcripts = read_transcripts(out)
    for rec in read_games(out):
        engine = PolishPoker(rec["params"]["ruleset"], rec["players"],
                             deals.engine_seed(rec["seed"]))
        made.append(engine.events[0].to_dict())
        dealt.append(transcripts[rec["game"]]["events"][0])
    return made, dealt


# ------------------------------------------------------------------ the attack


@pytest.fixture
def neighbour(tmp_path: Path) -> Iterator[Path]:
    """Another test's run beside this test's folder, as when suites run at once: a
    six-card-golf run (its ``dealt`` events have no ``counts``) with a secret. The thief
    judges its own run only: it must neither crash on it nor count its secret."""
    run_dir = tmp_path.parent / f"{tmp_path.name}-neighbour"
    run_dir.mkdir()
    (run_dir / "config.json").write_text('{"config": {}}')
    (run_dir / SECRET_FILE).write_bytes(os.urandom(32))
    (run_dir / "transcripts.jsonl").write_text(json.dumps(
        {"game": 0, "seed": 1, "events": [{"type": "dealt", "round": 1, "dealer": 0,
                                           "grids": [[1, 2], [3, 4]]}]}) + "\n")
    yield run_dir
    shutil.rmtree(run_dir)


def test_with_a_research_seed_the_thief_computes_every_deal(tmp_path: Path,
                                                             neighbour: Path) -> None:
    """The control: --seed without a secret is the research mode, and the thief really
    does rebuild every deal from config.json and from the referee's command line."""
    out = run(tmp_path, thief_bots(tmp_path), "--seed", "7", *GAMES)
    found = verdicts(out)
    for source in ("config", "cmdline"):
        assert found[source]["predicted"] > 20 and found[source]["missed"] == 0, found
    assert found["bot seed"]["predicted"] == 0  # the bot's seed is not the deal's
    assert "secret" not in found and not (out / SECRET_FILE).exists()
    assert verify_run(out).games == 12
    assert_nothing_left(tmp_path)


@pytest.mark.parametrize("given", ["drawn", "given"])
def test_with_a_secret_no_seed_the_bot_can_find_gives_a_card(tmp_path: Path,
                                                               given: str) -> None:
    """A deal secret, drawn by the referee or given with --seed and --secret-file: the
    thief reads config.json, the journal, every environment and command line it can, and
    the seed it is sent, and predicts nothing from them. It reads the secret itself only
    because it runs as the referee's user without a sandbox (trusted mode)."""
    extra = ["--seed", "7", "--secret-file", str(key_file(tmp_path))] if given == "given" \
        else []
    out = run(tmp_path, thief_bots(tmp_path), *extra, *GAMES)
    found = verdicts(out)
    present = [s for s in SEED_SOURCES if s in found]
    assert {"config", "journal", "bot seed"} <= set(present), found
    if given == "given":
        assert "cmdline" in present  # the --seed it read there does not help either
    for source in present:
        assert found[source]["predicted"] == 0 and found[source]["missed"] > 20, found
    assert found["secret"]["predicted"] > 20 and found["secret"]["missed"] == 0, found
    assert verify_run(out).games == 12
    assert_nothing_left(tmp_path)


# The sandbox of issue 11 item 2 (bots in an empty root of their own, run directories
# masked, each bot its own uid) is what keeps a sandboxed bot from the run directory; the
# older one bound all of / read-only and left the bot root, so it read secret.key.
SANDBOX_HIDES_RUNS = hasattr(sandbox, "masks")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
@pytest.mark.skipif(not SANDBOX_HIDES_RUNS,
                    reason="this sandbox still shows the run directory (issue 11 item 2)")
def test_a_sandboxed_thief_finds_nothing_to_deal_from(tmp_path: Path) -> None:
    """Under --sandbox bwrap the thief, with its own copy of the referee's packages beside
    it, finds no run directory, no config.json, no journal and no secret; the seed it is
    sent and what its environment holds predict no card."""
    bots = thief_bots(tmp_path)
    for package in ("referee", "leaderboards"):
        shutil.copytree(ROOT / package, bot_dir(tmp_path) / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    out = run(tmp_path, bots, *GAMES[:-2], "--sandbox", "bwrap")
    found = verdicts(out)
    assert found.get("bot seed", Counter())["missed"] > 20, found
    assert all(c["predicted"] == 0 for c in found.values()), found
    assert set(found) <= {"bot seed", "environment"}, found
    assert verify_run(out).games == 12
    assert_nothing_left(tmp_path)


def test_the_seed_in_hand_does_not_give_the_deals(tmp_path: Path) -> None:
    """With config.json in hand: every game's seed is there, and not one of them deals
    the game's cards; with the run's secret every one of them does."""
    out = run(tmp_path, pair(tmp_path), *GAMES)
    config = json.loads((out / "config.json").read_text())["config"]
    assert config["deals"] == "secret" and "secret" not in config
    planned = {g.index: g.seed for g in make_format(config).stage(0, [])}
    assert {r["game"]: r["seed"] for r in read_games(out)} == planned
    made, dealt = first_deals(out, Deals())
    assert all(m != d for m, d in zip(made, dealt, strict=True))
    made, dealt = first_deals(out, Deals((out / SECRET_FILE).read_bytes()))
    assert made == dealt


def test_the_secret_is_in_its_file_and_nowhere_else(tmp_path: Path) -> None:
    """Not in config.json, the journal, the logs, the leaderboard, the counters, nor in
    the environment and command lines the thief saw (it logs them)."""
    out = run(tmp_path, thief_bots(tmp_path), *GAMES)
    key = (out / SECRET_FILE).read_bytes()
    assert len(key) == 32
    assert (out / SECRET_FILE).stat().st_mode & 0o777 == 0o600
    assert out.stat().st_mode & 0o777 == 0o700
    logs = "".join(p.read_text() for p in (out / "logs").glob("deal_thief.*.stderr.log"))
    assert "saw environment" in logs and "saw command line" in logs
    forms = [key, key.hex().encode(), key.hex().upper().encode(),
             str(int.from_bytes(key, "big")).encode()]
    for path in out.rglob("*"):
        if path.is_file() and path.name != SECRET_FILE:
            data = path.read_bytes()
            assert not any(form in data for form in forms), path


def test_other_users_cannot_read_the_run_directory(tmp_path: Path) -> None:
    """The run directory is mode 0700 and secret.key 0600: a bot run as another user
    (--run-as, the sandbox's own uids) cannot list it or read anything in it, even when
    every folder above it is open to all."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as another user")
    shared = Path(tempfile.mkdtemp(prefix="referee-secret-"))
    try:
        shared.chmod(0o755)
        res = referee("run", *pair(tmp_path), "--games", "2", "--in-process", "--out",
                      str(shared / "run"), cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        for args in (["ls", "run"], ["cat", f"run/{SECRET_FILE}"], ["cat", "run/config.json"],
                     ["cat", "run/games.jsonl"], ["cat", "run/transcripts.jsonl"]):
            as_nobody = subprocess.run(args, cwd=shared, capture_output=True,
                                       preexec_fn=_become_nobody)
            assert as_nobody.returncode != 0 and not as_nobody.stdout, args
            assert b"Permission denied" in as_nobody.stderr, as_nobody.stderr
        as_root = subprocess.run(["cat", f"run/{SECRET_FILE}"], cwd=shared,
                                 capture_output=True)
        assert len(as_root.stdout) == 32  # the owner can
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _become_nobody() -> None:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


# ------------------------------------------------------------------ seeds


def test_the_default_seed_has_64_random_bits(tmp_path: Path) -> None:
    seeds, keys = [], []
    for n in range(3):
        out = run(tmp_path, pair(tmp_path), "--games", "2",
                  "--in-process", out=f"run{n}")
        config = json.loads((out / "config.json").read_text())["config"]
        assert isinstance(config["seed"], str) and config["deals"] == "secret"
        seeds.append(int(config["seed"]))
        keys.append((out / SECRET_FILE).read_bytes())
    assert len(set(seeds)) == 3 and len(set(keys)) == 3
    assert all(2**32 < s < 2**64 for s in seeds), seeds  # 64 bits (each fails with p 2^-32)


def _same_games(a: Path, b: Path) -> bool:
    """Same journal but for the timing fields, and the same transcripts."""
    return read_results(a) == read_results(b) and (
        [untimed(t) for t in read_transcripts(a).values()]
        == [untimed(t) for t in read_transcripts(b).values()])


def test_a_given_seed_reproduces_the_run(tmp_path: Path) -> None:
    """Two runs with one --seed are the same games; with one --seed and one
    --secret-file too. A different secret keeps the schedule (seats, seeds) and changes
    the cards."""
    bots = pair(tmp_path)
    args = ["--seed", "9", *GAMES]
    key = str(key_file(tmp_path))
    open_a = run(tmp_path, bots, *args, out="open-a")
    open_b = run(tmp_path, bots, *args, out="open-b")
    keyed_a = run(tmp_path, bots, *args, "--secret-file", key, out="keyed-a")
    keyed_b = run(tmp_path, bots, *args, "--secret-file", key, out="keyed-b")
    other = run(tmp_path, bots, *args, "--secret-file", str(key_file(tmp_path, "other.key")),
                out="other")
    assert _same_games(open_a, open_b) and _same_games(keyed_a, keyed_b)
    schedule = [(r["seed"], r["seats"]) for r in read_games(open_a)]
    for keyed in (keyed_a, other):
        assert [(r["seed"], r["seats"]) for r in read_games(keyed)] == schedule
    first = [t["events"][0] for t in read_transcripts(keyed_a).values()]
    assert first != [t["events"][0] for t in read_transcripts(other).values()]
    assert first != [t["events"][0] for t in read_transcripts(open_a).values()]


# ------------------------------------------------------------------ resume and verify


def _kill_after(tmp_path: Path, bots: list[str], args: list[str], out: Path, n: int) -> None:
    proc = subprocess.Popen([str(REFEREE), "run", *bots, *args, "--out", str(out)],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    path = out / "games.jsonl"
    while not (path.exists() and path.read_text().count("\n") >= n):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert_nothing_left(tmp_path)


def test_resume_with_the_secret_is_exact(tmp_path: Path) -> None:
    """A keyed run killed and resumed has the games of the run that was never stopped:
    resume reads the secret from the run directory."""
    bots = pair(tmp_path)
    args = ["--seed", "3", "--secret-file", str(key_file(tmp_path)),
            *GAMES]
    whole = run(tmp_path, bots, *args, out="whole")
    out = tmp_path / "stopped"
    _kill_after(tmp_path, bots, args, out, 3)
    res = referee("resume", str(out), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    assert _same_games(whole, out)
    assert verify_run(out).games == 12


def test_resume_of_a_drawn_secret_is_exact(tmp_path: Path) -> None:
    """No --seed, no --secret-file: resume finds the drawn seed in config.json and the
    drawn secret in secret.key, and every game verifies."""
    out = tmp_path / "stopped"
    _kill_after(tmp_path, pair(tmp_path), GAMES, out, 3)
    res = referee("resume", str(out), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    assert verify_run(out).games == 12
    assert len({r["game"] for r in read_games(out)}) == 12


@pytest.fixture
def keyed_run(tmp_path: Path) -> Path:
    return run(tmp_path, pair(tmp_path), "--games", "4", "--in-process")


def test_verify_and_resume_need_the_secret(tmp_path: Path, keyed_run: Path) -> None:
    (keyed_run / SECRET_FILE).unlink()
    for command in ("verify", "resume"):
        res = referee(command, str(keyed_run), cwd=tmp_path)
        assert res.returncode == 2, (command, res.stdout, res.stderr)
        no_traceback(res)
        err = lines(res.stderr)
        assert len(err) == 1 and SECRET_FILE in err[0] and "missing" in err[0], err


def test_verify_fails_with_another_secret(tmp_path: Path, keyed_run: Path) -> None:
    (keyed_run / SECRET_FILE).write_bytes(os.urandom(32))
    res = referee("verify", str(keyed_run), cwd=tmp_path)
    assert res.returncode == 1, res.stdout
    assert "the deal differs" in res.stderr


@pytest.mark.parametrize("content,why", [
    (None, "No such file"), (b"short", "at least 32"), ("/dev/urandom", "larger than"),
])
def test_a_bad_secret_file_is_a_usage_error(tmp_path: Path, content, why: str) -> None:
    path = tmp_path / "key"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path = Path(content)
    res = referee("run", *pair(tmp_path), "--in-process", "--secret-file", str(path),
                  "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    err = lines(res.stderr)
    assert len(err) == 1 and why in err[0] and "--secret-file" in err[0], err
    assert not (tmp_path / "run").exists()


def test_a_run_from_before_deal_secrets_still_verifies(tmp_path: Path) -> None:
    """An old run directory: 63-bit seeds in the journal, no ``deals`` in config.json,
    the run seed an integer. verify and rate read it; resume says it cannot go on."""
    out = run(tmp_path, pair(tmp_path), "--games", "4", "--seed", "5", "--in-process")
    doc = json.loads((out / "config.json").read_text())
    config = load_config(out)
    low = random.getrandbits(LEGACY_SEED_SHIFT)  # the bits the old seeds had below today's
    legacy = [ScheduledGame(g.index, g.seating, g.seed << LEGACY_SEED_SHIFT | low, g.group,
                            g.group_size) for g in make_format(doc["config"]).stage(0, [])]
    assert any(g.seed > 2**53 for g in legacy)
    for name in ("games.jsonl", "transcripts.jsonl"):
        (out / name).unlink()
    LocalRunner(config, [LocalBot.of(b.name, m) for b, m in
                         zip(config.bots, (caller, random_bot), strict=True)],
                schedule=legacy, resume=True).run()
    del doc["config"]["deals"]
    doc["config"]["seed"] = 5
    (out / "config.json").write_text(json.dumps(doc))
    assert verify_run(out).games == 4
    assert referee("rate", str(out), cwd=tmp_path).returncode == 0
    res = referee("resume", str(out), cwd=tmp_path)
    assert res.returncode == 2 and "older referee" in res.stderr, res.stderr
    assert [r["seed"] for r in read_games(out)] == [g.seed for g in legacy]



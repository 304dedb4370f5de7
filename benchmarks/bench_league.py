"""The league under load: prints a table.

    python benchmarks/bench_league.py                    # 200 bots, 2 workers, 20 minutes
    python benchmarks/bench_league.py --minutes 4        # the same, shorter
    python benchmarks/bench_league.py --minutes 3 --compare-runners   # and per-batch runners
    python benchmarks/bench_league.py --refit-only --refit-games 100000 1000000

Live part: a polish-poker league (``referee league init``, 2 players, duplicate deals,
1 s a move, the real sandbox) of ``--bots`` bots: copies of the bundled bots with
options (``statistician.py`` with its ``SAMPLES`` and ``CALL_BELOW`` set per copy,
``random_bot.py``, ``caller.py``), registered straight into the league's database (each
file's ``referee check`` would take the first minutes), served by ``referee league serve
--workers W`` as a subprocess. A quarter of the way in, a new author uploads a new
statistician through ``POST /api/bots`` (its check included): the time from the upload
to the moment ``/api/leaderboard`` shows it with a 95 % interval of +/-50 Elo or less
(and games enough to support one: over a few duplicate groups the clustered error can
come out near 0, so at least ``(SUPPORTED / 50)^2``, 185 at 2 players).
In the last ``--web-s`` seconds, 50 client threads ask for ``GET /`` and ``GET
/api/leaderboard`` in turn, as fast as they are answered: latency p50 and p99 of each.
Games per second from the first game to the end, and in the web window; the server's
peak resident memory (its VmHWM: the referee, not the bots), and the peak of the server
and its bots summed (sampled each second). ``--compare-runners`` plays a second league
the same way with ``--runner-games 2W``: one runner a batch of ``W`` tables of two
games (the league before one runner played across groups), side by side.

Refit part: a synthetic journal of ``--bots`` bots of known strengths (2 players,
duplicate pairs, random tables) recorded into a league database 1,000 games a
transaction (``referee.league.db.record_games``: the sums are kept as it goes); then
the refit from the database (``referee.league.play.current_report``) against
``build_report`` of the records (what ``referee rate`` computes once it has read the
journal), each timed once, at each ``--refit-games`` size (``build_report`` only up to
``--rate-up-to`` games: its memory grows with the games). BLAS on one thread for both.

The machine's load average is printed before and after: other work slows everything.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy is imported

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from bench_field import process_table, under  # noqa: E402 - this folder's /proc reader

from leaderboards.report import build_report  # noqa: E402
from referee.league import db  # noqa: E402
from referee.league.matchmaker import SUPPORTED  # noqa: E402
from referee.league.play import current_report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REFEREE = str(BIN / "referee")
BUNDLED = ROOT / "bots" / "polish_poker"
TARGET_CI = 50.0  # Elo: the newcomer's interval half-width to reach
CLIENTS = 50
PARAMS = {"ruleset": "official"}  # polish-poker's default, as its records carry it
SETTINGS = {"game": "polish-poker", "players": 2, "params": PARAMS, "move_ms": 1000,
            "bank_ms": 5000, "max_faults": 3}


# --------------------------------------------------------------------------- the bots


def bot_source(i: int) -> tuple[str, bytes]:
    """Copy ``i``: (bot name, its file's text), a bundled bot with its options set."""
    kind = i % 4
    if kind == 2:
        return f"random{i}", (BUNDLED / "random_bot.py").read_bytes() + f"# copy {i}\n".encode()
    if kind == 3:
        return f"caller{i}", (BUNDLED / "caller.py").read_bytes() + f"# copy {i}\n".encode()
    text = (BUNDLED / "statistician.py").read_text()
    samples = (20, 40, 80, 160)[i // 4 % 4]
    call_below = (0.35, 0.5, 0.65)[i // 16 % 3]
    text = re.sub(r"^SAMPLES = \d+$", f"SAMPLES = {samples}", text, flags=re.M)
    text = re.sub(r"^CALL_BELOW = [\d.]+$", f"CALL_BELOW = {call_below}", text, flags=re.M)
    return f"stat{i}", (text + f"# copy {i}\n").encode()


def register(league: Path, n: int, settled: int) -> None:
    """``n`` bots of the author ``bench``, stored as ``submit`` stores them, without
    their checks (the bundled bots pass theirs); and ``settled`` synthetic games among
    them in the database only (not the journal), so that the field has ratings."""
    con = db.connect(league)
    try:
        author, _ = db.author_of(con, db.add_author(con, "bench"))
        for i in range(n):
            name, data = bot_source(i)
            digest = hashlib.sha256(data).hexdigest()
            home = league / db.BOTS_DIR / digest
            home.mkdir(mode=0o755)
            (home / f"{name}.py").write_bytes(data)
            (home / f"{name}.py").chmod(0o444)
            db.add_bot(con, author, "bench", name, home / f"{name}.py", digest)
        records = list(synthetic([b.label for b in db.bots(con)], settled, 2))
        for at in range(0, len(records), 1000):
            db.record_games(con, records[at:at + 1000])
    finally:
        con.close()


# --------------------------------------------------------------------------- measuring


def referee(*args: object) -> str:
    done = subprocess.run([REFEREE, *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode:
        sys.exit(f"referee {' '.join(map(str, args))}: {done.stderr.strip()}")
    return done.stdout.strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_tree(root: int) -> int:
    """KB resident in ``root`` and every process under it."""
    procs = process_table()
    return procs.get(root, (0, 0))[1] + under(procs, root)[1]


def peak_rss_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(re.search(r"VmHWM:\s+(\d+)", status).group(1))  # type: ignore[union-attr]


def games_in(league: Path) -> int:
    con = sqlite3.connect(f"file:{league / db.DB_FILE}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        con.close()


def get(url: str, timeout: float = 60) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return resp.read()


def upload(port: int, token: str, name: str, data: bytes) -> str:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/bots?file={name}.py", data=data, method="POST",
        headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=300) as resp:
        return json.loads(resp.read())["bot"]


def web_load(port: int, seconds: float) -> dict[str, list[float]]:
    """``CLIENTS`` threads asking for the page and the JSON in turn: latencies (s)."""
    out: dict[str, list[float]] = {"/": [], "/api/leaderboard": []}
    errors: list[str] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def client(k: int) -> None:
        paths = ("/", "/api/leaderboard")
        n = k
        while time.monotonic() < end:
            path = paths[n % 2]
            n += 1
            t = time.perf_counter()
            try:
                get(f"http://127.0.0.1:{port}{path}")
            except (OSError, urllib.error.URLError) as exc:
                with lock:
                    errors.append(str(exc))
                continue
            with lock:
                out[path].append(time.perf_counter() - t)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out["errors"] = [float(len(errors))]
    return out


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q * 100) - 1] if len(values) > 1 else \
        (values[0] if values else float("nan"))


def newcomer_ci(port: int, bot: str) -> tuple[float, int] | None:
    """The newcomer's interval half-width, or the least its games support if that is
    wider (``referee.league.matchmaker.SUPPORTED``: over a few groups the clustered
    error can come out near 0), and its games; None while it has no interval."""
    doc = json.loads(get(f"http://127.0.0.1:{port}/api/leaderboard"))
    for row in (doc["leaderboard"] or {}).get("rows", []):
        if row["bot"] == bot and row["ci95"] is not None and row["bound"] is None:
            return max(row["ci95"], SUPPORTED / math.sqrt(row["games"])), row["games"]
    return None


def live(tmp: Path, label: str, bots: int, workers: int, seconds: float, web_s: float,
         runner_games: int | None, settled: int) -> dict[str, Any]:
    league = tmp / label
    referee("league", "init", league, "--move-time", "1s", "--sandbox", "auto")
    register(league, bots, settled)
    token = referee("league", "add-author", league, "newbie")
    port = free_port()
    extra = () if runner_games is None else ("--runner-games", str(runner_games))
    server = subprocess.Popen([REFEREE, "league", "serve", str(league), "--port", str(port),
                               "--workers", str(workers), *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    start = time.monotonic()
    first = None
    at_start = games_in(league)
    peak_tree = 0
    newcomer: str | None = None
    uploaded = reached = None
    last = (float("nan"), 0)  # the newcomer's latest half-width and games
    upload_at = start + seconds / 4
    web_at = start + seconds - web_s
    web: dict[str, list[float]] = {}
    web_games = 0.0
    try:
        while time.monotonic() < start + seconds and server.poll() is None:
            now = time.monotonic()
            peak_tree = max(peak_tree, rss_tree(server.pid))
            if first is None and games_in(league) > at_start:
                first = now
            if newcomer is None and now >= upload_at:
                uploaded = time.monotonic()
                newcomer = upload(port, token, "fresh", bot_source(0)[1] + b"# fresh\n")
            if newcomer and reached is None and (state := newcomer_ci(port, newcomer)):
                last = state
                if state[0] <= TARGET_CI:
                    reached = time.monotonic() - (uploaded or 0)
            if not web and now >= web_at:
                before, t0 = games_in(league), time.monotonic()
                web = web_load(port, web_s)
                web_games = (games_in(league) - before) / (time.monotonic() - t0)
                continue
            time.sleep(1.0)
        peak_server = peak_rss_kb(server.pid)
        games = games_in(league) - at_start
        end = time.monotonic()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    err = (server.stderr.read() if server.stderr else "").strip().splitlines()
    played = end - (first or end)
    return {"label": label, "bots": bots, "workers": workers, "games": games,
            "games_per_s": games / played if played else 0.0, "web_games_per_s": web_games,
            "reach_s": reached, "newcomer": newcomer, "last": last,
            "page_p50": quantile(web.get("/", []), 0.5),
            "page_p99": quantile(web.get("/", []), 0.99),
            "json_p50": quantile(web.get("/api/leaderboard", []), 0.5),
            "json_p99": quantile(web.get("/api/leaderboard", []), 0.99),
            "requests": len(web.get("/", [])) + len(web.get("/api/leaderboard", [])),
            "web_errors": int(web.get("errors", [0])[0]),
            "peak_server_mb": peak_server / 1024, "peak_tree_mb": peak_tree / 1024,
            "stderr": [line for line in err if "warning" in line.lower()][-3:]}


# --------------------------------------------------------------------------- the refit


def synthetic(names: list[str], games: int, seed: int) -> Iterator[dict[str, Any]]:
    """A league's records: duplicate pairs of random bots, the better finishing first
    more often (strengths from a normal law, normal noise)."""
    rng = random.Random(seed)
    bots = len(names)
    skill = [rng.gauss(0, 1) for _ in names]
    number = 0
    while number < games:
        i, j = rng.sample(range(bots), 2)
        deal = rng.randrange(1 << 40)
        group = number
        for seats in ((i, j), (j, i)):
            ahead = skill[seats[0]] - skill[seats[1]] + rng.gauss(0, 1.5) > 0
            yield {"schema_version": 2, "game": number, "game_type": "polish-poker",
                   "params": PARAMS, "players": 2, "seats": [names[s] for s in seats],
                   "places": [1, 2] if ahead else [2, 1], "faults": [], "group": group,
                   "group_size": 2, "seed": deal}
            number += 1


def refit_at(tmp: Path, bots: int, games: int, rate_up_to: int) -> dict[str, Any]:
    home = tmp / f"refit-{games}"
    home.mkdir()
    con = db.connect(home, create=True)
    db.put_settings(con, SETTINGS)
    author, _ = db.author_of(con, db.add_author(con, "bench"))
    for i in range(bots):
        db.add_bot(con, author, "bench", f"b{i}", home / "none.py", "0" * 64)
    t = time.perf_counter()
    chunk: list[dict[str, Any]] = []
    for rec in synthetic([f"bench.b{i}.v1" for i in range(bots)], games, 1):
        chunk.append(rec)
        if len(chunk) == 1000:
            db.record_games(con, chunk)
            chunk = []
    db.record_games(con, chunk)
    recording = time.perf_counter() - t
    t = time.perf_counter()
    report = current_report(con)
    refit_s = time.perf_counter() - t
    con.close()
    rate_s = None
    if games <= rate_up_to:
        records = list(synthetic([f"bench.b{i}.v1" for i in range(bots)], games, 1))
        t = time.perf_counter()
        expected = build_report(records, SETTINGS)
        rate_s = time.perf_counter() - t
        assert report is not None
        worst = max(abs(a.elo - b.elo) for a, b in zip(expected.rows, report.rows, strict=True))
        assert worst < 1e-6, worst
    size = (home / db.DB_FILE).stat().st_size
    shutil.rmtree(home)
    return {"games": games, "record_per_s": games / recording, "refit_s": refit_s,
            "rate_s": rate_s, "db_mb": size / 2**20}


# --------------------------------------------------------------------------- main


def fmt(value: float | None, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--web-s", type=float, default=30.0,
                        help="seconds of 50 concurrent web clients, at the end")
    parser.add_argument("--settled-games", type=int, default=40_000,
                        help="synthetic games among the field before it starts, so that "
                             "its ratings are settled (0: none)")
    parser.add_argument("--compare-runners", action="store_true",
                        help="also a league with one runner per batch (--runner-games 2W)")
    parser.add_argument("--refit-games", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--rate-up-to", type=int, default=100_000,
                        help="time build_report too up to this many games")
    parser.add_argument("--refit-only", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-league-") as name:
        tmp = Path(name)
        if not args.refit_only:
            rows = [live(tmp, "across-groups", args.bots, args.workers, args.minutes * 60,
                         args.web_s, None, args.settled_games)]
            if args.compare_runners:
                rows.append(live(tmp, "per-batch", args.bots, args.workers,
                                 args.minutes * 60, args.web_s, 2 * args.workers,
                                 args.settled_games))
            print(f"\nlive: {args.bots} bots, --workers {args.workers}, "
                  f"{args.minutes:g} min each, {args.settled_games} synthetic games "
                  f"before, {CLIENTS} web clients for the last {args.web_s:g} s")
            head = ("runner", "games", "games/s", "games/s web", f"to +/-{TARGET_CI:g}",
                    "page p50", "page p99", "json p50", "json p99", "requests", "errors",
                    "server MB", "with bots MB")
            print(" | ".join(head))
            for r in rows:
                print(" | ".join((r["label"], str(r["games"]), fmt(r["games_per_s"]),
                                  fmt(r["web_games_per_s"]),
                                  f"not reached (+/-{r['last'][0]:.0f} after "
                                  f"{r['last'][1]} games)" if r["reach_s"] is None
                                  else f"{r['reach_s']:.0f} s ({r['last'][1]} games)",
                                  *(f"{r[k] * 1000:.0f} ms" for k in
                                    ("page_p50", "page_p99", "json_p50", "json_p99")),
                                  str(r["requests"]), str(r["web_errors"]),
                                  fmt(r["peak_server_mb"], ".0f"),
                                  fmt(r["peak_tree_mb"], ".0f"))))
                for line in r["stderr"]:
                    print(f"  {r['label']} stderr: {line}")
        if args.refit_games:
            print(f"\nrefit: {args.bots} bots, synthetic journal (2 players, duplicate pairs)")
            print("games | recorded games/s | refit from the sums s | build_report s | "
                  "ratio | db MB")
            for games in args.refit_games:
                r = refit_at(tmp, args.bots, games, args.rate_up_to)
                ratio = None if r["rate_s"] is None else r["rate_s"] / r["refit_s"]
                print(f"{games} | {r['record_per_s']:.0f} | {r['refit_s']:.2f} | "
                      f"{fmt(r['rate_s'])} | {fmt(ratio, '.1f')} | {r['db_mb']:.0f}")
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Games through a Dask cluster against ``--workers``, and the coordinator's ceiling:
prints a table.

    python benchmarks/bench_cluster.py            # 400 games a row, 40,000 for the ceiling
    python benchmarks/bench_cluster.py --quick    # 120 games a row, 10,000 for the ceiling

(a) The same games (3 bots, ``bots/polish_poker/caller.py`` and
``bots/polish_poker/random_bot.py`` twice, heads-up
    ``official``, round robin, duplicate deals, one seed and deal secret) played by
    ``referee run`` with ``--workers 1``, ``--workers 2``, ``--cluster local:1`` and
    ``--cluster local:2`` (one game at once per worker): games per second from the first
    game's start to the last game's end (the journal's ``started_at`` and
    ``duration_s``), and from the command's start to its exit (start-up included). Each
    row checks that its leaderboard is the first row's.
    Then the ratio of ``--cluster local:2`` to ``--workers 2`` (aim: at least 0.9).
(b) The coordinator's own ceiling: ``ClusterPool`` on an in-process ``LocalCluster`` (its
    scheduler and one worker are threads of the coordinator's process, no network) whose
    tasks answer at once with the records of a game played in (a) (the record of
    game ``i mod n``, renumbered, and its transcript line as recorded): games per second
    it schedules, hands
    out, journals (``games.jsonl`` and ``transcripts.jsonl``) and counts, and the time of
    the final leaderboard fit over the whole journal. Aim: 5,000 games/s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots" / "polish_poker"
REFEREE = [sys.executable, "-c", "from referee.cli import main; main()"]

_canned: list[tuple[dict[str, Any], bytes]] = []  # in the Dask worker


def referee_run(tmp: Path, name: str, games: int, *extra: str) -> dict[str, Any]:
    out = tmp / name
    cmd = [*REFEREE, "run", "--bots", str(BOTS / "caller.py"), str(BOTS / "random_bot.py"),
           f"again={BOTS / 'random_bot.py'}", "--players", "2", "--games", str(games),
           "--seed", "11", "--secret-file", str(tmp / "secret.key"), "--move-time", "2s",
           "--out", str(out), *extra]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{name}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    records = [json.loads(line) for line in (out / "games.jsonl").open()]
    span = max(r["started_at"] + r["duration_s"] for r in records) - \
        min(r["started_at"] for r in records)
    board = json.loads((out / "leaderboard.json").read_text())
    return {"name": name, "games": len(records), "span": span, "wall": wall, "out": out,
            "board": (board["rows"], board["inputs_hash"])}


def instant_batch(key: str, games: list[Any]) -> list[tuple[dict, bytes]]:
    """A task that answers at once: the recorded game ``index mod n`` of the run in
    ``<session's run directory>.parent / 'reference'``, renumbered. Its transcript line is
    made once per recorded game: a real worker makes it while its bots play."""
    if not _canned:
        from referee.clusterhost import session_payload
        from referee.journal import read_games, read_transcripts, transcript_line

        ref = session_payload(key).config.out.parent / "reference"
        transcripts = read_transcripts(ref)
        _canned.extend((r, transcript_line(r, transcripts[r["game"]]["events"],
                                           transcripts[r["game"]]["decisions"]))
                       for r in read_games(ref))
    return [({**record, "game": g.index, "seed": g.seed}, line)
            for g in games for record, line in [_canned[g.index % len(_canned)]]]


def ceiling(tmp: Path, reference: Path, games: int) -> dict[str, float]:
    """The coordinator with instantly answering tasks (see the module)."""
    from distributed import Client, LocalCluster

    from leaderboards import merge_settings
    from referee.cluster import ClusterPool
    from referee.clusterconnect import Cluster
    from referee.journal import read_results
    from referee.playrun import run_settings, varying_settings
    from referee.progress import run_report
    from referee.tournament import load_config

    (tmp / "reference").symlink_to(reference)
    config = replace(load_config(reference), out=tmp / "ceiling", games=games)
    config.out.mkdir()
    # By reference, not by value as a function of __main__ would be: the worker's
    # module keeps the lines it made from one batch to the next.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_cluster import instant_batch as by_reference

    local = LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                         dashboard_address=None)
    cluster = Cluster("in-process", Client(local), local)
    pool = ClusterPool(config, cluster, batch_fn=by_reference, batch_games=512)
    start = time.perf_counter()
    pool.run()
    played = time.perf_counter() - start
    start = time.perf_counter()
    settings = config.to_dict()
    run_report(merge_settings([run_settings(settings)]), [b.name for b in config.bots],
               mixed=varying_settings(settings))(read_results(config.out))
    fit = time.perf_counter() - start
    return {"games": pool.played, "rate": pool.played / played, "fit": fit}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    games, ceiling_games = (120, 10_000) if args.quick else (400, 40_000)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        (tmp / "secret.key").write_bytes(bytes(range(32)))
        rows = [referee_run(tmp, "workers-1", games, "--workers", "1"),
                referee_run(tmp, "workers-2", games, "--workers", "2", "--concurrency", "2"),
                referee_run(tmp, "cluster-local-1", games, "--cluster", "local:1"),
                referee_run(tmp, "cluster-local-2", games, "--cluster", "local:2")]
        print(f"(a) {rows[0]['games']} games, heads-up official, 1 game at once per worker")
        print(f"{'how':<18} {'games/s (games)':>16} {'games/s (wall)':>15}  same leaderboard")
        for r in rows:
            print(f"{r['name']:<18} {r['games'] / r['span']:>16.1f} "
                  f"{r['games'] / r['wall']:>15.1f}  {r['board'] == rows[0]['board']}")
        two, local2 = rows[1], rows[3]
        print(f"{'local:2 / workers 2':<18} {two['span'] / local2['span']:>16.2f} "
              f"{two['wall'] / local2['wall']:>15.2f}  (aim: 0.9 or more)")
        c = ceiling(tmp, rows[0]["out"], ceiling_games)
        print(f"(b) coordinator ceiling: {c['games']} games at {c['rate']:,.0f} games/s "
              f"(aim 5,000); final leaderboard fit {c['fit']:.2f} s")


if __name__ == "__main__":
    main()

"""The headline benchmarks on the working tree and on a commit, side by side: a script,
not a test.

    python benchmarks/compare.py REF              # e.g. main, a361e09; about 20 s
    python benchmarks/compare.py REF --rounds 5   # more rounds, steadier medians

REF is checked out in a git worktree of its own (``/tmp/referee-compare-<commit>``, kept
for the next comparison; ``git worktree remove`` it when done). Each measure runs in a
fresh interpreter with the tree's code first on ``sys.path`` (this interpreter and its
packages for both), taking turns between the two trees round after round, so that the
load of other processes falls on both alike; a line gives each tree's median and the
ratio of the working tree to REF (below 1: the working tree is faster or smaller).

Measures (CPU time of this process only, so that other processes count as little as
they can):

- ``in-process``: ``referee.inprocess.play_local``, Polish Poker ``official``, 4 seats of
  ``bots/polish_poker/caller.py``: CPU µs per game through the whole runner (journal included);
- ``engine``: the engine loop of the same games (``view``, the bot, ``apply``) with the
  transcript's JSON, as ``benchmarks/bench_engine.py`` times it: CPU µs per game;
- ``zmq``: a ``Runner`` over ZeroMQ against 4 trivial raw-protocol bots (decode, answer:
  ``bench_protocol.py``'s) without the sandbox, all on one CPU: the referee's CPU µs per
  decision (all its threads), from the end of its first game to the end of its last;
- ``zmq-wall``: the same on every CPU: wall µs per decision, that of the least disturbed
  fifth of the games after the first (as ``bench_protocol.py`` times its (b'));
- ``sdk``: the Python SDK's answer to an ``act`` of those games, as ``referee.sdk`` gives
  it (decode, the game's view, ``caller.act``, the action encoded, the reply encoded),
  in a loop: CPU µs per decision, warm (a bot woken for its turn runs it cold, about
  twice as long);
- ``transcript``: bytes of ``transcripts.jsonl`` per game of the in-process run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run in a fresh interpreter: sys.argv = [tree, measure, size]; prints one JSON object.
MEASURE = r'''
import json, os, sys, tempfile, time
from pathlib import Path
tree, measure, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, tree)
os.chdir(tree)
try:
    from bots.polish_poker import caller
except ImportError:  # before Polish Poker's bots had their folder
    from bots import caller
out = Path(tempfile.mkdtemp(prefix="run-", dir=os.environ["COMPARE_TMP"]))

if measure == "in-process":
    from referee.inprocess import play_local
    bots = {f"c{i}": caller for i in range(4)}
    play_local(bots, games=24, seed=1, out=out / "warm", players=4)
    t = time.process_time()
    play_local(bots, games=size, seed=1, out=out / "run", players=4)
    us = (time.process_time() - t) / size * 1e6
    print(json.dumps({"in-process": us,
                      "transcript": (out / "run" / "transcripts.jsonl").stat().st_size / size}))
elif measure == "engine":
    try:
        from referee.games.polish_poker.engine import PolishPoker
    except ImportError:  # before games were packages
        from referee.games.polish import PolishPoker
    def play(seeds):
        for seed in seeds:
            game = PolishPoker("official", 4, seed)
            while not game.is_over:
                seat = game.current_seat
                game.apply(caller.act(game.view(seat)), seat=seat)
            json.dumps([e.to_dict() for e in game.events])
    play(range(50))
    t = time.process_time()
    play(range(1000, 1000 + size))
    print(json.dumps({"engine": (time.process_time() - t) / size * 1e6}))
elif measure in ("zmq", "zmq-wall"):
    import inspect
    from referee.config import RunConfig
    from referee.process import resolve_bots
    from referee.runner import Runner
    if measure == "zmq":
        # One CPU for the referee and its bots (inherited): no wake-up crosses CPUs, so
        # the time is the work (bench_protocol.py's (d)); the least steady measure else.
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    bot = os.environ["COMPARE_RAW_BOT"]
    from protocol.messages import PROTOCOL_VERSION  # the tree's: what its bots say
    os.environ["COMPARE_PROTOCOL"] = str(PROTOCOL_VERSION)
    kw = dict(bots=tuple(resolve_bots([f"b{i}={bot}" for i in range(4)])), players=4,
              games=size, seed=7, move_ms=5000, bank_ms=5000, concurrency=1, max_faults=3,
              start_timeout_ms=60000, out=out / "run")
    params = inspect.signature(RunConfig).parameters
    kw.update({"params": {"ruleset": "official"}} if "params" in params
              else {"rules": "official"})
    if "sandbox" in params:
        kw["sandbox"] = "none"
    marks = []
    def progress(runner, rec, *rest):
        marks.append((time.process_time(), time.perf_counter(),
                      sum(t["decisions"] for t in rec["timing"])))
    Runner(RunConfig(**kw), progress=progress).run()
    if measure == "zmq":
        decisions = sum(m[2] for m in marks[1:])
        print(json.dumps({"zmq": (marks[-1][0] - marks[0][0]) / decisions * 1e6}))
    else:
        n = (len(marks) - 1) // 5  # five runs of games after the first
        print(json.dumps({"zmq-wall": min(
            (marks[(k + 1) * n][1] - marks[k * n][1])
            / sum(m[2] for m in marks[k * n + 1:(k + 1) * n + 1]) * 1e6 for k in range(5))}))
elif measure == "sdk":
    try:
        from protocol.codec import decode_trusted as decode
    except ImportError:  # before the SDK read messages without the referee's checks
        from protocol.codec import decode
    from protocol.codec import encode
    deadline = {"deadline_ms": 1000, "time": {"move_ms": 1000, "bank_ms": 0}}
    frames = []  # every act of the games, as the referee sends it
    try:
        from referee.games import load_game
    except ImportError:  # before games were packages: the SDK spoke Polish Poker alone
        from protocol.polish import Action, View, parse_action
        from referee.games.polish import PolishPoker
        read_view = View.from_wire
        def to_wire(value):
            return Action.to_wire(parse_action(value, "official"))
        for seed in range(size):
            game = PolishPoker("official", 4, seed)
            while not game.is_over:
                seat = game.current_seat
                frames.append(encode({"type": "act", "view": game.view(seat).to_wire(),
                                      "results": [], "seq": len(frames) + 1, **deadline}))
                game.apply(caller.act(game.view(seat)), seat=seat)
    else:
        rules = load_game("polish-poker", {"ruleset": "official"})
        read_view = rules.decode_view
        def to_wire(value):
            return rules.encode_action(rules.parse_local_action(value))
        for seed in range(size):
            engine = rules.new_game(4, seed)
            while not engine.is_over:
                seat = engine.current_seat
                view = engine.view(seat)
                frames.append(encode({"type": "act", "view": view, "results": [],
                                      "seq": len(frames) + 1, **deadline}))
                local = caller.act(rules.decode_view(view, 1000))
                engine.apply(seat, rules.parse_action(to_wire(local)))
    def answer(frame):  # what the SDK does with an act
        msg = decode(frame)
        view = read_view(msg["view"], msg["deadline_ms"])
        encode({"type": "action", "seq": msg["seq"], "action": to_wire(caller.act(view))})
    for frame in frames[:2000]:
        answer(frame)
    t = time.process_time()
    for frame in frames:
        answer(frame)
    print(json.dumps({"sdk": (time.process_time() - t) / len(frames) * 1e6}))
'''

# A trivial bot that speaks the protocol itself (bench_protocol.py's): decode each
# message, answer each act with the weakest declaration or a call.
RAW_BOT = r'''
import os
import msgpack
import zmq
sock = zmq.Context().socket(zmq.DEALER)
sock.linger = 0
sock.connect(os.environ["REFEREE_ENDPOINT"])
sock.send(msgpack.packb({"type": "hello", "token": os.environ["REFEREE_TOKEN"],
                         "protocol": int(os.environ["COMPARE_PROTOCOL"])},
                        use_bin_type=True))
while True:
    msg = msgpack.unpackb(sock.recv(), raw=False)
    if msg["type"] == "bye":
        break
    if msg["type"] == "act":
        view = msg["view"]
        action = {"kind": "call"} if view["history"] else {"kind": "raise", "declaration": 0}
        reply = {"type": "action", "seq": msg["seq"], "action": action}
        sock.send(msgpack.packb(reply, use_bin_type=True))
'''

# (measure, size, what it prints, unit)
MEASURES = (("in-process", 1000), ("engine", 1000), ("zmq", 100), ("zmq-wall", 151),
            ("sdk", 300))
LINES = (("in-process", "in-process runner, official 4 x caller", "CPU µs/game"),
         ("engine", "engine loop + transcript JSON, same games", "CPU µs/game"),
         ("zmq", "referee over ZeroMQ, 4 raw trivial bots, 1 CPU", "CPU µs/decision"),
         ("zmq-wall", "the same on every CPU, least disturbed fifth", "wall µs/decision"),
         ("sdk", "SDK bot's answer to an act (caller, 4 seats)", "CPU µs/decision"),
         ("transcript", "transcripts.jsonl per game (in-process run)", "bytes"))


def worktree(ref: str) -> tuple[Path, str]:
    """A worktree of ``ref`` (made once, then reused) and its commit."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
                            capture_output=True, text=True)
    if commit.returncode != 0:
        sys.exit(f"error: {ref!r} is not a commit of {ROOT}")
    sha = commit.stdout.strip()
    path = Path(tempfile.gettempdir()) / f"referee-compare-{sha[:12]}"
    if not path.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), sha],
                       check=True, capture_output=True)
    return path, sha


def measure(tree: Path, name: str, size: int, env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(tree), name, str(size)],
                          capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(nothing)"])[-1]
        print(f"  {name} on {tree}: failed: {tail}", file=sys.stderr)
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref", help="the commit to compare with (a hash, a branch, a tag)")
    ap.add_argument("--rounds", type=int, default=3, help="turns per tree (default 3)")
    args = ap.parse_args()
    ref_tree, sha = worktree(args.ref)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "referee",
                            "protocol", "evaluator", "bots"], capture_output=True,
                           text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="referee-compare-") as tmp:
        bot = Path(tmp) / "raw_bot"
        bot.write_text(f"#!{sys.executable}\n{RAW_BOT}")
        bot.chmod(0o755)
        env = {**os.environ, "COMPARE_RAW_BOT": str(bot), "COMPARE_TMP": tmp}
        env.pop("PYTHONPATH", None)
        found: dict[str, dict[str, list[float]]] = {"work": {}, "ref": {}}
        load = os.getloadavg()[0]
        for r in range(args.rounds):
            for label, tree in (("work", ROOT), ("ref", ref_tree)):
                for name, size in MEASURES:
                    for key, value in measure(tree, name, size, env).items():
                        found[label].setdefault(key, []).append(value)
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"working tree {head}{' (with changes)' if dirty else ''} against {args.ref} "
          f"({sha[:12]}); {args.rounds} rounds, median of each; load average "
          f"{load:.1f} at start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} CPUs")
    print()
    print(f"| measure | unit | {head} | {sha[:7]} | ratio |")
    print("|---|---|---|---|---|")
    for key, text, unit in LINES:
        work, ref = found["work"].get(key), found["ref"].get(key)
        if not work or not ref:
            print(f"| {text} | {unit} | {_fmt(work)} | {_fmt(ref)} | - |")
            continue
        a, b = statistics.median(work), statistics.median(ref)
        print(f"| {text} | {unit} | {_fmt(work)} | {_fmt(ref)} | {a / b:.2f} |")


def _fmt(values: list[float] | None) -> str:
    """The median of a measure's values; a tenth where it is under 100."""
    if not values:
        return "failed"
    m = statistics.median(values)
    return f"{m:,.0f}" if m >= 100 else f"{m:.1f}"


if __name__ == "__main__":
    main()

"""Tries to know every card before it is shown, with the installed ``referee`` package.

At each game start it looks for what the deals could follow from, wherever a bot might:

- ``config``: the run's ``config.json`` (the run seed and format): it rebuilds the
  schedule (``referee.tournament.make_format``) and takes this game's seed;
- ``cmdline``: ``--seed`` and the other options on its ancestors' command lines, from
  which it rebuilds the schedule as the CLI would;
- ``journal``: every seed in the run's ``games.jsonl`` and ``transcripts.jsonl``;
- ``environment``: every integer in its own environment and its ancestors';
- ``bot seed``: the seed it is sent in ``game_start``;
- ``secret``: the run's ``secret.key`` (with the seeds above);
- ``transcripts``: the cards dealt in games already journalled (a repeated deal).

The run directory is looked for through its ancestors' open files, working directories
and ``--out``, its own working directory and ``HOME``, and the folders above them. Each
seed found is dealt as the engine deals (``referee.games.polish_poker.engine``), round by
round. When a
round's reveal shows every hand, it writes to stderr, per source that had a candidate,
whether one of them predicted the whole deal of that round: ``game G round R <source>:
predicted`` or ``missed``; ``game G: found <source>=<candidates> ...`` once per game;
and, once, its environment and its ancestors' command lines (``saw ...``). It plays like
``bots/polish_poker/caller.py``.
"""

import os
import re
import shlex
import sys
from pathlib import Path

from evaluator import declarations

FOUND = {}  # source -> candidates for this game: seeds (int) or dealt rounds (dict)
GAME = {}


def log(text):
    print(text, file=sys.stderr, flush=True)


def read(path, limit=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def ancestors():
    pid, out = os.getppid(), []
    while pid > 1 and len(out) < 8:
        out.append(pid)
        stat = read(f"/proc/{pid}/stat")
        if stat is None:
            break
        pid = int(stat.rsplit(b")", 1)[1].split()[1])
    return out


def run_dirs():
    """Every readable folder holding a config.json that the bot can find."""
    places = [Path.cwd(), Path(os.environ.get("HOME", "/")), Path(os.environ.get("TMPDIR", "/"))]
    for pid in ancestors():
        try:
            places.append(Path(os.readlink(f"/proc/{pid}/cwd")))
        except OSError:
            pass
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    places.append(Path(os.readlink(f"/proc/{pid}/fd/{fd}")).parent)
                except OSError:
                    pass
        except OSError:
            pass
        args = cmdline(pid)
        if "--out" in args[:-1]:
            places.append(Path(args[args.index("--out") + 1]))
    found = set()
    for place in places:
        for up in [place, *place.parents][:4]:
            for cand in [up, *sorted(up.glob("*"))[:50], *sorted(up.glob("runs/*"))[:50]]:
                try:
                    if (cand / "config.json").is_file() and in_scope(cand.resolve()):
                        found.add(cand.resolve())
                except OSError:
                    pass
    return sorted(found)


def in_scope(run):
    """Whether ``run`` is of the test that started this thief: the folder above its own
    (the test's folder). The folders above that hold other tests' runs, of other games
    and with secrets of their own, finished or running at the same time: what the thief
    found there made its verdicts depend on its neighbours (and a transcript of another
    game, without ``counts``, ended it with a KeyError)."""
    return run.is_relative_to(SCOPE)


SCOPE = Path.cwd().resolve().parent


def cmdline(pid):
    raw = read(f"/proc/{pid}/cmdline") or b""
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def environments():
    texts = [" ".join(f"{k}={v}" for k, v in os.environ.items())]
    for pid in ancestors():
        raw = read(f"/proc/{pid}/environ")
        if raw:
            texts.append(raw.decode(errors="replace"))
    return texts


def schedule_seed(config, index):
    from referee.tournament import make_format

    try:
        games = make_format(config).stage(0, [])
        return next((g.seed for g in games if g.index == index), None)
    except Exception:
        return None


def config_from_cmdline(args, players, rules):
    """The configuration a ``referee run`` command line asks for, as the CLI resolves it."""
    if "run" not in args or "--seed" not in args[:-1]:
        return None
    bots, i = [], args.index("--bots") + 1 if "--bots" in args else len(args)
    while i < len(args) and not args[i].startswith("--"):
        bots.append({"name": str(len(bots))})
        i += 1
    value = {a: args[args.index(a) + 1] for a in ("--seed", "--games", "--format")
             if a in args[:-1]}
    return {"bots": bots, "players": players, "rules": rules, "game": "polish-poker",
            "seed": value["--seed"], "games": int(value.get("--games", 100)),
            "format": value.get("--format", "round-robin"), "candidates": 1,
            "duplicate": "--no-duplicate" not in args}


def on_game_start(info):
    index, rules = int(info.game_id), info.params.get("ruleset", "official")
    GAME.update(index=index, rules=rules, players=info.players, dealers={})
    FOUND.clear()
    try:
        look(info)
    except ImportError as exc:  # a sandbox that hides the referee package
        log(f"game {index}: found nothing (no referee package: {exc})")


def look(info):
    import json

    from referee.deals import Deals
    from referee.journal import read_lines

    index, rules = GAME["index"], GAME["rules"]
    seeds = {}
    keys = []
    for run in run_dirs():
        config = read(run / "config.json")
        if config:
            seed = schedule_seed(json.loads(config)["config"], index)
            if seed is not None:
                seeds.setdefault("config", set()).add(seed)
        for name in ("games.jsonl", "transcripts.jsonl"):
            try:
                for rec in read_lines(run / name):
                    seeds.setdefault("journal", set()).add(rec["seed"])
                    for e in rec.get("events", []):
                        if e.get("type") == "dealt":
                            FOUND.setdefault("transcripts", []).append(e)
            except (OSError, ValueError, KeyError):
                pass
        key = read(run / "secret.key")
        if key:
            keys.append(key)
    for pid in ancestors():
        config = config_from_cmdline(cmdline(pid), info.players, rules)
        seed = schedule_seed(config, index) if config else None
        if seed is not None:
            seeds.setdefault("cmdline", set()).add(seed)
    for text in environments():
        for number in re.findall(r"(?<![\w.])-?\d{4,40}(?![\w.])", text):
            seeds.setdefault("environment", set()).add(int(number))
    seeds["bot seed"] = {info.seed}
    for source, found in seeds.items():
        FOUND[source] = sorted(found)[:2000]
    if keys:
        every = sorted({s for found in seeds.values() for s in found})[:2000]
        FOUND["secret"] = [Deals(k).engine_seed(s) for k in keys for s in every]
    log(f"game {index}: found " + " ".join(f"{s}={len(c)}" for s, c in FOUND.items()))
    if not GAME.get("told"):
        GAME["told"] = True
        log(f"saw environment {shlex.join(environments())}")
        for pid in ancestors():
            log(f"saw command line of {pid}: {shlex.join(cmdline(pid))}")


def dealt(source, seed, round_, counts):
    """The hands and community card the engine deals in ``round_`` from ``seed``."""
    from referee.games.polish_poker.engine import _Dealer

    dealers = GAME["dealers"]
    key = (source, seed)
    if key not in dealers:
        dealers[key] = [_Dealer(GAME["rules"], GAME["players"], seed), 0]
    dealer, done = dealers[key]
    while done < round_ - 1:
        dealer.next_round((1,) * GAME["players"])
        done += 1
    hands, community = dealer.next_round(counts)
    dealers[key][1] = done + 1
    return tuple(tuple(c.id for c in h) for h in hands), (community.id if community else None)


def on_round_result(result):
    hands = tuple(tuple(sorted(c.id for c in h)) for h in result.hands)
    community = None if result.community is None else result.community.id
    counts = tuple(len(h) for h in hands)
    for source, candidates in FOUND.items():
        if source == "transcripts":
            hit = any(e.get("round") == result.round and tuple(e.get("counts", ())) == counts
                      and e.get("hands") == [[str(c) for c in h] for h in result.hands]
                      for e in candidates)
        else:
            hit = False
            for seed in candidates:
                try:
                    if dealt(source, seed, result.round, counts) == (hands, community):
                        hit = True
                except Exception:
                    pass
        log(f"game {GAME['index']} round {result.round} {source}: "
            f"{'predicted' if hit else 'missed'}")


def act(view):
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]

"""Decisions per second of each kit bot against a trivial referee loop, as a ratio to
the Python SDK's: prints a table.

    (cd kits/js && npm ci) && make -C kits/c     # the kits, built as their READMEs say
    python benchmarks/bench_kits.py [--seconds 1] [--rounds 3]

For each game (Polish Poker official and polacco, Turkish poker, six-card golf) the
loop is a ROUTER here (ipc in a temp dir, as the referee) and one bot process: it
answers the bot's hello with a welcome, sends one ``game_start``, then ``act`` after
``act``, each the game's first ``referee check`` turn (a real view) with a fresh ``seq``,
and waits for the reply (whose ``seq`` must be that request's). Three bots per game:
the JavaScript kit's, the C kit's, and the Python SDK (``protocol.host``) hosting a bot
that returns the turn's legal action at once: the SDK's cost alone, so the kit bots,
which also think (the Polish Poker bots weigh every declaration of the ladder), are
held to the cheapest Python bot. All bots are started first; then ``--rounds`` rounds
time each for ``--seconds`` in turn, and the best round of each counts (other work on
the machine disturbs all alike). CPU time is the bot process's own (/proc), per
decision.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import zmq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from referee.games import load_game  # noqa: E402

GAMES = {  # label -> game, params, kit bot name
    "official": ("polish-poker", {"ruleset": "official"}, "official"),
    "polacco": ("polish-poker", {"ruleset": "polacco"}, "polacco"),
    "turkish": ("turkish-poker", {}, "turkish"),
    "golf": ("six-card-golf", {}, "golf"),
}
WARMUP = 200
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Seat:
    """One bot process behind its own ROUTER socket."""

    label: str
    proc: subprocess.Popen[bytes]
    sock: zmq.Socket
    peer: bytes
    act: dict[str, Any]
    seq: int = 0
    best_dps: float = 0.0
    best_cpu_us: float = 0.0

    def decide(self) -> None:
        self.seq += 1
        self.act["seq"] = self.seq
        self.sock.send_multipart([self.peer, msgpack.packb(self.act)])
        reply = msgpack.unpackb(self.sock.recv_multipart()[1])
        if reply.get("seq") != self.seq or "action" not in reply:
            raise RuntimeError(f"{self.label}: bad reply {reply!r}")

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def time(self, seconds: float) -> None:
        n, cpu0, t0 = 0, self.cpu_s(), time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            self.decide()
            n += 1
        wall, cpu = time.perf_counter() - t0, self.cpu_s() - cpu0
        if n / wall > self.best_dps:
            self.best_dps, self.best_cpu_us = n / wall, cpu / n * 1e6


def start(label: str, command: list[str], game: str, params: dict[str, Any],
          view: dict[str, Any], ctx: zmq.Context, folder: Path) -> Seat:
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 0
    endpoint = f"ipc://{folder}/{label.replace(' ', '-')}"
    sock.bind(endpoint)
    env = {**os.environ, "REFEREE_ENDPOINT": endpoint, "REFEREE_TOKEN": "bench",
           "REFEREE_GAME": game}
    proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL)
    if not sock.poll(30_000):
        proc.kill()
        raise RuntimeError(f"{label}: no hello")
    peer, _ = sock.recv_multipart()
    sock.send_multipart([peer, msgpack.packb({"type": "welcome", "protocol": 2,
                                              "name": label, "limits": {}})])
    seat = Seat(label, proc, sock, peer, {"type": "act", "view": view, "results": [],
                                          "deadline_ms": 6000,
                                          "time": {"move_ms": 1000, "bank_ms": 5000}})
    seat.seq += 1
    sock.send_multipart([peer, msgpack.packb({
        "type": "game_start", "seq": seat.seq, "game": game, "game_id": "0",
        "seat": view["seat"], "players": view["players"], "seed": 1, "params": params,
        "time": {"move_ms": 1000, "bank_ms": 5000}})])
    try:
        for _ in range(WARMUP):
            seat.decide()
    except BaseException:
        proc.kill()
        raise
    return seat


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="per bot per round")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    js, c = ROOT / "kits" / "js", ROOT / "kits" / "c" / "build"
    if not (js / "node_modules").is_dir() or not c.is_dir():
        print("build the kits first: (cd kits/js && npm ci) && make -C kits/c")
        return 2
    ctx = zmq.Context()
    seats: list[tuple[str, list[Seat]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-kits-") as tmp:
        folder = Path(tmp)
        try:
            for label, (game, params, bot) in GAMES.items():
                turn = load_game(game, params).check_turns()[0]
                view, action = turn.engine.view(turn.engine.current_seat), turn.legal
                trivial = folder / f"{label}_sdk.py"
                trivial.write_text(  # the turn's action, parsed once, as the game's object
                    "from referee.games import load_game\n"
                    f"ACTION = load_game({game!r}, {params!r}).parse_action({action!r})\n\n\n"
                    "def act(view):\n    return ACTION\n")
                commands = {"python sdk": [sys.executable, "-m", "protocol.host", str(trivial)],
                            "js kit": ["node", str(js / f"{bot}_bot.js")],
                            "c kit": [str(c / f"{bot}_bot")]}
                seats.append((label, [start(f"{label} {k}", cmd, game, params, view, ctx,
                                            folder) for k, cmd in commands.items()]))
            load = os.getloadavg()[0]
            for _ in range(args.rounds):
                for _, trio in seats:
                    for seat in trio:
                        seat.time(args.seconds)
        finally:
            for _, trio in seats:
                for seat in trio:
                    seat.proc.kill()
                    seat.proc.wait()
                    seat.sock.close()
            ctx.destroy(linger=0)  # also the socket of a bot that failed to start
    print(f"{os.cpu_count()} cores, load average {load:.2f} at start, "
          f"{os.getloadavg()[0]:.2f} at the end; best of {args.rounds} rounds of "
          f"{args.seconds:g} s per bot")
    print("x Python SDK: decisions per second over the SDK's (wall clock; higher is faster), "
          "and the SDK's CPU per decision over the bot's (the work alone; higher is cheaper)")
    print(f"{'game':<10}{'bot':<12}{'decisions/s':>13}{'x Python SDK':>14}{'CPU µs/dec':>12}"
          f"{'x Python SDK':>14}")
    for label, trio in seats:
        base = trio[0]
        for seat in trio:
            print(f"{label:<10}{seat.label.removeprefix(label + ' '):<12}"
                  f"{seat.best_dps:>13,.0f}{seat.best_dps / base.best_dps:>14.2f}"
                  f"{seat.best_cpu_us:>12.0f}"
                  f"{base.best_cpu_us / max(seat.best_cpu_us, 1e-9):>14.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

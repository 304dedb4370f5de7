"""The kit libraries against a bare referee loop (a ROUTER here, a kit bot there): a
reply carries its request's own ``seq`` whatever that is (never a count), a view the
bot cannot handle gets an ``error`` reply and the bot plays on, and ``bye`` ends it
with exit code 0."""

from __future__ import annotations

import os
import random
import subprocess

import msgpack
import pytest
import zmq

from referee.games import load_game


def request(sock: zmq.Socket, peer: bytes, message: dict) -> dict:
    sock.send_multipart([peer, msgpack.packb(message)])
    assert sock.poll(30_000), f"no reply to {message['type']}"
    return msgpack.unpackb(sock.recv_multipart()[1])


@pytest.mark.parametrize("kit", ["js", "c"])
def test_kit_echoes_seq_reports_errors_and_exits_on_bye(kit_bot, tmp_path, kit):
    bot = kit_bot(kit, "golf")
    turn = load_game("six-card-golf").check_turns()[0]
    view = turn.engine.view(turn.engine.current_seat)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 0
    endpoint = f"ipc://{tmp_path}/router"
    sock.bind(endpoint)
    proc = subprocess.Popen([str(bot)], cwd=bot.parent, stdin=subprocess.DEVNULL,
                            stderr=subprocess.PIPE,
                            env={**os.environ, "REFEREE_ENDPOINT": endpoint,
                                 "REFEREE_TOKEN": "t0ken", "REFEREE_GAME": "six-card-golf"})
    try:
        assert sock.poll(30_000), "no hello"
        peer, frame = sock.recv_multipart()
        hello = msgpack.unpackb(frame)
        assert (hello["type"], hello["token"], hello["protocol"]) == ("hello", "t0ken", 2)
        sock.send_multipart([peer, msgpack.packb({"type": "welcome", "protocol": 2,
                                                  "name": "golf", "limits": {}})])
        rng = random.Random(kit)
        sock.send_multipart([peer, msgpack.packb({
            "type": "game_start", "seq": rng.randrange(2**53), "game": "six-card-golf",
            "game_id": "0", "seat": view["seat"], "players": 2, "seed": 5, "params": {},
            "time": {"move_ms": 1000, "bank_ms": 0}})])
        broken = {**view, "phase": "place", "drawn": None, "legal": []}
        for seq, shown in [(rng.randrange(2**53), view), (rng.randrange(2**31), broken),
                           (7, view), (2**53 - 1, view)]:
            reply = request(sock, peer, {"type": "act", "view": shown, "results": [],
                                         "deadline_ms": 1000,
                                         "time": {"move_ms": 1000, "bank_ms": 0}, "seq": seq})
            assert reply["type"] == "action" and reply["seq"] == seq
            if shown is broken:
                assert set(reply) == {"type", "seq", "error"} and reply["error"]
            else:
                assert set(reply) == {"type", "seq", "action"}
                assert reply["action"] in view["legal"]
        sock.send_multipart([peer, msgpack.packb({"type": "bye", "seq": 12345})])
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
        ctx.destroy(linger=0)

"""The hub's clock: a reply that waited on the socket while the referee was busy is not
charged for the referee's work (real ROUTER, a real DEALER in this process)."""

from __future__ import annotations

import threading
import time

import msgpack
import zmq

from referee.hub import Hub


def connected() -> tuple[Hub, zmq.Socket, object]:
    hub: Hub[object] = Hub()
    peer = object()
    token = hub.new_token(peer, "probe")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger = 0
    dealer.connect(hub.endpoint)
    dealer.send(msgpack.packb({"type": "hello", "token": token, "protocol": 1}))
    deadline = time.monotonic() + 5
    while not any(i.hello for i in hub.poll(50)):
        assert time.monotonic() < deadline, "no hello"
    assert dealer.poll(5000)
    dealer.recv()  # welcome
    return hub, dealer, peer


def test_a_reply_that_waited_while_the_referee_worked_is_stamped_when_the_work_began():
    hub, dealer, peer = connected()
    try:
        hub.poll(0)  # the referee goes to work now
        work_began = time.perf_counter()
        dealer.send(msgpack.packb({"type": "action", "seq": 1, "action": {"kind": "call"}}))
        time.sleep(0.05)  # the referee's own work: 50 ms
        items = hub.poll(100)
        assert [i.peer for i in items] == [peer]
        assert items[0].received_at <= work_began  # not 50 ms later
    finally:
        dealer.close()
        hub.close()


def test_a_reply_the_referee_waited_for_is_stamped_when_it_came():
    hub, dealer, peer = connected()
    sent: list[float] = []

    def reply() -> None:  # the bot answers 20 ms into the referee's wait
        sent.append(time.perf_counter())
        dealer.send(msgpack.packb({"type": "action", "seq": 1, "action": {"kind": "call"}}))

    try:
        hub.poll(0)
        timer = threading.Timer(0.02, reply)
        timer.start()
        items = hub.poll(1000)
        timer.join()
        assert [i.peer for i in items] == [peer]
        assert sent[0] <= items[0].received_at <= time.perf_counter()
    finally:
        dealer.close()
        hub.close()

"""Connecting to the Dask cluster of ``--cluster``: its address, its security, its workers.

``local:N`` starts a ``LocalCluster`` of N worker processes on this host that speaks
``tls://`` with mutual authentication under a key made for it alone
(``Security.temporary()``: in this process's memory and its workers'), so that no other
user of the host can connect to it and run code on its workers. Another address is
Dask's: ``tls://`` takes its certificates from Dask's configuration
(``distributed.comm.tls.*``); an unencrypted one (``tcp://``) lets anyone who reaches the
scheduler run code on the workers, which see the deal secret, so a run whose bots are not
trusted (a sandbox) refuses it unless the host says ``--cluster-insecure``.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CONNECT_TIMEOUT_S = 10.0      # for the scheduler to answer
CLOSE_TIMEOUT_S = 5.0         # for a lost or hung scheduler to let the client go
THREADS_PER_WORKER = 2        # of each worker of ``--cluster local:N``: BATCHES_PER_WORKER
ENCRYPTED = ("tls://", "wss://")
# For ``local:N``'s workers: Dask's statistical profiler samples every thread of a worker
# 100 times a second, CPU taken from the games on the host that plays them.
LOCAL_CONFIG = {"distributed.worker.profile.enabled": False}


class ClusterError(RuntimeError):
    """A cluster that cannot be used: a bad address, nobody answers, no worker comes."""


@dataclass
class Cluster:
    """A connection to a Dask scheduler (and the ``LocalCluster`` behind it, if ours).
    ``wait_s``: how long the run waits for a worker when there is none (0: for ever)."""

    address: str
    client: Any
    local: Any = None
    wait_s: float = 0.0

    def close(self) -> None:
        try:
            self.client.close(timeout=CLOSE_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - a client whose scheduler is gone may fail to
            pass  # close (distributed's reconnect: "IOStream is not idle"); it is let go
        finally:
            if self.local is not None:
                self.local.close()


def connect(address: str, wait_s: float = 0.0, insecure: bool = False,
            trusted: bool = False, note: Callable[[str], None] = print) -> Cluster:
    """``tls://HOST:PORT`` (any Dask address) or ``local:N``, connected once a worker is
    there (``note`` says that it waits; ``wait_s``: for at most that long, 0: for ever).
    ClusterError if the extra is missing, the address is refused or unencrypted for
    untrusted bots (``trusted``) without ``insecure``, nobody answers, no worker comes."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install "
                           "'card-bot-referee[cluster]'") from None
    # What goes wrong the coordinator says in one line; Dask's own log lines (a lost
    # connection, its retries) would repeat it on the terminal.
    for name in [n for n in logging.root.manager.loggerDict if n.startswith("distributed")]:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if address.startswith("local:"):
        return _local(address, wait_s)
    if "://" not in address:
        raise ClusterError(f"--cluster {address}: give a scheduler address such as "
                           "tls://HOST:8786, or local:N")
    if not address.startswith(ENCRYPTED) and not (trusted or insecure):
        raise ClusterError(f"--cluster {address}: an unencrypted scheduler lets anyone who "
                           "reaches it run code on the workers; use tls:// (docs/cluster.md), "
                           "or --cluster-insecure on a network only you can reach")
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(f"--cluster {address}: no Dask scheduler answers there "
                           f"({first[:200]})") from None
    cluster = Cluster(address, client, wait_s=wait_s)
    try:
        wait_for_worker(cluster, note)
    except ClusterError:
        client.close()
        raise
    return cluster


def wait_for_worker(cluster: Cluster, note: Callable[[str], None]) -> None:
    """Return once the scheduler has a worker, saying so if it has none yet; ClusterError
    after ``cluster.wait_s``."""
    client = cluster.client
    if client.scheduler_info()["workers"]:
        return
    limit = f"at most {cluster.wait_s:g} s, --cluster-wait" if cluster.wait_s else \
        "no limit: --cluster-wait 0"
    note(f"waiting for a Dask worker at {cluster.address} ({limit})")
    try:
        client.wait_for_workers(1, timeout=cluster.wait_s or None)
    except TimeoutError:
        raise ClusterError(f"--cluster {cluster.address}: no Dask worker came in "
                           f"{cluster.wait_s:g} s (--cluster-wait)") from None


def _local(address: str, wait_s: float) -> Cluster:
    """``local:N``: a LocalCluster of N worker processes, TLS with a key of its own."""
    import dask
    from distributed import Client, LocalCluster
    from distributed.security import Security

    try:
        n = int(address.removeprefix("local:"))
        if n < 1:
            raise ValueError
    except ValueError:
        raise ClusterError(f"--cluster {address}: write local:N with N a number of "
                           "workers, 1 or more") from None
    try:
        security = Security.temporary()
    except ImportError:
        raise ClusterError("--cluster local:N needs the package cryptography: pip install "
                           "'card-bot-referee[cluster]'") from None
    # A Ctrl-C on the terminal is the coordinator's to handle (it ends the workers'
    # games itself): the worker processes are started with SIGINT ignored, which they
    # keep (Python and asyncio leave an ignored SIGINT alone). What fails in a task
    # the coordinator reports in one line: the workers' own logs would repeat it.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with dask.config.set(LOCAL_CONFIG):
            # The scheduler serves HTTP (health) even without a dashboard, by default on
            # port 8787: on a free loopback port instead, so that another Dask there is
            # neither met nor warned about.
            local = LocalCluster(n_workers=n, threads_per_worker=THREADS_PER_WORKER,
                                 processes=True, dashboard_address="127.0.0.1:0",
                                 scheduler_kwargs={"dashboard": False}, host="127.0.0.1",
                                 security=security, protocol="tls://",
                                 silence_logs=logging.CRITICAL)
    finally:
        signal.signal(signal.SIGINT, previous)
    return Cluster(address, Client(local, security=security), local, wait_s)

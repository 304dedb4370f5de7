"""`--sandbox bwrap`: untrusted bots get no network, a read-only system and one
writable directory, and still play over the referee's ipc endpoint."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFEREE = str(Path(sys.executable).with_name("referee"))
HAVE_BWRAP = shutil.which("bwrap") is not None


@pytest.fixture
def listener():
    """A TCP port on loopback that accepts connections: the network a bot must not reach."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


def run_probe(tmp_path: Path, port: int, sandbox: str) -> subprocess.CompletedProcess[str]:
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("probe.py",):
        shutil.copy(ROOT / "tests" / "bots" / name, bots / name)
    shutil.copy(ROOT / "bots" / "caller.py", bots / "caller.py")
    (bots / "probe_port.txt").write_text(str(port))
    home = tmp_path / "home"  # where an unsandboxed probe writes, instead of the real HOME
    home.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "HOME": str(home)}
    return subprocess.run(
        [REFEREE, "run", "--bots", str(bots / "probe.py"), str(bots / "caller.py"),
         "--games", "2", "--seed", "3", "--sandbox", sandbox, "--out", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, timeout=180)


def probe_report(tmp_path: Path) -> set[str]:
    text = (tmp_path / "run" / "logs" / "probe.0.stderr.log").read_text()
    return {line for line in text.splitlines() if ": " in line}


@pytest.mark.skipif(not HAVE_BWRAP, reason="covered by test_missing_bwrap_is_a_clear_error")
def test_bwrap_blocks_network_and_writes_outside_its_directory(tmp_path, listener):
    res = run_probe(tmp_path, listener, "bwrap")
    assert res.returncode == 0, res.stderr
    assert probe_report(tmp_path) == {"network: blocked", "write beside me: blocked",
                                      "write home: ok"}
    assert not (tmp_path / "bots" / "written.txt").exists()
    assert (tmp_path / "run" / "sandbox" / "probe.0" / "written.txt").read_text() == "x"
    games = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    assert len(games) == 2 and '"faults":[]' in games[0] and '"faults":[]' in games[1]


def test_without_a_sandbox_the_probe_gets_through(tmp_path, listener):
    """The control: the same probe, trusted, reaches the network and writes beside
    itself, so the sandboxed test above can fail."""
    res = run_probe(tmp_path, listener, "none")
    assert res.returncode == 0, res.stderr
    assert probe_report(tmp_path) == {"network: ok", "write beside me: ok",
                                      "write home: ok"}
    assert (tmp_path / "home" / "written.txt").exists()


@pytest.mark.skipif(HAVE_BWRAP, reason="bwrap is installed: the sandbox itself is tested")
def test_missing_bwrap_is_a_clear_error(tmp_path, listener):
    res = run_probe(tmp_path, listener, "bwrap")
    assert res.returncode == 2
    assert "needs bubblewrap" in res.stderr and "Traceback" not in res.stderr

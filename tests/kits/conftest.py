"""The bot kits built as an author builds them: the JavaScript kit's dependencies from
npm (``npm ci``), the C kit with ``make``, each into a folder that bots of other users
(a root referee runs each sandboxed bot as a uid of its own) can read."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "kits"


def open_to_all(top: Path) -> None:
    for path in [top, *top.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))


@pytest.fixture(scope="session")
def arena() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="referee-kits-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def js_kit(arena: Path) -> Path:
    """kits/js with its node_modules installed from the registry (``npm ci``)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("the JavaScript kit needs node and npm (Debian: nodejs npm)")
    kit = arena / "js"
    shutil.copytree(KITS / "js", kit, ignore=shutil.ignore_patterns("node_modules"))
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=kit,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
    open_to_all(kit)
    return kit


@pytest.fixture(scope="session")
def c_kit(arena: Path) -> Path:
    """kits/c built with ``make`` into a folder of its own (the bots' directory)."""
    have = shutil.which("make") and shutil.which(os.environ.get("CC", "cc")) \
        and shutil.which("pkg-config") and subprocess.run(
            ["pkg-config", "--exists", "libzmq", "msgpack"]).returncode == 0
    if not have:
        pytest.skip("the C kit needs make, a C compiler and pkg-config's libzmq and msgpack "
                    "(Debian: gcc make pkg-config libzmq3-dev libmsgpack-dev)")
    build = arena / "c"
    done = subprocess.run(["make", "-C", str(KITS / "c"), f"BUILD={build}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"make failed:\n{done.stdout}\n{done.stderr}"
    open_to_all(build)
    return build


@pytest.fixture
def kit_bot(request: pytest.FixtureRequest) -> Callable[[str, str], Path]:
    """``kit_bot(kit, name)``: the bot ``name`` (``official``, ``polacco``, ``turkish``,
    ``golf``) of the built kit ``js`` or ``c``."""
    def find(kit: str, name: str) -> Path:
        if kit == "js":
            return request.getfixturevalue("js_kit") / f"{name}_bot.js"
        return request.getfixturevalue("c_kit") / f"{name}_bot"
    return find

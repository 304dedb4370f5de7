"""Shared plumbing of the robustness tests (not a test module).

Every test runs the real ``referee`` command in a subprocess, with real bot processes,
and a ``TMPDIR`` of its own, so that the temporary folders the referee makes (its ipc
socket's, ``check``'s) can be looked for afterwards. ``small_disk`` mounts a tmpfs of a
given size (root only; the test is skipped with the reason where mounting is refused).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
POLISH = ROOT / "bots" / "polish_poker"
BIN = Path(sys.executable).parent
REFEREE = BIN / "referee"
HERE = Path(__file__).resolve().parent
ESC = "\x1b"


def bots(tmp_path: Path, *names: str) -> list[str]:
    """Private copies of bots: from ``bots/``, ``tests/bots`` or this folder."""
    d = tmp_path / "bots"
    d.mkdir(exist_ok=True)
    out = []
    for name in names:
        src = next(p for p in (POLISH / name, ROOT / "tests" / "bots" / name,
                               HERE / name, ROOT / "tests" / "hostile" / name) if p.exists())
        shutil.copy(src, d / name)
        out.append(str(d / name))
    return out


def referee(*args: str, tmp: Path, cwd: Path | None = None, timeout: float = 120,
            **popen: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(REFEREE), *args], cwd=cwd or ROOT, env=env(tmp),
                          capture_output=True, text=True, timeout=timeout, **popen)


def start(*args: str, tmp: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([str(REFEREE), *args], cwd=ROOT, env=env(tmp),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp), "COLUMNS": "200",
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba-cache"))}


def one_error(res: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """The run ended with ``code`` and exactly one line on stderr (no traceback), which
    holds ``words``; that line."""
    assert res.returncode == code, (res.returncode, res.stdout, res.stderr)
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1, res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    for w in words:
        assert w in err[0], (w, err[0])
    return err[0]


def journal(run: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every line of both journal files, parsed: a torn or bad line fails the test."""
    def lines(name: str) -> list[dict[str, Any]]:
        text = (run / name).read_text() if (run / name).exists() else ""
        assert text == "" or text.endswith("\n"), f"{name} ends in a torn line"
        return [json.loads(ln) for ln in text.splitlines()]
    return lines("games.jsonl"), lines("transcripts.jsonl")


@contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where``; skips the test if it cannot be."""
    where.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({res.stderr.strip()}): the full-disk "
                    "behaviour needs root and mount")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def grow(disk: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(disk)], check=True)

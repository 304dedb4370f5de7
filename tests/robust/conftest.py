"""Fixtures of the robustness tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def tmpdir_env() -> Iterator[Path]:
    """A fresh, short TMPDIR for the referee (ipc paths must stay short); the test
    checks it is empty again afterwards."""
    d = Path(tempfile.mkdtemp(prefix="rbt-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)

"""A real headless Chromium for the tests of the HTML pages (leaderboard, replay).

Debian's ``chromium`` (``/usr/bin/chromium``, installed by ``.ci/run``) driven by
Playwright's Python package (the ``test`` extra) through its own driver: no browser is
downloaded. Where either is missing, these tests skip and say which; CI always has both.
The ``page`` fixture records every console error and uncaught exception of the page, so
a test asserts that there were none, and ``shot`` saves a screenshot under the test's
temporary folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("REFEREE_TEST_CHROMIUM") or shutil.which("chromium") or ""
# Without the background-networking flags Chromium keeps trying to reach Google's hosts,
# which a closed network refuses; as root it needs --no-sandbox.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@dataclass
class BrowserPage:
    """A page in headless Chromium with what went wrong on it."""

    page: Any  # playwright.sync_api.Page
    folder: Path
    errors: list[str] = field(default_factory=list)

    def open(self, path: Path, fragment: str = "") -> None:
        """Load a local file as a person would: from a ``file://`` URL."""
        self.page.goto(path.resolve().as_uri() + (f"#{fragment}" if fragment else ""))

    def shot(self, name: str) -> Path:
        """A screenshot of the whole page, saved under the test's temporary folder."""
        path = self.folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (pip install -e '.[test]')")
    if not CHROMIUM:
        pytest.skip("no Chromium: install Debian's chromium package (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Any, tmp_path: Path) -> Iterator[BrowserPage]:
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    result = BrowserPage(tab, tmp_path)
    tab.on("console", lambda m: result.errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda exc: result.errors.append(str(exc)))
    yield result
    context.close()

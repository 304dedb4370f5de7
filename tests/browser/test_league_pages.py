"""The league's pages in a real headless Chromium against the real ``referee league
serve`` (real SQLite, real bots in the sandbox, uvicorn on 127.0.0.1): an author signs in
with the form (after a wrong token, refused), uploads an oversized file, a bad zip and a
zip with a path out of its folder (each refused with its reason), a broken bot (refused,
the check's output shown) and a zipped
package bot (taken), sees it play and reach the leaderboard, reads its logs but not
another author's, opens a replay, and signs out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from league_web_kit import ILLEGAL, PACKAGE, League, make_league, serving, zip_of  # noqa: E402

from referee.league.botzip import MAX_ZIP_BYTES  # noqa: E402

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
WAIT_MS = 90_000  # for a batch of games on a loaded machine


@pytest.fixture
def league(tmp_path: Path) -> League:
    return make_league(tmp_path / "L")


def shown_errors(page: Any) -> list[str]:
    """The page's console errors but for the browser's note of each refused request
    (the refusals are what the test asks for)."""
    return [e for e in page.errors if "Failed to load resource" not in e]


def test_sign_in_upload_play_logs_replay(page: Any, league: League, tmp_path: Path) -> None:
    bundle = tmp_path / "pkg.zip"
    bundle.write_bytes(zip_of({f"pkg/{k}": v for k, v in PACKAGE.items()}))
    with serving(league.home) as url:
        tab = page.page
        tab.goto(f"{url}/signin")
        tab.fill('input[name="token"]', "not-a-token")  # a wrong token: said so
        tab.click("text=Sign in >> nth=-1")
        assert "unknown token" in tab.locator("p.error").text_content()
        tab.fill('input[name="token"]', league.bob)
        tab.click("text=Sign in >> nth=-1")  # the form's button, not the nav's link
        tab.wait_for_url(f"{url}/me")
        assert tab.locator("h1").text_content() == "bob: my bots"

        # Bad uploads: each refused with its reason, before any check.
        for name, data, why in [
                ("big.zip", bytes(MAX_ZIP_BYTES + 1), "over"),
                ("bad.zip", b"PK\x03\x04 not a zip", "not a zip"),
                ("evil.zip", zip_of({**PACKAGE, "../../escape.py": b"x"}), "'..'")]:
            tab.set_input_files('input[name="bot"]', files=[
                {"name": name, "mimeType": "application/zip", "buffer": data}])
            tab.click("#upload button")
            tab.wait_for_selector("#upload-status.error", timeout=WAIT_MS)
            assert why in tab.locator("#upload-status").text_content(), name
            tab.evaluate("document.getElementById('upload-status').className = ''")

        # A broken bot: refused, with the check's output shown as text.
        tab.set_input_files('input[name="bot"]', str(ILLEGAL))
        tab.click("#upload button")
        tab.wait_for_selector("#upload-status.error", timeout=WAIT_MS)
        check = tab.locator("#upload-check")
        assert check.is_visible() and "illegal action" in check.text_content()
        assert "refused" in tab.locator("#upload-status").text_content()

        # A zipped package bot: taken, and in the pool.
        tab.set_input_files('input[name="bot"]', str(bundle))
        tab.click("#upload button")
        tab.wait_for_selector("#upload-status.added", timeout=WAIT_MS)
        assert "bob.pkg.v1" in tab.locator("#upload-status").text_content()
        assert not tab.locator("#upload-check").is_visible()

        # It plays (the newest bot has the fewest games) and shows on the leaderboard;
        # its rating history gains a row at the next refit (serve --refit-every).
        tab.goto(f"{url}/bots/bob.pkg.v1")
        deadline_ms = WAIT_MS
        while "not rated yet" in tab.locator(".summary").text_content() \
                or not tab.locator("table.history tbody tr").count():
            assert deadline_ms > 0, "bob.pkg.v1 did not play, or no refit rated it"
            tab.wait_for_timeout(500)
            deadline_ms -= 500
            tab.reload()
        assert tab.locator("table.history tbody tr").count() >= 1
        assert tab.locator("table.h2h tbody tr").count() >= 1
        tab.goto(url)
        assert tab.get_by_text("bob.pkg.v1").count() >= 1

        # Its own logs, from its page; another author's are refused.
        tab.goto(f"{url}/bots/bob.pkg.v1")
        tab.click("a.logs")
        tab.wait_for_url(f"{url}/bots/bob.pkg.v1/logs")
        assert tab.locator("pre.log").count() >= 2  # stdout and stderr
        answer = tab.goto(f"{url}/bots/alice.caller.v1/logs")
        assert answer.status == 403
        assert "author" in tab.locator("p.error").text_content()

        # A replay of a finished deal, in the replay viewer.
        tab.goto(f"{url}/games")
        tab.locator("a.replay").first.click()
        tab.wait_for_selector("#table .seat", timeout=WAIT_MS)

        tab.goto(f"{url}/me")
        tab.click("nav button")  # sign out
        tab.wait_for_url(f"{url}/")
        assert tab.locator('nav a[href="/signin"]').count() == 1
        assert tab.goto(f"{url}/me").url == f"{url}/signin"
    assert shown_errors(page) == []

"""The browser fixture itself: a page's console errors are seen (so a test that asserts
there are none can fail), and a screenshot is a real PNG."""

from pathlib import Path


def test_a_console_error_and_an_uncaught_exception_are_recorded(page, tmp_path: Path) -> None:
    html = tmp_path / "p.html"
    html.write_text("<!doctype html><p id=x>ok</p><script>console.error('boom');"
                    "setTimeout(() => { throw new Error('late') }, 0)</script>")
    page.open(html)
    page.page.wait_for_timeout(100)
    assert page.page.inner_text("#x") == "ok"
    assert any("boom" in e for e in page.errors) and any("late" in e for e in page.errors)
    assert page.shot("p").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

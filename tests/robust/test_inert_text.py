"""Text a bot controls is data everywhere it shows: its name (given, or its file's), what
it prints, errors about it. On the terminal no Rich markup, emoji code or escape
sequence takes effect; Markdown and HTML escape it; a CSV cell never starts a formula;
a name never leads a log file out of ``logs/``. Real referee processes, real bots."""

from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from harness import assert_nothing_left  # noqa: E402
from support import ESC, bots, one_error, referee  # noqa: E402

from leaderboards import inert  # noqa: E402

MARKUP = "[red]x[bold]:smile:"   # Rich markup and an emoji code, in a legal name
FORMULA = "@SUM(1)|x"            # a spreadsheet formula, and a Markdown cell break
HTML = "<b>&amp;"


def test_names_with_markup_formulas_and_html_are_shown_as_they_are(tmp_path, tmpdir_env):
    caller, rnd, rnd2 = bots(tmp_path, "caller.py", "random_bot.py", "chatty.py")
    run = tmp_path / "run"
    res = referee("run", "--bots", f"{MARKUP}={caller}", f"{FORMULA}={rnd}", f"{HTML}={rnd2}",
                  "--games", "6", "--seed", "2", "--out", str(run), tmp=tmpdir_env)
    assert res.returncode == 0, res.stderr
    assert MARKUP in res.stdout and FORMULA in res.stdout and HTML in res.stdout
    assert ESC not in res.stdout + res.stderr and "😄" not in res.stdout
    rows = list(csv.DictReader((run / "leaderboard.csv").open()))
    assert {r["bot"] for r in rows} == {MARKUP, "'" + FORMULA, HTML}
    md = (run / "leaderboard.md").read_text()
    assert "@SUM(1)\\|x" in md and "&lt;b>&amp;amp;" in md and "[bold\\]:smile:" in md
    html = (run / "leaderboard.html").read_text()
    assert "<b>" not in html and "&lt;b&gt;&amp;amp;" in html
    logs = sorted(p.name for p in (run / "logs").iterdir())
    assert f"{MARKUP}.0.stderr.log" in logs and f"{HTML}.0.stdout.log" in logs
    assert list(tmpdir_env.iterdir()) == []


@pytest.mark.parametrize(("name", "why"), [
    ("../x", "has a '/'"),
    ("/etc/passwd", "has a '/'"),
    ("..", "is not a file name"),
    ("x" * 65, "longer than 64"),
    (f"a{ESC}[2Jb", "control or invisible"),
    ("a\u202eb", "control or invisible"),
    ("a\nb", "control or invisible"),
])
def test_a_name_that_could_leave_logs_or_hide_text_is_refused(tmp_path, tmpdir_env, name, why):
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    run = tmp_path / "run"
    res = referee("run", "--bots", f"{name}={caller}", rnd, "--out", str(run), tmp=tmpdir_env)
    line = one_error(res, 2, "bot name", why, "NAME=FILE")
    assert ESC not in line and "\u202e" not in line
    assert not run.exists()


def test_a_file_name_with_an_escape_sequence_is_refused(tmp_path, tmpdir_env):
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    odd = Path(caller).with_name(f"x{ESC}[31m.py")
    shutil.copy(caller, odd)
    res = referee("run", "--bots", str(odd), rnd, "--out", str(tmp_path / "run"),
                  tmp=tmpdir_env)
    line = one_error(res, 2, "control or invisible", "\\x1b[31m")
    assert ESC not in line


def test_names_that_would_share_log_files_are_refused(tmp_path, tmpdir_env):
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    res = referee("run", "--bots", caller, caller, f"caller_2={rnd}",
                  "--out", str(tmp_path / "run"), tmp=tmpdir_env)
    one_error(res, 2, "caller_2", "used twice")


def test_stderr_of_a_bot_that_fails_to_start_is_inert_in_run(tmp_path, tmpdir_env):
    shouter, caller = bots(tmp_path, "shouter", "caller.py")
    res = referee("run", "--bots", shouter, caller, "--strict-start",
                  "--out", str(tmp_path / "run"), tmp=tmpdir_env)
    line = one_error(res, 3, "bot shouter", "exited with code 7",
                     "[/] [bold red]boom[/]", ":smile:", "\\x1b[2J", "\\x07", "\\r")
    assert ESC not in res.stderr and "\r" not in res.stderr and "\x07" not in res.stderr
    assert line.count("\\x1b") == 2
    assert_nothing_left(tmp_path)


def test_stderr_of_a_bot_that_fails_to_start_cannot_give_sprt_a_verdict(tmp_path, tmpdir_env):
    """`[/]` used to raise Rich's MarkupError: exit 1, which `sprt` means as H0."""
    shouter, caller = bots(tmp_path, "shouter", "caller.py")
    res = referee("sprt", "--candidate", caller, "--baseline", shouter,
                  "--out", str(tmp_path / "run"), tmp=tmpdir_env)
    one_error(res, 3, "bot shouter", "[/]")
    assert ESC not in res.stderr


def test_stderr_of_a_bot_is_inert_in_check(tmp_path, tmpdir_env):
    (shouter,) = bots(tmp_path, "shouter")
    res = referee("check", shouter, "--out", str(tmp_path / "check"), tmp=tmpdir_env)
    assert res.returncode == 3, res.stdout
    fail = [ln for ln in res.stdout.splitlines() if ln.startswith("FAIL")]
    assert len(fail) == 1 and "[/] [bold red]boom[/]" in fail[0] and "\\x1b[2J" in fail[0]
    assert ESC not in res.stdout + res.stderr
    assert list(tmpdir_env.iterdir()) == []


def test_verify_and_rate_show_journalled_names_inert(tmp_path, tmpdir_env):
    """A journal edited to hold hostile names: what the commands print stays inert."""
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    run = tmp_path / "run"
    assert referee("run", "--bots", caller, rnd, "--games", "2", "--out", str(run),
                   tmp=tmpdir_env).returncode == 0
    games = run / "games.jsonl"
    games.write_text(games.read_text().replace('"caller"', '"[/]\\u001b[2Jcaller"'))
    res = referee("verify", str(run), tmp=tmpdir_env)
    one_error(res, 1, "[/]\\x1b[2Jcaller")
    rated = referee("rate", str(run), "--out", str(tmp_path / "rated"), tmp=tmpdir_env)
    assert rated.returncode == 0, rated.stderr
    assert "[/]\\x1b[2Jcaller" in rated.stdout and ESC not in rated.stdout


@pytest.mark.parametrize(("text", "shown"), [
    ("a\x1b[31mb", "a\\x1b[31mb"),
    ("tab\there", "tab\\there"),
    ("bidi\u202eevil", "bidi\\u202eevil"),
    ("zero\u200bwidth", "zero\\u200bwidth"),
    ("line\u2028sep", "line\\u2028sep"),
    ("ok: caller, 1.5 [1] é", "ok: caller, 1.5 [1] é"),
])
def test_visible_escapes_what_a_terminal_would_act_on(text, shown):
    assert inert.visible(text) == shown
    assert inert.terminal(text).plain == shown


@pytest.mark.parametrize(("text", "md"), [
    ("[x](http://evil)", "[x\\](http://evil)"),
    ("![i](http://evil/t.png)", "![i\\](http://evil/t.png)"),
    ("<script>", "&lt;script>"),
    ("&lt;", "&amp;lt;"),
    ("a|b*c_d`e\\f", "a\\|b\\*c\\_d\\`e\\\\f"),
    ("~~gone~~", "\\~\\~gone\\~~"),  # a closer without an opener is text
    (">= 12.5 [1]", ">= 12.5 [1]"),
    ("~ 0.0", "~ 0.0"),
])
def test_markdown_escapes_markup(text, md):
    assert inert.markdown(text) == md


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@x", "\t=1", "\r=1"])
def test_csv_cells_never_start_a_formula(text):
    cell = inert.csv_cell(text)
    assert cell[0] not in "=+-@\t\r"


def test_html_escapes_markup_and_controls():
    assert inert.html('<a href="x">\x1b') == "&lt;a href=&quot;x&quot;&gt;\\x1b"

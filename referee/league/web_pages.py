"""The league's HTML pages: built from a ``web_data.Snapshot``, every text a bot or an
author chose (names, fault details, logs) escaped with ``leaderboards.inert.html``.

The pages: the games list (each with its replay once its duplicate group is whole), a
bot's page (rating history, head to head, recent games; its faults and logs for its
author and the admin), the signed-in author's page (their bots, the upload form), a
bot's logs, the sign-in form, and errors. The leaderboard itself is the run's
``leaderboards.html`` (``leaderboards.html.to_html``) with the league's links on top.
"""

from __future__ import annotations

from collections.abc import Collection
from importlib.resources import files
from typing import Any
from urllib.parse import quote

from starlette.responses import HTMLResponse

from leaderboards.charts import history_chart
from leaderboards.history import EloHistory, HistoryPoint
from leaderboards.html import CSS
from leaderboards.inert import html as esc
from referee.league import db
from referee.league.access import Session, Who
from referee.league.web_data import Snapshot

BOT_GAMES = 30  # on a bot's page
FAULTS_SHOWN = 50  # per bot, on its author's page

NAV_STYLE = ("nav{display:flex;gap:1.2em;align-items:center;padding:.6em 0;"
             "border-bottom:1px solid #ccc}nav form{margin:0 0 0 auto}")
STYLE = NAV_STYLE + """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:70em;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}
td,th{padding:.2em .7em;border-bottom:1px solid #eee;text-align:left}
pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:30em;white-space:pre-wrap}
.error{color:#a00}.muted{color:#777}"""


def bot_href(label: str) -> str:
    return f"/bots/{quote(label, safe='')}"


def nav(session: Session | None) -> str:
    links = '<a href="/">Leaderboard</a><a href="/games">Games</a>'
    if session is None:
        return f'<nav>{links}<a href="/signin">Sign in</a></nav>'
    return (f'<nav>{links}<a href="/me">{"All bots" if session.who.admin else "My bots"}'
            f'</a><form method="post" action="/signout"><input type="hidden" name="csrf" '
            f'value="{esc(session.csrf)}"><span class="who">{esc(session.who.name)}</span> '
            f'<button>Sign out</button></form></nav>')


def lines(text: str) -> str:
    """Multi-line text (a log, a crash's detail) for a ``<pre>``: each line made inert,
    the line breaks kept."""
    return "\n".join(esc(line) for line in text.split("\n"))


def layout(title: str, body: str, session: Session | None, status: int = 200,
           head: str = "") -> HTMLResponse:
    """A page: the leaderboard's style (its charts' too), then the league's."""
    return HTMLResponse(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}'
        f"</title><style>{CSS}{STYLE}</style>{head}</head><body>{nav(session)}"
        f"<h1>{esc(title)}</h1>{body}</body></html>", status_code=status)


def error_page(status: int, message: str, session: Session | None = None) -> HTMLResponse:
    return layout(f"Error {status}", f'<p class="error">{esc(message)}</p>', session, status)


def leaderboard_page(snapshot: Snapshot, session: Session | None) -> HTMLResponse:
    """The run's leaderboard page with the league's links above it."""
    if snapshot.report is None:
        listed = "".join(f'<li><a href="{bot_href(b.label)}">{esc(b.label)}</a></li>'
                         for b in snapshot.bots if b.active)
        return layout("No game yet", f"<p>Bots in the pool:</p><ul>{listed}</ul>", session)
    page = snapshot.report_html
    assert page is not None
    at = page.index("<body>") + len("<body>")
    links = "".join(f'<a href="{bot_href(b.label)}">{esc(b.label)}</a> ' for b in snapshot.bots)
    return HTMLResponse(f"{page[:at]}<style>{NAV_STYLE}</style>{nav(session)}"
                        f'<p class="bots">Bot pages: {links}</p>{page[at:]}')


def _game_rows(records: list[dict[str, Any]], whole: Collection[int]) -> str:
    """Games newest first; a replay link for each of ``whole`` (its deal all played)."""
    rows = []
    for rec in records:
        seats = ", ".join(f'<a href="{bot_href(s)}">{esc(s)}</a> ({p})'
                          for s, p in zip(rec["seats"], rec["places"], strict=False))
        faults = ", ".join(esc(f"{f.get('bot')}: {f.get('label')}") for f in rec["faults"])
        replay = (f'<a class="replay" href="/games/{rec["game"]}">replay</a>'
                  if rec["game"] in whole else '<span class="muted">deal in play</span>')
        rows.append(f'<tr data-game="{rec["game"]}"><td>{rec["game"]}</td><td>{seats}</td>'
                    f"<td>{faults}</td><td>{replay}</td></tr>")
    if not rows:
        return "<p>No game yet.</p>"
    return ('<table class="games"><thead><tr><th>game</th><th>seats (place)</th>'
            f'<th>faults</th><th></th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def games_page(snapshot: Snapshot, session: Session | None) -> HTMLResponse:
    recent = list(snapshot.recent)
    return layout("Recent games", f"<p>{snapshot.games} games; the latest {len(recent)}, "
                  "newest first. A replay is shown once every seat order of its deal has "
                  f"been played.</p>{_game_rows(recent, snapshot.whole)}", session)


def _history(snapshot: Snapshot, label: str, points: list[db.RatingPoint]) -> str:
    """The bot's rating after each refit: a chart (the leaderboard's, of one bot) and
    the table, newest first."""
    if not points:
        return "<p>Not rated yet.</p>"
    chart = "" if snapshot.report is None else history_chart(snapshot.report, EloHistory(
        tuple(p.fit_games for p in points), {label: tuple(
            None if p.elo is None else HistoryPoint(
                p.elo, None if p.lo is None or p.hi is None else (p.hi - p.lo) / 2, None)
            for p in points)}))
    rows = "".join(
        f"<tr><td>{p.fit_games}</td><td>{_num(p.elo)}</td><td>{_num(p.lo)} to {_num(p.hi)}"
        f"</td><td>{p.games}</td></tr>" for p in reversed(points))
    return (f'{chart}<table class="history"><thead><tr><th>league games at the fit</th>'
            "<th>Elo</th><th>95% interval</th><th>its games</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _head_to_head(snapshot: Snapshot, label: str) -> str:
    report = snapshot.report
    if report is None or label not in report.head_to_head.names:
        return "<p>No opponent yet.</p>"
    names, matrix = report.head_to_head.names, report.head_to_head.matrix
    i = names.index(label)
    rows = []
    for j, other in enumerate(names):
        together, ahead = matrix[i][j]
        if j == i or not together:
            continue
        behind = matrix[j][i][1]
        score = (together + ahead - behind) / (2 * together)
        rows.append(f'<tr><td><a href="{bot_href(other)}">{esc(other)}</a></td>'
                    f"<td>{together}</td><td>{ahead}</td><td>{behind}</td>"
                    f'<td class="score">{score:.3f}</td></tr>')
    if not rows:
        return "<p>No opponent yet.</p>"
    return ('<table class="h2h"><thead><tr><th>opponent</th><th>games together</th>'
            "<th>ahead</th><th>behind</th><th>score</th></tr></thead>"
            f'<tbody>{"".join(rows)}</tbody></table>')


def _faults(snapshot: Snapshot, bot: db.BotRow) -> str:
    faults = snapshot.faults_of(bot)
    if not faults:
        return '<p class="faults-none">No fault.</p>'
    rows = "".join(
        f'<tr><td><a href="/games/{f["game"]}">{f["game"]}</a></td><td>{esc(str(f.get("label")))}'
        f'</td><td><pre>{lines(str(f.get("detail", "")))}</pre></td></tr>'
        for f in faults[:FAULTS_SHOWN])
    more = f"<p>{len(faults) - FAULTS_SHOWN} older faults not shown.</p>" \
        if len(faults) > FAULTS_SHOWN else ""
    return (f'<table class="faults"><thead><tr><th>game</th><th>fault</th><th>detail</th>'
            f"</tr></thead><tbody>{rows}</tbody></table>{more}")


def bot_page(snapshot: Snapshot, bot: db.BotRow, history: list[db.RatingPoint],
             session: Session | None) -> HTMLResponse:
    row = None if snapshot.report is None else next(
        (r for r in snapshot.report.rows if r.bot == bot.label), None)
    rating = "not rated yet" if row is None or row.elo is None else (
        f"Elo {row.elo:.0f}" + ("" if row.ci95 is None else f" ± {row.ci95:.0f}")
        + f" over {row.games} games")
    state = "in the pool" if bot.active else "retired (a newer version plays)"
    body = [f'<p class="summary">By {esc(bot.author)}, version {bot.version}, {state}; '
            f"{esc(rating)}.</p>", "<h2>Rating history</h2>",
            _history(snapshot, bot.label, history),
            "<h2>Head to head</h2>", _head_to_head(snapshot, bot.label), "<h2>Recent games</h2>",
            _game_rows(games := snapshot.games_of(bot, BOT_GAMES),
                       snapshot.is_whole(r["game"] for r in games))]
    if session is not None and session.who.may_see(bot.author):
        body += ["<h2>Faults</h2>", _faults(snapshot, bot),
                 f'<p><a class="logs" href="{bot_href(bot.label)}/logs">Logs</a></p>']
    return layout(bot.label, "".join(body), session)


def me_page(snapshot: Snapshot, session: Session) -> HTMLResponse:
    """The author's bots with their faults (every bot, for the admin), and the upload
    form (``assets/upload.js`` posts the file to ``/api/bots``)."""
    who: Who = session.who
    mine = [b for b in snapshot.bots if who.may_see(b.author)]
    parts = []
    if not who.admin:
        parts.append(
            '<h2>Upload a bot</h2><form id="upload"><p><input type="file" name="bot" '
            'required accept=".py,.zip,application/zip"> <label>name <input name="botname" '
            'placeholder="the file\'s name"></label> <label>entry (a zip) <input '
            'name="entry" placeholder="bot.py"></label> <button>Upload</button></p></form>'
            '<p id="upload-status" role="status"></p><pre id="upload-check" hidden></pre>'
            "<p>A file (.py or an executable), or a zipped folder with its entry file "
            "(bot.py unless named) at its top. It runs <code>referee check</code> first; "
            "a bot that fails it is refused, with the check's output here.</p>")
    parts.append("<h2>Bots</h2>")
    if not mine:
        parts.append("<p>None yet.</p>")
    for bot in mine:
        state = "in the pool" if bot.active else "retired"
        parts.append(f'<section class="bot" data-bot="{esc(bot.label)}"><h3><a href="'
                     f'{bot_href(bot.label)}">{esc(bot.label)}</a> <span class="muted">'
                     f'{state}</span> <a class="logs" href="{bot_href(bot.label)}/logs">logs'
                     f"</a></h3>{_faults(snapshot, bot)}</section>")
    head = (f'<meta name="csrf-token" content="{esc(session.csrf)}">'
            '<script src="/assets/upload.js" defer></script>')
    return layout(f"{who.name}: {'all bots' if who.admin else 'my bots'}", "".join(parts),
                  session, head=head)


def logs_page(bot: db.BotRow, logs: dict[str, str], session: Session) -> HTMLResponse:
    if not logs:
        body = "<p>No log yet: the bot has not played.</p>"
    else:
        body = "".join(f'<h2>{esc(name)}</h2><pre class="log">{lines(text)}</pre>'
                       for name, text in logs.items())
    return layout(f"Logs of {bot.label}", "<p>The last 64 KiB of each log of the bot's "
                  f"processes in the latest batch it played.</p>{body}", session)


def signin_page(session: Session | None, error: str | None = None,
                status: int = 200) -> HTMLResponse:
    note = f'<p class="error">{esc(error)}</p>' if error else ""
    who = f"<p>Signed in as {esc(session.who.name)}.</p>" if session else ""
    return layout("Sign in", f'{who}{note}<form method="post" action="/signin"><p><label>'
                  'Token <input type="password" name="token" autocomplete="current-password" '
                  'required size="40"></label> <button>Sign in</button></p></form><p>The '
                  "token <code>referee league add-author</code> (or <code>admin-token</code>) "
                  "printed.</p>", session, status)


def upload_script() -> str:
    return files("referee.league").joinpath("assets/upload.js").read_text()

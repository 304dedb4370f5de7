"""The leaderboard's words and numbers, formatted once for every table (terminal, CSV,
Markdown, HTML): the caption, the columns, each row's cells, the notes, the footer; and
the Markdown and HTML table shapes they go into.

Columns (:func:`columns`): ``COLUMNS``, and two more when the report has a game metric
(``build_report(..., metric=game.metric)``): its value per bot, headed by the metric
(``chips won/hand (antes)``; ``lower is better`` when it is), and the half-width of its
95 % interval, right after the Elo's; a ``shared wins`` column after ``wins`` when some
bot shared a first place.

Marks. A bounded rating (see :mod:`leaderboards.elo`) shows its Elo as ``>= 312.4`` (a lower
bound), ``<= -280.1`` (an upper bound) or ``~ 12.0`` (only its order is known), and no
interval (``-``): one short note under the table says what the marks mean. A bot not
connected to the main group of bots gets a mark ``[n]`` after its Elo, and note ``n``
says so. Numbers that do not exist (anything but games, wins and faults for a bot with no
game, LOS for the last bot or across groups) show as ``-``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from leaderboards import inert
from leaderboards.elo import BOUND_NOTE
from leaderboards.metric import metric_label
from leaderboards.report import Report, ReportRow

COLUMNS = ("rank", "bot", "Elo", "+/-95%", "games", "score %", "mean place", "wins",
           "LOS next %", "faults")
TEXT_COLUMNS = ("bot", "faults")  # left-aligned; the others hold numbers
SHARED_WINS = "shared wins"
METRIC_DIGITS = 2
BOUND_PREFIX = {"lower": ">= ", "upper": "<= ", "open": "~ "}
BOUND_MEANING = {"lower": ">= always ahead of the bots rated with an interval",
                 "upper": "<= always behind them", "open": "~ only its order is known"}
MODEL = ("Elo from finishing places (Bradley-Terry over pairs 'A finished ahead of B'; a "
         "shared place is half a win each way)")
H2H_HELP = ("Row bot against column bot: the row bot's score in their games together (1 for "
            "finishing ahead, 1/2 for a shared place), and the number of those games.")


def caption(report: Report) -> str:
    """What the table describes, short: the game and its settings, the games, the Elo's
    zero point (the model is in :func:`footer`).

    >>> from leaderboards.report import build_report
    >>> rec = {"schema_version": 1, "game_type": "polish-poker", "rules": "official",
    ...        "players": 2, "seats": ["a", "b"], "order": ["a", "b"], "places": [1, 2],
    ...        "faults": []}
    >>> parts = caption(build_report([rec], {"move_ms": 1000, "bank_ms": 5000, "runs": 1}))
    >>> parts.split(" | ")[0]
    'polish-poker official, 2 players, move 1000 ms + bank 5000 ms'
    >>> parts.split(" | ")[1:]
    ['1 game from 1 run', 'Elo 0 = pool mean']
    """
    s = report.settings
    if s.get("anchor"):
        view = f"Elo {s['anchor'][1]:g} = {s['anchor'][0]}"
    elif len(report.fit.components) > 1:
        view = "Elo 0 = the mean of each group of bots that met"
    elif report.fit.centre and report.fit.centre[0] != report.fit.components[0]:
        view = f"Elo 0 = mean of {', '.join(report.fit.centre[0])}"
    else:
        view = "Elo 0 = pool mean"
    game = " ".join(joined(s[key]) for key in ("game", "rules") if key in s)
    if "params" in s:
        game = " ".join([game, params_text(s["params"])]).strip()
    setup = [game] if game else []
    if "players" in s:
        setup.append(f"{joined(s['players'])} players")
    clock = " + ".join(f"{label} {joined(s[key])} ms"
                       for key, label in (("move_ms", "move"), ("bank_ms", "bank")) if key in s)
    setup += [clock] if clock else []
    runs = s.get("runs")
    games = plural(report.n_games, "game")
    if runs:
        games += " from " + plural(runs if isinstance(runs, int) else len(runs), "run")
    ranked = "ranked by the bracket" if s.get("ranked_by") == "bracket" else ""
    return " | ".join(part for part in (", ".join(setup), games, view, ranked) if part)


def page_title(report: Report) -> str:
    """The pages' title: the event's name (``--event``), else ``Leaderboard``; runs of
    several events rated together name them all."""
    event = report.settings.get("event")
    names = [e for e in event if e] if isinstance(event, tuple) else [event] if event else []
    return " / ".join(names) or "Leaderboard"


def columns(report: Report) -> tuple[str, ...]:
    """The table's column headers: ``COLUMNS`` with the metric's two after the Elo's (if
    the report has a metric) and ``shared wins`` after ``wins`` (if any bot shared a
    first place)."""
    cols = list(COLUMNS)
    if any(r.shared_wins for r in report.rows):
        cols.insert(cols.index("wins") + 1, SHARED_WINS)
    if report.metric is not None:
        label, after = metric_label(report.metric), cols.index("+/-95%") + 1
        cols[after:after] = [label, f"{label} +/-95%"]
    return tuple(cols)


def table_cells(report: Report) -> tuple[list[tuple[str, ...]], list[str]]:
    """The displayed cells of each row (in :func:`columns` order) and the notes: one for
    the bound marks (if any bot has one), then the numbered ones."""
    shared = SHARED_WINS in columns(report)
    marks: dict[str, int] = {}
    rows = []
    for r in report.rows:
        elo = BOUND_PREFIX.get(r.bound or "", "") + num(r.elo, 1)
        note = _own_note(r)
        if note:
            elo += f" [{marks.setdefault(note, len(marks) + 1)}]"
        m = r.metric
        metric = ([num(m and m.value, METRIC_DIGITS), num(m and m.ci95, METRIC_DIGITS)]
                  if report.metric is not None else [])
        rows.append(("-" if r.rank is None else str(r.rank), r.bot, elo,
                     num(None if r.bound else r.ci95, 1),
                     *metric, str(r.games), percent(r.score), num(r.mean_place, 2),
                     str(r.wins), *([str(r.shared_wins)] if shared else []),
                     percent(r.los_next),
                     ", ".join(f"{label} {n}" for label, n in r.faults.items()) or "-"))
    kinds = [k for k in BOUND_MEANING if any(r.bound == k for r in report.rows)]
    bounds = ([f"Elo {' '.join(BOUND_PREFIX[k].strip() for k in kinds)}: a bound, not an "
               f"estimate, so no interval ({'; '.join(BOUND_MEANING[k] for k in kinds)})"]
              if kinds else [])
    return rows, bounds + [f"[{n}] {note}" for note, n in marks.items()]


def footer(report: Report) -> str:
    """The model, the games counted and the inputs' hash."""
    left_out = (f" ({plural(report.n_left_out, 'game')} of incomplete duplicate groups "
                "left out)" if report.n_left_out else "")
    return (f"{MODEL}. {plural(report.n_games, 'game')}{left_out}; inputs sha256 "
            f"{report.inputs_hash}")


def h2h_score(report: Report, i: int, j: int) -> tuple[float | None, int]:
    """Row bot ``i``'s score against bot ``j`` (None if they never met) and their games."""
    games, ahead = report.head_to_head.matrix[i][j]
    if i == j or games == 0:
        return None, games
    # Shared places: the games together in which neither finished ahead of the other.
    return (games + ahead - report.head_to_head.matrix[j][i][1]) / (2 * games), games


def h2h_cells(report: Report) -> list[tuple[str, ...]]:
    names = report.head_to_head.names
    rows = []
    for i, name in enumerate(names):
        cells = []
        for j in range(len(names)):
            score, games = h2h_score(report, i, j)
            cells.append("" if i == j else "-" if score is None
                         else f"{100 * score:.0f}% of {games}")
        rows.append((name, *cells))
    return rows


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]],
             text_cols: Collection[int]) -> str:
    align = [":---" if k in text_cols else "---:" for k in range(len(header))]
    lines = [[inert.markdown(c) for c in header], align,
             *([inert.markdown(c) for c in cells] for cells in rows)]
    return "\n".join(f"| {' | '.join(line)} |" for line in lines)


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]], text_cols: Collection[int],
               title: str, row_classes: Sequence[str] = (),
               links: tuple[int, Sequence[str]] | None = None) -> str:
    """An HTML table of text cells (escaped); ``links``: (column, one address per row)
    makes that column's cells links."""
    def cell(tag: str, k: int, text: str, href: str | None = None) -> str:
        inner = inert.html(text)
        if href is not None:
            inner = f'<a class="replays" href="{inert.html(href)}">{inner}</a>'
        return f"<{tag}{html_class('text' if k in text_cols else '')}>{inner}</{tag}>"

    classes = list(row_classes) or [""] * len(rows)
    hrefs = links[1] if links else [None] * len(rows)
    at = links[0] if links else -1
    body = "\n".join(
        f"<tr{html_class(cls)}>"
        + "".join(cell("td", k, c, href if k == at else None) for k, c in enumerate(cells))
        + "</tr>" for cells, cls, href in zip(rows, classes, hrefs, strict=True))
    head = "".join(cell("th", k, c) for k, c in enumerate(header))
    return (f"<table>\n<caption>{inert.html(title)}</caption>\n"
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>")


def html_class(name: str) -> str:
    return f' class="{name}"' if name else ""


def num(x: float | None, digits: int) -> str:
    if x is None:
        return "-"
    text = f"{x:.{digits}f}"
    return text[1:] if float(text) == 0 and text.startswith("-") else text  # no "-0.0"


def percent(x: float | None) -> str:
    return num(None if x is None else 100 * x, 1)


def text_index(report: Report) -> frozenset[int]:
    return frozenset(k for k, col in enumerate(columns(report)) if col in TEXT_COLUMNS)


def params_text(value: Any) -> str:
    """Game parameters as ``k=v k=v``; mixed ones (a tuple of mappings) as ``a/b``."""
    if isinstance(value, tuple):
        return "/".join(map(params_text, value))
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def joined(value: Any) -> str:
    """A setting as text; a mixed one (a tuple of values) as ``a/b``."""
    return "/".join(map(str, value)) if isinstance(value, tuple) else str(value)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _own_note(r: ReportRow) -> str | None:
    """The row's note without what its bound mark already says."""
    if r.bound and r.note:
        return r.note.replace(BOUND_NOTE[r.bound], "").strip("; ") or None
    return r.note

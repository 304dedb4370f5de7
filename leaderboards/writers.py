"""Leaderboard files and the terminal table, all from one :class:`~leaderboards.report.Report`.

:func:`write_reports` writes ``leaderboard.json`` (for programs: full-precision numbers, the
covariance, the head-to-head counts), ``leaderboard.csv`` (for spreadsheets: the table),
``leaderboard.md`` and ``leaderboard.html`` (for people: caption, table, notes, head-to-head;
the HTML is self-contained, with inline CSS and an inline SVG chart of the Elo intervals,
and fetches nothing and runs no script). The table cells are formatted in one place,
:func:`table_cells`, for the CSV, Markdown, HTML and terminal tables alike.

Columns (:func:`columns`): ``COLUMNS``, and two more when the report has a game metric
(``build_report(..., metric=game.metric)``): its value per bot, headed by the metric
(``chips won/hand (antes)``; ``lower is better`` when it is), and the half-width of its
95 % interval, right after the Elo's; a ``shared wins`` column after ``wins`` when some
bot shared a first place. JSON rows carry ``shared_wins`` and ``metric`` always, and the
document the ``metric`` it shows (or null).

Marks. A bounded rating (see :mod:`leaderboards.elo`) shows its Elo as ``>= 312.4`` (a lower
bound), ``<= -280.1`` (an upper bound) or ``~ 12.0`` (only its order is known); JSON rows
carry ``bound``. A row with a note (bounded, or not connected to the main group of bots)
also gets a mark ``[n]`` after its Elo, and note ``n`` is printed under the table (in the
CSV, a ``note`` column; in JSON, the row's ``note``). Numbers that do not exist (anything but
games, wins and faults for a bot with no game, LOS for the last bot or across groups) show
as ``-``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Collection, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from leaderboards import inert
from leaderboards.metric import metric_label
from leaderboards.report import Report

SCHEMA_VERSION = 1
COLUMNS = ("rank", "bot", "Elo", "+/-95%", "games", "score %", "mean place", "wins",
           "LOS next %", "faults")
_TEXT_COLUMNS = ("bot", "faults")  # left-aligned; the others hold numbers
_SHARED_WINS = "shared wins"
_METRIC_DIGITS = 2
_NAMES_INDEX = frozenset({0})  # the head-to-head table: names down the first column
FILES = ("leaderboard.json", "leaderboard.csv", "leaderboard.md", "leaderboard.html")
_BOUND_PREFIX = {"lower": ">= ", "upper": "<= ", "open": "~ "}
_MODEL = ("Elo from places (Bradley-Terry, pairs 'A finished ahead of B'; a shared place is "
          "half a win each way)")
_H2H_HELP = ("Row bot against column bot: the row bot's score in their games together (1 for "
             "finishing ahead, 1/2 for a shared place), and the number of those games.")


def caption(report: Report) -> str:
    """What the table describes: the model and its zero point, the settings, the games.

    >>> from leaderboards.report import build_report
    >>> rec = {"schema_version": 1, "game_type": "polish-poker", "rules": "official",
    ...        "players": 2, "seats": ["a", "b"], "order": ["a", "b"], "places": [1, 2],
    ...        "faults": []}
    >>> caption(build_report([rec], {"move_ms": 1000, "bank_ms": 5000, "runs": 1}))
    "Elo from places (Bradley-Terry, pairs 'A finished ahead of B'; a shared place is half a \
win each way), centred on the pool mean | polish-poker official, 2 players, move 1000 ms + \
bank 5000 ms | 1 game from 1 run"
    """
    s = report.settings
    if s.get("anchor"):
        view = f"anchored at {s['anchor'][0]} = {s['anchor'][1]:g}"
    elif len(report.fit.components) > 1:
        view = "centred on the mean of each group of bots that met"
    else:
        view = "centred on the pool mean"
    game = " ".join(_joined(s[key]) for key in ("game", "rules") if key in s)
    if "params" in s:
        game = " ".join([game, _params(s["params"])]).strip()
    setup = [game] if game else []
    if "players" in s:
        setup.append(f"{_joined(s['players'])} players")
    clock = " + ".join(f"{label} {_joined(s[key])} ms"
                       for key, label in (("move_ms", "move"), ("bank_ms", "bank")) if key in s)
    setup += [clock] if clock else []
    runs = s.get("runs")
    games = _plural(report.n_games, "game")
    if runs:
        games += " from " + _plural(runs if isinstance(runs, int) else len(runs), "run")
    return " | ".join(part for part in (f"{_MODEL}, {view}", ", ".join(setup), games) if part)


def columns(report: Report) -> tuple[str, ...]:
    """The table's column headers: ``COLUMNS`` with the metric's two after the Elo's (if
    the report has a metric) and ``shared wins`` after ``wins`` (if any bot shared a
    first place)."""
    cols = list(COLUMNS)
    if any(r.shared_wins for r in report.rows):
        cols.insert(cols.index("wins") + 1, _SHARED_WINS)
    if report.metric is not None:
        label, after = metric_label(report.metric), cols.index("+/-95%") + 1
        cols[after:after] = [label, f"{label} +/-95%"]
    return tuple(cols)


def table_cells(report: Report) -> tuple[list[tuple[str, ...]], list[str]]:
    """The displayed cells of each row (in :func:`columns` order) and the numbered notes."""
    shared = _SHARED_WINS in columns(report)
    marks: dict[str, int] = {}
    rows = []
    for r in report.rows:
        elo = _BOUND_PREFIX.get(r.bound or "", "") + _num(r.elo, 1)
        if r.note:
            elo += f" [{marks.setdefault(r.note, len(marks) + 1)}]"
        m = r.metric
        metric = ([_num(m and m.value, _METRIC_DIGITS), _num(m and m.ci95, _METRIC_DIGITS)]
                  if report.metric is not None else [])
        rows.append(("-" if r.rank is None else str(r.rank), r.bot, elo, _num(r.ci95, 1),
                     *metric, str(r.games), _percent(r.score), _num(r.mean_place, 2),
                     str(r.wins), *([str(r.shared_wins)] if shared else []),
                     _percent(r.los_next),
                     ", ".join(f"{label} {n}" for label, n in r.faults.items()) or "-"))
    return rows, [f"[{n}] {note}" for note, n in marks.items()]


def to_json(report: Report) -> dict[str, Any]:
    """``leaderboard.json``'s document."""
    fit, h2h = report.fit, report.head_to_head
    doc = {
        "schema_version": SCHEMA_VERSION, "kind": "elo", "settings": dict(report.settings),
        "caption": caption(report), "rows": [asdict(r) for r in report.rows],
        "covariance": {"names": list(fit.names), "matrix": fit.covariance.tolist()},
        "head_to_head": {"names": list(h2h.names),
                         "matrix": [[list(cell) for cell in row] for row in h2h.matrix]},
        "inputs_hash": report.inputs_hash, "n_games": report.n_games,
        "n_left_out": report.n_left_out,
        "metric": None if report.metric is None else
        {**asdict(report.metric), "label": metric_label(report.metric)},
    }
    return doc


def to_csv(report: Report) -> str:
    rows, _ = table_cells(report)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((*columns(report), "note"))
    # The bot's name and the note are guarded against formulas; the other cells are ours
    # (numbers, negative ones included, stay numbers).
    bot = COLUMNS.index("bot")
    writer.writerows(
        [inert.csv_cell(c) if k == bot else c for k, c in enumerate(cells)]
        + [inert.csv_cell(r.note or "")] for cells, r in zip(rows, report.rows, strict=True))
    return out.getvalue()


def to_markdown(report: Report) -> str:
    rows, notes = table_cells(report)
    blocks = ["# Leaderboard", inert.markdown(caption(report)),
              _md_table(columns(report), rows, _text_index(report)),
              *map(inert.markdown, notes), "## Head to head", _H2H_HELP,
              _md_table(("", *report.head_to_head.names), _h2h_cells(report), _NAMES_INDEX),
              _footer(report)]
    return "\n\n".join(blocks) + "\n"


def to_html(report: Report) -> str:
    rows, notes = table_cells(report)
    h2h_names = report.head_to_head.names
    cols = columns(report)
    body = [
        "<h1>Leaderboard</h1>",
        _html_table(cols, rows, _text_index(report), caption(report),
                    ["bound" if r.bound else "" for r in report.rows]),
        *(f'<p class="note">{inert.html(n)}</p>' for n in notes),
        "<h2>Elo with 95% interval</h2>",
        _svg_chart(report, [cells[cols.index("Elo")] for cells in rows]),
        "<h2>Head to head</h2>",
        _html_table(("", *h2h_names), _h2h_cells(report), _NAMES_INDEX, _H2H_HELP,
                    [""] * len(h2h_names)),
        f'<p class="note">{inert.html(_footer(report))}</p>',
    ]
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>Leaderboard</title>\n<style>\n{_CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def rich_table(report: Report) -> Table:
    """The table for the terminal, captioned like the files, notes underneath."""
    rows, notes = table_cells(report)
    table = Table(title=inert.terminal(caption(report)), title_justify="left",
                  caption=Text("\n").join(map(inert.terminal, notes)) if notes else None,
                  caption_justify="left")
    for col in columns(report):
        table.add_column(inert.terminal(col),
                         justify="left" if col in _TEXT_COLUMNS else "right")
    for cells in rows:
        table.add_row(*map(inert.terminal, cells))
    return table


def write_reports(report: Report, out_dir: Path) -> list[Path]:
    """Write the four ``FILES`` into ``out_dir`` (created if need be); their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    texts = (json.dumps(to_json(report), indent=2, allow_nan=False) + "\n",
             to_csv(report), to_markdown(report), to_html(report))
    paths = []
    for name, text in zip(FILES, texts, strict=True):
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- internals


def _num(x: float | None, digits: int) -> str:
    if x is None:
        return "-"
    text = f"{x:.{digits}f}"
    return text[1:] if float(text) == 0 and text.startswith("-") else text  # no "-0.0"


def _percent(x: float | None) -> str:
    return _num(None if x is None else 100 * x, 1)


def _text_index(report: Report) -> frozenset[int]:
    return frozenset(k for k, col in enumerate(columns(report)) if col in _TEXT_COLUMNS)


def _params(value: Any) -> str:
    """Game parameters as ``k=v k=v``; mixed ones (a tuple of mappings) as ``a/b``."""
    if isinstance(value, tuple):
        return "/".join(map(_params, value))
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _joined(value: Any) -> str:
    """A setting as text; a mixed one (a tuple of values) as ``a/b``."""
    return "/".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _footer(report: Report) -> str:
    left_out = (f" ({_plural(report.n_left_out, 'game')} of incomplete duplicate groups "
                "left out)" if report.n_left_out else "")
    return f"{_plural(report.n_games, 'game')}{left_out}; inputs sha256 {report.inputs_hash}"


def _h2h_cells(report: Report) -> list[tuple[str, ...]]:
    h2h = report.head_to_head
    # Shared places: the games together in which neither finished ahead of the other.
    return [(name, *("" if i == j else "-" if games == 0 else
                     f"{100 * (games + ahead - h2h.matrix[j][i][1]) / (2 * games):.0f}% "
                     f"of {games}"
                     for j, (games, ahead) in enumerate(row)))
            for i, (name, row) in enumerate(zip(h2h.names, h2h.matrix, strict=True))]


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]],
              text_cols: Collection[int]) -> str:
    align = [":---" if k in text_cols else "---:" for k in range(len(header))]
    lines = [[inert.markdown(c) for c in header], align,
             *([inert.markdown(c) for c in cells] for cells in rows)]
    return "\n".join(f"| {' | '.join(line)} |" for line in lines)


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], text_cols: Collection[int],
                title: str, row_classes: Sequence[str]) -> str:
    def line(tag: str, cells: Sequence[str]) -> str:
        return "".join(f"<{tag}{_class('text' if k in text_cols else '')}>"
                       f"{inert.html(c)}</{tag}>" for k, c in enumerate(cells))

    body = "\n".join(f"<tr{_class(cls)}>{line('td', cells)}</tr>"
                     for cells, cls in zip(rows, row_classes, strict=True))
    return (f"<table>\n<caption>{inert.html(title)}</caption>\n"
            f"<thead><tr>{line('th', header)}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>")


def _class(name: str) -> str:
    return f' class="{name}"' if name else ""


_CSS = """\
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
caption { caption-side: top; text-align: left; font-style: italic; padding: 0.4em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
.text { text-align: left; }
tr.bound td { background: #fff4dc; }
p.note { font-size: 0.9em; color: #555; }
svg text { font-size: 12px; fill: #222; }
svg .grid { stroke: #e4e4e4; }
svg .centre { stroke: #999; }
svg .row line { stroke: #2a6fb0; stroke-width: 2; }
svg .row circle { fill: #2a6fb0; }
svg .bound line { stroke: #c07a00; stroke-dasharray: 4 3; }
svg .bound circle { fill: #fff; stroke: #c07a00; stroke-width: 2; }
svg .unrated text.value { fill: #888; }
"""

_ROW_H, _LABEL_W, _PLOT_W, _VALUE_W, _TOP, _BOTTOM = 24, 170, 480, 130, 30, 10


def _svg_chart(report: Report, elo_cells: Sequence[str]) -> str:
    """Point and whiskers (Elo +/- its 95 % half-width), one row per bot, an Elo axis with
    ticks on top; bounded ratings dashed and hollow, unrated bots labelled so."""
    rated = [r for r in report.rows if r.elo is not None and r.ci95 is not None]
    ticks = _ticks(min(r.elo - r.ci95 for r in rated), max(r.elo + r.ci95 for r in rated))
    lo, hi = ticks[0], ticks[-1]

    def x(elo: float) -> float:
        return round(_LABEL_W + (elo - lo) / (hi - lo) * _PLOT_W, 1)

    height = _TOP + _ROW_H * len(report.rows) + _BOTTOM
    bottom = height - _BOTTOM
    anchor = report.settings.get("anchor")
    parts = [f'<svg role="img" aria-label="Elo with 95% interval per bot" '
             f'width="{_LABEL_W + _PLOT_W + _VALUE_W}" height="{height}">']
    parts += [f'<line class="grid" x1="{x(t)}" y1="{_TOP - 6}" x2="{x(t)}" y2="{bottom}"/>'
              f'<text x="{x(t)}" y="{_TOP - 10}" text-anchor="middle">{t:g}</text>'
              for t in ticks]
    parts.append(f'<text x="{_LABEL_W - 8}" y="{_TOP - 10}" text-anchor="end">Elo</text>')
    centre = x(anchor[1] if anchor else 0.0)  # the zero point the caption names
    parts.append(f'<line class="centre" x1="{centre}" y1="{_TOP - 6}" x2="{centre}" '
                 f'y2="{bottom}"/>')
    for k, (r, cell) in enumerate(zip(report.rows, elo_cells, strict=True)):
        y = _TOP + k * _ROW_H + _ROW_H // 2
        kind = " bound" if r.bound else " unrated" if r.elo is None else ""
        about = "no games" if r.ci95 is None else f"Elo {cell} +/- {r.ci95:.1f}"
        parts.append(f'<g class="row{kind}"><title>{inert.html(f"{r.bot}: {about}")}</title>'
                     f'<text x="{_LABEL_W - 8}" y="{y + 4}" text-anchor="end">'
                     f"{inert.html(r.bot)}</text>")
        if r.elo is not None and r.ci95 is not None:
            parts.append(f'<line x1="{x(r.elo - r.ci95)}" y1="{y}" x2="{x(r.elo + r.ci95)}" '
                         f'y2="{y}"/><circle cx="{x(r.elo)}" cy="{y}" r="4"/>')
        parts.append(f'<text class="value" x="{_LABEL_W + _PLOT_W + 8}" y="{y + 4}">'
                     f"{inert.html(cell if r.elo is not None else 'no games')}</text></g>")
    parts.append("</svg>")
    return "\n".join(parts)


def _ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi]."""
    if hi - lo < 1.0:  # one point (an anchored pair can have no spread): show 100 Elo
        lo, hi = lo - 50.0, hi + 50.0
    raw = (hi - lo) / target
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return [k * step for k in range(math.floor(lo / step), math.ceil(hi / step) + 1)]

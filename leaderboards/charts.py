"""The pictures of ``leaderboard.html``, as inline SVG (and one HTML table): nothing is
fetched and no script runs.

- :func:`elo_chart`: each bot's Elo with its 95 % interval (a bound: dashed, hollow, no
  interval), the zero point marked.
- :func:`history_chart`: Elo over the games played (:mod:`leaderboards.history`), a line
  per bot with its 95 % band.
- :func:`heat_map`: the head-to-head matrix, each cell coloured by the row bot's score.
- :func:`faults_chart`: each bot's faults, a bar per bot split by label.

Every axis label sits clear of its tick labels (a browser test checks the boxes). Bot
names are data: all text goes through ``leaderboards.inert.html``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from leaderboards import inert
from leaderboards.cells import h2h_score
from leaderboards.history import EloHistory
from leaderboards.report import Report

PALETTE = ("#2a6fb0", "#d1495b", "#2e933c", "#edae49", "#7b4fa0", "#00798c", "#8d6a3f",
           "#e07a5f", "#3d405b", "#81b29a", "#c06c84", "#6c757d")
FAULT_COLOURS = {"timeout": "#edae49", "malformed": "#7b4fa0", "illegal": "#d1495b",
                 "crash": "#3d405b", "start-failure": "#6c757d"}

_ROW_H, _LABEL_W, _PLOT_W, _VALUE_W, _TOP, _BOTTOM = 24, 170, 480, 130, 46, 10


def colour(k: int) -> str:
    """The colour of the ``k``-th bot (in the leaderboard's order), the same in every chart:
    the palette's, then hues a golden angle apart (each new one as far as it can be from
    those before), two lightnesses in turn, so 20 or 50 bots never share a colour.

    >>> len({colour(k) for k in range(60)})
    60
    """
    if k < len(PALETTE):
        return PALETTE[k]
    j = k - len(PALETTE)
    return f"hsl({j * 137.508 % 360:.1f}, 70%, {38 + 16 * (j % 2)}%)"


def elo_chart(report: Report, elo_cells: Sequence[str]) -> str:
    """Point and whiskers (Elo +/- its 95 % half-width), one row per bot, an Elo axis with
    ticks on top and its label above them; bounded ratings dashed and hollow, unrated bots
    labelled so."""
    rated = [r for r in report.rows if r.elo is not None and r.ci95 is not None]
    ticks = ticks_for(min(r.elo - (0 if r.bound else r.ci95) for r in rated),
                      max(r.elo + (0 if r.bound else r.ci95) for r in rated))
    lo, hi = ticks[0], ticks[-1]

    def x(elo: float) -> float:
        return round(_LABEL_W + (elo - lo) / (hi - lo) * _PLOT_W, 1)

    height = _TOP + _ROW_H * len(report.rows) + _BOTTOM
    bottom = height - _BOTTOM
    anchor = report.settings.get("anchor")
    parts = [f'<svg class="elo-chart" role="img" aria-label="Elo with 95% interval per bot" '
             f'width="{_LABEL_W + _PLOT_W + _VALUE_W}" height="{height}">',
             f'<text class="axis-label" x="{_LABEL_W + _PLOT_W / 2}" y="{_TOP - 28}" '
             'text-anchor="middle">Elo (bar: 95% interval)</text>']
    parts += [f'<line class="grid" x1="{x(t)}" y1="{_TOP - 6}" x2="{x(t)}" y2="{bottom}"/>'
              f'<text class="tick" x="{x(t)}" y="{_TOP - 10}" text-anchor="middle">{t:g}</text>'
              for t in ticks]
    centre = x(anchor[1] if anchor else 0.0)  # the zero point the caption names
    parts.append(f'<line class="centre" x1="{centre}" y1="{_TOP - 6}" x2="{centre}" '
                 f'y2="{bottom}"/>')
    for k, (r, cell) in enumerate(zip(report.rows, elo_cells, strict=True)):
        y = _TOP + k * _ROW_H + _ROW_H // 2
        kind = " bound" if r.bound else " unrated" if r.elo is None else ""
        about = ("no games" if r.elo is None else f"Elo {cell}" if r.bound or r.ci95 is None
                 else f"Elo {cell} +/- {r.ci95:.1f}")
        parts.append(f'<g class="row{kind}"><title>{inert.html(f"{r.bot}: {about}")}</title>'
                     f'<text x="{_LABEL_W - 8}" y="{y + 4}" text-anchor="end">'
                     f"{inert.html(r.bot)}</text>")
        if r.elo is not None and r.ci95 is not None:
            half = 0.0 if r.bound else r.ci95
            parts.append(f'<line x1="{x(r.elo - half)}" y1="{y}" x2="{x(r.elo + half)}" '
                         f'y2="{y}"/><circle cx="{x(r.elo)}" cy="{y}" r="4"/>')
        parts.append(f'<text class="value" x="{_LABEL_W + _PLOT_W + 8}" y="{y + 4}">'
                     f"{inert.html(cell if r.elo is not None else 'no games')}</text></g>")
    parts.append("</svg>")
    return "\n".join(parts)


_H_LEFT, _H_TOP, _H_W, _H_H, _H_BOTTOM = 80, 16, 640, 300, 50


def history_chart(report: Report, history: EloHistory) -> str:
    """Elo over the games played: a line per bot through its checkpoints, with its 95 %
    band (none where the value is a bound); x the games of the journal taken, y Elo."""
    values = [(p.elo - (p.ci95 or 0), p.elo + (p.ci95 or 0))
              for pts in history.points.values() for p in pts if p is not None]
    if not history.games or not values:
        return '<p class="note">Too few games for a history of the ratings.</p>'
    yt = ticks_for(min(v[0] for v in values), max(v[1] for v in values))
    xt = ticks_for(0, history.games[-1], 5, whole=True)

    def x(games: float) -> float:
        return round(_H_LEFT + games / xt[-1] * _H_W, 1)

    def y(elo: float) -> float:
        return round(_H_TOP + (yt[-1] - elo) / (yt[-1] - yt[0]) * _H_H, 1)

    bottom, right = _H_TOP + _H_H, _H_LEFT + _H_W
    parts = [f'<svg class="history-chart" role="img" aria-label="Elo over the games played" '
             f'width="{right + 20}" height="{bottom + _H_BOTTOM}">']
    for t in yt:
        parts.append(f'<line class="grid" x1="{_H_LEFT}" y1="{y(t)}" x2="{right}" y2="{y(t)}"/>'
                     f'<text class="tick" x="{_H_LEFT - 6}" y="{y(t) + 4}" '
                     f'text-anchor="end">{t:g}</text>')
    for t in xt:
        parts.append(f'<line class="grid" x1="{x(t)}" y1="{_H_TOP}" x2="{x(t)}" y2="{bottom}"/>'
                     f'<text class="tick" x="{x(t)}" y="{bottom + 16}" '
                     f'text-anchor="middle">{t:g}</text>')
    parts.append(f'<text class="axis-label" x="{_H_LEFT + _H_W / 2}" y="{bottom + 40}" '
                 'text-anchor="middle">games played</text>')
    mid = _H_TOP + _H_H / 2
    parts.append(f'<text class="axis-label" x="16" y="{mid}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {mid})">Elo</text>')
    index = {r.bot: k for k, r in enumerate(report.rows)}
    for bot, pts in history.points.items():
        seen = [(g, p) for g, p in zip(history.games, pts, strict=True) if p is not None]
        if not seen:
            continue
        c = colour(index.get(bot, 0))
        banded = [(g, p) for g, p in seen if p.ci95 is not None]
        k = index.get(bot, 0)
        group = [f'<g class="bot-history k{k}" data-bot="{inert.html(bot)}">'
                 f"<title>{inert.html(bot)}</title>"]
        if len(banded) > 1:
            upper = " ".join(f"{x(g)},{y(p.elo + p.ci95)}" for g, p in banded)
            lower = " ".join(f"{x(g)},{y(p.elo - p.ci95)}" for g, p in reversed(banded))
            group.append(f'<polygon class="band" points="{upper} {lower}" fill="{c}"/>')
        line = " ".join(f"{x(g)},{y(p.elo)}" for g, p in seen)
        group.append(f'<polyline class="elo-line" points="{line}" stroke="{c}"/>')
        group.append("</g>")
        parts.append("".join(group))
    parts.append("</svg>")
    shown = [k for k, r in enumerate(report.rows) if r.bot in history.points]
    legend = "".join(f'<span class="key k{k}"><i style="background:{colour(k)}"></i>'
                     f"{inert.html(report.rows[k].bot)}</span>" for k in shown)
    # Pointing at a line or at a bot in the legend shows that bot's line alone in full.
    focus = "\n".join(f".history:has(.k{k}:hover) .bot-history.k{k} {{ opacity: 1; }}"
                      for k in shown)
    return (f'<div class="history">\n<style>\n{focus}\n</style>\n' + "\n".join(parts)
            + f'\n<p class="legend">{legend}</p>\n</div>')


def heat_map(report: Report) -> str:
    """The head-to-head matrix as an HTML table, each cell coloured from red (the row bot
    lost every game against the column bot) through white to blue (won every one)."""
    names = report.head_to_head.names
    head = "".join(f'<th class="text">{inert.html(n)}</th>' for n in names)
    rows = []
    for i, name in enumerate(names):
        cells = []
        for j in range(len(names)):
            score, games = h2h_score(report, i, j)
            if i == j:
                cells.append('<td class="self"></td>')
            elif score is None:
                cells.append('<td class="none">-</td>')
            else:
                cells.append(f'<td class="h2h" data-score="{score:.4f}" data-games="{games}" '
                             f'style="background:{_diverging(score)}">'
                             f"{100 * score:.0f}%<small> of {games}</small></td>")
        rows.append(f'<tr><th class="text">{inert.html(name)}</th>{"".join(cells)}</tr>')
    return (f'<table class="heat">\n<thead><tr><th></th>{head}</tr></thead>\n<tbody>\n'
            + "\n".join(rows) + "\n</tbody>\n</table>")


_F_LABEL, _F_W, _F_ROW = 170, 420, 22


def faults_chart(report: Report) -> str:
    """A bar per bot, split by fault label, with its count; or a line saying there were
    none."""
    if not any(r.faults for r in report.rows):
        return '<p class="note faults-none">No bot had a fault.</p>'
    labels = list(dict.fromkeys(label for r in report.rows for label in r.faults))
    most = max(sum(r.faults.values()) for r in report.rows)
    top = 8
    parts = [f'<svg class="faults-chart" role="img" aria-label="Faults per bot" '
             f'width="{_F_LABEL + _F_W + 60}" height="{top + _F_ROW * len(report.rows) + 4}">']
    for k, r in enumerate(report.rows):
        yy = top + k * _F_ROW
        parts.append(f'<g class="bot-faults" data-bot="{inert.html(r.bot)}" '
                     f'data-total="{sum(r.faults.values())}">'
                     f'<text x="{_F_LABEL - 8}" y="{yy + 14}" text-anchor="end">'
                     f"{inert.html(r.bot)}</text>")
        at = float(_F_LABEL)
        for label in labels:
            n = r.faults.get(label, 0)
            if n:
                w = round(n / most * _F_W, 1)
                parts.append(f'<rect data-label="{inert.html(label)}" data-count="{n}" '
                             f'x="{at}" y="{yy + 3}" width="{w}" height="{_F_ROW - 6}" '
                             f'fill="{FAULT_COLOURS.get(label, "#999")}">'
                             f"<title>{inert.html(f'{r.bot}: {label} {n}')}</title></rect>")
                at += w
        parts.append(f'<text class="value" x="{at + 6}" y="{yy + 14}">'
                     f"{sum(r.faults.values())}</text></g>")
    parts.append("</svg>")
    legend = "".join(f'<span class="key"><i style="background:'
                     f'{FAULT_COLOURS.get(label, "#999")}"></i>{inert.html(label)}</span>'
                     for label in labels)
    return "\n".join(parts) + f'\n<p class="legend">{legend}</p>'


def ticks_for(lo: float, hi: float, target: int = 6, whole: bool = False) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi];
    ``whole``: steps of at least 1."""
    if hi - lo < 1.0:  # one point (an anchored pair can have no spread): show 100 Elo
        lo, hi = (lo, lo + target) if whole else (lo - 50.0, hi + 50.0)
    raw = (hi - lo) / target
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    step = max(step, 1.0) if whole else step
    return [k * step for k in range(math.floor(lo / step), math.ceil(hi / step) + 1)]


def _diverging(score: float) -> str:
    """Red (0) through white (1/2) to blue (1)."""
    far = (209, 73, 91) if score < 0.5 else (42, 111, 176)
    t = 0.8 * min(1.0, abs(score - 0.5) * 2)  # the darkest still shows black text
    r, g, b = (round(255 + (c - 255) * t) for c in far)
    return f"rgb({r},{g},{b})"

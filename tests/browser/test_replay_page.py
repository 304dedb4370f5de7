"""replay.html in a real headless Chromium, after real runs (bot processes over ZeroMQ):
every step of a game shows what the game's replay steps say (names in place of seats,
each card face up or down for the view chosen), the declarations and deals of the
transcript, faults, the keyboard and the URL fragment; a bot's name is text, never markup.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee.games.api import Card, Step
from referee.journal import read_transcripts
from referee.show.select import GameReplay, replays

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
BOTS = ROOT / "bots"
# Names a page must show as they are: markup in them is text.
MARKUP = "<b>x<i>y"
AMP = 'a&amp;b "q"'

# What the page shows of the current step, read from the DOM.
SNAPSHOT = """() => {
  const cards = (box) => [...box.querySelectorAll('.cards')].map((row) => [...row.children].map(
    (c) => [c.dataset.code, c.classList.contains('back'), c.classList.contains('private')]));
  const facts = (box) => ['.status', '.info'].map((c) => box.querySelector(c)?.textContent ?? '');
  const time = document.querySelector('#steptext .time');
  return {
    step: Number(document.getElementById('slider').value),
    text: document.querySelector('#steptext .said').textContent,
    time: time ? time.textContent : null,
    result: document.getElementById('result').textContent,
    seats: [...document.querySelectorAll('#table .seat')].map((s) => [cards(s), facts(s)]),
    piles: [...document.querySelectorAll('#table .pile')].map(
      (p) => [p.dataset.pile, cards(p), facts(p)]),
    history: [...document.querySelectorAll('#history li')].map((li) => li.textContent),
  };
}"""


@dataclass(frozen=True)
class Run:
    path: Path
    page: Path  # its replay.html, written by `referee run`
    games: dict[int, GameReplay]
    transcripts: dict[int, dict[str, Any]]


def play(out: Path, *args: str) -> Run:
    """A real `referee run` (bot processes, no sandbox: what is tested is the page)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "200"}
    done = subprocess.run([str(BIN / "referee"), "run", "--sandbox", "none", "--seed", "7",
                           "--out", str(out), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"replays {out / 'replay.html'}" in done.stdout
    transcripts = read_transcripts(out)
    return Run(out, out / "replay.html", {r.game: r for r in replays(out, transcripts)},
               transcripts)


@pytest.fixture(scope="module")
def polish(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return play(tmp_path_factory.mktemp("polish") / "run", "--games", "6", "--bots",
                str(BOTS / "polish_poker" / "statistician.py"),
                f"{MARKUP}={BOTS / 'polish_poker' / 'caller.py'}",
                f"{AMP}={ROOT / 'tests' / 'bots' / 'illegal.py'}")


@pytest.fixture(scope="module")
def turkish(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return play(tmp_path_factory.mktemp("turkish") / "run", "--game", "turkish-poker",
                "--param", "hands=6", "--games", "2", "--bots",
                str(BOTS / "turkish_poker" / "rules_bot.py"),
                str(BOTS / "turkish_poker" / "random_bot.py"))


@pytest.fixture(scope="module")
def golf(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return play(tmp_path_factory.mktemp("golf") / "run", "--game", "six-card-golf",
                "--games", "2", "--bots", str(BOTS / "six_card_golf" / "greedy_bot.py"),
                str(ROOT / "tests" / "bots" / "golf_banana.py"))  # random, and faults


def named(text: str, names: tuple[str, ...]) -> str:
    return re.sub(r"<(\d+)>", lambda m: names[int(m[1])], text)


def ms(t: float) -> str:
    """A decision time as the page writes it (the page holds it to 0.1 ms)."""
    t = round(t, 1)
    return f"{t:.1f} ms" if t < 10 else f"{int(t + 0.5)} ms"


def shown(cards: tuple[Card, ...], view: int | None) -> list[list[Any]]:
    """How the page must draw ``cards``: [code or "" if face down, face down, marked]."""
    out = []
    for c in cards:
        down = view is not None and not c.seen(view)
        out.append(["" if down else c.code, down, c.seen_by is not None and not down])
    return out


def expected(r: GameReplay, k: int, view: int | None) -> dict[str, Any]:
    s: Step = r.steps[k]
    t = r.times_ms[k]
    return {"step": k, "text": named(s.text, r.names), "time": None if t is None else ms(t),
            "result": "" if s.result is None else named(s.result, r.names),
            "seats": [[[shown(row, view) for row in v.rows],
                       [named(v.status, r.names), named(v.info, r.names)]] for v in s.seats],
            "piles": [[p.label, [shown(p.cards, view)], ["", named(p.info, r.names)]]
                      for p in s.piles],
            "history": [named(h, r.names) for h in s.history]}


def step_through(page: Any, run: Run, r: GameReplay, view: int | None) -> None:
    """Open the game, then every step by the right arrow: each as its replay step says."""
    seat = "" if view is None else f"&seat={view}"
    page.open(run.page, f"game={r.game}{seat}")
    tab = page.page
    tab.wait_for_function(f"document.querySelector('#gamehead .title')?.textContent"
                          f" === 'Game {r.game}'")
    for k in range(len(r.steps)):
        assert tab.evaluate(SNAPSHOT) == expected(r, k, view), f"game {r.game} step {k}"
        tab.keyboard.press("ArrowRight")
    assert tab.evaluate(SNAPSHOT)["step"] == len(r.steps) - 1  # stays on the last step


def test_every_step_of_polish_games_shows_its_replay_step(page: Any, polish: Run) -> None:
    for r in polish.games.values():
        step_through(page, polish, r, None)
    assert page.errors == []
    assert page.shot("polish").stat().st_size > 0


def test_steps_agree_with_the_transcript(page: Any, polish: Run) -> None:
    """Independently of the steps: the first deal's hands are the first step's cards, and
    each declaration of the transcript is on screen at the step holding its event."""
    game = min(polish.games)
    r, events = polish.games[game], polish.transcripts[game]["events"]
    page.open(polish.page, f"game={game}")
    tab = page.page
    tab.wait_for_selector("#table .seat")
    first = tab.evaluate(SNAPSHOT)
    assert [[c[0] for c in seat[0][0]] for seat in first["seats"]] == events[0]["hands"]
    declared = 0
    for k, s in enumerate(r.steps):
        tab.evaluate(f"location.hash = 'game={game}&step={k}'")
        tab.wait_for_function(f"Number(document.getElementById('slider').value) === {k}")
        now = tab.evaluate(SNAPSHOT)
        start = r.steps[k - 1].event + 1 if k else 0
        for e in events[start:s.event + 1]:
            if e["type"] == "declared":
                line = f"{r.names[e['seat']]} declares {e['declaration']}"
                assert line in now["text"] and now["history"][-1] == line
                declared += 1
    assert declared == sum(e["type"] == "declared" for e in events) > 0
    assert page.errors == []


def test_a_seat_view_hides_the_other_seats_cards(page: Any, polish: Run) -> None:
    game = min(polish.games)
    r = polish.games[game]
    step_through(page, polish, r, 1)
    hands = polish.transcripts[game]["events"][0]["hands"]
    page.open(polish.page, f"game={game}&seat=1&step=0")
    tab = page.page
    tab.wait_for_selector("#table .seat")
    boxes = tab.locator("#table .seat")
    assert [c[0] for c in tab.evaluate(SNAPSHOT)["seats"][1][0][0]] == hands[1]
    for seat in (0, 2):
        text = boxes.nth(seat).inner_text()
        assert tab.evaluate(SNAPSHOT)["seats"][seat][0][0] == [["", True, False]] * len(hands[seat])
        assert not any(re.search(rf"\b{re.escape(c[0])}", text) for c in hands[seat])
    tab.select_option("#view", "all")  # and back to every card, the hidden ones marked
    assert tab.evaluate(SNAPSHOT) == expected(r, 0, None)
    assert "seat=" not in tab.evaluate("location.hash")
    page.shot("seat-view")
    assert page.errors == []


def test_a_bot_name_is_text_never_markup(page: Any, polish: Run) -> None:
    page.open(polish.page)
    tab = page.page
    tab.wait_for_selector("#table .seat")
    whos = tab.eval_on_selector_all(".who", "ns => ns.map(n => n.textContent)")
    assert MARKUP in whos and AMP in whos
    assert tab.locator("#app i, #app .who b").count() == 0
    assert MARKUP in tab.inner_text("#list") and AMP in tab.inner_text("#list")
    options = tab.eval_on_selector_all("#botfilter option", "os => os.map(o => o.textContent)")
    assert MARKUP in options and AMP in options
    assert page.errors == []


def test_fragments_pick_a_bots_games_a_game_a_seat_and_a_step(page: Any, polish: Run) -> None:
    tab = page.page
    total = len(polish.games)
    page.open(polish.page, f"bot={quote(MARKUP)}")
    tab.wait_for_selector("#table .seat")
    mine = sorted(g for g, r in polish.games.items() if MARKUP in r.names)
    assert tab.inner_text("#count") == f"{len(mine)} of {total} games"
    assert tab.input_value("#botfilter") == MARKUP
    assert tab.inner_text("#gamehead .title") == f"Game {mine[0]}"
    last = max(polish.games)
    r = polish.games[last]
    tab.evaluate(f"location.hash = 'game={last}&seat=2&step=3'")
    tab.wait_for_function(f"document.querySelector('#gamehead .title')?.textContent === "
                          f"'Game {last}' && document.getElementById('slider').value === '3'")
    assert tab.evaluate(SNAPSHOT) == expected(r, 3, 2)
    assert tab.input_value("#view") == "2"
    page.open(polish.page, "bot=nobody")
    tab.wait_for_function("document.getElementById('count').textContent.includes('nobody')")
    assert tab.inner_text("#count") == f'{total} of {total} games (no bot called "nobody" here)'
    page.open(polish.page, "game=99999")
    tab.wait_for_selector("#gamehead .notice")
    assert tab.inner_text("#gamehead") == "game 99999 is not in this replay"
    assert page.errors == []


def test_keys_slider_play_and_faults(page: Any, polish: Run) -> None:
    tab = page.page
    game, r = next((g, r) for g, r in sorted(polish.games.items()) if r.faults)
    page.open(polish.page, f"game={game}")
    tab.wait_for_selector("#table .seat")
    last = len(r.steps) - 1
    tab.keyboard.press("End")
    assert tab.evaluate(SNAPSHOT) == expected(r, last, None)
    assert tab.inner_text("#result") != ""
    tab.keyboard.press("Home")
    tab.keyboard.press("ArrowLeft")
    assert tab.evaluate(SNAPSHOT)["step"] == 0
    tab.fill("#slider", "2")
    assert tab.evaluate(SNAPSHOT) == expected(r, 2, None)
    tab.select_option("#speed", "16")
    tab.keyboard.press(" ")
    assert tab.inner_text("#play") == "pause"
    tab.wait_for_function("Number(document.getElementById('slider').value) >= 5")
    tab.keyboard.press(" ")
    assert tab.inner_text("#play") == "play"
    stopped = tab.evaluate(SNAPSHOT)["step"]
    tab.wait_for_timeout(300)
    assert tab.evaluate(SNAPSHOT)["step"] == stopped  # paused
    fault = r.faults[0]
    item = tab.locator("#faults li").first
    assert fault["label"] in item.inner_text() and AMP in item.inner_text()
    item.locator("button").click()
    assert tab.evaluate(SNAPSHOT)["step"] == fault["step"]
    assert "here" in (item.get_attribute("class") or "")
    assert f"{fault['label']} by {fault['bot']}" in tab.inner_text("#steptext")
    assert tab.evaluate("location.hash") == f"#game={game}&step={fault['step']}"
    page.shot("faults")
    assert page.errors == []


@pytest.mark.parametrize("game", ["turkish", "golf"])
def test_turkish_poker_and_golf_games_step_as_their_replays(
        page: Any, game: str, request: pytest.FixtureRequest) -> None:
    run: Run = request.getfixturevalue(game)
    r = run.games[min(run.games)]
    step_through(page, run, r, None)
    step_through(page, run, r, 0)
    page.shot(game)
    assert page.errors == []


def test_the_leaderboards_link_opens_that_bots_games(page: Any, polish: Run) -> None:
    """leaderboard.html links each bot to replay.html#bot=NAME (STEPS.md)."""
    tab = page.page
    page.open(polish.path / "leaderboard.html")
    link = tab.locator(f'a[href="replay.html#bot={quote(MARKUP, safe="")}"]')
    assert link.count() >= 1
    link.first.click()
    tab.wait_for_selector("#table .seat")
    mine = sorted(g for g, r in polish.games.items() if MARKUP in r.names)
    assert tab.input_value("#botfilter") == MARKUP
    assert tab.inner_text("#count") == f"{len(mine)} of {len(polish.games)} games"
    assert tab.inner_text("#gamehead .title") == f"Game {mine[0]}"
    assert page.errors == []


@pytest.mark.parametrize("width", [420, 1280])
def test_the_page_fits_a_phone_and_a_desktop(page: Any, turkish: Run, width: int) -> None:
    tab = page.page
    tab.set_viewport_size({"width": width, "height": 860})
    r = turkish.games[min(turkish.games)]
    page.open(turkish.page, f"game={r.game}")
    tab.wait_for_selector("#table .seat")
    assert tab.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll
    main, side = (tab.locator(sel).bounding_box() for sel in ("#main", "#side"))
    if width == 420:  # the list above, the table below it, with the whole width
        assert side["y"] + side["height"] <= main["y"] + 1 and main["width"] >= 400
    else:  # the list beside the table
        assert side["x"] + side["width"] <= main["x"] + 1 and main["width"] >= 900
    for seat in tab.locator("#table .seat").all():
        box = seat.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert tab.inner_text("#stepno") == f"step 1 of {len(r.steps)}"
    page.shot(f"turkish-{width}")
    assert page.errors == []


def test_faults_of_a_game_whose_steps_the_page_builds_are_in_their_steps(
        page: Any, golf: Run) -> None:
    """Golf's steps are built by the page (its steps.js): each fault is listed at the
    step the referee's replay puts it in, and the fault key goes there."""
    tab = page.page
    game, r = next((g, x) for g, x in sorted(golf.games.items()) if x.faults)
    page.open(golf.page, f"game={game}")
    tab.wait_for_function(f"document.querySelector('#gamehead .title')?.textContent"
                          f" === 'Game {game}'")
    steps = [f["step"] for f in r.faults]
    assert steps[0] > 0
    assert [int(li.get_attribute("data-step")) for li in
            tab.query_selector_all("#faults li")] == steps
    tab.keyboard.press("f")
    assert tab.evaluate(SNAPSHOT)["step"] == steps[0]
    assert f"{r.faults[0]['label']} by golf_banana" in tab.inner_text("#steptext")
    assert page.errors == []


def test_jumps_to_the_next_deal_result_and_fault(page: Any, turkish: Run, polish: Run) -> None:
    tab = page.page
    r = turkish.games[min(turkish.games)]
    page.open(turkish.page, f"game={r.game}")
    tab.wait_for_selector("#table .seat")
    deals = [k for k, s in enumerate(r.steps) if s.actor is None and s.result is None]
    results = [k for k, s in enumerate(r.steps) if s.result is not None]
    assert len(deals) >= 6 and results  # a hand at least, each starting with its deal
    tab.click("#nextdeal")
    assert tab.evaluate(SNAPSHOT)["step"] == deals[1]
    tab.keyboard.press("d")
    assert tab.evaluate(SNAPSHOT)["step"] == deals[2]
    tab.keyboard.press("Home")
    tab.click("#nextresult")
    assert tab.evaluate(SNAPSHOT)["step"] == results[0]
    tab.keyboard.press("r")
    assert tab.evaluate(SNAPSHOT)["step"] == results[1]
    assert tab.inner_text("#stepno") == f"step {results[1] + 1} of {len(r.steps)}"

    game, faulty = next((g, x) for g, x in sorted(polish.games.items()) if x.faults)
    page.open(polish.page, f"game={game}")
    tab.wait_for_function(f"document.querySelector('#gamehead .title')?.textContent"
                          f" === 'Game {game}'")
    later = sorted({f["step"] for f in faulty.faults} - {0})
    assert later  # the illegal bot's faults come after the deal
    tab.keyboard.press("f")
    assert tab.evaluate(SNAPSHOT)["step"] == later[0]
    tab.click("#nextfault")
    assert tab.evaluate(SNAPSHOT)["step"] == (later[1] if len(later) > 1 else later[0])
    assert page.errors == []

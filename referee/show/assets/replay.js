// replay.html: the replay viewer (inlined by referee/show/html.py; no network, no framework).
// Everything shown comes from the run (bot names, step texts, fault details): it is data, so
// the page is built with textContent only, never with markup made from it.
"use strict";
(function () {
  const INDEX = JSON.parse(document.getElementById("replay-index").textContent);
  const SPEEDS = [0.5, 1, 2, 4, 8, 16];
  const ROW_H = 44;
  const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  const state = {
    rows: [],        // indices into INDEX.games that pass the filters
    game: null,      // the game number shown
    data: null,      // its decoded steps
    step: 0,
    view: "all",     // "all" or a seat number
    bot: "",
    faultsOnly: false,
    timer: null,
    speed: 2,
    token: 0,        // the latest game load; an older one that finishes late is dropped
  };
  const cache = new Map();  // game number -> decoded game (the last few)

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function byId(id) { return document.getElementById(id); }

  // --- the page's frame ---------------------------------------------------------------
  function frame() {
    const app = byId("app");
    const header = el("header");
    header.append(el("h1", "", INDEX.title));
    const layout = el("div"); layout.id = "layout";
    const side = el("aside"); side.id = "side";
    const filters = el("div"); filters.id = "filters";
    const botLabel = el("label", "", "games of bot ");
    const botSel = el("select"); botSel.id = "botfilter";
    botSel.append(option("", "all bots"));
    INDEX.bots.forEach((name) => botSel.append(option(name, name)));
    botLabel.append(botSel);
    const faultLabel = el("label");
    const faultBox = el("input"); faultBox.type = "checkbox"; faultBox.id = "faultfilter";
    faultLabel.append(faultBox, document.createTextNode(" only games with faults"));
    const count = el("div"); count.id = "count";
    filters.append(botLabel, faultLabel, count);
    const list = el("div"); list.id = "list";
    const spacer = el("div", "spacer"); list.append(spacer);
    side.append(filters, list);
    const main = el("main"); main.id = "main";
    main.append(section("gamehead"), controls(), section("steptext"), section("result"),
                section("table"), lower(), legend());
    layout.append(side, main);
    app.append(header, layout);
    botSel.addEventListener("change", () => { setBot(botSel.value); pickFirst(); });
    faultBox.addEventListener("change", () => {
      state.faultsOnly = faultBox.checked; filter(); pickFirst();
    });
    list.addEventListener("scroll", drawList);
    // After a choice in a menu, the keys step the game again (a focused menu takes them).
    for (const menu of [botSel, faultBox, ...main.querySelectorAll("select")]) {
      menu.addEventListener("change", () => menu.blur());
    }
    window.addEventListener("resize", drawList);
  }
  function option(value, text) { const o = el("option", "", text); o.value = value; return o; }
  function section(id) { const s = el("div"); s.id = id; return s; }
  function controls() {
    const c = section("controls");
    const button = (id, text, title, fn) => {
      const b = el("button", "", text); b.id = id; b.title = title; b.type = "button";
      b.addEventListener("click", fn); return b;
    };
    const slider = el("input"); slider.type = "range"; slider.id = "slider"; slider.min = 0;
    slider.value = 0;
    slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
    const speed = el("select"); speed.id = "speed"; speed.title = "steps per second";
    SPEEDS.forEach((s) => speed.append(option(String(s), s + " steps/s")));
    speed.value = String(state.speed);
    speed.addEventListener("change", () => {
      state.speed = Number(speed.value); if (state.timer) { stop(); play(); }
    });
    const view = el("select"); view.id = "view"; view.title = "whose cards are face up";
    view.addEventListener("change", () => {
      state.view = view.value === "all" ? "all" : Number(view.value); draw(); writeHash();
    });
    c.append(button("first", "|\u25c0", "first step (Home)", () => { stop(); show(0); }),
             button("back", "\u25c0", "step back (left arrow)", () => { stop(); show(state.step - 1); }),
             button("play", "play", "play / pause (space)", toggle),
             button("next", "\u25b6", "step forward (right arrow)",
                    () => { stop(); show(state.step + 1); }),
             button("last", "\u25b6|", "last step (End)", () => { stop(); show(lastStep()); }),
             slider, section("stepno"), speed, view);
    const jumps = section("jumps");
    jumps.append(el("span", "label", "next:"),
                 button("nextdeal", "deal", "next deal: a new hand or round (d)", () => jump("deal")),
                 button("nextresult", "result", "next result: a showdown, the end of a hand or round (r)",
                        () => jump("result")),
                 button("nextfault", "fault", "next fault (f)", () => jump("fault")));
    c.append(jumps);
    return c;
  }
  // Where the jumps go, from what every game's steps say: a deal is a step no seat acted in
  // that decides nothing; a result is a step with one; a fault is a step a fault is in.
  const JUMPS = {
    deal: (s) => s[1] === null && s[6] === null,
    result: (s) => s[6] !== null,
    fault: (s, k) => state.data.faults.some((f) => f.step === k),
  };
  function jump(kind) {
    stop();
    if (!state.data) return;
    const steps = state.data.steps;
    for (let k = state.step + 1; k < steps.length; k++) {
      if (JUMPS[kind](steps[k], k)) { show(k); return; }
    }
  }
  function lower() {
    const box = section("lower");
    const h = el("div"); h.append(el("h2", "", "This round"), listNode("history", "ol"));
    const f = el("div"); f.append(el("h2", "", "Faults"), listNode("faults", "ul"));
    box.append(h, f);
    return box;
  }
  function listNode(id, tag) { const n = el(tag); n.id = id; return n; }
  function legend() {
    return el("p", "legend",
      "Keys: \u2190 \u2192 step, Home / End, space play / pause, d / r / f the next deal, " +
      "result or fault. A striped card is face down " +
      "for the seat whose view is shown. A dashed card is one not every seat knows (its " +
      "tooltip says who does); a dotted outline marks a card its own seat has not seen.");
  }

  // --- the list of games ----------------------------------------------------------------
  function setBot(name) {
    state.bot = INDEX.bots.includes(name) ? name : "";
    byId("botfilter").value = state.bot;
    filter();
  }
  function filter() {
    const bot = state.bot === "" ? -1 : INDEX.bots.indexOf(state.bot);
    state.rows = [];
    INDEX.games.forEach((g, i) => {
      if (bot >= 0 && !g[1].includes(bot)) return;
      if (state.faultsOnly && g[3].length === 0) return;
      state.rows.push(i);
    });
    const n = state.rows.length;
    byId("count").textContent = n + " of " + INDEX.games.length + " games" +
      (n === 0 && state.bot ? " (" + state.bot + " played none with these filters)" : "");
    byId("list").firstChild.style.height = n * ROW_H + "px";
    drawList();
  }
  function drawList() {
    const list = byId("list");
    const spacer = list.firstChild;
    const first = Math.max(0, Math.floor(list.scrollTop / ROW_H) - 5);
    const last = Math.min(state.rows.length, first + Math.ceil(list.clientHeight / ROW_H) + 10);
    spacer.replaceChildren();
    for (let k = first; k < last; k++) spacer.append(listRow(INDEX.games[state.rows[k]], k));
  }
  function listRow(g, k) {
    const [game, bots, places, faults, seconds] = g;
    const row = el("div", "row" + (game === state.game ? " current" : ""));
    row.style.top = k * ROW_H + "px";
    row.dataset.game = String(game);
    const took = seconds < 1 ? Math.round(seconds * 1000) + " ms" : seconds.toFixed(1) + " s";
    const top = el("div", "top", "game " + game + " \u00b7 " + took);
    if (faults.length) top.append(el("span", "badge", faults.join(", ")));
    const names = el("div", "names");
    bots.forEach((b, seat) => {
      if (seat) names.append(document.createTextNode(" \u00b7 "));
      names.append(el("b", "", places[seat]), document.createTextNode(" " + INDEX.bots[b]));
    });
    names.title = "place and bot, seat by seat";
    row.append(top, names);
    row.addEventListener("click", () => openGame(game, 0));
    return row;
  }
  function pickFirst() {
    if (state.rows.length) openGame(INDEX.games[state.rows[0]][0], 0);
    else writeHash();
  }
  function scrollToCurrent() {
    const k = state.rows.findIndex((i) => INDEX.games[i][0] === state.game);
    const list = byId("list");
    if (k >= 0 && (k * ROW_H < list.scrollTop || (k + 1) * ROW_H > list.scrollTop + list.clientHeight)) {
      list.scrollTop = Math.max(0, k * ROW_H - list.clientHeight / 3);
    }
    drawList();
  }

  // --- loading a game: its steps are gzip + base64 in <script id="g-N"> -------------------
  function blob(game) {
    const node = byId("g-" + game);
    if (node || document.readyState !== "loading") return Promise.resolve(node);
    return new Promise((done) => document.addEventListener(
      "DOMContentLoaded", () => done(byId("g-" + game)), { once: true }));
  }
  async function decode(game) {
    if (cache.has(game)) return cache.get(game);
    const node = await blob(game);
    if (!node) return null;
    const data = node.type === "application/json" ? await build(JSON.parse(node.textContent))
      : JSON.parse(await inflate(node.textContent, "gzip"));
    if (node.type !== "application/json") fillIn(data.steps);
    cache.set(game, data);
    if (cache.size > 4) cache.delete(cache.keys().next().value);
    return data;
  }
  // The bytes of base64 `text`, uncompressed (format "gzip" or "deflate", zlib's).
  async function inflate(text, format, as = "text") {
    const raw = atob(text.trim());
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format));
    return new Response(stream)[as]();
  }
  // A game whose steps the page builds (its game's steps.js): from the transcript's events,
  // as journalled (msgpack [events, decisions], zlib, base64); then each decision's time in
  // the step that shows it when its seat acted there, and each fault's step.
  async function build(data) {
    const [events, decisions] = unpack(new Uint8Array(await inflate(data.packed, "deflate",
                                                                    "arrayBuffer")));
    const game = (globalThis.replayGames || {})[data.game_type];
    if (!game) throw new Error("no steps for " + data.game_type + " in this page");
    const steps = game(globalThis.replayStepLib)(data.players, events);
    const marks = steps.map((s) => s[0]);
    const at = (event) => Math.min(firstAtLeast(marks, event), steps.length - 1);
    const times = new Array(steps.length).fill(null);
    for (const [seat, event, ms] of decisions || []) {
      const k = at(event);
      if (steps[k][1] === seat) times[k] = round1(ms);
    }
    const faults = data.faults.map((f) => ({ ...f, step: at(Number(f.event)) }));
    delete data.packed;
    return { ...data, steps, times, faults };
  }
  function firstAtLeast(sorted, x) {  // bisect_left
    let lo = 0, hi = sorted.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  // Python's round(x, 1), which the written pages use: ties (x.25, x.75) to even.
  function round1(x) {
    if (Number.isInteger(x * 4) && !Number.isInteger(x * 2)) {
      const f = Math.floor(x * 10);
      return (f % 2 === 0 ? f : f + 1) / 10;
    }
    return Number(x.toFixed(1));
  }
  // MessagePack (what the journal packs transcripts with): the types JSON values take.
  function unpack(bytes) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const utf8 = new TextDecoder();
    let at = 0;
    const str = (n) => { const s = utf8.decode(bytes.subarray(at, at + n)); at += n; return s; };
    const arr = (n) => { const a = new Array(n); for (let i = 0; i < n; i++) a[i] = next(); return a; };
    const map = (n) => {
      const m = Object.create(null);  // a key "__proto__" is a key like any other
      for (let i = 0; i < n; i++) { const k = next(); m[k] = next(); }
      return m;
    };
    const big = (v) => {
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new Error("an integer beyond what this page can show");
      }
      return Number(v);
    };
    function next() {
      if (at >= bytes.length) throw new Error("a transcript cut short");
      const b = bytes[at++];
      if (b <= 0x7f) return b;
      if (b >= 0xe0) return b - 0x100;
      if ((b & 0xf0) === 0x80) return map(b & 0x0f);
      if ((b & 0xf0) === 0x90) return arr(b & 0x0f);
      if ((b & 0xe0) === 0xa0) return str(b & 0x1f);
      const take = (n, get) => { const v = get(at); at += n; return v; };
      switch (b) {
        case 0xc0: return null;
        case 0xc2: return false;
        case 0xc3: return true;
        case 0xca: return take(4, (i) => view.getFloat32(i));
        case 0xcb: return take(8, (i) => view.getFloat64(i));
        case 0xcc: return take(1, (i) => view.getUint8(i));
        case 0xcd: return take(2, (i) => view.getUint16(i));
        case 0xce: return take(4, (i) => view.getUint32(i));
        case 0xcf: return big(take(8, (i) => view.getBigUint64(i)));
        case 0xd0: return take(1, (i) => view.getInt8(i));
        case 0xd1: return take(2, (i) => view.getInt16(i));
        case 0xd2: return take(4, (i) => view.getInt32(i));
        case 0xd3: return big(take(8, (i) => view.getBigInt64(i)));
        case 0xd9: return str(take(1, (i) => view.getUint8(i)));
        case 0xda: return str(take(2, (i) => view.getUint16(i)));
        case 0xdb: return str(take(4, (i) => view.getUint32(i)));
        case 0xdc: return arr(take(2, (i) => view.getUint16(i)));
        case 0xdd: return arr(take(4, (i) => view.getUint32(i)));
        case 0xde: return map(take(2, (i) => view.getUint16(i)));
        case 0xdf: return map(take(4, (i) => view.getUint32(i)));
        default: throw new Error("a transcript with MessagePack type 0x" + b.toString(16));
      }
    }
    const value = next();
    if (at !== bytes.length) throw new Error("a transcript with bytes after its end");
    return value;
  }
  // A seat or the piles written 0 are as in the step before; the history [n, ...new] is
  // the step before's first n lines, then the new ones.
  function fillIn(steps) {
    steps.forEach((s, k) => {
      const before = k ? steps[k - 1] : [0, 0, "", [], [], []];
      s[3] = s[3].map((seat, n) => (seat === 0 ? before[3][n] : seat));
      if (s[4] === 0) s[4] = before[4];
      s[5] = before[5].slice(0, s[5][0]).concat(s[5].slice(1));
    });
  }
  async function openGame(game, step) {
    stop();
    const token = ++state.token;
    state.game = game;
    scrollToCurrent();
    byId("gamehead").replaceChildren(el("span", "", "loading game " + game + "\u2026"));
    let data = null, why = "is not in this replay";
    try {
      data = await decode(game);
    } catch (err) {
      why = "cannot be read in this browser (" + err + ")";
    }
    if (token !== state.token) return;
    if (!data) {
      state.data = null;
      byId("gamehead").replaceChildren(el("div", "notice", "game " + game + " " + why));
      for (const id of ["steptext", "result", "table", "history", "faults"]) byId(id).replaceChildren();
      writeHash();
      return;
    }
    state.data = data;
    if (state.view !== "all" && state.view >= data.names.length) state.view = "all";
    const view = byId("view");
    view.replaceChildren(option("all", "all seats' cards"));
    data.names.forEach((name, seat) => view.append(option(String(seat), "seat " + seat + ": " + name + "'s view")));
    view.value = String(state.view);
    const slider = byId("slider");
    slider.max = lastStep();
    drawHead();
    drawFaults();
    show(step);
  }
  function lastStep() { return state.data ? state.data.steps.length - 1 : 0; }

  // --- one step ---------------------------------------------------------------------------
  function show(k) {
    if (!state.data) return;
    state.step = Math.max(0, Math.min(lastStep(), Number.isFinite(k) ? k : 0));
    draw();
    writeHash();
  }
  function draw() {
    const d = state.data;
    if (!d) return;
    const [, actor, text, seats, piles, history, result] = d.steps[state.step];
    byId("slider").value = state.step;
    // Steps are numbered from 1, as `referee show` numbers them; the URL's step= is the
    // index, from 0.
    byId("stepno").textContent = "step " + (state.step + 1) + " of " + (lastStep() + 1);
    const time = d.times[state.step];
    const said = el("span", "said");
    said.append(...named(text));
    const line = byId("steptext");
    line.replaceChildren(said);
    if (time !== null && time !== undefined) line.append(el("span", "time", ms(time)));
    for (const f of d.faults) {
      if (f.step === state.step) line.append(el("span", "badge", f.label + " by " + f.bot));
    }
    byId("result").replaceChildren(...(result === null ? [] : named(result)));
    const table = byId("table");
    table.replaceChildren();
    seats.forEach((seat, n) => table.append(seatBox(seat, n, actor, time)));
    piles.forEach((pile) => table.append(pileBox(pile)));
    const hist = byId("history");
    hist.replaceChildren();
    history.forEach((h) => { const li = el("li"); li.append(...named(h)); hist.append(li); });
    for (const li of byId("faults").children) {
      li.classList.toggle("here", Number(li.dataset.step) === state.step);
    }
  }
  function seatBox([rows, status, info], n, actor, time) {
    const d = state.data;
    const box = el("div", "seat" + (n === actor ? " actor" : "") + (n === state.view ? " viewer" : ""));
    box.dataset.seat = String(n);
    const name = el("div", "name", d.names[n]);
    if (status) name.append(facts("span", "status", status));
    box.append(name, el("div", "meta", "seat " + n + " \u00b7 place " + d.places[n] +
                        (d.scores ? " \u00b7 score " + d.scores[n] : "")));
    rows.forEach((row) => box.append(cardRow(row, n)));
    if (info) box.append(facts("div", "meta info", info));
    if (n === actor && time !== null && time !== undefined) box.append(el("div", "took", "took " + ms(time)));
    return box;
  }
  function pileBox([label, cards, info]) {
    const box = el("div", "pile");
    box.dataset.pile = label;
    box.append(el("div", "label", label), cardRow(cards, null));
    if (info) box.append(facts("div", "meta info", info));
    return box;
  }
  // A seat's or pile's short facts, which may name seats too ("<1> to call").
  function facts(tag, cls, text) {
    const node = el(tag, cls);
    node.append(...named(text));
    return node;
  }
  function cardRow(cards, owner) {
    const row = el("div", "cards");
    cards.forEach((c) => row.append(cardNode(c, owner)));
    return row;
  }
  // A card is "Ah" (face up to all) or ["Ah", [seats that know it]].
  function cardNode(card, owner) {
    const code = typeof card === "string" ? card : card[0];
    const seenBy = typeof card === "string" ? null : card[1];
    const node = el("span", "card");
    node.dataset.code = code;
    if (state.view !== "all" && seenBy !== null && !seenBy.includes(state.view)) {
      node.classList.add("back");
      node.title = "face down";
      node.dataset.code = "";
      return node;
    }
    const m = /^(10|[2-9TJQKA])([shdc])$/.exec(code);
    node.textContent = m ? (m[1] === "T" ? "10" : m[1]) + SUITS[m[2]] : code;
    if (m && (m[2] === "h" || m[2] === "d")) node.classList.add("red");
    if (seenBy !== null) {
      node.classList.add("private");
      const who = seenBy.map((s) => state.data.names[s] || "seat " + s);
      node.title = who.length ? "known to " + who.join(", ") : "known to nobody at the table";
      if (owner !== null && !seenBy.includes(owner)) node.classList.add("unseen");
    }
    return node;
  }
  function ms(t) { return t < 10 ? t.toFixed(1) + " ms" : Math.round(t) + " ms"; }
  // "<2> declares ..." -> [the name of seat 2 (as text), " declares ..."]
  function named(text) {
    const parts = [];
    const re = /<(\d+)>/g;
    let at = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > at) parts.push(document.createTextNode(text.slice(at, m.index)));
      const seat = Number(m[1]);
      const name = state.data && seat < state.data.names.length ? state.data.names[seat] : "seat " + seat;
      const who = el("span", "who", name);
      who.title = "seat " + seat;
      parts.push(who);
      at = re.lastIndex;
    }
    if (at < text.length) parts.push(document.createTextNode(text.slice(at)));
    return parts;
  }
  function drawHead() {
    const d = state.data;
    const head = byId("gamehead");
    const params = Object.entries(d.params).map(([k, v]) => k + " " + v).join(", ");
    head.replaceChildren(el("span", "title", "Game " + d.game),
                         document.createTextNode(" \u00b7 " + d.game_type + (params ? " (" + params + ")" : "") + " \u00b7 "));
    const order = d.names.map((name, seat) => [d.places[seat], seat, name]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    order.forEach(([place, seat, name], i) => {
      if (i) head.append(document.createTextNode(", "));
      head.append(document.createTextNode(place + ". "), el("span", "who", name),
                  document.createTextNode(" (seat " + seat + ")"));
    });
  }
  function drawFaults() {
    const list = byId("faults");
    list.replaceChildren();
    if (!state.data.faults.length) list.append(el("li", "", "none"));
    state.data.faults.forEach((f) => {
      const li = el("li");
      li.dataset.step = String(f.step);
      const go = el("button", "", "step " + (f.step + 1)); go.type = "button";
      go.addEventListener("click", () => { stop(); show(f.step); });
      li.append(go, el("b", "", f.label), document.createTextNode(" by " + f.bot + " (seat " + f.seat + ")" +
                (f.detail ? ": " + f.detail : "") + (f.log ? " \u00b7 log " + f.log : "")));
      list.append(li);
    });
  }

  // --- playing ----------------------------------------------------------------------------
  function play() {
    if (!state.data) return;
    if (state.step >= lastStep()) show(0);
    byId("play").textContent = "pause";
    state.timer = setInterval(() => {
      if (state.step >= lastStep()) stop(); else show(state.step + 1);
    }, 1000 / state.speed);
  }
  function stop() {
    if (state.timer) clearInterval(state.timer);
    state.timer = null;
    const b = byId("play");
    if (b) b.textContent = "play";
  }
  function toggle() { if (state.timer) stop(); else play(); }
  function keys(e) {
    const tag = e.target.tagName;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.id === "slider" ? e.key !== " " : ["INPUT", "SELECT", "TEXTAREA"].includes(tag)) {
      return;  // the slider's own arrows, Home and End move it; a menu keeps its keys
    }
    const acts = {
      ArrowRight: () => show(state.step + 1), ArrowLeft: () => show(state.step - 1),
      Home: () => show(0), End: () => show(lastStep()), " ": toggle,
      d: () => jump("deal"), r: () => jump("result"), f: () => jump("fault"),
    };
    const act = acts[e.key];
    if (!act) return;
    e.preventDefault();
    if (e.key !== " ") stop();
    act();
  }

  // --- the URL fragment: game=, bot=, seat=, step= --------------------------------------------
  function readHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    const num = (key) => (h.has(key) && /^\d+$/.test(h.get(key)) ? Number(h.get(key)) : null);
    return { game: num("game"), bot: h.get("bot"), seat: num("seat"), step: num("step") };
  }
  function writeHash() {
    const parts = [];
    if (state.bot) parts.push("bot=" + encodeURIComponent(state.bot));
    if (state.game !== null) parts.push("game=" + state.game);
    if (state.view !== "all") parts.push("seat=" + state.view);
    if (state.data && state.step) parts.push("step=" + state.step);
    const hash = parts.length ? "#" + parts.join("&") : "";
    if (hash !== location.hash) history.replaceState(null, "", location.pathname + location.search + hash);
  }
  function follow() {
    const h = readHash();
    setBot(h.bot || "");
    if (h.bot && !state.bot) {
      byId("count").textContent += " (no bot called " + JSON.stringify(h.bot) + " here)";
    }
    if (h.seat !== null) state.view = h.seat;
    if (h.game !== null) openGame(h.game, h.step || 0);
    else pickFirst();
  }

  frame();
  document.addEventListener("keydown", keys);
  document.addEventListener("keyup", (e) => { if (e.key === " " && e.target.tagName === "BUTTON") e.preventDefault(); });
  window.addEventListener("hashchange", follow);
  filter();
  follow();
})();

// Six-card golf's replay steps in the page (replay.html builds them from the transcript when
// a game is opened): what steps.py makes, step for step, in the form the page draws. Kept
// equal to steps.py by tests/test_replay_steps_js.py; a change to one is a change to both.
"use strict";
(globalThis.replayGames = globalThis.replayGames || {})["six-card-golf"] = (lib) => {
  const POSITIONS = ["r0c0", "r0c1", "r1c0", "r1c1", "r2c0", "r2c1"];  // evaluator.golf
  const TOP_ROW = [0, 1];
  const FOLLOWING = new Set(["went_out", "reshuffled", "round_ended"]);
  const KINDS = new Set([...FOLLOWING, "dealt", "took", "placed", "discarded", "fault",
                         "forfeit", "game_over"]);
  const WHY = { out: (o) => o.out + " went out", cap: () => "the turn cap was reached",
                fault: (o) => o.charged + " faulted", forfeit: (o) => o.charged + " forfeited" };
  const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  const cards = (n) => n + " card" + (n !== 1 ? "s" : "");
  // A card in a step's text as the page draws it (3s -> 3♠, Th -> 10♥).
  function face(card) {
    const code = String(card);
    if (code.length !== 2 || !Object.hasOwn(SUITS, code[1])) return code;
    return (code[0] === "T" ? "10" : code[0]) + SUITS[code[1]];
  }

  class Table extends lib.StepTable {
    constructor(players) {
      super(players);
      this.grids = Array.from({ length: players }, () => []);
      this.up = Array.from({ length: players }, () => []);
      this.active = new Array(players).fill(true);
      this.places = {};
      this.totals = new Array(players).fill(0);
      this.points = null;
      this.discard = [];
      this.stock = 0;
      this.drawn = null;  // [seat, card, source]
      this.toAct = null;
      this.out = null;
      this.charged = null;
    }
    apply(e) {
      const kind = e.type;
      if (!KINDS.has(kind)) throw new Error("unknown event type " + JSON.stringify(kind));
      this["on_" + kind](e);
      if (kind === "took" || kind === "placed" || kind === "discarded") {
        this.history.push(this.texts[this.texts.length - 1]);
      }
    }
    on_dealt(e) {
      this.grids = e.grids.map((g) => g.map(String));
      this.up = this.grids.map((g) => g.map((_, i) => TOP_ROW.includes(i)));
      this.discard = [String(e.discard)];
      this.stock = Number(e.stock);
      this.drawn = this.points = this.out = this.charged = null;
      this.toAct = e.starter;
      this.history = [];
      this.texts.push("round " + e.round + " dealt by <" + e.dealer + ">; <" + e.starter +
                      "> starts");
    }
    on_took(e) {
      const seat = e.seat, card = String(e.card), source = e.from;
      this.actor = seat;
      this.drawn = [seat, card, source];
      if (source === "stock") {
        this.stock -= 1;
        this.texts.push("<" + seat + "> takes a card from the stock");
      } else {
        if (!this.discard.length) throw new Error("a take from an empty discard pile");
        this.discard.pop();
        this.texts.push("<" + seat + "> takes " + face(card) + " from the discard pile");
      }
    }
    on_placed(e) {
      const seat = e.seat, at = POSITIONS.indexOf(e.at);
      if (at < 0) throw new Error("no position " + JSON.stringify(e.at));
      this.actor = seat;
      this.drawn = null;
      this.grids[seat][at] = String(e.card);
      this.up[seat][at] = true;
      this.discard.push(String(e.replaced));
      this.texts.push("<" + seat + "> places " + face(e.card) + " at " + e.at +
                      ", discarding " + face(e.replaced));
      this.toAct = lib.nextActive(this.active, seat);
    }
    on_discarded(e) {
      const seat = e.seat;
      this.actor = seat;
      this.drawn = null;
      this.discard.push(String(e.card));
      this.texts.push("<" + seat + "> discards " + face(e.card));
      this.toAct = lib.nextActive(this.active, seat);
    }
    on_went_out(e) {
      this.out = e.seat;
      this.texts.push("<" + e.seat + "> goes out: every other player has one more turn");
    }
    on_reshuffled(e) {
      this.stock = Number(e.stock);
      this.discard = this.discard.slice(-1);
      this.texts.push("the discard pile is shuffled into a new stock of " + e.stock + " cards");
    }
    on_fault(e) {
      this.actor = this.charged = e.seat;
      this.texts.push("<" + e.seat + "> faults: " + e.label);
    }
    on_forfeit(e) {
      const seat = this.actor = this.charged = e.seat;
      this.active[seat] = false;
      this.places[seat] = e.place;
      this.texts.push("<" + seat + "> forfeits: " + e.label);
      this.results.push("<" + seat + "> is out of the game");
    }
    on_round_ended(e) {
      if (this.drawn !== null) this.discard.push(this.drawn[1]);
      this.drawn = this.toAct = null;
      this.grids = e.grids.map((g) => g.map(String));
      this.up = this.grids.map((g) => g.map(() => true));
      this.points = [...e.points];
      this.totals = [...e.totals];
      const who = { out: "<" + lib.str(this.out) + ">",
                    charged: "<" + lib.str(this.charged) + ">" };
      const why = Object.hasOwn(WHY, e.reason) ? WHY[e.reason](who) : e.reason;
      const scored = this.points.map((p, s) => [p, s]).filter(([p]) => p !== null)
        .map(([p, s]) => "<" + s + "> " + p).join(", ");
      this.results.unshift("round " + e.round + " ends (" + why + "): " + scored);
    }
    on_game_over(e) {
      this.texts.push("game over");
      const order = lib.seatsBy(this.players, e.places);
      this.results.push("places: " + order.map(
        (s) => "<" + s + "> " + e.places[s] + " (" + e.totals[s] + " points)").join(", "));
    }
    piles() {
      const piles = [["discard", lib.row(this.discard.slice(-1), null), cards(this.discard.length)],
                     ["stock", [], cards(this.stock)]];
      if (this.drawn !== null) {
        const [seat, card, source] = this.drawn;
        piles.push(["drawn", lib.row([card], source === "stock" ? [seat] : null),
                    "held by <" + seat + ">"]);
      }
      return piles;
    }
    seatView(seat) {
      const points = this.points === null ? null : this.points[seat];
      const status = !this.active[seat] ? "out" : seat === this.toAct ? "to act"
        : seat === this.out ? "went out" : "";
      const grid = this.grids[seat], up = this.up[seat];
      const rows = [];
      for (let i = 0; i < grid.length; i += 2) {
        rows.push(grid.slice(i, i + 2).map((c, k) => (up[i + k] ? c : [c, []])));
      }
      if (!rows.length) rows.push([]);
      const info = (points === null ? "" : "round " + points + " points, ") + "total " +
        this.totals[seat];
      return status === "out" ? [rows, "out", "place " + this.places[seat] + ", " + info]
        : [rows, status, info];
    }
  }

  return (players, events) => {
    if (!events.length || events[0] === null || typeof events[0] !== "object" ||
        events[0].type !== "dealt") {
      throw new Error("a six-card golf transcript starts with a deal");
    }
    return lib.groupSteps(events, (i) => !FOLLOWING.has(events[i].type), new Table(players));
  };
};

// Turkish poker's replay steps in the page (replay.html builds them from the transcript when
// a game is opened): what steps.py makes, step for step, in the form the page draws. Kept
// equal to steps.py by tests/test_replay_steps_js.py; a change to one is a change to both.
"use strict";
(globalThis.replayGames = globalThis.replayGames || {})["turkish-poker"] = (lib) => {
  const FOLLOWING = new Set(["dealt", "returned", "shown", "pot", "hand_ended"]);
  const DECISIONS = new Set(["action", "drew", "fault"]);
  const signed = (n) => (n >= 0 ? "+" : "") + n;

  function leads(events, i) {
    const kind = events[i].type;
    if (kind === "antes") return events[i - 1].type !== "hand_started";
    if (kind === "drew") return events[i - 1].type !== "reshuffled";
    if (kind === "action" && events[i].forced) {
      return !["fault", "forfeit"].includes(events[i - 1].type);
    }
    return !FOLLOWING.has(kind);
  }

  // The seat whose decision the step after the one ending at event `last` is.
  function toAct(events, last) {
    if (last + 1 >= events.length) return null;
    let first = events[last + 1];
    if (first.type === "reshuffled") first = events[last + 2];
    return DECISIONS.has(first.type) ? first.seat : null;
  }

  class Table extends lib.StepTable {
    constructor(players, events) {
      super(players);
      this.events = events;
      this.toAct = null;
      this.hands = new Array(players).fill([]);
      this.shown = new Array(players).fill(false);
      this.stacks = new Array(players).fill(0);
      this.bets = new Array(players).fill(0);
      this.pot = 0;
      this.folded = new Array(players).fill(false);
      this.out = new Array(players).fill(false);
      this.hand = 0;
      this.drawing = false;
    }
    apply(e) {
      const handler = Object.hasOwn(HANDLERS, e.type) ? HANDLERS[e.type] : null;
      if (!handler) throw new Error("unknown event type " + JSON.stringify(e.type));
      handler.call(this, e);
    }
    hand_started(e) {
      this.hand = e.hand;
      this.stacks = e.stacks.map(Number);
      this.folded = Array.from({ length: this.players }, (_, s) => !e.seats.includes(s));
      this.hands = new Array(this.players).fill([]);
      this.shown = new Array(this.players).fill(false);
      this.pot = 0;
      this.history = [];
      this.texts.push("hand " + (this.hand + 1) + " (dealer <" + e.dealer + ">)");
    }
    antes(e) {
      for (const s of e.seats) { this.stacks[s] -= e.amount; this.pot += e.amount; }
      this.bets = new Array(this.players).fill(0);
      this.drawing = false;
      this.hands = new Array(this.players).fill([]);
      const seats = e.seats.map((s) => "<" + s + ">").join(", ");
      const deal = "deal " + e.deal + ", antes " + e.amount + " from " + seats + " (" + e.deck +
        "-card deck)";
      if (this.texts.length) this.texts[this.texts.length - 1] += ": " + deal;
      else this.texts.push("no one opened: " + deal);
      this.history.push("deal " + e.deal);
    }
    dealt(e) { this.hands[e.seat] = e.cards.map(String); }
    action(e) {
      const seat = e.seat, kind = e.kind, amount = Number(e.amount || 0);
      let added = 0;
      if (kind === "open" || kind === "raise") {
        added = amount - this.bets[seat];
        this.bets[seat] = amount;
      } else if (kind === "call") {
        added = amount;
        this.bets[seat] += amount;
      }
      this.stacks[seat] -= added;
      this.pot += added;
      if (kind === "fold") this.folded[seat] = true;
      let text;
      if (e.forced) {
        text = "<" + seat + ">'s hand is folded";
      } else {
        this.actor = seat;
        const words = { fold: "folds", pass: "passes", open: "opens for " + amount,
                        call: "calls " + amount, raise: "raises to " + amount };
        text = "<" + seat + "> " + (Object.hasOwn(words, kind) ? words[kind] : kind);
      }
      if (e.all_in) text += " (all in)";
      this.texts.push(text);
      this.history.push(text);
    }
    drew(e) {
      const seat = this.actor = e.seat;
      if (!this.drawing) { this.drawing = true; this.bets = new Array(this.players).fill(0); }
      this.hands[seat] = [...this.hands[seat].filter((c) => !e.discarded.includes(c)),
                          ...e.received.map(String)];
      const n = e.discarded.length;
      this.texts.push(n ? "<" + seat + "> draws " + n + " card" + (n !== 1 ? "s" : "")
                        : "<" + seat + "> stands pat");
      this.history.push(this.texts[this.texts.length - 1]);
    }
    reshuffled(e) {
      this.texts.push("the discards are shuffled into a new stock of " + e.cards + " cards");
    }
    returned(e) {
      const seat = e.seat, amount = Number(e.amount);
      this.stacks[seat] += amount;
      this.bets[seat] -= amount;
      this.pot -= amount;
      this.results.push(amount + " uncalled chips go back to <" + seat + ">");
    }
    shown_(e) {
      this.hands[e.seat] = e.cards.map(String);
      this.shown[e.seat] = true;
      this.results.push("<" + e.seat + "> shows " + e.category);
    }
    pot_(e) {
      e.winners.forEach((s, k) => { this.stacks[s] += e.shares[k]; });
      this.pot -= e.amount;
      const which = e.index === 0 ? "the pot" : "side pot " + e.index;
      const rake = e.rake ? " (rake " + e.rake + ")" : "";
      if (e.winners.length === 1) {
        this.results.push("<" + e.winners[0] + "> wins " + which + " of " + e.amount + rake);
      } else {
        const split = e.winners.map((s, k) => "<" + s + "> " + e.shares[k]).join(", ");
        this.results.push(which + " of " + e.amount + rake + " is split: " + split);
      }
    }
    hand_ended(e) {
      this.bets = new Array(this.players).fill(0);
      this.pot = 0;
      const net = e.net.map((n, s) => [n, s]).filter(([n, s]) => !this.out[s] || n)
        .map(([n, s]) => "<" + s + "> " + signed(n)).join(", ");
      this.results.push("hand " + (e.hand + 1) + " ends (" + e.reason + "): " + net);
    }
    fault(e) {
      this.actor = e.seat;
      this.texts.push("<" + e.seat + "> faults: " + e.label);
    }
    forfeit(e) {
      this.actor = e.seat;
      this.out[e.seat] = true;
      this.texts.push("<" + e.seat + "> forfeits: " + e.label +
                      " (sits out the rest of the game)");
    }
    game_over(e) {
      this.texts.push("game over");
      const order = lib.seatsBy(this.players, e.places);
      this.results.push("places: " + order.map(
        (s) => "<" + s + "> " + e.places[s] + " (" + signed(e.scores[s]) + " chips)").join(", "));
    }
    step(event) {
      this.toAct = toAct(this.events, event);
      return super.step(event);
    }
    piles() { return [["pot", [], this.pot + " chips"]]; }
    seatView(seat) {
      const status = this.out[seat] ? "out" : this.folded[seat] ? "folded"
        : this.stacks[seat] === 0 && this.pot ? "all-in"
        : seat === this.toAct ? "to act" : "";
      const bet = this.bets[seat], stack = this.stacks[seat];
      const info = bet ? "stack " + stack + ", bet " + bet : "stack " + stack;
      return [[lib.row(this.hands[seat], this.shown[seat] ? null : [seat])], status, info];
    }
  }
  const P = Table.prototype;
  const HANDLERS = {
    hand_started: P.hand_started, antes: P.antes, dealt: P.dealt, action: P.action,
    drew: P.drew, reshuffled: P.reshuffled, returned: P.returned, shown: P.shown_,
    pot: P.pot_, hand_ended: P.hand_ended, fault: P.fault, forfeit: P.forfeit,
    game_over: P.game_over,
  };

  return (players, events) => {
    if (!events.length || events[0] === null || typeof events[0] !== "object" ||
        events[0].type !== "hand_started") {
      throw new Error("a Turkish poker transcript starts with a hand");
    }
    return lib.groupSteps(events, (i) => leads(events, i), new Table(players, events));
  };
};

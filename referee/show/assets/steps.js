// What every game's replay steps in the page share (referee/games/table.py in JS): a game's
// steps.js registers, under its game name in globalThis.replayGames, a function that takes
// this library and gives back steps(players, events) -> the steps of a transcript, each
// [event, actor, text, [seat view per seat], [pile, ...], history, result], a seat view
// [[row, ...], status, info], a pile [label, row, info], a card "Ah" (face up to all) or
// ["Ah", [seats that know it]]: the form replay.html draws (referee/show/html.py).
"use strict";
globalThis.replayStepLib = (() => {
  // The texts of the step being put together, the round's history, and step(), which makes
  // the step of the events taken in since the last one from seatView() and piles().
  class StepTable {
    constructor(players) {
      this.players = players;
      this.history = [];
      this.actor = null;
      this.texts = [];
      this.results = [];
    }
    piles() { return []; }
    step(event) {
      const seats = [];
      for (let s = 0; s < this.players; s++) seats.push(this.seatView(s));
      const step = [event, this.actor, this.texts.join("; "), seats, this.piles(),
                    this.history.slice(), this.results.join("; ") || null];
      this.actor = null;
      this.texts = [];
      this.results = [];
      return step;
    }
  }
  // A new step starts at each event i where leads(i) (group_steps).
  function groupSteps(events, leads, table) {
    const steps = [];
    events.forEach((event, i) => {
      if (i && leads(i)) steps.push(table.step(i - 1));
      table.apply(event);
    });
    if (events.length) steps.push(table.step(events.length - 1));
    return steps;
  }
  // The next seat after `seat` still in, in seat order (next_active).
  function nextActive(active, seat) {
    let s = (seat + 1) % active.length;
    while (!active[s]) s = (s + 1) % active.length;
    return s;
  }
  // The seats ordered by place, then by seat.
  function seatsBy(players, places) {
    return Array.from({ length: players }, (_, s) => s)
      .sort((a, b) => places[a] - places[b] || a - b);
  }
  // The cards `codes` all seen by `seenBy` (null: face up to all).
  function row(codes, seenBy) { return codes.map((c) => (seenBy === null ? c : [c, seenBy])); }
  // A value in a text as Python's str() writes it.
  function str(v) { return v === null ? "None" : v === true ? "True" : v === false ? "False" : String(v); }
  return { StepTable, groupSteps, nextActive, seatsBy, row, str };
})();

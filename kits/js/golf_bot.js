#!/usr/bin/env node
"use strict";
// Six-card golf (referee/games/six_card_golf/SPEC.md). Scores each row as it would
// lie (a face-down card counted at its average, 5 points), takes the discard pile's
// card when placing it gains 4 points or more, and puts a held card where it gains
// the most, discarding a stock card that gains nothing.
const { main } = require("./lib/referee");
const cards = require("./lib/cards");

const UNSEEN = 5; // a face-down card's expected points
const ROWS = [0, 1, 2];

function points(id) {
  if (id === cards.JOKER) return -3;
  const r = cards.rank(id);
  return r === 13 ? 0 : r === 14 ? 1 : r > 10 ? 10 : r;
}

function rowScore(a, b) {
  if (a === null || b === null) return (a === null ? UNSEEN : points(a)) + (b === null ? UNSEEN : points(b));
  if (a === cards.JOKER && b === cards.JOKER) return -6;
  if (a !== cards.JOKER && cards.rank(a) === cards.rank(b)) return 0;
  return points(a) + points(b);
}

// Points saved by putting `card` at `at` ("r1c0") in `grid`.
function gain(grid, at, card) {
  const row = Number(at[1]);
  const cell = (pos) => (grid[pos] === null ? null : cards.parse(grid[pos]));
  const before = [cell(`r${row}c0`), cell(`r${row}c1`)];
  const after = [...before];
  after[Number(at[3])] = card;
  return rowScore(...before) - rowScore(...after);
}

function bestPlace(view, card) {
  const grid = view.grids[view.seat];
  let best = null;
  for (const a of view.legal) {
    if (a.kind !== "place") continue;
    const g = gain(grid, a.at, card);
    if (best === null || g > best.gain) best = { gain: g, action: a };
  }
  return best;
}

function act(view) {
  if (view.phase === "take") {
    const top = cards.parse(view.discard[view.discard.length - 1]);
    const place = bestPlace({ ...view, legal: ROWS.flatMap((r) => [0, 1].map((c) => ({ kind: "place", at: `r${r}c${c}` }))) }, top);
    return { kind: "take", from: place && place.gain >= 4 ? "discard-pile" : "stock" };
  }
  const best = bestPlace(view, cards.parse(view.drawn));
  const discard = view.legal.find((a) => a.kind === "discard");
  return discard && (best === null || best.gain <= 0) ? discard : best.action;
}

if (require.main === module) main({ act }, "js-golf");
module.exports = { act };

#!/usr/bin/env node
"use strict";
// Polish Poker, `polacco` ruleset (52 cards). Treats each card a declaration lacks as
// held by the others with the chance p = cards they hold / cards it cannot see, so a
// declaration lacking n cards stands with about p^n. Calls one below even odds; else
// raises to the weakest declaration at least as likely as not, or calls.
const { main } = require("./lib/referee");
const polish = require("./lib/polish");

const LADDER = polish.ladder("polacco");

function act(view) {
  const known = polish.knownCards(view);
  const p = polish.unseen(view) / (polish.DECK_SIZE.polacco - known.length);
  const chance = (id) => p ** polish.missing("polacco", LADDER[id], known);
  if (view.history.length === 0) {
    return polish.raise(polish.strongestHeld("polacco", LADDER, known));
  }
  const last = view.history[view.history.length - 1][1];
  if (chance(last) < 0.5) return polish.CALL;
  const raise = LADDER.findIndex((d, id) => d.strength > LADDER[last].strength && chance(id) >= 0.5);
  return raise < 0 ? polish.CALL : polish.raise(raise);
}

if (require.main === module) main({ act }, "js-polacco");
module.exports = { act };

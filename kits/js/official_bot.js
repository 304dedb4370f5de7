#!/usr/bin/env node
"use strict";
// Polish Poker, `official` ruleset (polish-poker, ruleset official). Opens with the
// strongest declaration its own cards prove; calls a declaration that lacks more
// cards than the others hold, or two or more; otherwise raises to the weakest
// declaration its cards prove (or lack just one), and calls when there is none.
const { main } = require("./lib/referee");
const polish = require("./lib/polish");

const LADDER = polish.ladder("official");

function act(view) {
  const known = polish.knownCards(view);
  const lacks = (id) => polish.missing("official", LADDER[id], known);
  const ids = LADDER.map((_, id) => id);
  if (view.history.length === 0) {
    return polish.raise(polish.strongestHeld("official", LADDER, known));
  }
  const last = view.history[view.history.length - 1][1];
  const above = ids.filter((id) => LADDER[id].strength > LADDER[last].strength);
  const lack = lacks(last);
  if (lack > polish.unseen(view) || lack >= 2 || above.length === 0) return polish.CALL;
  const proven = above.find((id) => lacks(id) === 0);
  if (proven !== undefined) return polish.raise(proven);
  const likely = above.find((id) => lacks(id) <= 1);
  return lack === 0 && likely !== undefined ? polish.raise(likely) : polish.CALL;
}

if (require.main === module) main({ act }, "js-official");
module.exports = { act };

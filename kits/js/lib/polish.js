"use strict";
// Polish Poker's declaration ladder (referee/games/polish_poker/SPEC.md) for both rulesets, and
// how many cards a declaration still lacks in a set of known cards. Shared by the
// `official` and `polacco` bots; the ids are the wire's declarations.
const cards = require("./cards");

const CATEGORIES = {
  official: ["high", "pair", "two-pair", "straight", "three", "full-house", "flush", "four",
    "straight-flush", "royal-flush", "five"],
  polacco: ["pair", "two-pair", "three", "straight", "flush", "full-house", "four",
    "straight-flush"],
};
const OF_A_KIND = { high: 1, pair: 2, three: 3, four: 4, five: 5 };
const DECK_SIZE = { official: 25, polacco: 52 };

function range(lo, hi) {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

// One category's declarations, weakest first: [ranks, suit] pairs (suit -1: none).
function members(ruleset, category, ranks) {
  const suits = [0, 1, 2, 3];
  if (category in OF_A_KIND) return ranks.map((r) => [[r], -1]);
  if (category === "two-pair") return ranks.flatMap((a) => ranks.filter((b) => b < a).map((b) => [[a, b], -1]));
  if (category === "full-house") return ranks.flatMap((a) => ranks.filter((b) => b !== a).map((b) => [[a, b], -1]));
  if (category === "straight") return (ruleset === "official" ? [13, 14] : range(5, 14)).map((t) => [[t], -1]);
  if (ruleset === "official") return suits.map((s) => [[], s]);
  const tops = category === "flush" ? range(6, 14) : range(5, 14);
  return tops.flatMap((t) => suits.map((s) => [[t], s]));
}

/** The ruleset's ladder: entry i is declaration id i, {category, ranks, suit, strength}
 * where equal `strength` means equally strong (suits never add strength). */
function ladder(ruleset) {
  const ranks = ruleset === "official" ? range(9, 14) : range(2, 14);
  const out = [];
  let strength = -1;
  let previous = "";
  for (const category of CATEGORIES[ruleset]) {
    for (const [named, suit] of members(ruleset, category, ranks)) {
      const key = `${category} ${named}`;
      if (key !== previous) strength += 1;
      previous = key;
      out.push({ category, ranks: named, suit, strength });
    }
  }
  return out;
}

// The ranks of a run of five with top card `top` (5 is A-2-3-4-5).
function run(top) {
  return range(top - 4, top).map((r) => (r === 1 ? 14 : r));
}

/** Cards the declaration lacks in `known` (ids): 0 means it exists among them. In
 * `official` the joker stands for one missing card. */
function missing(ruleset, d, known) {
  const byRank = new Map();
  const bySuit = [0, 0, 0, 0];
  for (const c of known) {
    byRank.set(cards.rank(c), (byRank.get(cards.rank(c)) || 0) + 1);
    if (c !== cards.JOKER) bySuit[cards.suit(c)] += 1;
  }
  const lack = (r, n) => Math.max(0, n - (byRank.get(r) || 0));
  let need;
  const c = d.category;
  if (c in OF_A_KIND) need = lack(d.ranks[0], OF_A_KIND[c]);
  else if (c === "two-pair") need = lack(d.ranks[0], 2) + lack(d.ranks[1], 2);
  else if (c === "full-house") need = lack(d.ranks[0], 3) + lack(d.ranks[1], 2);
  else if (c === "straight") need = run(d.ranks[0]).reduce((n, r) => n + lack(r, 1), 0);
  else if (c === "straight-flush" || c === "royal-flush") {
    const top = d.ranks.length ? d.ranks[0] : c === "royal-flush" ? 14 : 13;
    need = run(top).filter((r) => !known.includes(cards.make(r, d.suit))).length;
  } else if (d.ranks.length) { // polacco flush: its top card and four lower of the suit
    const lower = known.filter((k) => k !== cards.JOKER && cards.suit(k) === d.suit
      && cards.rank(k) < d.ranks[0]).length;
    need = (known.includes(cards.make(d.ranks[0], d.suit)) ? 0 : 1) + Math.max(0, 4 - lower);
  } else need = Math.max(0, 5 - bySuit[d.suit]);
  const joker = ruleset === "official" && known.includes(cards.JOKER) ? 1 : 0;
  return Math.max(0, need - joker);
}

/** The strongest declaration that `known` holds whole (0 when none does). */
function strongestHeld(ruleset, ladderOf, known) {
  for (let id = ladderOf.length - 1; id > 0; id--) if (missing(ruleset, ladderOf[id], known) === 0) return id;
  return 0;
}

/** The cards a seat knows (its hand and the community card) as ids. */
function knownCards(view) {
  const known = view.hand.map(cards.parse);
  if (view.community !== null && view.community !== undefined) known.push(cards.parse(view.community));
  return known;
}

/** Cards held by the other seats, unseen by this one. */
function unseen(view) {
  return view.counts.reduce((a, b) => a + b, 0) - view.hand.length;
}

const CALL = { kind: "call" };
function raise(id) {
  return { kind: "raise", declaration: id };
}

module.exports = { ladder, missing, strongestHeld, knownCards, unseen, CALL, raise, DECK_SIZE };

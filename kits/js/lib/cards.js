"use strict";
// Cards, in one place: the protocol's card ids, 4 * (rank - 2) + suit, the joker 52
// (protocol/SPEC.md section 2), the same in every game.

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const JOKER = 52;

/** A wire card as an id; an error if it is not one. */
function parse(wire) {
  if (!Number.isInteger(wire) || wire < 0 || wire > JOKER) throw new Error(`not a card: ${wire}`);
  return wire;
}

/** An id as text, "Ah" (the joker "Jk"): for logs. */
function text(id) {
  return id === JOKER ? "Jk" : RANKS[id >> 2] + SUITS[id & 3];
}

/** Rank 2..14 (ace 14); 0 for the joker. */
function rank(id) {
  return id === JOKER ? 0 : 2 + (id >> 2);
}

/** Suit 0..3 (c, d, h, s); -1 for the joker. */
function suit(id) {
  return id === JOKER ? -1 : id & 3;
}

function make(rankValue, suitValue) {
  return 4 * (rankValue - 2) + suitValue;
}

module.exports = { JOKER, parse, text, rank, suit, make };

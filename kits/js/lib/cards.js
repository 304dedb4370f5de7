"use strict";
// Cards, in one place: every game's wire form <-> one card id, 4 * (rank - 2) + suit,
// the joker 52 (referee/games/polish_poker/SPEC.md). Turkish poker sends cards as text ("Ah"),
// the other games as these ids; a bot works with ids only and converts at the edge.

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const JOKER = 52;
const TEXT_GAMES = new Set(["turkish-poker"]); // games whose wire cards are text

/** A wire card (an id, or text such as "Ah", "10h", "Jk") as an id. */
function parse(wire) {
  if (typeof wire === "number") return wire;
  const text = String(wire).toUpperCase().replace(/^10/, "T");
  if (text === "JK") return JOKER;
  const rank = RANKS.indexOf(text[0]);
  const suit = SUITS.indexOf(text[1].toLowerCase());
  if (text.length !== 2 || rank < 0 || suit < 0) throw new Error(`not a card: ${wire}`);
  return 4 * rank + suit;
}

/** An id as the wire form of `game`. */
function toWire(game, id) {
  return TEXT_GAMES.has(game) ? text(id) : id;
}

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

module.exports = { JOKER, parse, toWire, text, rank, suit, make };

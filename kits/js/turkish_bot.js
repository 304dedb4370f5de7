#!/usr/bin/env node
"use strict";
// Turkish poker (referee/games/turkish_poker/SPEC.md). Rates its five cards by the
// shape of their ranks and suits; opens with the least it may, bets strong hands,
// calls middling ones when the price is at most half the pot, and draws to its
// pairs (or to its best card).
const { main } = require("./lib/referee");
const cards = require("./lib/cards");

// 0 nothing, 1 pair, 2 two pair, 3 three, 4 straight, 5 flush, 6 full house, 7 four
function strength(hand) {
  const counts = new Map();
  for (const c of hand) counts.set(cards.rank(c), (counts.get(cards.rank(c)) || 0) + 1);
  const shape = [...counts.values()].sort((a, b) => b - a).join("");
  const ranks = [...counts.keys()].sort((a, b) => a - b);
  const flush = new Set(hand.map(cards.suit)).size === 1;
  const straight = ranks.length === 5 && ranks[4] - ranks[0] === 4;
  if (shape === "41") return 7;
  if (shape === "32") return 6;
  if (flush) return 5;
  if (straight) return 4;
  return { 311: 3, 221: 2, 2111: 1 }[shape] || 0;
}

// The cards to throw: none for a made hand, else all but its pairs (or its best card).
function discards(hand) {
  if (strength(hand) >= 4) return [];
  const count = (c) => hand.filter((k) => cards.rank(k) === cards.rank(c)).length;
  const loose = hand.filter((c) => count(c) === 1).sort((a, b) => cards.rank(a) - cards.rank(b));
  return loose.length === 5 ? loose.slice(0, 4) : loose;
}

function act(view, info) {
  const legal = Object.fromEntries(view.legal.map((a) => [a.kind, a]));
  const hand = view.cards.map(cards.parse);
  if (legal.draw) return { kind: "draw", cards: discards(hand) };
  if (legal.open) return { kind: "open", amount: legal.open.min };
  const s = strength(hand);
  if (s >= 3 && legal.raise) return { kind: "raise", to: legal.raise.min };
  if (legal.pass) return { kind: "pass" };
  if (s >= 1 && legal.call && view.to_call * 2 <= view.pot) return { kind: "call" };
  return s >= 2 && legal.call ? { kind: "call" } : { kind: "fold" };
}

if (require.main === module) main({ act }, "js-turkish");
module.exports = { act, strength };

"""The rules summary that ``referee rules six-card-golf`` prints (Markdown)."""

RULES_TEXT = """\
# Six-card golf (`six-card-golf`)

2 to 8 players; two 54-card decks (108 cards: every card twice and four jokers). The
aim is the **lowest** score: the game ends after the round in which a player's total
reaches `target` (150), and the lowest total wins. Equal totals share a place.

## The deal

Each player gets six cards in three rows of two: positions `r0c0 r0c1` (top row),
`r1c0 r1c1`, `r2c0 r2c1`. The top row is dealt face up; the other four cards are face
down and unknown to everyone, their owner too. The next card starts the discard pile
face up; the rest is the stock. The first dealer is seat 0; the deal passes to the left
(the next seat) every round, and the player to the dealer's left starts. Play goes
round the table in seat order.

## A turn

A turn is two decisions of the same player:

1. **Take** the top card of the stock or of the discard pile.
2. **Place** it: it replaces one of your cards and lies face up; the replaced card goes
   face up onto the discard pile. Or, for a card from the stock only, **discard** it
   (the turn ends). A card taken from the discard pile must replace a card.

The top row may be replaced only while none of your bottom four cards has been replaced
this round; after that the top row is **frozen**. Bottom cards may always be replaced,
face down or face up.

## The end of a round

- A player with no face-down card left has **gone out**; every other player has one
  more turn, then the round ends.
- If the stock runs out, the discard pile but its top card is shuffled into a new stock
  at the end of that turn.
- A round in which no one has gone out after `turn_cap` (40) turns each ends there. Once
  someone has gone out, the others still have their last turn, even a 41st.
- Every face-down card is turned up and counts.

## Points

| card | points |
|---|---|
| K | 0 |
| Q, J | 10 |
| joker | -3 |
| A | 1 |
| 2-10 | face value |

Two cards of the same rank in the same row score 0 together; two jokers in a row score
-6. Suits do not matter; cards in different rows never pair.

## Faults and forfeits (the referee's policy)

No action is ever chosen for a player. A **fault** (an illegal or malformed action, or
no action in time) ends the round at once: the faulting player scores 60 for the round
(the most any grid can score: a Q and a J in every row); everyone else scores their grid
as it lies, face-down cards turned up. A **forfeit** (a crashed bot, or too many faults
in a row) ends the round the same way (60 for the forfeiting player), and that player
is out of the game: it finishes below everyone still in, and the game goes on while two
or more players are in.

## Results

Each seat gets a place (1 = best, by total, lowest first; equal totals share a place)
and a score: its total points, where **lower is better**. A game also ends after
`round_cap` (100) rounds, a guard that ordinary games never reach.

Parameters: `target` (150), `turn_cap` (40), `round_cap` (100).
"""

"""Reference bots for Polish Poker: each file defines ``act(view)`` over the view of
referee/games/polish_poker/SPEC.md and returns an action."""

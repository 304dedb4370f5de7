"""Reference bots for six-card golf: each file defines ``act(view)`` over the plain view
map of referee/games/six_card_golf/SPEC.md and returns an action map."""

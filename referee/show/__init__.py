"""Showing a run's games: in the terminal and as a self-contained HTML replay."""

"""Replays of a run's games: ``select`` picks games and builds their steps, ``terminal``
draws one in the terminal (``referee show``), ``html`` writes ``replay.html``."""

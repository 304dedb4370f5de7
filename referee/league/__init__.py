"""A league: a long-lived competition directory (docs/league.md).

``db`` the database, ``matchmaker`` who plays whom, ``play`` the loop that plays and
records games, ``web`` the leaderboard app, ``cli`` the ``referee league`` commands.
"""

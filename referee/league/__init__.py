"""A league: a long-lived competition directory (docs/league.md).

``db`` the database, ``submit`` a bot's entry (checked first), ``matchmaker`` who plays
whom, ``play`` the loop that plays and records games, ``recorded`` the schedule
``verify`` reads, ``web`` the app, ``cli`` the ``referee league`` commands.
"""

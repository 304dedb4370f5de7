"""A league: a long-lived competition directory (docs/league.md).

``db`` the database, ``submit`` a bot's entry (checked first), ``botzip`` a zipped
folder's files (bounded, checked), ``matchmaker`` who plays whom, ``play`` the loop that
plays and records games, ``recorded`` the schedule ``verify`` reads, ``access`` tokens
and sessions, ``web`` the app (``web_auth`` who asks, ``web_data`` what it shows,
``web_pages`` its HTML), ``cli`` the ``referee league`` commands.
"""

"""What results mean: standings and leaderboards computed from run journals.

Pure functions of journal records; knows nothing of games or sockets.
"""

from leaderboards.standings import Standing, standings, write_json

__all__ = ["Standing", "standings", "write_json"]

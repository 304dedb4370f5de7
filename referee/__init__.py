"""The games and the runner: rules engines, bot processes, matches, journal, CLI."""

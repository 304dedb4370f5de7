"""Reference bots for Turkish poker: each module defines ``act(view) -> action map``."""

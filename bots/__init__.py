"""Reference bots, one file each; each defines ``act(view)`` for the SDK."""

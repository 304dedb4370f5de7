"""The wire: message codec with hard limits, schemas, sockets, and the bot SDK."""

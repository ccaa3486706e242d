"""Agents that play a role without a model (programmatic) or around one; each names itself in result rows."""

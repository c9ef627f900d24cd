"""What the service offers (the API's view of ``sims.catalog``: games, rule options, bots)."""

from sims.catalog import bots, game, games, rule_options

__all__ = ["bots", "game", "games", "rule_options"]

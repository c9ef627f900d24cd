"""Rules engines of rasklad's games.

``games.core`` holds what every game shares (card notation, decks); each game is a
subpackage. Nothing here imports the service layers (``sims``, ``workers``, ``storage``,
``api``).
"""

"""Shared building blocks of the game engines: cards, decks, notation."""

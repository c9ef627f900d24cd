"""Blackjack — "двадцать одно", "очко" and casino blackjack (docs/rules/blackjack.md, prefix BJ)."""

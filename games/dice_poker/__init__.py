"""Dice Poker ("Покер на костях", docs/rules/dice-poker.md): the simple game, the full school game and
the mixed game, with an exact solitaire solver behind the optimal bot."""

"""Compiled kernels of Dice Poker (``_turn``: the exact turn solution, games.dice_poker.turn in C)."""

"""Compiled kernels of classic poker (``_play``: a deal of random seats in C, games.classic_poker.fast.playout)."""

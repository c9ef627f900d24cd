"""Compiled kernels of blackjack: the dealer's final-total distribution of a finite shoe (``_dealer``)."""

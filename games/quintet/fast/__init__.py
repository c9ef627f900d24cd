"""Compiled paths of Quintet (``_play``: deals of random, greedy and blotto seats in C)."""

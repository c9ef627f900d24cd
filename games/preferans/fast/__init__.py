"""Compiled kernels of Preferans: the double-dummy solver (``_dd``), random matches (``_match``)."""

"""Compiled hot paths of Raspisnoy: ``_dd``, the double-dummy solver of a deal's ending (C, alpha-beta with
a transposition table; the joker's modes and calls are moves)."""

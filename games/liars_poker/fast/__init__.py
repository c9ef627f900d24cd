"""Compiled hot paths of liar's poker: ``_cfr`` (CFR+ iterations, exact best responses over the small tree)."""

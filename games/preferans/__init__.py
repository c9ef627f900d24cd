"""Preferans (Преферанс): the pulka with auction, talon, whist and raspasy (docs/rules/preferans.md, PF)."""

"""Counterfactual regret minimisation for the small two-player games of liar's poker (docs/liars-poker.md).

``game.SmallGame`` lays the game tree out as arrays (a public node is the set of bids made, a
bitmask of the chain); ``solver`` runs CFR+ over it in numpy (the readable reference) and computes
the exact best response and exploitability over the full tree; ``bot.CfrBot`` plays a stored policy.
"""

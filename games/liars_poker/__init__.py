"""Liar's poker on banknote serial numbers ("Покер лжецов", docs/rules/liars-poker.md, prefix LP).

``games.liars_poker.entry.ENTRY`` is the game's ``GameEntry``; ``state.State`` the readable engine
(one match of rounds); ``odds`` the exact binomial tails of LP-9; ``bots`` random and truthful;
``cfr`` counterfactual regret minimisation on the small games and its exact exploitability.
"""

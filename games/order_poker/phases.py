"""The phases of an Order Poker deal (``State.phase``): bidding (OP-3), roles (OP-5), exchange (OP-6), over.

A module of their own so that the engine (``state``) and the explanations of illegal actions
(``legality``) share them without importing each other.
"""

BIDDING, ROLES, EXCHANGE, OVER = "bidding", "roles", "exchange", "over"

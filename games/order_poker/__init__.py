"""Order Poker ("Заказной покер", seed 000): rules engine, records and bots.

The rules are docs/rules/order-poker.md; code and tests cite its numbers (``OP-6.5``).
"""

from games.order_poker.actions import Action
from games.order_poker.rules import COMBINATIONS, ROBOT, Rules
from games.order_poker.state import State

__all__ = ["COMBINATIONS", "ROBOT", "Action", "Rules", "State"]

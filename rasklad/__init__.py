"""rasklad: a simulation service for card and dice games."""

__version__ = "0.1.0"

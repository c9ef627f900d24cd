"""Raspisnoy's deal-stats questions (filled in below)."""

from __future__ import annotations

from games.core.entry import Question

QUESTIONS: dict[str, Question] = {}

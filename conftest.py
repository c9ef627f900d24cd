"""Puts the repository root on ``sys.path`` for ``pytest`` (a root conftest is all it takes).

Why: ``tests/conftest.py`` puts ``tests/`` on ``sys.path``, and once ``tests/games/`` exists
(tests laid out per package, DESIGN.md "Layout") that directory is a namespace-package portion
named ``games``. The editable install finds the real ``games`` only after the path search, so
without the root on the path ``import games`` resolved to ``tests/games`` and broke every test.
With the root on the path the regular package ``games/`` wins, as under ``python -m pytest``.
"""

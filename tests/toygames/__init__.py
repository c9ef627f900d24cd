"""Toy games defined only in test code: they prove a game needs nothing outside its own module.

``toygames.draw`` (``toy-draw``) draws cards during play; ``toygames.match`` (``toy-match``) is a
match-unit game (a schedule of deals). Each module exposes ``ENTRY``; a process sees them with
``tests/`` on ``sys.path`` and ``RASKLAD_GAME_MODULES=toygames.draw,toygames.match`` (or
``registry.configure``). Their rules are in ``tests/conformance/README.md`` ("Toy games"); rule ids
``TOYD-n`` and ``TOYM-n`` are cited in the code.
"""

#: The value of ``RASKLAD_GAME_MODULES`` that registers both toy games.
MODULES = "toygames.draw,toygames.match"

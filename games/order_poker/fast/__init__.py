"""Order Poker's compiled hot paths (DESIGN.md: ``games/<game>/fast/``).

* ``kernel.pxd``: the rules kernel in C (deal state, legal actions in ``State`` order, apply), no
  policy: every compiled policy of the game cimports it;
* ``_playout.pyx``: the random policy over the kernel, whole deals (``playout.RandomPlayout``, the
  fast path the game's entry declares);
* ``_rules.pyx``: the kernel's OP-6.5 robot swaps for the readable engine's ``legal_actions``;
* ``_plans.pyx``: the bots' plan tables (``heuristic``, ``plans``);
* ``_rollout.pyx``: ``montecarlo``'s play-outs, the heuristic policy over the kernel (``Rollouts``), and
  the fast path's tables with heuristic seats (``play_table``, ``play_table_summary``).

This package's ``__init__`` imports nothing, so the engine can import a kernel module without
importing the fast path (and the bots it checks for).
"""

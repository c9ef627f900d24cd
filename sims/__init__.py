"""Simulation jobs: specs (:mod:`sims.spec`), planning (:mod:`sims.plan`), the shard runner
(:mod:`sims.run`, :mod:`sims.dealstats`; the generic ``categories`` question in
:mod:`sims.categories`, games' own questions from their entries), table schemas
(:mod:`sims.tables`), embedded runs (:mod:`sims.embedded`), statistics and reports
(:mod:`sims.stats`, :mod:`sims.report`).

Data flows one way: spec -> plan -> run_shard -> storage -> aggregate (DESIGN.md), and so do the
imports: spec -> plan -> dealstats -> run -> embedded, with no cycle (tests/test_sims_imports.py).
"""

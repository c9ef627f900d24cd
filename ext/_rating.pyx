# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""openskill's PlackettLuce over a tournament's deals, in C, with openskill's floating-point arithmetic.

``sims.stats.rating`` rates every deal as a game of one-player teams ranked by the bots' per-deal
values. openskill 6.2's ``PlackettLuce(tau=0).rate(teams, scores=...)`` costs ~40 µs a game in argument
checks, deep copies and new rating objects (a uuid4 each); the arithmetic is a few dozen float
operations. ``plackett_luce`` does those operations, in the same order, on C doubles (IEEE binary64 like
Python floats; ``exp``, ``sqrt`` and ``pow`` from the same libm), so the ratings are the same floats:
``tests/test_stats_leaderboard.py`` compares them with openskill's ``rate`` bit for bit.

What ``rate`` does with these arguments (margin 0, weights 1, balance off, limit_sigma off), step by
step: sigma becomes sqrt(sigma^2 + tau^2); ranks are the competition ranks of -score (ties share the
lowest: the number of teams that scored more); teams are stably sorted by rank; c = sqrt(sum(sigma^2 +
beta^2)); with margin 0 the score margin adds exactly 0.0 to every mu; each team's omega and delta
sum over the teams ranked no worse than it (``_compute``), then its player's mu and sigma are updated; the
averaging of tied teams' mu changes is a no-op in 6.2 (it compares each updated rating with itself).
"""

from libc.math cimport exp, pow, sqrt

import numpy as np

# Python's ``x ** 2`` on a float calls libm's pow(x, 2.0); with a constant 2.0 the C compiler would
# turn pow into x * x, so the exponent is a variable it cannot see through.
cdef double TWO = 2.0


def plackett_luce(const double[:, ::1] values, const unsigned char[:, ::1] present, double[::1] mu,
                  double[::1] sigma, long long[::1] games, double beta, double kappa):
    """Rate the deals in row order, in place on ``mu``/``sigma``/``games`` (one entry per bot).

    ``values[d, j]``: bot j's value in deal d (a higher value ranks better); only the bots with
    ``present[d, j]`` take part, and a deal with fewer than two is skipped.
    """
    cdef Py_ssize_t nd = values.shape[0], nb = values.shape[1], d, j, x, y, i, q, k
    if present.shape[0] != nd or present.shape[1] != nb or mu.shape[0] != nb or sigma.shape[0] != nb \
            or games.shape[0] != nb:
        raise ValueError("values, present: (deals, bots); mu, sigma, games: one entry per bot")
    scratch = np.empty((8, max(nb, 1)), dtype=np.float64)
    iscratch = np.empty((3, max(nb, 1)), dtype=np.int64)
    cdef double[:, ::1] f = scratch
    cdef long long[:, ::1] g = iscratch
    cdef double[::1] sc = f[0], sig = f[1], tmu = f[2], ssq = f[3], e = f[4], sq = f[5]
    cdef long long[::1] idx = g[0], rank = g[1], cnt = g[2]
    cdef long long[::1] order
    cdef double beta_squared = pow(beta, TWO), total, c, omega, delta, ratio, m, s, ei, gamma
    cdef long long t, ri, tmp
    order_arr = np.empty(max(nb, 1), dtype=np.int64)
    order = order_arr
    for d in range(nd):
        k = 0
        for j in range(nb):
            if present[d, j]:
                idx[k] = j
                k += 1
        if k < 2:
            continue
        for x in range(k):  # competition rank of -score: how many scored more
            sc[x] = -values[d, idx[x]]
        for x in range(k):
            ri = 0
            for y in range(k):
                if sc[y] < sc[x]:
                    ri += 1
            rank[x] = ri
        for x in range(k):  # stable insertion sort of positions by rank
            order[x] = x
            y = x
            while y > 0 and rank[order[y - 1]] > rank[x]:
                order[y] = order[y - 1]
                y -= 1
            order[y] = x
        for i in range(k):
            t = idx[order[i]]
            sig[i] = sqrt(sigma[t] * sigma[t] + 0.0)  # tau = 0
            tmu[i] = 0.0 + mu[t] * 1.0  # the team's mu: one player of balance weight 1
            ssq[i] = 0.0 + pow(sig[i] * 1.0, TWO)
        total = 0.0
        for i in range(k):
            total += ssq[i] + beta_squared
        c = sqrt(total)
        for i in range(k):
            e[i] = exp(tmu[i] / c)
            sq[i] = 0.0
        for i in range(k):
            ri = rank[order[i]]
            for q in range(k):
                if ri >= rank[order[q]]:
                    sq[q] += e[i]
        for i in range(k):
            tmp = 0
            for q in range(k):
                if rank[order[q]] == rank[order[i]]:
                    tmp += 1
            cnt[i] = tmp
        for i in range(k):
            omega = 0.0
            delta = 0.0
            ei = e[i]
            ri = rank[order[i]]
            for q in range(k):
                ratio = ei / sq[q]
                if rank[order[q]] <= ri:
                    delta += ratio * (1 - ratio) / <double>cnt[q]
                    if q == i:
                        omega += (1 - ratio) / <double>cnt[q]
                    else:
                        omega -= ratio / <double>cnt[q]
            omega *= ssq[i] / c
            delta *= ssq[i] / pow(c, TWO)
            gamma = sqrt(ssq[i]) / c
            delta *= gamma
            t = idx[order[i]]
            m = mu[t]
            s = sig[i]
            if omega >= 0:
                m += (pow(s, TWO) / ssq[i]) * omega * 1.0
                s *= sqrt(max(1 - (pow(s, TWO) / ssq[i]) * delta * 1.0, kappa))
            else:
                m += (pow(s, TWO) / ssq[i]) * omega / 1.0
                s *= sqrt(max(1 - (pow(s, TWO) / ssq[i]) * delta / 1.0, kappa))
            # written after every team is computed: later teams read the old ratings
            f[6, i] = m
            f[7, i] = s
        for i in range(k):
            t = idx[order[i]]
            mu[t] = f[6, i]
            sigma[t] = f[7, i]
            games[t] += 1

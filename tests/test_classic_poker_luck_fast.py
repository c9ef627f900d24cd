"""The compiled luck estimator's evaluation and hand layout (games/classic_poker/luck.py, ``_values_compiled``;
``_play._Hands``) against the readable definitions: ``handeval.evaluate_pair`` gives ``evaluate_mode``'s values and
``hands.low_qualifies``' qualifier (CP-5.2, CP-5.4) for every low ranking, hand size, wild mode and both rankings;
the kernel's hands, each distinct row written once and found through ``index``, are ``luck._event_hands``' rows."""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pytest

from ext import handeval
from games.classic_poker import hands, luck
from games.classic_poker.bots import RandomBot
from games.classic_poker.fast import _play
from games.classic_poker.fast.playout import FAST
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import State
from games.core.streams import Streams


def _random_hands(deck: list[int], k: int, n: int, seed: int) -> np.ndarray:
    """n hands of k distinct cards of ``deck`` (every card id in [0, 54))."""
    rng = np.random.default_rng(seed)
    d = np.asarray(deck, dtype=np.uint8)
    return np.stack([rng.choice(d, size=k, replace=False) for _ in range(n)]).astype(np.uint8)


def _qualifies_8(lows: np.ndarray) -> np.ndarray:
    """CP-5.4's qualifier ``8`` by ``hands.low_qualifies`` (its test reads only ``low_qualifier``)."""
    return hands.low_qualifies(Rules(pot="high_low", low_ranking="ace_to_five", low_qualifier="8"), lows)


@pytest.mark.parametrize("ranking, wild, jokers", [
    ("classic", "none", 0), ("short-deck", "none", 0), ("classic", "jokers", 2), ("classic", "bug", 1),
    ("classic", "deuces", 0),
])
@pytest.mark.parametrize("low", handeval.LOW_RANKINGS)
@pytest.mark.parametrize("k", [5, 6, 7])
def test_evaluate_pair_gives_evaluate_modes_values_and_the_qualifier(ranking: str, wild: str, jokers: int, low: str,
                                                                    k: int) -> None:
    high_mode = handeval.Mode(ranking=ranking, wild=wild)
    low_mode = dataclasses.replace(high_mode, low=low)
    deck = [int(c) for c in handeval.mode_deck(high_mode, None, jokers)]
    cards = _random_hands(deck, k, 6000, seed=zlib.crc32(f"{ranking} {wild} {low} {k}".encode()))
    want_high = handeval.evaluate_mode(cards, high_mode).astype(np.int64)
    want_low = handeval.evaluate_mode(cards, low_mode).astype(np.int64)
    high, no_low = handeval.evaluate_pair(cards, high_mode)
    assert no_low is None and high.dtype == np.int64 and np.array_equal(high, want_high)
    high, every = handeval.evaluate_pair(cards, high_mode, low_mode)  # CP-5.4 ``none``: every low qualifies
    assert every is not None and np.array_equal(high, want_high) and np.array_equal(every, want_low)
    _, eight = handeval.evaluate_pair(cards, high_mode, low_mode, low_top=7)  # CP-5.4 ``8``
    q = _qualifies_8(want_low)
    assert eight is not None and np.array_equal(eight, np.where(q, want_low, -1))
    if low == "ace_to_five" and ranking == "classic":  # the qualifier's ranking (CP-5.4): both outcomes seen
        assert q.any() and not q.all()


def test_evaluate_pair_rejects_what_evaluate_mode_rejects() -> None:
    mode = handeval.Mode()
    low = dataclasses.replace(mode, low="ace_to_five")
    bad = np.asarray([[0, 5, 9, 13, 17, 21, 25], [0, 5, 9, 13, 17, 21, 21]], dtype=np.uint8)
    for lo in (None, low):
        with pytest.raises(ValueError, match="hand 1"):
            handeval.evaluate_pair(bad, mode, lo)
    with pytest.raises(ValueError, match="low mode"):
        handeval.evaluate_pair(bad[:1], mode, mode)
    high, lows = handeval.evaluate_pair(np.empty((0, 7), dtype=np.uint8), mode, low)
    assert high.shape == (0,) and lows is not None and lows.shape == (0,)


_RULES = [
    PRESETS["stud7-hilo"], PRESETS["stud7"], PRESETS["draw"], PRESETS["stud5"], PRESETS["lowball-a5"],
    Rules(form="stud7", pot="high_low", low_ranking="ace_to_five", low_qualifier="8"),   # CP-5.4
    Rules(pot="high_low", low_ranking="ace_high"),
    Rules(form="stud7", pot="high_low", low_ranking="ace_either", deck="54"),            # CP-3.2, CP-5.5
    dataclasses.replace(PRESETS["stud7"], wild_ranks=("2",)),                            # CP-3.1
    PRESETS["short36-stud7"],
]


def _finished(rules: Rules, players: int, deals: int, seed: int) -> list[State]:
    """Finished deals of random seats (the compiled play-out), their chance logs noted."""
    streams = Streams(np.random.SeedSequence(seed))
    out = []
    for deal in range(deals):
        st = State.deal(rules, players, deal % players, streams.at(deal, 0))
        FAST.play_out(st, [RandomBot()] * players, streams.at(deal, 1))
        out.append(st)
    return out


@pytest.mark.parametrize("rules", _RULES, ids=lambda r: r.preset or f"{r.form}-{r.pot}-{r.low_ranking}")
def test_the_kernels_hands_are_the_event_hands_and_their_values_the_estimators(rules: Rules) -> None:
    """``logged_hands``' rows through ``index`` (a repeated row written once; None when none repeats) are, event
    by event, the rows
    ``luck._terms`` evaluates (``_event_hands``: varying seats' hands, then the fixed seats'), and
    ``_values_compiled`` of the written rows is ``_values`` of them, element for element."""
    players = 6 if rules.form != "draw" else 4
    final = 7 if rules.form == "stud7" else 5
    written = 0
    logical = 0
    for st in _finished(rules, players, 12, seed=11):
        if not st.chance_log:
            continue
        built = _play.logged_hands([(st.deck_order, st.chance_log)], players, final, rules.form == "draw",
                                   luck._kernel_orders)
        assert built is not None
        flat, meta, index = built
        batches = [b for b in (luck._event_hands(ev, luck.SAMPLES) for ev in luck.events(st)) if b is not None]
        assert len(meta) == len(batches)
        if not batches:
            continue
        want = np.concatenate([x for b in batches for x in (b.varying.reshape(-1, final), b.fixed)])
        rows = np.arange(len(flat)) if index is None else np.asarray(index)  # None: no row repeats
        assert np.array_equal(np.asarray(flat)[rows], want)
        assert index is None or len(set(rows.tolist())) == len(flat)  # every written row is used
        written += len(flat)
        logical += len(rows)
        high, low = luck._values_compiled(rules, np.asarray(flat))
        ref_high, ref_low = luck._values(rules, np.asarray(flat))
        assert np.array_equal(high, ref_high) and (low is None) == (ref_low is None)
        assert low is None or ref_low is None or np.array_equal(low, ref_low)
    assert logical > 0
    if rules.form != "draw":  # stud: seats that do not get the card hold the same cards for most candidates
        assert written < logical

"""The Preferans match (a pulka played to its end, PF-11) as a readable state machine: the spec.

The unit is a match: razboinik (PF-11.2) and preliminary raspasy (PF-11.3) when the rules ask for
them, then main-game deals until all pulkas but one are closed or ``max_deals`` main deals have been
played (PF-11.5). Every deck order the match may use is drawn up front (PF-3.4); the record holds
the decks of the deals actually started (``chance_prefix``). Each deal is a
:class:`games.preferans.deal.Deal`; this module scores finished deals onto the sheet (PF-8, PF-9),
keeps the deal balances (PF-13) and settles the match (PF-11.6).

``scores()`` are the final balances in units of 1/n whist (1/(10n) with ``closing_whist_rate: 0.1``):
the platform's scores are integers; the record's ``money`` and every deal's ``scores`` are exact
(PF-15.6).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.entry import rules_json as built_once
from games.core.protocol import IllegalAction
from games.core.records import envelope
from games.preferans import cards as pc
from games.preferans import scoring
from games.preferans.deal import Deal
from games.preferans.rules import MISERE_LEVEL, NAME, VERSION, Rules, rules_json
from games.preferans.scoring import ContractResult, Delta, Sheet, exact

RAZBOINIK_LEVELS = (6, 7, 8, 9, 10, MISERE_LEVEL)  # PF-11.2


def max_deals_of(rules: Rules, players: int) -> int:
    """The most deals a match can have: razboinik 6n, preliminary raspasy 2n, then ``max_deals``."""
    return (6 * players if rules.razboinik else 0) + (2 * players if rules.preliminary_raspasy else 0) + \
        rules.max_deals


def phase_of(rules: Rules, players: int, k: int) -> tuple[str, int | None]:
    """PF-11.1: the phase of deal ``k`` (counted from 0 across the match) and its razboinik level."""
    if rules.razboinik:
        if k < 6 * players:
            return "razboinik", RAZBOINIK_LEVELS[k // players]
        k -= 6 * players
    if rules.preliminary_raspasy and k < 2 * players:
        return "prelim_raspasy", None
    return "main", None


def _fresh_stub(stub: dict[str, Any]) -> dict[str, Any]:
    """A copy of a cached ``deal`` entry that a caller may change freely."""
    return {**stub, "deck": list(stub["deck"]), "hands": [list(h) for h in stub["hands"]],
            "talon": list(stub["talon"])}


def canonical_discard(token: str) -> str:
    """PF-15.1: a discard accepted in either order is written in canonical order (unparsable: as given)."""
    try:
        a, b = (pc.parse(x) for x in token[8:].split(","))
    except ValueError:
        return token
    return "discard:" + ",".join(pc.names((a, b)))


class State:
    """One match: the deals so far, the deal in progress, the sheet."""

    def __init__(self, rules: Rules, players: int, dealer: int, decks: Sequence[Sequence[int]]) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer
        # map(int): a third of the time of a generator expression over the 500 decks a match draws (PF-3.4)
        self.decks: tuple[tuple[int, ...], ...] = tuple(tuple(map(int, d)) for d in decks)
        self.sheet = Sheet.fresh(players, rules.pulka)
        self.deals: list[Deal] = []
        self.entries: list[dict[str, Any]] = []
        self.deltas: list[Delta] = []
        self.balances: list[list[Fraction]] = []
        self.main_deals = 0
        self.end: str | None = None
        self.final: Sheet | None = None
        self.settlement: scoring.Settlement | None = None
        self._legal: list[str] | None = None  # the current decision's legal tokens, until an action
        self._stubs: dict[int, tuple[dict[str, Any], list[list[Any]]]] = {}  # finished deals' record parts
        self._sheet_json: tuple[tuple[int, str | None], dict[str, Any]] | None = None  # (when, sheet_json)
        self._start(0)

    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
        """A fresh match: every deck order it may use drawn from ``rng`` up front (PF-3.2, PF-3.4)."""
        k = max_deals_of(rules, players)
        base = np.tile(np.asarray(pc.DECK, dtype=np.int64), (k, 1))
        decks = rng.permuted(base, axis=1)
        return cls(rules, players, dealer, decks.tolist())

    # ------------------------------------------------------------------ the protocol
    @property
    def current(self) -> Deal:
        return self.deals[-1]

    @property
    def deal_no(self) -> int:
        """The deal in progress (after the end: the number of deals played)."""
        return len(self.deals) if self.end is not None else len(self.deals) - 1

    def to_act(self) -> int:
        return -1 if self.end is not None else self.current.to_act()

    def legal_actions(self) -> list[str]:
        if self.end is not None:
            return []
        if self._legal is None:
            self._legal = self.current.legal()
        return list(self._legal)

    def is_over(self) -> bool:
        return self.end is not None

    def apply(self, action: Any) -> None:
        """Apply a legal token; an illegal one raises ``IllegalAction`` naming its rule (PF-15.7)."""
        if self.end is not None:
            raise IllegalAction("the match is over (PF-11.5)", "PF-11.5")
        d = self.current
        legal = self._legal if self._legal is not None else d.legal()
        self._legal = None
        if isinstance(action, str) and action.startswith("discard:"):
            action = canonical_discard(action)
        if not isinstance(action, str) or action not in legal:
            rule, message = d.why_not(action)
            raise IllegalAction(message, rule, deal=d.index)
        d.apply(action)
        if d.step == "result":
            self._result(d)
        if d.step == "over":
            self._finish(d)

    def copy(self) -> State:
        """An independent copy. Finished deals, their entries and deltas are never changed again, so
        the copy shares them and deep-copies only the deal in progress and the sheet."""
        c = object.__new__(State)
        c.__dict__.update(self.__dict__)
        memo = {id(self.decks): self.decks, id(self.rules): self.rules}
        c.deals = list(self.deals)
        if self.end is None:
            c.deals[-1] = copy.deepcopy(self.deals[-1], memo)
        c.entries, c.deltas, c.balances = list(self.entries), list(self.deltas), list(self.balances)
        c.sheet = self.sheet.copy()
        c._legal = None if self._legal is None else list(self._legal)
        c._stubs = dict(self._stubs)
        return c

    def scores(self) -> list[int]:
        """The balances so far (final once over) in units of 1/n whist (module docstring)."""
        unit = self.score_unit
        if self.settlement is not None:
            bal = self.settlement.balances
        else:
            bal = [sum((b[s] for b in self.balances), Fraction(0)) for s in range(self.players)]
        out = []
        for b in bal:
            x = b * unit
            assert x.denominator == 1
            out.append(int(x))
        return out

    @property
    def score_unit(self) -> int:
        """Score units per whist: n, or 10n with ``closing_whist_rate: 0.1``."""
        return self.players * (1 if self.rules.closing_whist_rate == 1 else 10)

    # ------------------------------------------------------------------ deals
    def _start(self, k: int) -> None:
        if k >= len(self.decks):
            raise IllegalAction(f"the record's deal list ends before deal {k} (PF-15.3)", "PF-15.3", deal=k)
        phase, level = phase_of(self.rules, self.players, k)
        self.deals.append(Deal.start(self.rules, self.players, k, phase, (self.dealer + k) % self.players,
                                     self.decks[k], level))

    def _result(self, d: Deal) -> None:
        """PF-9.2 ``declarer_choice``: a made contract waits for the writeoff action when M_d > 0."""
        if (d.phase == "main" and d.kind != "raspasy" and d.made and self.rules.writeoff == "declarer_choice"
                and d.declarer is not None and self.sheet.mountain[d.declarer] > 0):
            d._mountain_now = int(self.sheet.mountain[d.declarer])
            d.step = "writeoff"
        else:
            d.step = "over"

    def _finish(self, d: Deal) -> None:
        delta = self._score(d)
        self.sheet.add(delta)
        bal = delta.balances()
        self.deltas.append(delta)
        self.balances.append(bal)
        self.entries.append(self._entry(d, delta, bal))
        if d.phase == "main":
            self.main_deals += 1
            closed = sum(1 for p in self.sheet.pulka if p <= 0)
            if closed >= self.players - 1:
                self._close("closed")  # PF-11.5
                return
            if self.main_deals >= self.rules.max_deals:
                self._close("max_deals")
                return
        self._start(d.index + 1)

    def _score(self, d: Deal) -> Delta:
        r, n = self.rules, self.players
        tricks = d.tricks_row()
        if d.phase == "prelim_raspasy":
            return scoring.score_prelim(self.sheet, tricks, r, n)
        if d.phase == "razboinik":
            assert d.declarer is not None
            return scoring.score_razboinik(self.sheet, d.declarer, d.level, tricks, r, n)
        if d.kind == "raspasy":
            return scoring.score_raspasy(tricks, r.raspasy_trick_value, n)
        assert d.declarer is not None and d.kind is not None
        if d.kind == "ten_checked":
            tricks = [d.dd_tricks if s == d.declarer else None for s in range(n)]
        res = ContractResult(d.declarer, d.level, tricks, list(d.whisters), d.passer, d.dealer, not d.wt,
                             d.talon, d.kind)
        return scoring.score_contract(self.sheet, res, r, n, d.writeoff_m)

    def _close(self, how: str) -> None:
        self.end = how
        self.final = self.sheet.copy()
        moved = scoring.close_match(self.sheet)
        self.sheet.add(moved)
        self.settlement = scoring.settle(self.sheet)

    def _entry(self, d: Deal, delta: Delta, bal: list[Fraction]) -> dict[str, Any]:
        """PF-15.5: the deal's outcome entry."""
        kind = d.kind or "contract"
        played = kind in ("contract", "misere", "raspasy")
        if kind == "ten_checked":
            tricks: list[int | None] = [d.dd_tricks if s == d.declarer else None for s in range(self.players)]
        elif played:
            tricks = d.tricks_row()
        else:
            tricks = [None] * self.players
        return {
            "deal_index": d.index, "kind": kind,
            "bought": d.bought if d.phase == "main" else None,
            "declarer": d.declarer if kind != "raspasy" else None,
            "discard": pc.names(d.discard) if d.discard else None,
            "contract": d.contract if kind != "raspasy" else None,
            "responses": [[s, t] for s, t in d.responses],
            "mode": d.mode if kind in ("contract", "misere") else None,
            "tricks": tricks, "nobody": d.nobody,
            "delta": {"pulka": [exact(x) for x in delta.pulka], "mountain": [exact(x) for x in delta.mountain],
                      "whists": [[exact(x) for x in row] for row in delta.whists]},
            "scores": [exact(b) for b in bal],
        }

    # ------------------------------------------------------------------ records and views
    def deal_stub(self, d: Deal) -> dict[str, Any]:
        """PF-15.3: a deal's entry of the record's ``deal`` list."""
        from games.preferans.deal import deal_hands

        raw, talon = deal_hands(d.deck, self.players, d.dealer)
        hands = [pc.names(h) for h in raw]
        return {"deal_index": d.index, "phase": d.phase, "dealer": d.dealer,
                "deck": [card_str(c) for c in d.deck], "hands": hands, "talon": [card_str(c) for c in talon]}

    def outcome(self) -> dict[str, Any]:
        """PF-15.4 (only once over)."""
        if self.end is None or self.settlement is None or self.final is None:
            raise ValueError("the match is not over")
        st, f = self.settlement, self.final
        return {
            "deals": list(self.entries), "end": self.end,
            "sheet": {"pulka": [exact(x) for x in f.pulka], "mountain": [exact(x) for x in f.mountain],
                      "whists": [[exact(x) for x in row] for row in f.whists]},
            "settlement": {"moved": [exact(x) for x in f.pulka], "lowest": exact(st.lowest),
                           "shares": [exact(x) for x in st.shares],
                           "whists": [[exact(x) for x in row] for row in st.whists]},
            "money": [exact(b * self.rules.price) for b in st.balances],
            "scores": [exact(b) for b in st.balances],  # PF-15.4, PF-15.6: the balances, in whists
        }

    def record(self) -> dict[str, Any]:
        """The match record (PF-15.3) in the ``rasklad-record/1`` envelope."""
        parts = [self._record_parts(d) for d in self.deals]
        return envelope(NAME, VERSION, rules_json(self.rules), self.players, self.dealer,
                        [_fresh_stub(p[0]) for p in parts], [[list(a) for a in p[1]] for p in parts],
                        self.outcome() if self.end is not None else None)

    def _record_parts(self, d: Deal) -> tuple[dict[str, Any], list[list[Any]]]:
        """A deal's ``deal`` entry and action list (kept once the deal is finished)."""
        got = self._stubs.get(d.index)
        if got is not None:
            return got
        parts = (self.deal_stub(d), [[s, t] for s, t in d.actions])
        if d.index < len(self.entries):
            self._stubs[d.index] = parts
        return parts

    def sheet_json(self) -> dict[str, Any]:
        """The sheet as JSON, a fresh copy each call. The sheet changes only when a deal is scored or the
        match closes, so the exact numbers are written once per change, not once per view."""
        key = (len(self.deltas), self.end)
        if self._sheet_json is None or self._sheet_json[0] != key:
            s = self.sheet
            self._sheet_json = (key, {"pulka": [exact(x) for x in s.pulka], "mountain": [exact(x) for x in s.mountain],
                                      "whists": [[exact(x) for x in row] for row in s.whists]})
        w = self._sheet_json[1]
        return {"pulka": list(w["pulka"]), "mountain": list(w["mountain"]), "whists": [list(r) for r in w["whists"]]}

    def view(self, seat: int) -> dict[str, Any]:
        """PF-14: exactly what ``seat`` may know now."""
        v: dict[str, Any] = {"seat": seat, "players": self.players, "rules": built_once(self.rules, rules_json),
                             "sheet": self.sheet_json(), "deal_no": self.deal_no, "over": self.end is not None}
        if self.end is not None:
            return v
        d = self.current
        v["deal"] = deal_view(d, seat)
        return v

    def deal_balances(self) -> list[list[Fraction]]:
        return [list(b) for b in self.balances]


def deal_view(d: Deal, seat: int) -> dict[str, Any]:
    """PF-14 for one deal in progress."""
    public_hands: dict[int, list[str]] = {}
    if d.shown:  # PF-6.5 open lone whist, PF-7.6 open misère: the defenders; PF-7.7 play_open: all three
        shown = d.active if d.level == 10 else [s for s in d.active if s != d.declarer]
        public_hands = {s: pc.names(d.hands[s]) for s in shown}
    acts = [[s, ("discard" if t.startswith("discard:") and s != seat else t)] for s, t in d.actions]
    out: dict[str, Any] = {
        "index": d.index, "phase": d.phase, "dealer": d.dealer, "active": list(d.active), "step": d.step,
        "to_act": d.to_act(), "card_seat": d.next_card_seat() if d.step == "play" else None,
        "actions": acts, "hand": pc.names(d.hands[seat]),
        "talon": [card_str(c) for c in d.talon] if d.talon_public else None,
        "discard": pc.names(d.discard) if d.discard and seat == d.declarer else None,
        "declarer": d.declarer, "bought": d.bought, "contract": d.contract, "level": d.level,
        "trump": d.trump, "whisters": list(d.whisters), "passer": d.passer, "mode": d.mode,
        "round_level": d.round_level, "kind": d.kind,
        "trick": [[p.seat, card_str(p.card)] for p in d.trick],
        "played": [[s, card_str(c)] for s, c in d.played], "tricks": d.tricks_row(), "nobody": d.nobody,
        "open_hands": {str(s): h for s, h in sorted(public_hands.items()) if s != seat},
    }
    return out

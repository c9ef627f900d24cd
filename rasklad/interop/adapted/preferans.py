"""Preferans for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

The unit is the match, a pulka played to its end (PF-11). ``State.deal`` draws every deck order the match
may use up front (PF-3.4: one uniformly random order of the 32 cards per deal, for the most deals a match
can have: razboinik 6n, preliminary raspasy 2n, then ``max_deals``), so the adapter presents them up front
too: deck after deck, card by card (outcome: the card's index in the 32-card deck 7..A, equally likely
among the cards not yet placed in that deck), and ``start`` builds the match from exactly those decks.
With the default ``max_deals`` (500) that is 16,000 and more chance events before the first bid: tables
for search or learning set a small ``max_deals`` (the tests play 1 to 3).

Actions (a fixed numbering under the rules; PF-15.1's tokens): ``pass``, ``hold``, ``bid:<call>`` for every
call of the ladder in ladder order (PF-4.1), ``discard:a,b`` for every pair of cards in canonical order
(PF-1.4, PF-5.1), ``declare:<contract>`` for every contract of the ladder and ``declare:<9|10><strain>/wt``
(PF-5.2, PF-5.5), ``whist``, ``no_play``, ``open``, ``closed``, ``accept``, ``refuse``, ``writeoff:0`` ..
``writeoff:50`` (PF-9.2), ``play:<card>`` for the 32 cards in canonical order. The declarer's discard is
seen by him alone (PF-14), so not every decision is public.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from games.core.cards import card_str, suit_of
from games.core.protocol import State
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER"]

DECK_SIZE = 32
#: PF-14 / Deal.step: the decisions of a deal in progress, in tensor order.
STEPS = ("auction", "discard", "declare", "respond", "lone", "consent", "play", "writeoff")
PHASES = ("razboinik", "prelim_raspasy", "main")
KINDS = ("raspasy", "contract", "misere", "no_play", "ten_checked", "ten_conceded", "passed")  # PF-6.3: both pass
#: PF-8: no seat's balance moves by more than this many whists in one deal (bound of ``utility``, below).
DEAL_BOUND = 1000


def _deck() -> tuple[int, ...]:
    from games.preferans import cards as pc

    return pc.DECK  # PF-1.1: ids 20..51; a chance outcome is a card's index here


def _canonical() -> list[int]:
    from games.preferans import cards as pc

    return pc.canonical(pc.DECK)  # PF-1.4


@lru_cache(maxsize=16)
def _tokens(rules: Any) -> tuple[str, ...]:
    from games.preferans.rules import MISERE, STRAINS, WT_CALLS

    ladder = rules.ladder_calls
    out = ["pass", "hold", *(f"bid:{c}" for c in ladder)]
    out += [f"discard:{card_str(a)},{card_str(b)}" for a, b in combinations(_canonical(), 2)]
    out += [f"declare:{c}" for c in ladder if c != MISERE and c not in WT_CALLS]
    out += [f"declare:{lv}{s}/wt" for lv in (9, 10) for s in STRAINS]
    out += ["whist", "no_play", "open", "closed", "accept", "refuse"]
    out += [f"writeoff:{m}" for m in range(51)]  # PF-9.2: m <= v <= 50
    out += [f"play:{card_str(c)}" for c in _canonical()]
    return tuple(out)


@lru_cache(maxsize=16)
def _index(rules: Any) -> dict[str, int]:
    return {t: i for i, t in enumerate(_tokens(rules))}


def _num_actions(rules: Any, players: int) -> int:
    return len(_tokens(rules))


def _action_id(state: Any, action: Any) -> int:
    from games.preferans.state import canonical_discard

    token = canonical_discard(action) if isinstance(action, str) and action.startswith("discard:") else action
    try:
        return _index(state.rules)[token]
    except KeyError:
        raise ValueError(f"not an action of this table: {action!r}") from None


def _action(state: Any, action_id: int) -> Any:
    tokens = _tokens(state.rules)
    if not 0 <= action_id < len(tokens):
        raise ValueError(f"action {action_id} is out of range 0..{len(tokens) - 1}")
    return tokens[action_id]


# ------------------------------------------------------------------------------------------- chance
def _decks(rules: Any, players: int) -> int:
    from games.preferans.state import max_deals_of

    return max_deals_of(rules, players)


def _chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    """PF-3.4: each position of each deck uniform over the cards not yet placed in that deck."""
    if len(drawn) >= _decks(rules, players) * DECK_SIZE:
        return []
    pos = len(drawn) % DECK_SIZE
    placed = set(drawn[len(drawn) - pos:])
    left = [i for i in range(DECK_SIZE) if i not in placed]
    p = 1.0 / len(left)
    return [(i, p) for i in left]


def _chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    deal, pos = divmod(len(drawn), DECK_SIZE)
    return f"deal {deal} deck position {pos}: {card_str(_deck()[outcome])}"


def _start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> State:
    from games.preferans.state import State as PState

    deck = _deck()
    decks = [[deck[i] for i in drawn[k:k + DECK_SIZE]] for k in range(0, len(drawn), DECK_SIZE)]
    return PState(rules, players, dealer, decks)  # as PState.deal with these decks


# ------------------------------------------------------------------------------------------- bounds
def _per_deal(rules: Any) -> int:
    """Most decisions of one deal: an auction of at most 3 passes, one bid per rung of the ladder and two
    holds per bid (PF-4.3, PF-4.4), then a discard, a declaration, two responses, the lone whister's choice
    twice and a consent (PF-6.5: a refused no_play), a writeoff (PF-9.2) and 30 cards (PF-7)."""
    return 3 + 3 * len(rules.ladder_calls) + 1 + 1 + 2 + 2 + 1 + 1 + 30


def _max_length(rules: Any, players: int) -> int:
    return _decks(rules, players) * (DECK_SIZE + _per_deal(rules))


def _utility(rules: Any, players: int) -> tuple[float, float]:
    """A bound on ``scores()``: the final balances are the sum of the deal balances (PF-13), and one deal
    moves a balance by at most ``DEAL_BOUND`` whists. A deal writes at most 257 whists in all (consolation
    3 x 5 x 10, whists for tricks 4 x 10, no_play 2, a talon bonus 15, 50 closed on partners' pulkas) and
    each seat's x = dM + dP lies in [-50, 500] (a failed ten or misère: 50 x 10 on the mountain), so
    |b_i| <= 257 + 550 < 1000; scores are in 1/n whist (1/(10n) at ``closing_whist_rate`` 0.1)."""
    unit = players * (1 if rules.closing_whist_rate == 1 else 10)  # as State.score_unit
    most = float(DEAL_BOUND * unit * _decks(rules, players))
    return -most, most


# ------------------------------------------------------------------------------------------- tensor
def _sizes(rules: Any, players: int) -> list[tuple[str, int]]:
    n, ladder = players, len(rules.ladder_calls)
    return [("seat", n), ("dealer", n), ("phase", len(PHASES)), ("step", len(STEPS)), ("to_act", n),
            ("card_seat", n), ("hand", 32), ("talon_seen", 1), ("talon", 32), ("discard", 32),
            ("declarer", n), ("bought", ladder), ("contract", _contracts(rules)), ("whisters", n), ("passer", n),
            ("mode", 2), ("kind", len(KINDS)), ("passed", n), ("held", n), ("bids", n * ladder),
            ("responses", n * 2), ("played", (n + 1) * 32), ("trick", 4 * 32), ("tricks", n * 11), ("nobody", 3),
            ("open_hands", n * 32), ("pulka", n), ("mountain", n), ("whists", n * n), ("deal_no", 1), ("over", 1)]


@lru_cache(maxsize=16)
def _contract_index(rules: Any) -> dict[str, int]:
    names = [t[8:] for t in _tokens(rules) if t.startswith("declare:")] + ["misere"]
    return {c: i for i, c in enumerate(names)}


def _contracts(rules: Any) -> int:
    return len(_contract_index(rules))


def _tensor_size(rules: Any, players: int) -> int:
    return sum(size for _, size in _sizes(rules, players))


def _tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """What the view shows (PF-14): own seat; the deal's dealer, phase, decision, who acts and whose card is
    next; the own hand, the talon once turned up, the own discard (declarer only); the declarer, the call he
    bought, the contract, the whisters, the passer, the mode and the kind of deal; per seat its passes,
    holds, bids and responses; every card played by whom (the table's talon cards as a fifth seat) and the
    trick on the table by position; tricks per seat, tricks nobody took; open hands; the sheet (pulka,
    mountain, whists), each value divided by 10 x the pulka and cut to [0, 1]; how far the match has gone
    (deal number over the most deals); the end."""
    from games.preferans import cards as pc

    n = players
    ladder = rules.ladder_calls
    out = np.zeros(_tensor_size(rules, players), np.float32)
    base: dict[str, int] = {}
    at = 0
    for name, size in _sizes(rules, players):
        base[name] = at
        at += size

    def put(name: str, i: int, value: float = 1.0) -> None:
        out[base[name] + i] = value

    def canon(name: str) -> int:
        return pc.CANON_INDEX[pc.parse(name)]

    put("seat", view["seat"])
    scale = 10.0 * rules.pulka
    sheet = view["sheet"]
    for s in range(n):
        put("pulka", s, min(1.0, max(0.0, float(Fraction(sheet["pulka"][s])) / rules.pulka)))
        put("mountain", s, min(1.0, max(0.0, float(Fraction(sheet["mountain"][s])) / scale)))
        for j in range(n):
            put("whists", s * n + j, min(1.0, max(0.0, float(Fraction(sheet["whists"][s][j])) / scale)))
    put("deal_no", 0, min(1.0, view["deal_no"] / _decks(rules, players)))
    if view["over"]:
        put("over", 0)
        return out
    d = view["deal"]
    put("dealer", d["dealer"])
    put("phase", PHASES.index(d["phase"]))
    if d["step"] in STEPS:
        put("step", STEPS.index(d["step"]))
    if d["to_act"] >= 0:
        put("to_act", d["to_act"])
    if d["card_seat"] is not None:
        put("card_seat", d["card_seat"])
    for c in d["hand"]:
        put("hand", canon(c))
    if d["talon"] is not None:
        put("talon_seen", 0)
        for c in d["talon"]:
            put("talon", canon(c))
    for c in d["discard"] or ():
        put("discard", canon(c))
    if d["declarer"] is not None:
        put("declarer", d["declarer"])
    if d["bought"] is not None:
        put("bought", ladder.index(d["bought"]))
    if d["contract"] is not None:
        put("contract", _contract_index(rules)[d["contract"]])
    for s in d["whisters"]:
        put("whisters", s)
    if d["passer"] is not None:
        put("passer", d["passer"])
    if d["mode"] in ("open", "closed"):
        put("mode", ("open", "closed").index(d["mode"]))
    if d["kind"] is not None:
        put("kind", KINDS.index(d["kind"]))
    declared = False  # PF-6.1: a whist or pass after the declaration is a response, a pass before it the auction's
    for s, token in d["actions"]:
        if token.startswith("declare:"):
            declared = True
        elif token == "hold":
            put("held", s)
        elif token.startswith("bid:"):
            put("bids", s * len(ladder) + ladder.index(token[4:]))
        elif token in ("whist", "pass") and declared:
            put("responses", s * 2 + (0 if token == "whist" else 1))
        elif token == "pass":
            put("passed", s)
    for s, c in d["played"]:
        put("played", (n if s < 0 else s) * 32 + canon(c))
    for i, (_, c) in enumerate(d["trick"]):
        put("trick", i * 32 + canon(c))
    for s, t in enumerate(d["tricks"]):
        if t is not None:
            put("tricks", s * 11 + t)
    put("nobody", min(d["nobody"], 2))
    for s, cards in d["open_hands"].items():
        for c in cards:
            put("open_hands", int(s) * 32 + canon(c))
    return out


# ------------------------------------------------------------------------------------------- seat state
def _voids(played: Sequence[tuple[int, int]], trump: int | None) -> dict[int, set[int]]:
    """Suits each seat showed void in (PF-7.2), as ``games.preferans.hidden`` reads them."""
    from games.core.tricks import TABLE

    out: dict[int, set[int]] = {}
    k = 0
    while k < len(played):
        size = 4 if played[k][0] == TABLE else 3
        trick = played[k:k + size]
        led = suit_of(trick[0][1])
        for s, c in trick[1:]:
            if suit_of(c) != led:
                out.setdefault(s, set()).add(led)
                if trump is not None and suit_of(c) != trump:
                    out[s].add(trump)
        k += size
    return out


def _seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """A match the seat of ``view`` cannot tell from the real one (PF-14).

    The deal in progress keeps what the view shows (the own hand, every card played, the talon once turned
    up, the own discard, open hands); the hidden cards (the other hands, a face-down talon, another
    declarer's discard) are dealt at random, each seat keeping the suits it showed void in (PF-7.2) and the
    turned-up talon cards going only to the declarer's hand or discard; the deal's actions are then replayed
    from its deck, so each is legal. Later decks are drawn afresh. Earlier deals are on the sheet as the view
    shows it, which is all that counts for the rest of the match (PF-9, PF-11.5, PF-11.6); their decks are
    random and they are not played, so the state is for search and its record does not replay."""
    from games.core.tricks import TABLE
    from games.preferans import cards as pc
    from games.preferans.deal import Deal
    from games.preferans.rules import Rules
    from games.preferans.scoring import Sheet
    from games.preferans.state import State as PState
    from games.preferans.state import phase_of

    if view["over"]:
        raise ValueError("the match is over: there is nothing to search")
    rules = Rules(**view["rules"])
    n, seat, d = int(view["players"]), int(view["seat"]), view["deal"]
    k, declarer = int(d["index"]), d["declarer"]
    parse = pc.parse
    played = [(int(s), parse(c)) for s, c in d["played"]]
    played_by: dict[int, set[int]] = {s: set() for s in d["active"]}
    for s, c in played:
        if s != TABLE:
            played_by[s].add(c)
    talon = None if d["talon"] is None else [parse(c) for c in d["talon"]]
    took = talon is not None and declarer is not None and d["kind"] != "raspasy"
    discarded = any(t.startswith("discard") for _, t in d["actions"])
    own_discard = None if d["discard"] is None else [parse(c) for c in d["discard"]]
    hands: dict[int, set[int]] = {seat: {parse(c) for c in d["hand"]}} if seat in d["active"] else {}
    for s, cards in d["open_hands"].items():
        hands[int(s)] = {parse(c) for c in cards}
    in_hands = {c for h in hands.values() for c in h}
    played_cards = {c for _, c in played}
    known = in_hands | played_cards | set(talon or ()) | set(own_discard or ())
    hidden = [s for s in d["active"] if s not in hands]
    # The turned-up talon cards not played nor in a known hand are in the declarer's hand or his discard.
    extra = [c for c in talon or () if took and c not in in_hands | played_cards | set(own_discard or ())]
    fixed: dict[int, set[int]] = {s: set() for s in hidden}
    if took and declarer in fixed and not discarded:
        fixed[declarer], extra = set(extra), []  # before the discard he holds the whole talon
    pool = [c for c in pc.DECK if c not in known]
    sizes = {s: 10 - len(played_by[s]) + (2 if took and s == declarer and not discarded else 0) for s in hidden}
    voids = _voids(played, d["trump"])
    order = sorted(hidden, key=lambda s: (s == declarer, -len(voids.get(s, ()))))
    for _ in range(500):
        cands = [pool[i] for i in rng.permutation(len(pool))]
        ext = [extra[i] for i in rng.permutation(len(extra))]
        new: dict[int, set[int]] = {}
        for s in order:
            need = sizes[s] - len(fixed[s])
            src = cands + ext if s == declarer else cands
            src = [src[i] for i in rng.permutation(len(src))]
            got = [c for c in src if suit_of(c) not in voids.get(s, ())][:need]
            if len(got) < need:
                break
            new[s] = set(got) | fixed[s]
            cands = [c for c in cands if c not in new[s]]
            ext = [c for c in ext if c not in new[s]]
        else:
            discard = own_discard
            if discard is None and discarded:  # another declarer's discard: the talon cards left, then any
                discard = ext + cands[:2 - len(ext)]
                cands, ext = cands[2 - len(ext):], []
            hidden_talon = cands[:2] if talon is None else None
            cands = cands[2:] if talon is None else cands
            if not ext and not cands:
                break
    else:
        raise ValueError("no deal fits the view")  # cannot happen for a view of a real state
    hands.update(new)
    talon_cards = talon if talon is not None else hidden_talon
    assert talon_cards is not None
    deck: list[int] = []
    for s in d["active"]:
        dealt = hands[s] | played_by[s]
        if took and s == declarer:
            dealt = (dealt | set(discard or ())) - set(talon_cards)
        deck += pc.canonical(dealt)
    deck += list(talon_cards)
    dealer0 = (int(d["dealer"]) - k) % n
    decks = [[int(c) for c in rng.permutation(np.asarray(pc.DECK))] for _ in range(_decks(rules, n))]
    decks[k] = deck
    st = PState(rules, n, dealer0, decks)
    st.deals = []
    for j in range(k + 1):  # the deals before are placeholders (never played): the sheet below is theirs
        phase, level = phase_of(rules, n, j)
        st.deals.append(Deal.start(rules, n, j, phase, (dealer0 + j) % n, decks[j], level))
    sheet = view["sheet"]
    st.sheet = Sheet(n, [Fraction(x) for x in sheet["pulka"]], [Fraction(x) for x in sheet["mountain"]],
                     [[Fraction(x) for x in row] for row in sheet["whists"]])
    st.main_deals = sum(1 for j in range(k) if phase_of(rules, n, j)[0] == "main")
    st._legal = None
    hidden_token = None if discard is None else "discard:" + ",".join(pc.names(discard))
    for _, token in d["actions"]:
        st.apply(hidden_token if token == "discard" else token)
    return st


ADAPTER = Adapter(
    game="preferans", num_actions=_num_actions, action_id=_action_id, action=_action,
    chance=_chance, chance_max=lambda rules, players: DECK_SIZE, start=_start,
    tensor_size=_tensor_size, tensor=_tensor,
    seat_state=_seat_state, max_length=_max_length, utility=_utility, zero_sum=True,
    public_actions=False, chance_name=_chance_name,
    # Whole matches, cut short by max_deals (the default 500 deals would be 16,000 chance events first).
    # Whole matches cut short by max_deals (the default 500 would be 16,000 chance events before the first
    # bid); OpenSpiel parameters change an option only away from the sochi default, so the phases are
    # switched on over sochi rather than off over classic.
    cases=({"players": 3, "max_deals": 2, "pulka": 10},
           {"players": 4, "max_deals": 2, "preliminary_raspasy": True, "raspasy_trick_value": 10,
            "misere_defence": "closed"},
           {"players": 3, "max_deals": 1, "razboinik": True, "ladder": "modern", "writeoff": "declarer_choice",
            "ten_check": "solve", "razboinik_made": "off_mountain"}),
    sims=1)

"""Classic poker deals as Poker Hand History (PHH) hand histories (docs/classic-poker.md, "Hand histories
(PHH)").

PHH (the hand-history notation of PokerKit, ``pokerkit.notation.HandHistory``) names a hand's game by one
of a fixed set of variant codes, each a complete set of rules: ``FT``, ``NT``, ``NS``, ``PO``, ``FO/8``
(hold'em and Omaha), ``F7S``, ``F7S/8``, ``FR`` (fixed-limit seven-card stud, its eight-or-better split,
razz), ``N2L1D``, ``F2L3D`` (deuce-to-seven lowball, no-limit single draw and fixed-limit triple draw)
and ``FB`` (badugi). A hand history written under a code is read back with that code's rules, so a deal
of ours may be written only under a code whose rules are ours exactly: the same deck, dealing, betting
structure and limits, first player to act, draw, ranking and splitting.

:func:`phh_obstacle` compares a rule set with every code and returns the first rule that blocks, or None.
Seven-card stud under ``stud_opening=bring_in`` (CP-8.8) is PokerKit's fixed-limit stud: ``F7S`` with
``pot=high``, ``F7S/8`` with ``pot=high_low``, ``low_ranking=ace_to_five``, ``low_qualifier=8``, and ``FR``
(razz) with ``pot=low``, ``low_ranking=ace_to_five``, no qualifier; on 52 cards, with ``max_raises=3``
(PokerKit's cap: the completion or bet and three raises) and 2-7 players (eight may need CP-8.6's common
card). Every other rule set has an obstacle (the draw forms: ``N2L1D`` is no-limit deuce-to-seven; the
default stud opening: CP-8.3/CP-8.4's best showing hand must bet), and ``rasklad export --format phh``
refuses it. :func:`hand_history` writes one finished deal (its record) as a PHH document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.classic_poker import hands
from games.classic_poker.rules import Rules
from games.classic_poker.state import Action, State
from games.core import betting as bt

#: The variant codes of PHH (PokerKit 0.7's ``HandHistory.game_types``), with the game each names.
VARIANTS = {
    "FT": "fixed-limit Texas hold'em", "NT": "no-limit Texas hold'em", "NS": "no-limit short-deck hold'em",
    "PO": "pot-limit Omaha", "FO/8": "fixed-limit Omaha high-low eight or better",
    "F7S": "fixed-limit seven-card stud", "F7S/8": "fixed-limit seven-card stud high-low eight or better",
    "FR": "fixed-limit razz", "N2L1D": "no-limit deuce-to-seven lowball single draw",
    "F2L3D": "fixed-limit deuce-to-seven lowball triple draw", "FB": "fixed-limit badugi",
}


@dataclass(frozen=True)
class PhhObstacle:
    """A rule of ours that no PHH variant expresses: its id (``CP-x.y``), the nearest PHH variant
    (None when no variant comes near) and why, in one line."""

    rule: str
    nearest: str | None
    reason: str

    def __str__(self) -> str:
        near = f" (nearest PHH variant {self.nearest}: {VARIANTS[self.nearest]})" if self.nearest else ""
        return f"{self.rule}: {self.reason}{near}"


# CP-8.3 / CP-8.4 against PHH's stud codes: the option stud_opening=bring_in (CP-8.8) gives theirs.
_STUD_OPENING = ("the first interval is opened by the best showing hand, who must bet (CP-8.3, CP-8.4); PHH's "
                 "stud opens with a forced bring-in by the lowest door card (razz: the highest), as "
                 "stud_opening=bring_in does (CP-8.8)")
#: PokerKit's fixed-limit cap: a completion or bet and three raises per interval (CP-6.6's max_raises=3).
PHH_MAX_RAISES = 3


def phh_obstacle(rules: Rules, players: int | None = None) -> PhhObstacle | None:
    """The first rule of ``rules`` that no PHH variant expresses exactly, checked in the order deck,
    wild cards, four-flush, form, pot and ranking, opening, limits (with ``players``: the table too),
    or None when a variant expresses it (``variant``).

    With ``dealers_choice`` (CP-9.2) it is the first listed preset's, as that preset is played at this table.
    """
    if rules.dealers_choice:
        first = rules.dealers_choice[0]
        o = phh_obstacle(rules.chosen(first))
        assert o is not None  # a chosen preset keeps the default stud opening (CP-9.2)
        return PhhObstacle(o.rule, o.nearest, f"dealers_choice preset {first}: {o.reason}")
    if rules.jokers:
        return PhhObstacle("CP-1.2", None, f"deck {rules.deck} holds {rules.jokers} joker(s); PHH's decks have none")
    if rules.short:
        return PhhObstacle("CP-10.1", "NS", "the 36-card deck: PHH's only short deck is no-limit hold'em, "
                                             "which ranks a straight above three of a kind")
    if rules.wild_ranks or rules.wild_cards:
        return PhhObstacle("CP-3.1", None, "wild cards; PHH's rankings have none")
    if rules.four_flush == "on":
        return PhhObstacle("CP-4.2", None, "four_flush=on; PHH's rankings have no four-flush")
    if rules.form == "stud5":
        return PhhObstacle("CP-8.1", "F7S", "five-card stud; PHH's stud variants are seven-card")
    if rules.form == "draw":
        return _draw(rules)
    return _stud7(rules, players)


def _draw(rules: Rules) -> PhhObstacle:
    """CP-7 against PHH's draw codes, all lowball (N2L1D, F2L3D) or badugi (FB)."""
    if rules.pot != "low":
        return PhhObstacle("CP-7", None, f"draw poker with pot={rules.pot}; PHH's draw variants are deuce-to-seven "
                                         "lowball (N2L1D, F2L3D) and badugi (FB)")
    if rules.low_ranking != "ace_high":
        return PhhObstacle("CP-5.2", None, f"draw lowball with low_ranking={rules.low_ranking}; PHH's draw lowball "
                                           "is deuce-to-seven only")
    if rules.ace_low_straight == "on":
        return PhhObstacle("CP-5.2", "N2L1D", "low_ranking=ace_high counts A-2-3-4-5 as a straight (CP-1.3); "
                                              "deuce-to-seven counts it an ace-high no-pair hand")
    return PhhObstacle("CP-6.4", "N2L1D", "bets and raises of min_bet..limit with max_raises and antes only; "
                                          "PHH's single-draw lowball is no-limit with blinds")


def _stud7(rules: Rules, players: int | None) -> PhhObstacle | None:
    """CP-8.2 against F7S, F7S/8 and FR: the pot and ranking first, then the opening, the raise cap and
    the table."""
    want = {"high_low": ("F7S/8", "8", "ace-to-five eight or better"),
            "low": ("FR", "none", "ace-to-five with no qualifier")}.get(rules.pot)
    if want is not None:
        code, qualifier, theirs = want
        if rules.low_ranking != "ace_to_five":
            return PhhObstacle("CP-5.2", code, f"pot={rules.pot} with low_ranking={rules.low_ranking}; PHH's "
                                               f"{VARIANTS[code]} is {theirs}")
        if rules.low_qualifier != qualifier:
            return PhhObstacle("CP-5.4", code, f"pot={rules.pot} with low_qualifier={rules.low_qualifier}; PHH's "
                                               f"{VARIANTS[code]} is {theirs}")
    nearest = {"high": "F7S", "high_low": "F7S/8", "low": "FR"}[rules.pot]
    if rules.stud_opening != "bring_in":
        return PhhObstacle("CP-8.4", nearest, _STUD_OPENING)
    if rules.max_raises != PHH_MAX_RAISES:
        return PhhObstacle("CP-6.6", nearest, f"max_raises={rules.max_raises}; PokerKit's fixed-limit stud allows a "
                                              f"completion or bet and {PHH_MAX_RAISES} raises")
    if players is not None and players * 7 > 52:
        return PhhObstacle("CP-8.6", nearest, f"{players} players may need the common card; PokerKit's stud deals "
                                              "every seventh card to each player")
    return None


def variant(rules: Rules) -> str:
    """The PHH code of a rule set :func:`phh_obstacle` passes."""
    return {"high": "F7S", "high_low": "F7S/8", "low": "FR"}[rules.pot]


def stack(rules: Rules) -> int:
    """Every starting stack of a PHH hand: ten times the most a seat can put in a deal (the ante, then
    ``max_raises`` + 1 bets on two small-bet and three big-bet streets), so nobody is ever all in (CP-6.1
    has no stacks)."""
    return 10 * (rules.ante + (rules.max_raises + 1) * (2 * rules.min_bet + 3 * rules.limit))


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def hand_history(record: Mapping[str, Any], rules: Rules, *, players: Sequence[str] | None = None,
                 fields: Mapping[str, Any] | None = None) -> str:
    """One finished deal, a record of ours (CP-11.2) played under ``rules``, as a PHH document (TOML).

    The deal is replayed from the record. PHH's players p1..pn are the positions of CP-11.3: p1 the
    dealer's left, pn the dealer (seat (dealer + k) mod n is pk); ``_seats`` lists the seat of each.
    ``players`` names each seat (seat order); ``fields`` adds fields whose names start with ``_`` (PHH's
    user-defined fields). ``ValueError`` when PHH cannot express the rules or the record does not replay.
    """
    from games.classic_poker.record import from_record

    n = record["players"]
    o = phh_obstacle(rules, n)
    if o is not None:
        raise ValueError(str(o))
    st = from_record(record, rules)
    assert isinstance(st, State)
    pk = {(st.dealer + k) % n: k for k in range(1, n + 1)}  # seat -> PHH player number
    actions: list[str] = []
    shown = [0] * n

    def deal_new() -> None:
        for seat in st.pos:
            new = st.cards[seat][shown[seat]:]
            if new:
                actions.append(f"d dh p{pk[seat]} " + "".join(hands.name(c) for c in new))
                shown[seat] = len(st.cards[seat])

    deal_new()
    for entry in record["actions"]:
        seat, act = entry["seat"], entry["act"]
        b = st.betting
        if act == "raise":
            first = b.bring_in and b.current_bet == 0 and entry["amount"] == b.bring_in
            actions.append(f"p{pk[seat]} pb" if first else f"p{pk[seat]} cbr {b.current_bet + entry['amount']}")
            bet = bt.raise_by(entry["amount"])
        else:
            actions.append(f"p{pk[seat]} {'f' if act == 'fold' else 'cc'}")
            bet = {"fold": bt.FOLD, "check": bt.CHECK, "call": bt.CALL}[act]
        st.apply(Action(bet=bet))
        deal_new()
    scores = st.scores()
    if st.result is None or scores != list(record["outcome"]["scores"]):
        raise ValueError("the record does not replay to its outcome")
    if st.result.get("showdown"):  # every hand still in is shown, all seven cards (CP-6.8)
        for seat in st.pos:
            if not st.betting.folded[seat]:
                actions.append(f"p{pk[seat]} sm " + "".join(hands.name(c) for c in st.cards[seat]))
    by_pk = sorted(pk, key=pk.__getitem__)
    start = stack(rules)
    doc: dict[str, Any] = {
        "variant": variant(rules), "ante_trimming_status": False,
        "antes": [rules.ante + st.carried[s] for s in by_pk], "bring_in": rules.bring_in,
        "small_bet": rules.min_bet, "big_bet": rules.limit, "starting_stacks": [start] * n, "actions": actions}
    if players is not None:
        doc["players"] = [players[s] for s in by_pk]
    doc["finishing_stacks"] = [start + scores[s] for s in by_pk]
    doc["_seats"] = by_pk
    doc["_dealer"] = st.dealer
    for k, v in (fields or {}).items():
        if not k.startswith("_"):
            raise ValueError(f"a user-defined PHH field starts with '_', not {k!r}")
        doc[k] = v
    return "\n".join(f"{k} = {_toml(v)}" for k, v in doc.items()) + "\n"


def hand_histories(docs: Sequence[str]) -> str:
    """Several PHH documents as one ``.phhs`` file (PokerKit's ``HandHistory.loads_all``): tables [1], [2], ..."""
    return "\n".join(f"[{i}]\n{d}" for i, d in enumerate(docs, 1))


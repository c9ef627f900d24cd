"""The record envelope read once for every game (GameEntry.state_from_record, issue 29 item 5): the
envelope checked with the game's own extra fields, the rules read through the entry, a record of another
version refused with both versions and what changed named (GameEntry.changes)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.core.protocol import IllegalAction, RulesError
from games.core.replay import replay

GAMES = sorted(registry.games())


def random_record(name: str, seed: int = 3) -> dict[str, Any]:
    """A finished random unit of ``name`` at its default rules and fewest seats, as a record."""
    entry = registry.game(name)
    rules = entry.rules({})
    players = entry.seats(rules)[0]
    rng = np.random.default_rng(seed)
    st = entry.deal(rules, players, 0, rng)
    bot = registry.make(f"{name}/random")
    while not st.is_over():
        st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
    return json.loads(json.dumps(st.record()))


@pytest.mark.parametrize("name", GAMES)
def test_a_record_rebuilds_through_the_entry(name: str) -> None:
    entry = registry.game(name)
    rec = random_record(name)
    fresh = entry.state_from_record(rec)
    assert fresh.to_act() >= 0 and not fresh.is_over()
    assert replay(rec)["scores"] == rec["outcome"]["scores"]


@pytest.mark.parametrize("name", GAMES)
def test_a_record_of_another_version_names_both(name: str) -> None:
    entry = registry.game(name)
    rec = {**random_record(name), "version": entry.version + 1}
    with pytest.raises(IllegalAction) as e:
        entry.state_from_record(rec)
    assert e.value.rule == entry.record_rule_id and e.value.index is None
    assert f"version {entry.version + 1} of {name}" in e.value.message
    assert f"this engine is version {entry.version}" in e.value.message


@pytest.mark.parametrize("name", GAMES)
def test_every_version_says_what_changed(name: str) -> None:
    """GameEntry.changes names every version after the first (what changed in rows or records)."""
    entry = registry.game(name)
    assert sorted(entry.changes) == list(range(2, entry.version + 1))
    assert all(isinstance(t, str) and len(t) > 20 for t in entry.changes.values())


def test_an_older_record_is_told_what_changed() -> None:
    entry = registry.game("classic-poker")
    assert entry.version >= 2
    rec = {**random_record("classic-poker"), "version": 1}
    with pytest.raises(IllegalAction, match=r"version 2: .*CP-7\.4"):
        entry.state_from_record(rec)
    r = subprocess.run([sys.executable, "-m", "rasklad", "replay", "-"], input=json.dumps(rec), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "version 1 of classic-poker" in r.stderr and "version 2" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name", GAMES)
def test_unknown_top_level_fields_are_refused_but_the_games_own_are_not(name: str) -> None:
    entry = registry.game(name)
    rec = random_record(name)
    with pytest.raises(IllegalAction) as e:
        entry.state_from_record({**rec, "comment": "x"})
    assert e.value.rule == entry.record_rule_id and "comment" in e.value.message
    for extra in entry.record_fields:  # declared fields pass the envelope (their values are the game's)
        assert extra not in rec or entry.state_from_record(rec) is not None


@pytest.mark.parametrize("name", GAMES)
def test_rules_that_are_not_an_object_are_refused(name: str) -> None:
    entry = registry.game(name)
    with pytest.raises((IllegalAction, RulesError)) as e:
        entry.state_from_record({**random_record(name), "rules": ["preset"]})
    assert (e.value.rule or "").startswith(entry.rule_prefix)


@pytest.mark.parametrize("name", GAMES)
def test_from_record_builds_on_the_rules_the_entry_read(name: str) -> None:
    """GameEntry.from_record(record, rules) keeps the rules it is given (the entry read them once with the
    envelope); no game reads the record's rules a second time."""
    entry = registry.game(name)
    rec = random_record(name)
    rules = entry.record_rules(rec) if entry.record_rules is not None else entry.rules(rec["rules"])
    assert entry.from_record(rec, rules).rules is rules

"""``rasklad stats``: exact and sampled dealing statistics of every ranking."""

from __future__ import annotations

import json
import math
import time
from typing import Annotated, Any

import typer

# numpy, rich and the hand evaluator are imported by the commands that use them: importing the
# command line (every ``rasklad`` command registers this module) must stay cheap (issue 30 item 4).

stats_app = typer.Typer(help="Dealing statistics: category frequencies and rank order by rarity.",
                        no_args_is_help=True)


def _bad(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _counts(ranking: str, cards: int, exact: bool, samples: int | None, seed: int | None,
            dead: str, deck: str | None, workers: int) -> tuple[dict[str, int], str]:
    """Counts by category and the method used; bad arguments exit with code 2."""
    from ext import handeval

    if ranking not in handeval.RANKINGS:
        _bad(f"unknown ranking {ranking!r}: choose one of {', '.join(handeval.RANKINGS)}")
    if exact and samples is not None:
        _bad("--exact and --samples exclude each other")
    if samples is not None and seed is None:
        _bad("--samples needs --seed: every random choice flows from an explicit seed")
    if samples is None and seed is not None:
        _bad("--seed goes with --samples")
    if samples is not None and samples <= 0:
        _bad(f"--samples must be > 0, not {samples}")
    if workers < 1:
        _bad(f"--workers must be >= 1, not {workers}")
    try:
        if samples is not None:
            assert seed is not None
            return handeval.sample_counts(ranking, cards, samples, seed, dead=dead, deck=deck,
                                          workers=workers), "sample"
        return handeval.category_counts(ranking, cards, dead=dead, deck=deck, workers=workers), "exact"
    except ValueError as e:
        _bad(str(e))
    raise AssertionError("unreachable")


RankingOpt = Annotated[str, typer.Option("--ranking", "-r", help="classic, short-deck, order-poker or quintet")]
CardsOpt = Annotated[int, typer.Option("--cards", "-k", help="cards per hand (5, 6 or 7); best five count")]
DeckOpt = Annotated[str | None, typer.Option("--deck", help="evaluate on a smaller deck (52, 36, 32)")]


def _mode_counts(ranking: str, cards: int, exact: bool, samples: int | None, seed: int | None, dead: str,
                 deck: str | None, workers: int, jokers: int, wild: str, low: str | None,
                 bug_flush: str, four_flush: bool) -> tuple[dict[str, int], str]:
    """Counts under a wild / four-flush / low mode (docs/rules/classic-poker.md CP-3..CP-5)."""
    from ext import handeval

    if ranking not in ("classic", "short-deck"):
        _bad(f"--jokers, --wild, --low and --four-flush need --ranking classic or short-deck, not {ranking!r}")
    if dead:
        _bad("--dead is not supported with --jokers, --wild, --low or --four-flush")
    if exact and samples is not None:
        _bad("--exact and --samples exclude each other")
    if samples is not None and seed is None:
        _bad("--samples needs --seed: every random choice flows from an explicit seed")
    if samples is None and seed is not None:
        _bad("--seed goes with --samples")
    if samples is not None and samples <= 0:
        _bad(f"--samples must be > 0, not {samples}")
    if workers < 1:
        _bad(f"--workers must be >= 1, not {workers}")
    try:
        mode = handeval.Mode(ranking=ranking, wild=wild, low=low, bug_flush=bug_flush, four_flush=four_flush)
        if samples is not None:
            assert seed is not None
            return handeval.sample_counts_mode(mode, cards, samples, seed, deck=deck, jokers=jokers,
                                               workers=workers), "sample"
        return handeval.category_counts_mode(mode, cards, deck=deck, jokers=jokers, workers=workers), "exact"
    except ValueError as e:
        _bad(str(e))
    raise AssertionError("unreachable")


@stats_app.command("categories")
def categories(
    ranking: RankingOpt = "classic",
    cards: CardsOpt = 5,
    exact: Annotated[bool, typer.Option("--exact", help="enumerate every hand (the default)")] = False,
    samples: Annotated[int | None, typer.Option("--samples", help="sample this many hands instead")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="seed of the sampling (required with --samples)")] = None,
    dead: Annotated[str, typer.Option("--dead", help='cards removed from the deck, e.g. "As Kd"')] = "",
    deck: DeckOpt = None,
    workers: Annotated[int, typer.Option("--workers", help="threads")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
    jokers: Annotated[int, typer.Option("--jokers", help="jokers added to the deck (0, 1 or 2)")] = 0,
    wild: Annotated[str, typer.Option("--wild", help="none, jokers, bug, deuces or deuces+jokers")] = "none",
    low: Annotated[str | None, typer.Option("--low", help="count low hands: ace_high, ace_either or ace_to_five")]
    = None,
    bug_flush: Annotated[str, typer.Option("--bug-flush", help="the bug in a flush: fill or ace_only")] = "fill",
    four_flush: Annotated[bool, typer.Option("--four-flush", help="count the four-flush category (CP-4)")] = False,
) -> None:
    """Frequency of every category: count, probability and 1-in-N."""
    from rich.console import Console
    from rich.table import Table

    from ext import handeval

    moded = jokers != 0 or wild != "none" or low is not None or four_flush or bug_flush != "fill"
    if moded:
        counts, method = _mode_counts(ranking, cards, exact, samples, seed, dead, deck, workers, jokers, wild, low,
                                      bug_flush, four_flush)
    else:
        counts, method = _counts(ranking, cards, exact, samples, seed, dead, deck, workers)
    total = sum(counts.values())
    if as_json:
        out: dict[str, Any] = {"ranking": ranking, "cards": cards, "deck": deck or handeval.RANKINGS[ranking].deck,
                               "dead": dead.split(), "method": method, "total": total, "counts": counts}
        if moded:
            out.update({"jokers": jokers, "wild": wild, "low": low, "bug_flush": bug_flush, "four_flush": four_flush})
        if method == "sample":
            out["seed"] = seed
        typer.echo(json.dumps(out))
        return
    title = (f"{ranking}: {cards}-card hands from {deck or handeval.RANKINGS[ranking].deck} cards"
             + (f" + {jokers} joker(s)" if jokers else "") + (f", wild {wild}" if wild != "none" else "")
             + (f", low {low}" if low else "")
             + (f" minus {dead}" if dead else "") + (f", {total:,} samples (seed {seed})" if method == "sample"
                                                     else f", all {total:,} hands"))
    table = Table(title=title)
    table.add_column("category")
    table.add_column("count", justify="right")
    table.add_column("probability", justify="right")
    if method == "sample":
        table.add_column("± 95%", justify="right")
    table.add_column("1 in", justify="right")
    for name in (list(counts) if low else reversed(list(counts))):
        n = counts[name]
        p = n / total if total else 0.0
        row = [name, f"{n:,}", f"{p:.6f}"]
        if method == "sample":
            row.append(f"{1.96 * math.sqrt(p * (1 - p) / total):.6f}" if total else "-")
        row.append(f"{1 / p:,.1f}" if p else "-")
        table.add_row(*row)
    Console().print(table)


def rank_order_rows(counts: dict[str, int]) -> tuple[list[str], list[tuple[str, str]]]:
    """Categories from rarest to most common, and every pair ranked against its rarity.

    A pair (a, b) is flagged when the ranking puts a above b although a is at least as
    common as b: the argument of seed 003 for reordering poker on a 36-card deck.
    """
    order = list(counts)  # the ranking's own order, lowest first
    by_rarity = sorted(order, key=lambda c: (counts[c], -order.index(c)))
    against = [(hi, lo) for i, lo in enumerate(order) for hi in order[i + 1:] if counts[hi] >= counts[lo]]
    return by_rarity, against


@stats_app.command("rank-order")
def rank_order(
    ranking: RankingOpt = "classic",
    cards: CardsOpt = 5,
    deck: DeckOpt = None,
    dead: Annotated[str, typer.Option("--dead", help="cards removed from the deck")] = "",
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """The ranking's order next to the order by rarity, flagging pairs ordered against rarity."""
    from rich.console import Console
    from rich.table import Table

    from ext import handeval

    counts, _ = _counts(ranking, cards, True, None, None, dead, deck, 1)
    by_rarity, against = rank_order_rows(counts)
    own = list(reversed(list(counts)))
    if as_json:
        typer.echo(json.dumps({"ranking": ranking, "cards": cards, "deck": deck or handeval.RANKINGS[ranking].deck,
                               "ranking_order": own, "rarity_order": by_rarity, "counts": counts,
                               "against_rarity": [list(p) for p in against]}))
        return
    table = Table(title=f"{ranking} on {deck or handeval.RANKINGS[ranking].deck} cards, {cards}-card hands: "
                        "highest first")
    table.add_column("#", justify="right")
    table.add_column("ranking order")
    table.add_column("count", justify="right")
    table.add_column("by rarity")
    table.add_column("count", justify="right")
    for i, (a, b) in enumerate(zip(own, by_rarity, strict=True)):
        table.add_row(str(i + 1), a, f"{counts[a]:,}", b, f"{counts[b]:,}")
    console = Console()
    console.print(table)
    if against:
        for hi, lo in against:
            console.print(f"[yellow]against rarity[/]: {hi} ({counts[hi]:,}) ranks above {lo} ({counts[lo]:,})")
    else:
        console.print("[green]the ranking agrees with rarity[/]: every category is rarer than the ones below it")


def demo_benchmark_line() -> str:
    """One line of figures: batch 7-card evaluation and exact 52/7 enumeration speed."""
    import numpy as np

    from ext import handeval

    rng = np.random.default_rng(2026)
    n = 2_000_000
    hands = np.argsort(rng.random((n, 52)), axis=1)[:, :7].astype(np.uint8)
    handeval.evaluate(hands[:8])  # builds the tables outside the timing
    t0 = time.perf_counter()
    handeval.evaluate(hands)
    t_eval = time.perf_counter() - t0
    handeval.category_counts("classic", 7)  # warm
    t0 = time.perf_counter()
    total = sum(handeval.category_counts("classic", 7).values())
    t_enum = time.perf_counter() - t0
    return (f"benchmark: {n / t_eval / 1e6:.1f} M 7-card hands/s (batch, one core); "
            f"exact 52/7 enumeration of {total:,} hands in {t_enum:.2f} s")


def register(app: typer.Typer) -> None:
    """Add ``rasklad stats`` to the CLI."""
    app.add_typer(stats_app, name="stats")

"""Training the CFR policy of a small game in compiled code, with its exact exploitability over time.

``train(digits, values, iterations)`` runs the compiled CFR+ (``games.liars_poker.fast._cfr``) and, at
log-spaced checkpoints, computes the exact exploitability of the average policy (a full best-response
walk of the tree for each player). ``solve(options)`` is the game's ``rasklad solve`` entry point;
``save_policy`` / ``load_policy`` keep a policy in a ``.npz`` file the ``cfr`` bot loads.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from games.core.entry import SolveProgress
from games.liars_poker.cfr.game import SmallGame
from games.liars_poker.cfr.solver import normalise

#: Where the policies shipped with the package live (``l<L>d<D>.npz``).
POLICIES = Path(__file__).parent / "policies"


def kernel(game: SmallGame) -> Any:
    """The compiled CFR+ kernel of ``game``."""
    from games.liars_poker.fast._cfr import Kernel

    return Kernel(game.chain, game.H, game.offset, game.last, game.win, game.probs, game.counts)


def measure(game: SmallGame, k: Any, policy: npt.NDArray[np.float64]) -> dict[str, float]:
    """Exact best-response values, NashConv, exploitability (NashConv / 2) and player 0's value."""
    b0, b1 = k.best_response(policy, 0), k.best_response(policy, 1)
    return {"br0": b0, "br1": b1, "nash_conv": b0 + b1, "exploitability": (b0 + b1) / 2,
            "value": k.expected_value(policy)}


def checkpoints(iterations: int, count: int) -> list[int]:
    """About ``count`` log-spaced iteration counts up to ``iterations`` (the last one included)."""
    pts = {int(x) for x in np.round(np.geomspace(1, iterations, num=max(1, count)))}
    return sorted(p for p in pts | {iterations} if p >= 1)


#: Seconds of training between two progress reports (the kernel runs that many iterations at a time).
REPORT_EVERY_S = 0.5


def _iterate(k: Any, target: int, trained: float, total: int, progress: SolveProgress | None) -> float:
    """Run the kernel up to ``target`` iterations, reporting about every ``REPORT_EVERY_S`` seconds;
    returns the training seconds so far. Iterating in pieces is the same as at once (the kernel keeps
    its own count and weights)."""
    while k.iterations < target:
        per = trained / k.iterations if k.iterations else 0.0
        step = target - k.iterations if progress is None else (
            1 if per <= 0 else max(1, min(target - k.iterations, int(REPORT_EVERY_S / per))))
        t = time.perf_counter()
        k.iterate(step)
        trained += time.perf_counter() - t
        if progress is not None and k.iterations < target:
            progress(int(k.iterations), total, {"seconds": round(trained, 2)})
    return trained


def train(digits: int, values: int, iterations: int, points: int = 8,
          progress: SolveProgress | None = None) -> tuple[dict[str, Any], npt.NDArray[np.float64]]:
    """CFR+ for ``iterations`` iterations; (the result with the exploitability curve, the average policy).

    ``progress`` (optional, ``games.core.entry.SolveProgress``) hears of the iterations as they run and
    of the exploitability at every checkpoint, so a long solve is not silent."""
    if iterations < 1:
        raise ValueError("iterations must be >= 1")
    game = SmallGame(digits, values)
    t0 = time.perf_counter()
    k = kernel(game)
    build = time.perf_counter() - t0
    curve: list[dict[str, float]] = []
    trained = 0.0
    policy = normalise(game, k.sums)
    for target in checkpoints(iterations, points):
        trained = _iterate(k, target, trained, iterations, progress)
        policy = normalise(game, k.sums)
        m = measure(game, k, policy)
        curve.append({"iterations": int(k.iterations), "seconds": round(trained, 4), **m})
        if progress is not None:
            progress(int(k.iterations), iterations, {"seconds": round(trained, 2),
                                                     "exploitability": m["exploitability"]})
    last = curve[-1]
    result = {
        "game": "liars-poker", "players": 2, "digits": digits, "values": values, "chain": game.chain,
        "hands": game.H, "public_nodes": 1 << game.chain, "infosets": (1 << game.chain) * game.H,
        "action_rows": game.rows, "build_seconds": round(build, 4), "iterations": int(k.iterations),
        "train_seconds": round(trained, 4),
        "iterations_per_second": round(k.iterations / trained, 3) if trained else None,
        "exploitability": last["exploitability"], "nash_conv": last["nash_conv"], "value": last["value"],
        "curve": curve,
    }
    return result, policy


def save_policy(path: str | Path, digits: int, values: int, policy: npt.NDArray[np.float64]) -> None:
    """Write ``policy`` ([action rows, hands]) as a compressed ``.npz`` (float32)."""
    np.savez_compressed(path, digits=digits, values=values, players=2, policy=policy.astype(np.float32))


def load_policy(path: str | Path) -> tuple[SmallGame, npt.NDArray[np.float32]]:
    """The game and policy of a file written by ``save_policy``."""
    with np.load(path) as f:
        game = SmallGame(int(f["digits"]), int(f["values"]))
        policy = f["policy"]
    if policy.shape != (game.rows, game.H):
        raise ValueError(f"{path}: the policy has shape {policy.shape}, the game needs {(game.rows, game.H)}")
    return game, policy


def shipped(digits: int, values: int) -> Path:
    """The path of the shipped policy of notes of ``digits`` digits over ``values`` values."""
    return POLICIES / f"l{digits}d{values}.npz"


def solve(options: dict[str, Any], progress: SolveProgress | None = None) -> dict[str, Any]:
    """``rasklad solve liars-poker``: train (reporting to ``progress``), measure, optionally write the policy."""
    players, digits, values = options["players"], options["digits"], options["values"]
    if players != 2:
        raise ValueError("the exact solver plays 2 players (the tree of n > 2 is not built)")
    if values * players * digits > 22 or digits < 1 or not 2 <= values <= 9:
        raise ValueError(f"the bid chain D·n·L = {values * players * digits} must be at most 22 (values 2..9)")
    result, policy = train(digits, values, options["iterations"], options["checkpoints"], progress)
    if options["out"]:
        save_policy(options["out"], digits, values, policy)
        result["policy"] = options["out"]
    return result


def text(result: dict[str, Any]) -> str:
    """The human-readable form of ``solve``'s result: the game's size and the exploitability curve."""
    lines = [f"liar's poker, 2 players, notes of {result['digits']} digits over {result['values']} values: "
             f"bid chain {result['chain']}, {result['hands']} hands, {result['public_nodes']:,} public nodes, "
             f"{result['infosets']:,} information sets",
             f"CFR+ {result['iterations']} iterations in {result['train_seconds']:.2f} s "
             f"({result['iterations_per_second']} it/s, exact over chance)",
             f"{'iterations':>10} {'seconds':>9} {'exploitability':>15} {'value (seat 0)':>15}"]
    for p in result["curve"]:
        lines.append(f"{p['iterations']:>10} {p['seconds']:>9.2f} {p['exploitability']:>15.6f} {p['value']:>15.6f}")
    if "policy" in result:
        lines.append(f"policy written to {result['policy']}")
    return "\n".join(lines)

"""Dice: throws, keep/re-roll masks, the pre-drawn face stream, exact outcome enumeration.

The shared core of the dice games (Dice Poker, ``../shared/rules/dice-poker.md``). What it fixes:

- A throw of n dice is a tuple of faces 1..6 **by position**: positions stay fixed during a turn
  so that a record can say which dice were re-rolled (DP-1.1). Combinations and scores depend only
  on the multiset of faces, so every helper that enumerates works on the canonical multiset form
  (faces sorted ascending), where 5 dice have 252 forms instead of 7,776 throws.
- A re-roll is a bitmask over positions, bit i = position i (DP-2.2, DP-7.1); 0 re-rolls nothing
  and is not a re-roll (DP-2.4). Under ``locked`` re-rolling (DP-2.3) a later mask must be a subset
  of the earlier one: :func:`reroll_masks` lists exactly those.
- Randomness is drawn up front (DESIGN.md, "Games"): a :class:`DiceStream` is a list of faces
  drawn from the deal's generator with a cursor. A throw consumes the next n faces, a re-roll the
  next faces for its positions **in ascending position order** (DP-2.5), so the faces actually
  consumed (:meth:`DiceStream.used`) are what a record stores (DP-8.1) and replay needs no
  generator.
- Exact probabilities use :class:`fractions.Fraction` (multinomial counts over 6^k), so check
  figures such as DP-10's are asserted exactly, not within a tolerance.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

import numpy as np

FACES = 6
"""Faces of a die, 1..FACES (DP-1.1)."""

Roll = tuple[int, ...]
"""Faces by position (a throw), or sorted ascending (a multiset); which one is said where used."""


class DiceStreamExhausted(ValueError):
    """The stream has fewer faces left than a throw needs (a record's ``deal`` too short, DP-8)."""


def _check_faces(faces: Iterable[int]) -> Roll:
    out = tuple(int(f) for f in faces)
    for i, f in enumerate(out):
        if not 1 <= f <= FACES:
            raise ValueError(f"face {f} at index {i} is not a die face 1..{FACES} (DP-1.1)")
    return out


@dataclass
class DiceStream:
    """The chance stub of a dice game: every face, drawn up front, consumed in order.

    ``faces`` is the whole pre-drawn list; ``cursor`` counts the faces consumed. A state owns its
    stream and copies it with :meth:`copy` (the faces are shared, immutable; only the cursor moves).
    A record stores :meth:`used`, the consumed prefix; replaying from ``DiceStream(used)`` draws
    the same faces and must end with nothing left (DP-8.1: "exactly the faces thrown").
    """

    faces: Roll
    cursor: int = field(default=0)

    def __post_init__(self) -> None:
        self.faces = _check_faces(self.faces)
        if not 0 <= self.cursor <= len(self.faces):
            raise ValueError(f"cursor {self.cursor} outside 0..{len(self.faces)}")

    @classmethod
    def draw(cls, rng: np.random.Generator, count: int) -> DiceStream:
        """Draw ``count`` fair faces from ``rng`` (an upper bound on what the game can use)."""
        if count < 0:
            raise ValueError(f"count must be >= 0, not {count}")
        # The faces are drawn in range, so the check of __post_init__ is skipped (a job draws a
        # stream per game: checking and converting face by face cost most of a compiled game's time).
        stream = cls.__new__(cls)
        stream.faces = tuple(rng.integers(1, FACES + 1, size=count).tolist())
        stream.cursor = 0
        return stream

    @property
    def remaining(self) -> int:
        """Faces not yet consumed."""
        return len(self.faces) - self.cursor

    def take(self, k: int) -> Roll:
        """Consume and return the next ``k`` faces; raises :class:`DiceStreamExhausted` if short."""
        if k < 0:
            raise ValueError(f"cannot take {k} faces")
        if k > self.remaining:
            raise DiceStreamExhausted(f"{k} faces needed, {self.remaining} left in the stream (DP-8)")
        out = self.faces[self.cursor:self.cursor + k]
        self.cursor += k
        return out

    def used(self) -> Roll:
        """The faces consumed so far, in order: what a record's ``deal`` stores."""
        return self.faces[:self.cursor]

    def copy(self) -> DiceStream:
        """An independent stream at the same cursor."""
        return DiceStream(self.faces, self.cursor)


# --- masks -------------------------------------------------------------------------------------

def full_mask(n: int) -> int:
    """The mask of all ``n`` positions (``0b11111`` = 31 for five dice)."""
    return (1 << n) - 1


def mask_positions(mask: int, n: int) -> tuple[int, ...]:
    """The positions set in ``mask``, ascending: the order new faces are assigned (DP-2.5)."""
    if not 0 <= mask <= full_mask(n):
        raise ValueError(f"mask {mask} is not a set of positions of {n} dice (0..{full_mask(n)}) (DP-7)")
    return tuple(i for i in range(n) if mask >> i & 1)


def mask_of(positions: Iterable[int]) -> int:
    """The mask with exactly ``positions`` set."""
    m = 0
    for p in positions:
        if p < 0:
            raise ValueError(f"position {p} < 0")
        m |= 1 << p
    return m


def is_submask(sub: int, mask: int) -> bool:
    """True when every position of ``sub`` is in ``mask`` (the ``locked`` rule, DP-2.3)."""
    return sub & ~mask == 0


def reroll_masks(n: int, within: int | None = None) -> list[int]:
    """The legal re-roll masks, ascending: every non-empty subset of ``within`` (DP-2.2, DP-2.4).

    ``within`` is None for any subset of the ``n`` positions (throw 1, or ``free`` re-rolls), or the
    previous mask under ``locked`` (DP-2.3). Five dice: 31 masks after throw 1 (DP-7's table).
    """
    allowed = full_mask(n) if within is None else within & full_mask(n)
    out = []
    sub = allowed
    while sub:  # the standard walk over the subsets of ``allowed``, descending
        out.append(sub)
        sub = (sub - 1) & allowed
    return out[::-1]


# --- throws and re-rolls -----------------------------------------------------------------------

def throw(stream: DiceStream, n: int = 5) -> Roll:
    """Throw 1 of a turn: all ``n`` dice, positions 0..n-1 take the next n faces (DP-2.1)."""
    return stream.take(n)


def apply_faces(roll: Sequence[int], mask: int, faces: Sequence[int]) -> Roll:
    """``roll`` with the positions of ``mask`` replaced by ``faces`` in ascending position order.

    The pure half of :func:`reroll` (for enumeration and for tests): ``faces`` must have exactly one
    face per position of the mask.
    """
    pos = mask_positions(mask, len(roll))
    new = _check_faces(faces)
    if len(new) != len(pos):
        raise ValueError(f"mask {mask} re-rolls {len(pos)} dice, {len(new)} faces given")
    out = list(roll)
    for p, f in zip(pos, new, strict=True):
        out[p] = f
    return tuple(out)


def reroll(roll: Sequence[int], mask: int, stream: DiceStream) -> Roll:
    """Re-roll the positions of ``mask`` with the stream's next faces (DP-2.2, DP-2.5).

    A zero mask is refused: re-rolling nothing is ``stand``/``write``, not a re-roll (DP-2.4).
    """
    if mask == 0:
        raise ValueError("the empty mask re-rolls nothing: it is not a re-roll (DP-2.4)")
    k = len(mask_positions(mask, len(roll)))
    return apply_faces(roll, mask, stream.take(k))


# --- multisets ---------------------------------------------------------------------------------

def face_counts(roll: Iterable[int]) -> tuple[int, ...]:
    """How many dice show each face: index 0 counts the 1s, index 5 the 6s."""
    counts = [0] * FACES
    for f in _check_faces(roll):
        counts[f - 1] += 1
    return tuple(counts)


def multiset(roll: Iterable[int]) -> Roll:
    """The canonical multiset form of a throw: its faces sorted ascending."""
    return tuple(sorted(_check_faces(roll)))


def count_pattern(roll: Iterable[int]) -> tuple[int, ...]:
    """The multiplicities of the faces present, descending: ``(3, 2)`` is a full house.

    Poker-like categories (DP-3) are functions of this pattern (and, for straights, of the faces).
    """
    return tuple(sorted((c for c in face_counts(roll) if c), reverse=True))


def all_multisets(n: int) -> list[Roll]:
    """Every multiset of ``n`` dice, as sorted tuples in lexicographic order (252 for n = 5)."""
    return list(combinations_with_replacement(range(1, FACES + 1), n))


def arrangements(ms: Iterable[int]) -> int:
    """How many ordered throws show the multiset ``ms``: n! / prod(c!) (the multinomial)."""
    counts = face_counts(ms)
    return factorial(sum(counts)) // prod(factorial(c) for c in counts)


def multiset_probability(ms: Iterable[int]) -> Fraction:
    """Exact chance that a throw of ``len(ms)`` fair dice shows the multiset ``ms``."""
    m = tuple(ms)
    return Fraction(arrangements(m), FACES ** len(m))


@cache
def throw_distribution(k: int) -> tuple[tuple[Roll, Fraction], ...]:
    """Every outcome of throwing ``k`` dice as (multiset, exact probability); the chances sum to 1.

    Cached: a bot or solver asks for the same k again and again.
    """
    if k < 0:
        raise ValueError(f"cannot throw {k} dice")
    return tuple((ms, multiset_probability(ms)) for ms in all_multisets(k))


def reroll_distribution(roll: Sequence[int], mask: int) -> dict[Roll, Fraction]:
    """The exact distribution of the resulting multiset when the dice of ``mask`` are re-rolled.

    Only the kept faces and the number of re-rolled dice matter: masks that re-roll the same faces
    from different positions give the same distribution (DP-7's note).
    """
    pos = set(mask_positions(mask, len(roll)))
    kept = tuple(f for i, f in enumerate(roll) if i not in pos)
    out: dict[Roll, Fraction] = {}
    for ms, p in throw_distribution(len(pos)):
        key = tuple(sorted(kept + ms))
        out[key] = out.get(key, Fraction(0)) + p
    return out


# --- keep choices ------------------------------------------------------------------------------

def keep_choice_count(roll: Iterable[int]) -> int:
    """How many different multisets can be kept from ``roll``: prod(c + 1) over the face counts.

    Keeping all (standing) and keeping none (re-rolling all five) are included. The 32 masks of
    five dice collapse to this many distinct decisions: 6 for five equal dice, 32 for five
    different faces.
    """
    return prod(c + 1 for c in face_counts(roll))


def keep_choices(roll: Iterable[int]) -> list[Roll]:
    """Every distinct kept multiset of ``roll`` (sorted tuples), from keeping nothing upward."""
    counts = face_counts(roll)
    out: list[Roll] = [()]
    for face, c in enumerate(counts, start=1):
        out = [k + (face,) * j for k in out for j in range(c + 1)]
    return sorted(out, key=lambda k: (len(k), k))


def canonical_mask(roll: Sequence[int], keep: Iterable[int]) -> int:
    """The mask that keeps the multiset ``keep`` and re-rolls the rest.

    For each kept face the lowest positions showing it are kept, so equivalent masks map to one
    (a bot's canonical choice, DP-7's note). Raises ``ValueError`` when ``keep`` is not in ``roll``.
    """
    wanted = list(face_counts(keep))
    mask = 0
    for i, f in enumerate(roll):
        if wanted[f - 1]:
            wanted[f - 1] -= 1
        else:
            mask |= 1 << i
    if any(wanted):
        raise ValueError(f"cannot keep {tuple(keep)} from the throw {tuple(roll)}")
    return mask


def iter_kept_masks(roll: Sequence[int]) -> Iterator[tuple[Roll, int]]:
    """Each distinct keep choice with its canonical re-roll mask (0 for keeping everything)."""
    for keep in keep_choices(roll):
        yield keep, canonical_mask(roll, keep)

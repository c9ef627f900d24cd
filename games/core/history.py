"""An append-only history that copies of a state share (issue 30 item 2: copies cost what changed).

A state's history only grows, and its entries are never changed once appended, so a copy of the
state need not copy it: ``History.copy()`` shares the backing list and remembers its own length.
Whoever appends first while the list is exactly its length appends in place; a sharer that finds
the list longer than its own length (another copy appended past it) takes its own prefix first.
Each copy therefore sees exactly the entries it appended, at O(1) for the copy and amortised O(1)
for each append. Entries must be immutable or never mutated after ``append`` (views hand out
copies of them, never the entries).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar, overload

T = TypeVar("T")


class History(Generic[T]):
    """An append-only sequence whose copies share their common prefix."""

    __slots__ = ("_items", "_n")

    def __init__(self) -> None:
        self._items: list[T] = []
        self._n = 0

    def append(self, item: T) -> None:
        if len(self._items) != self._n:  # a copy appended past our end: take our own prefix
            self._items = self._items[: self._n]
        self._items.append(item)
        self._n += 1

    def copy(self) -> History[T]:
        """A copy sharing every entry so far (O(1))."""
        h: History[T] = History.__new__(History)
        h._items, h._n = self._items, self._n
        return h

    def entries(self) -> list[T]:
        """The entries as a new list (the entries themselves are shared)."""
        return self._items[: self._n]

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[T]:
        return iter(self._items[: self._n])

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        return self.entries()[i]

    def __repr__(self) -> str:
        return f"History({self.entries()!r})"

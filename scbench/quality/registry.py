"""A tiny name -> item registry whose misses say what exists and what was probably meant."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Items by unique name. ``kind`` names what is registered, for error messages ("language", ...)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        """Register ``item`` under ``name``; raises ValueError if the name is taken."""
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        """The item named ``name``; raises LookupError naming the known items and the closest match."""
        if name in self._items:
            return self._items[name]
        guess = difflib.get_close_matches(name, self._items, n=1)
        hint = f" Did you mean {guess[0]!r}?" if guess else ""
        raise LookupError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self._items))}.{hint}")

    def __iter__(self) -> Iterator[T]:
        return iter(self._items.values())

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)

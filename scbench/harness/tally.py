"""What one attempt's stream has said so far: token counts, turns, cost, failure, refused figures.

Every figure passes :meth:`Tally.figure`: a figure that is not a finite, non-negative number (a string, a
boolean, NaN, a negative cost) is refused and named in :attr:`Tally.refused`, never summed. Token counts and
reported costs are kept as *parts* keyed by what identifies them in the stream (a message id, ``total`` for
a running total, a fresh key per step); a part seen again keeps, per count, the larger figure, so a later
smaller figure never lowers it. The spend (:meth:`Tally.spend`) never decreases within an attempt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scbench.harness.failures import FailureClass
from scbench.harness.prices import price_of

TOKENS = ("input", "cached_input", "cache_write", "output", "reasoning")
"""Token kinds: ``input`` without cached tokens, ``cached_input`` (cache reads), ``cache_write``, ``output``
(reasoning included), ``reasoning`` (the share of ``output`` spent thinking)."""
LARGEST = 1e15
"""A figure (tokens, dollars) at or above it is refused: no attempt spends that much, an infinity does."""


def dig(value: Any, path: str) -> Any:
    """The value at the dotted ``path`` of nested dicts (``"message.usage"``), ``None`` where any step
    is absent or not a dict."""
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def text(value: Any, path: str) -> str:
    """The value at ``path`` as text: a string as it is, anything else absent (``""``)."""
    found = dig(value, path)
    return found if isinstance(found, str) else ""


def _merged(old: dict[str, float], new: dict[str, float]) -> dict[str, float]:
    return {**old, **{kind: max(value, old.get(kind, 0)) for kind, value in new.items()}}


@dataclass
class Tally:
    """The figures of one attempt so far. ``model`` is the run's model (``--model``), for events that
    name none; ``parts`` maps a key to (model, token counts); ``costs`` maps a key to a reported cost."""

    model: str | None = None
    parts: dict[str, tuple[str | None, dict[str, float]]] = field(default_factory=dict)
    costs: dict[str, float] = field(default_factory=dict)
    unpriced_report: bool = False
    turns: int | None = None
    tool_calls: int | None = None
    failure: tuple[FailureClass, str] | None = None
    refused: list[str] = field(default_factory=list)
    version: str | None = None
    peak: float | None = None

    def figure(self, value: Any, where: str) -> float | None:
        """``value`` as a figure: ``None`` when absent; refused (named in :attr:`refused`, ``None``)
        when it is not a number from 0 up to :data:`LARGEST`."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < LARGEST:  # NaN too
            self.refused.append(f"{where}: {str(value)[:80]!r}")
            return None
        return value

    def counts(self, raw: dict[str, Any], where: str) -> dict[str, float]:
        """The token counts of ``raw`` (kind -> figure as the stream gives it), absent and refused ones left out."""
        figures = {kind: self.figure(value, f"{where} {kind}") for kind, value in raw.items()}
        return {kind: value for kind, value in figures.items() if value is not None}

    def usage(self, key: str | None, model: str | None, counts: dict[str, float],
              includes_cached: bool | None = None) -> None:
        """Record ``counts`` as part ``key`` (``None``: a new part) of ``model`` (``None``: the run's).
        ``includes_cached``: whether the stream's input count includes the cached tokens (they are taken
        out of it); ``None``: the stream passes the provider's count on, as the price table says of the
        model's provider (an unknown model's: included)."""
        if not counts:  # an event without a figure: nothing known
            return
        model = model or self.model
        price = price_of(model)
        if includes_cached is None:
            includes_cached = price.input_includes_cached if price else True
        if includes_cached and "input" in counts:
            counts = {**counts, "input": max(counts["input"] - counts.get("cached_input", 0), 0)}
        key = key or f"part {len(self.parts)}"
        self.parts[key] = (model, _merged(self.parts.get(key, (model, {}))[1], counts))
        self._rise()

    def replace(self, parts: dict[str, tuple[str | None, dict[str, float]]]) -> None:
        """Replace every part with ``parts`` (a stream's final, authoritative account); the spend stays."""
        self.parts = parts
        self._rise()

    def report(self, key: str | None, value: Any, where: str) -> None:
        """Record the agent's own cost ``value`` in dollars as part ``key`` (``None``: a new part)."""
        cost = self.figure(value, where)
        if cost is not None:
            key = key or f"cost {len(self.costs)}"
            self.costs[key] = max(cost, self.costs.get(key, 0))
            self._rise()

    def count(self, name: str, value: Any = 1) -> None:
        """Add ``value`` to the counter ``name`` (``turns``, ``tool_calls``)."""
        figure = self.figure(value, name)
        if figure is not None:
            setattr(self, name, (getattr(self, name) or 0) + int(figure))

    def fail(self, failure: FailureClass, message: str) -> None:
        """Record that the stream says the attempt failed (the last such event counts)."""
        self.failure = (failure, message[:500])

    def tokens(self) -> dict[str, int | None]:
        """Per token kind, the sum over the parts; ``None`` for a kind no part gives."""
        given = [counts for _, counts in self.parts.values()]
        return {kind: int(sum(c[kind] for c in given if kind in c)) if any(kind in c for c in given) else None
                for kind in TOKENS}

    def reported(self) -> float | None:
        """The agent's own cost so far, ``None`` when it gave none or gave a zero for tokens it could not price."""
        return None if self.unpriced_report or not self.costs else round(sum(self.costs.values()), 6)

    def computed(self) -> float | None:
        """The cost of the parts at :mod:`~scbench.harness.prices`' prices; ``None`` without parts or when a
        part with tokens has a model without a price."""
        if not self.parts:
            return None
        prices = [(price_of(model), counts) for model, counts in self.parts.values() if any(counts.values())]
        if any(price is None for price, _ in prices):
            return None
        return round(sum(price.cost(counts) for price, counts in prices), 6)

    def spend(self) -> float | None:
        """The dollars this attempt has spent, as far as it is known: the highest of the reported cost,
        the computed cost and every earlier spend of the attempt (``None``: unknown)."""
        known = [cost for cost in (self.reported(), self.computed(), self.peak) if cost is not None]
        return max(known) if known else None

    def _rise(self) -> None:
        self.peak = self.spend()

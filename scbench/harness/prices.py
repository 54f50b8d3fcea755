"""Prices as data: ``prices.yaml`` read into :class:`Price` entries, and the cost of token counts."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

PRICES = Path(__file__).parent / "prices.yaml"


class Price(BaseModel):
    """One model's prices in US dollars per million tokens, and whether its provider's input
    count includes the cached tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    provider: str
    input: float = Field(ge=0)
    cached_input: float = Field(ge=0)
    cache_write: float = Field(ge=0)
    output: float = Field(ge=0)
    aliases: tuple[str, ...] = ()
    input_includes_cached: bool = True

    def cost(self, tokens: dict[str, int]) -> float:
        """Dollars for ``tokens`` (``input`` without cached tokens, ``cached_input``, ``cache_write``,
        ``output``; a missing count is 0). Reasoning tokens are a part of ``output``."""
        rates = {"input": self.input, "cached_input": self.cached_input, "cache_write": self.cache_write,
                 "output": self.output}
        return sum(tokens.get(kind, 0) * rate for kind, rate in rates.items()) / 1_000_000


@cache
def prices() -> dict[str, Price]:
    """Every name a model goes by (its own, its aliases) -> its :class:`Price`, from ``prices.yaml``."""
    raw = yaml.load(PRICES.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    table = {}
    for name, entry in raw["models"].items():
        price = Price(**entry, **raw["providers"][entry["provider"]])
        table.update(dict.fromkeys((name, *price.aliases), price))
    return table


def price_of(model: str | None) -> Price | None:
    """The price of ``model`` as a harness names it (``anthropic/claude-sonnet-4-5`` is looked up
    as ``claude-sonnet-4-5`` too); ``None`` when unknown."""
    if not model:
        return None
    return prices().get(model) or prices().get(model.rsplit("/", 1)[-1])

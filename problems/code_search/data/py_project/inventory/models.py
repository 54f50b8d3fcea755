"""Domain models for the inventory service."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable


@dataclass(frozen=True)
class Item:
    """One stock-keeping unit."""

    sku: str
    name: str
    price: Decimal
    tolerance: str = "±0.5 g"
    tags: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name} ({self.sku})"

    @staticmethod
    def from_row(row: dict) -> "Item":
        # TODO: validate the SKU format before building the item
        return Item(row["sku"], row["name"], Decimal(row["price"]))


@dataclass
class Warehouse:
    """A named place holding quantities of items."""

    name: str
    city: str = "Zürich"
    stock: dict[str, int] = field(default_factory=dict)

    def add(self, item: Item, quantity: int = 1) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self.stock[item.sku] = self.stock.get(item.sku, 0) + quantity

    def remove(self, item: Item, quantity: int = 1) -> None:
        # FIXME: negative stock is silently clamped to zero
        left = self.stock.get(item.sku, 0) - quantity
        self.stock[item.sku] = max(left, 0)

    def total(self, catalog: Iterable[Item]) -> Decimal:
        prices = {item.sku: item.price for item in catalog}
        return sum(
            (prices[sku] * qty for sku, qty in self.stock.items()),
            Decimal("0"),
        )

    def describe(self) -> str:
        return f"Lager «{self.name}» in {self.city}: {len(self.stock)} SKUs"


GREETINGS = {
    "de": "Grüß Gott",
    "ja": "在庫へようこそ",
    "fr": "Bienvenue au café",
    "party": "🎉 stock day 🎉",
}

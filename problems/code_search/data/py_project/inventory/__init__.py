"""Inventory: a tiny stock-keeping library."""

from inventory.models import Item, Warehouse
from inventory.storage import JsonStore

__all__ = ["Item", "Warehouse", "JsonStore"]
__version__ = "0.3.1"

"""Persistence helpers: JSON files on disk."""

import json
import logging
import os
from pathlib import Path

from inventory.models import Item, Warehouse

logging.basicConfig(level=logging.INFO)
log = logging.getLogger(__name__)


class JsonStore:
    """Stores warehouses as JSON documents under one directory."""

    def __init__(self, root: str) -> None:
        self.root = Path(root)
        os.makedirs(self.root, exist_ok=True)

    def path_for(self, name: str) -> Path:
        return self.root / f"{name}.json"

    def save(self, warehouse: Warehouse) -> None:
        payload = {"name": warehouse.name, "city": warehouse.city, "stock": warehouse.stock}
        self.path_for(warehouse.name).write_text(json.dumps(payload, indent=2))
        log.info("saved %s", warehouse.name)

    def load(self, name: str) -> Warehouse:
        data = json.loads(self.path_for(name).read_text())
        # TODO: migrate documents written by version 0.1
        return Warehouse(data["name"], data.get("city", "?"), data["stock"])

    def load_items(self, name: str) -> list[Item]:
        rows = json.loads((self.root / name).read_text())
        return [Item.from_row(row) for row in rows]


def debug_dump(store: JsonStore) -> None:
    for entry in sorted(os.listdir(store.root)):
        print("entry:", entry)
    print("done")

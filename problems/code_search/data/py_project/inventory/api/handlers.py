"""HTTP handlers; the framework is pluggable, routes are plain decorators."""

import logging

from inventory.models import Item, Warehouse
from inventory.storage import JsonStore

ROUTES = {}
logging.basicConfig(level=logging.INFO)


def route(path, method="GET"):
    def register(handler):
        ROUTES[(method, path)] = handler
        return handler
    return register


@route("/warehouses")
def list_warehouses(store: JsonStore):
    return sorted(p.stem for p in store.root.glob("*.json"))


@route("/warehouses", method="POST")
def create_warehouse(store: JsonStore, body: dict):
    warehouse = Warehouse(body["name"], body.get("city", "Zürich"))
    store.save(warehouse)
    print(f"created {warehouse.name}")
    return {"name": warehouse.name}


@route("/items/<sku>")
def get_item(store: JsonStore, sku: str):
    # FIXME: linear scan over every file
    for name in list_warehouses(store):
        for item in store.load_items(name):
            if item.sku == sku:
                return {"sku": item.sku, "price": str(item.price)}
    return None


def error_page(status: int) -> str:
    return """<html>
<body>
<h1>Error</h1>
<p>Something went wrong.</p>
</body>
</html>"""

"""The item resource: create, get, list and delete catalogue items."""

from forgelib.blueprints import all_materials
from forgelib.documents import check_name, check_string, read_document
from forgelib.errors import conflict, invalid
from forgelib.items import KIND, existing_item, find_item
from forgelib.stock import levels
from forgelib.units import check_dimension, find_unit


def create(store, args, options, stdin):
    document = read_document(options, stdin)
    name = check_name(document.get("name"), "name")
    description = check_string(document.get("description", ""), "description")
    unit = find_unit(store, document.get("unit")) if isinstance(document.get("unit"), str) else None
    if unit is None:
        raise invalid(f"unit must name a unit, got {document.get('unit')!r}")
    if find_item(store, name) is not None:
        raise conflict(f"an item named {name} exists")
    clashing = sorted({label for label, material in all_materials(store)
                       if material["item"] == name and find_unit(store, material["unit"])["dimension"]
                       != unit["dimension"]})
    if clashing:
        raise conflict(f"{', '.join(clashing)} use {name} in units that are not {unit['dimension']}")
    item = {"name": name, "description": description, "unit": unit["name"], "dimension": unit["dimension"]}
    store.collection(KIND)[name] = item
    return item


def get(store, args, options, stdin):
    return existing_item(store, args[0])


def list_all(store, args, options, stdin):
    dimension = options.dimension and check_dimension(options.dimension)
    items = store.collection(KIND)
    return {"items": [items[name] for name in sorted(items) if dimension in (None, items[name]["dimension"])]}


def delete(store, args, options, stdin):
    name = existing_item(store, args[0])["name"]
    if any(levels(store, name).values()):
        raise conflict(f"item {name} has stock on hand or reserved")
    del store.collection(KIND)[name]
    return {"deleted": name}

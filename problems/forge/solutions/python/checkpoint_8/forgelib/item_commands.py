"""The item resource: create, get, list and delete catalogue items."""

from forgelib.blueprints import all_materials
from forgelib.contracts import INVALID, read_checked
from forgelib.errors import conflict
from forgelib.items import KIND, existing_item, find_item
from forgelib.stock import levels
from forgelib.units import check_dimension, checked_unit, find_unit

ITEM = {"name", "description", "unit"}


def normalise(store, check, document):
    """The stored form of an item ``document``, problems in ``check``."""
    if check.members(document, "$", ITEM) is INVALID:
        return INVALID
    name = check.name(check.required(document, "name", "$"), "$.name")
    description = check.string(document.get("description", ""), "$.description")
    unit = checked_unit(store, check, check.required(document, "unit", "$"), "$.unit")
    if unit is INVALID:
        return INVALID
    return {"name": name, "description": description, "unit": unit["name"], "dimension": unit["dimension"]}


def create(store, args, options, stdin):
    item = read_checked(options, stdin, "the item", lambda check, document: normalise(store, check, document))
    name = item["name"]
    if find_item(store, name) is not None:
        raise conflict(f"an item named {name} exists")
    clashing = sorted({label for label, material in all_materials(store)
                       if material["item"] == name and find_unit(store, material["unit"])["dimension"]
                       != item["dimension"]})
    if clashing:
        raise conflict(f"{', '.join(clashing)} use {name} in units that are not {item['dimension']}")
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

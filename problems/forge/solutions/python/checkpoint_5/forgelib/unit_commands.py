"""The unit resource: list, get, define, delete and convert units."""

from forgelib.blueprints import all_materials
from forgelib.documents import check_name, check_quantity, decimal_number, read_document
from forgelib.errors import conflict, invalid
from forgelib.items import KIND as ITEMS
from forgelib.units import KIND, all_units, check_dimension, convert, existing_unit, find_unit


def list_all(store, args, options, stdin):
    dimension = options.dimension and check_dimension(options.dimension)
    units = [unit for unit in all_units(store).values() if dimension in (None, unit["dimension"])]
    return {"units": sorted(units, key=lambda unit: (unit["dimension"], unit["factor"], unit["name"]))}


def get(store, args, options, stdin):
    return existing_unit(store, args[0])


def create(store, args, options, stdin):
    document = read_document(options, stdin)
    name = check_name(document.get("name"), "name")
    equals = document.get("equals")
    if not isinstance(equals, dict):
        raise invalid("equals must be an object with quantity and unit")
    quantity = check_quantity(equals.get("quantity"), "equals.quantity")
    base = find_unit(store, equals.get("unit")) if isinstance(equals.get("unit"), str) else None
    if base is None:
        raise invalid(f"equals.unit must name a unit, got {equals.get('unit')!r}")
    if find_unit(store, name) is not None:
        raise conflict(f"a unit named {name} exists")
    unit = {"name": name, "dimension": base["dimension"], "factor": quantity * base["factor"], "builtin": False}
    store.collection(KIND)[name] = {**unit, "defined_from": base["name"]}
    return unit


def users(store, name):
    """What still uses unit ``name``: items, defined units, and materials of blueprints and modules."""
    return ([f"item {item['name']}" for item in store.collection(ITEMS).values() if item["unit"] == name]
            + [f"unit {unit['name']}" for unit in store.collection(KIND).values() if unit["defined_from"] == name]
            + sorted({label for label, material in all_materials(store) if material["unit"] == name}))


def delete(store, args, options, stdin):
    unit = existing_unit(store, args[0])
    if unit["builtin"]:
        raise conflict(f"{unit['name']} is a built-in unit")
    used = users(store, unit["name"])
    if used:
        raise conflict(f"unit {unit['name']} is used by {', '.join(used)}")
    del store.collection(KIND)[unit["name"]]
    return {"deleted": unit["name"]}


def convert_quantity(store, args, options, stdin):
    quantity = decimal_number(args[0], "the quantity")
    for name in args[1:]:
        check_name(name, "unit name")
    source, target = existing_unit(store, args[1]), existing_unit(store, args[2])
    return {"quantity": convert(quantity, source, target), "unit": target["name"]}

"""The unit resource: list, get, define, delete and convert units."""

from forgelib.blueprints import all_materials
from forgelib.contracts import INVALID, read_checked
from forgelib.documents import check_name, decimal_number
from forgelib.errors import conflict
from forgelib.items import KIND as ITEMS
from forgelib.units import KIND, all_units, check_dimension, checked_unit, convert, existing_unit, find_unit


def list_all(store, args, options, stdin):
    dimension = options.dimension and check_dimension(options.dimension)
    units = [unit for unit in all_units(store).values() if dimension in (None, unit["dimension"])]
    return {"units": sorted(units, key=lambda unit: (unit["dimension"], unit["factor"], unit["name"]))}


def get(store, args, options, stdin):
    return existing_unit(store, args[0])


UNIT = {"name", "equals"}
EQUALS = {"quantity", "unit"}


def normalise(store, check, document):
    """The stored form of a unit definition ``document``, problems in ``check``."""
    if check.members(document, "$", UNIT) is INVALID:
        return INVALID
    name = check.name(check.required(document, "name", "$"), "$.name")
    equals = check.members(check.required(document, "equals", "$"), "$.equals", EQUALS)
    quantity = check.quantity(check.required(equals, "quantity", "$.equals"), "$.equals.quantity")
    base = checked_unit(store, check, check.required(equals, "unit", "$.equals"), "$.equals.unit")
    if INVALID in (name, quantity, base):
        return INVALID
    return {"name": name, "dimension": base["dimension"], "factor": quantity * base["factor"], "builtin": False,
            "defined_from": base["name"]}


def create(store, args, options, stdin):
    unit = read_checked(options, stdin, "the unit", lambda check, document: normalise(store, check, document))
    if find_unit(store, unit["name"]) is not None:
        raise conflict(f"a unit named {unit['name']} exists")
    store.collection(KIND)[unit["name"]] = unit
    return find_unit(store, unit["name"])


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

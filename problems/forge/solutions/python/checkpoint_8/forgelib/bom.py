"""Bills of materials: a blueprint exploded through every level of modules into item totals."""

from forgelib.blueprints import record, view
from forgelib.documents import whole_number
from forgelib.items import find_item
from forgelib.module_refs import find_module
from forgelib.units import BASE, convert, find_unit


def total_unit(store, item, unit):
    """The unit totals of ``item`` are kept in: the catalogue item's, else the base of ``unit``'s dimension."""
    catalogued = find_item(store, item)
    return find_unit(store, catalogued["unit"] if catalogued else BASE[unit["dimension"]])


def accumulate(store, totals, document, factor):
    """Add ``factor`` times the materials of ``document`` and of its modules to ``totals``
    (``{(item, unit name): quantity}``)."""
    for material in document["materials"]:
        unit = find_unit(store, material["unit"])
        target = total_unit(store, material["item"], unit)
        key = (material["item"], target["name"])
        totals[key] = totals.get(key, 0) + convert(material["quantity"] * factor, unit, target)
    for ref in document["modules"]:
        accumulate(store, totals, find_module(store, ref["module"]), factor * ref["quantity"])
    return totals


def explode(store, blueprint, quantity):
    """The bill of materials of ``blueprint`` (a printed revision) built ``quantity`` times."""
    totals = accumulate(store, {}, blueprint, quantity)
    return {"blueprint": blueprint["name"], "revision": blueprint["revision"], "quantity": quantity,
            "materials": [{"item": item, "quantity": total, "unit": unit}
                          for (item, unit), total in sorted(totals.items())]}


def bill(store, args, options, stdin):
    quantity = whole_number(options.quantity or "1", "--quantity")
    return explode(store, view(record(store, args[0])), quantity)

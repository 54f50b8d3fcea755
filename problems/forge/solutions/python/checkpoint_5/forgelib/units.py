"""Units of measure: the built-in table, units users define, and conversions."""

from forgelib.documents import find_named
from forgelib.errors import invalid

BUILTIN = {
    "count": {"each": 1, "pair": 2, "dozen": 12},
    "length": {"mm": 0.001, "cm": 0.01, "in": 0.0254, "ft": 0.3048, "m": 1, "km": 1000},
    "mass": {"g": 0.001, "oz": 0.028349523125, "lb": 0.45359237, "kg": 1, "t": 1000},
    "volume": {"ml": 0.001, "l": 1, "m3": 1000},
}
"""Dimension -> unit name -> factor (how many of the dimension's base unit one unit is)."""
DIMENSIONS = tuple(BUILTIN)
BASE = {"count": "each", "length": "m", "mass": "kg", "volume": "l"}
"""Dimension -> its base unit (factor 1)."""
KIND = "units"


def builtin_units():
    return {name: {"name": name, "dimension": dimension, "factor": factor, "builtin": True}
            for dimension, units in BUILTIN.items() for name, factor in units.items()}


def all_units(store):
    """Every unit, built-in or defined, by name, as printed."""
    defined = {name: {key: value for key, value in unit.items() if key != "defined_from"}
               for name, unit in store.collection(KIND).items()}
    return {**builtin_units(), **defined}


def find_unit(store, name):
    """The unit named ``name``, or None."""
    return all_units(store).get(name)


def existing_unit(store, name):
    return find_named(store, "unit", name, find_unit)


def check_dimension(text):
    if text not in DIMENSIONS:
        raise invalid(f"--dimension must be one of {', '.join(DIMENSIONS)}, got {text!r}")
    return text


def convert(quantity, source, target):
    """``quantity`` of unit ``source`` expressed in unit ``target`` (both unit records)."""
    if source["dimension"] != target["dimension"]:
        raise invalid(f"cannot convert {source['dimension']} ({source['name']}) to "
                      f"{target['dimension']} ({target['name']})")
    return quantity * source["factor"] / target["factor"]

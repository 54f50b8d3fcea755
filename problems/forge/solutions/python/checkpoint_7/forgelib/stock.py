"""Stock of catalogue items, in each item's unit: on hand, reserved by allocations, available."""

from forgelib.documents import decimal_number
from forgelib.errors import ForgeError, invalid
from forgelib.items import KIND as ITEMS
from forgelib.items import existing_item, find_item
from forgelib.units import convert, existing_unit, find_unit

KIND = "stock"
TOLERANCE = 1e-9
"""Relative rounding error allowed when comparing quantities."""


def settled(value, scale):
    """``value``, or exactly 0 when it is within ``scale`` * TOLERANCE of 0: no rounding residue."""
    return 0 if abs(value) <= TOLERANCE * abs(scale) else value


def levels(store, item):
    """The stock of ``item`` (a name): ``{"on_hand": x, "reserved": y}``."""
    return store.collection(KIND).get(item, {"on_hand": 0, "reserved": 0})


def view(store, item):
    """The stock of catalogue ``item`` (a record) as printed."""
    stock = levels(store, item["name"])
    return {"item": item["name"], "unit": item["unit"], **stock,
            "available": settled(stock["on_hand"] - stock["reserved"], stock["on_hand"])}


def adjust(store, item, on_hand=0, reserved=0):
    """Add ``on_hand`` and ``reserved`` (negative: take away) to the stock of ``item`` (a name); a
    level left within the rounding error of the change of 0 becomes 0."""
    stock = levels(store, item)
    store.collection(KIND)[item] = {"on_hand": settled(stock["on_hand"] + on_hand, on_hand),
                                    "reserved": settled(stock["reserved"] + reserved, reserved)}


def shortages(store, needs):
    """The rows of ``needs`` (``{"item", "quantity", "unit"}``) that the available stock does not cover."""
    short = []
    for need in needs:
        item = find_item(store, need["item"])
        available = view(store, item)["available"] if item else 0
        if need["quantity"] - available > TOLERANCE * need["quantity"]:
            short.append({"item": need["item"], "unit": need["unit"], "required": need["quantity"],
                          "available": available})
    return short


def require(store, needs):
    """Fail with a ``shortage`` error unless the available stock covers every row of ``needs``."""
    short = shortages(store, needs)
    if short:
        count = f"{len(short)} item{'s are' if len(short) > 1 else ' is'} short"
        raise ForgeError("shortage", count, {"shortages": short})


def requested(store, args, options):
    """The catalogue item of ``args[0]`` and ``args[1]`` (in ``--unit``) converted to its unit."""
    quantity = decimal_number(args[1], "the quantity")
    if quantity <= 0:
        raise invalid(f"the quantity must be greater than zero, got {args[1]}")
    item = existing_item(store, args[0])
    unit = existing_unit(store, options.unit) if options.unit else find_unit(store, item["unit"])
    return item, convert(quantity, unit, find_unit(store, item["unit"]))


def add(store, args, options, stdin):
    item, quantity = requested(store, args, options)
    adjust(store, item["name"], on_hand=quantity)
    return view(store, item)


def remove(store, args, options, stdin):
    item, quantity = requested(store, args, options)
    require(store, [{"item": item["name"], "quantity": quantity, "unit": item["unit"]}])
    adjust(store, item["name"], on_hand=-quantity)
    return view(store, item)


def get(store, args, options, stdin):
    return view(store, existing_item(store, args[0]))


def list_all(store, args, options, stdin):
    return {"stock": [view(store, item) for _, item in sorted(store.collection(ITEMS).items())]}

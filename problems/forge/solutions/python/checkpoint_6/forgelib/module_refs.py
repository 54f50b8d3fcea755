"""Module references (``{"module": name, "quantity": n}``) in blueprints and modules: their
checks, cycles included."""

from forgelib.documents import check_name, check_whole
from forgelib.errors import ForgeError, invalid

KIND = "modules"


def find_module(store, name):
    """The module named ``name``, or None."""
    return store.collection(KIND).get(name)


def check_ref(store, ref, where, owner):
    if not isinstance(ref, dict):
        raise invalid(f"{where} must be an object")
    name = check_name(ref.get("module"), f"{where}.module")
    quantity = check_whole(ref.get("quantity"), f"{where}.quantity")
    if name != owner and find_module(store, name) is None:
        raise invalid(f"{where}.module: no module named {name}")
    return {"module": name, "quantity": quantity}


def cycles(store, owner, names, path):
    """The paths from ``owner`` back to itself through ``names``, depth first, in reference order."""
    for name in names:
        if name == owner:
            yield [*path, owner]
        else:
            yield from cycles(store, owner, [ref["module"] for ref in find_module(store, name)["modules"]],
                              [*path, name])


def check_refs(store, refs, owner=None):
    """The checked ``modules`` array of a blueprint, or of the module named ``owner``."""
    if not isinstance(refs, list):
        raise invalid("modules must be an array")
    checked = [check_ref(store, ref, f"modules[{index}]", owner) for index, ref in enumerate(refs)]
    names = [ref["module"] for ref in checked]
    if len(set(names)) != len(names):
        raise invalid(f"module {next(name for name in names if names.count(name) > 1)} appears twice in modules")
    cycle = next(cycles(store, owner, names, [owner]), None) if owner else None
    if cycle:
        raise ForgeError("validation_error", f"{owner} contains itself", {"cycle": cycle})
    return checked

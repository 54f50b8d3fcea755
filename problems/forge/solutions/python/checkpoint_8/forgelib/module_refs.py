"""Module references (``{"module": name, "quantity": n}``) in blueprints and modules: their
checks, cycles included."""

from forgelib.contracts import INVALID

KIND = "modules"
REFERENCE = {"module", "quantity"}


def find_module(store, name):
    """The module named ``name``, or None."""
    return store.collection(KIND).get(name)


def check_ref(store, check, ref, path, owner):
    if check.members(ref, path, REFERENCE) is INVALID:
        return INVALID
    name = check.name(check.required(ref, "module", path), f"{path}.module")
    name = check.ensure(name, f"{path}.module", lambda name: name == owner or find_module(store, name) is not None,
                        "must name a module")
    return {"module": name, "quantity": check.whole(check.required(ref, "quantity", path), f"{path}.quantity")}


def cycles(store, owner, names, path):
    """The paths from ``owner`` back to itself through ``names``, depth first, in reference order."""
    for name in names:
        if name == owner:
            yield [*path, owner]
        else:
            yield from cycles(store, owner, [ref["module"] for ref in find_module(store, name)["modules"]],
                              [*path, name])


def check_refs(store, check, refs, owner=None, path="$.modules"):
    """The checked ``modules`` array of a blueprint, or of the module named ``owner`` (then
    without cycles, looked for when the array has no other problem)."""
    if check.array(refs, path) is INVALID:
        return INVALID
    before = len(check.problems)
    checked = [check_ref(store, check, ref, f"{path}[{index}]", owner) for index, ref in enumerate(refs)]
    check.unique(checked, "module", path)
    if owner in (None, INVALID) or len(check.problems) > before:
        return checked
    names = [ref["module"] for ref in checked]
    cycle = next(cycles(store, owner, names, [owner]), None)
    if cycle:
        check.fail(f"{path}[{names.index(cycle[1])}].module", f"{owner} contains itself")
        check.details["cycle"] = cycle
    return checked

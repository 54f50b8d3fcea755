"""The allocation resource: reserving a build's bill of materials, then consuming or releasing it."""

from forgelib.blueprints import record, view
from forgelib.bom import explode
from forgelib.documents import check_name, whole_number
from forgelib.errors import ForgeError, conflict, invalid
from forgelib.gates import load_rules, require_released
from forgelib.ledger import allocations, next_id
from forgelib.revisions import numbered
from forgelib.stock import adjust, require

STATUSES = ("reserved", "consumed", "released")


def chosen_revision(store, args, options, rules):
    """The printed revision ``allocation create`` builds: ``--revision`` or the current one, which
    must be the released one when ``rules`` require it."""
    if options.revision is None:
        history, number = record(store, args[0]), None
    else:
        history, number = numbered(store, [args[0], options.revision])
    if rules["allocate"]["require_released"]:
        number = require_released(history, number)
    return view(history, number)


def create(store, args, options, stdin):
    rules = load_rules(options)
    quantity = whole_number(options.quantity or "1", "--quantity")
    materials = explode(store, chosen_revision(store, args, options, rules), quantity)
    require(store, materials["materials"])
    for material in materials["materials"]:
        adjust(store, material["item"], reserved=material["quantity"])
    number = next_id(store)
    allocation = {"id": number, "blueprint": materials["blueprint"], "revision": materials["revision"],
                  "quantity": quantity, "status": "reserved", "materials": materials["materials"],
                  "scope": store.scope}
    allocations(store)[str(number)] = allocation
    return allocation


def existing(store, text):
    number = whole_number(text, "the allocation id")
    allocation = allocations(store).get(str(number))
    if allocation is None or allocation["scope"] != store.scope:
        raise ForgeError("not_found", f"no allocation {number}")
    return allocation


def get(store, args, options, stdin):
    return existing(store, args[0])


def list_all(store, args, options, stdin):
    if options.status is not None and options.status not in STATUSES:
        raise invalid(f"--status must be one of {', '.join(STATUSES)}, got {options.status!r}")
    if options.blueprint is not None:
        check_name(options.blueprint, "--blueprint")
    wanted = [allocation for allocation in allocations(store).values()
              if allocation["scope"] == store.scope and options.status in (None, allocation["status"])
              and options.blueprint in (None, allocation["blueprint"])]
    return {"allocations": sorted(wanted, key=lambda allocation: allocation["id"])}


def settle(store, args, status, on_hand):
    """Move a reserved allocation to ``status``, taking its materials out of ``reserved`` and,
    with ``on_hand``, out of the stock on hand too."""
    allocation = existing(store, args[0])
    if allocation["status"] != "reserved":
        raise conflict(f"allocation {allocation['id']} is {allocation['status']}", {"status": allocation["status"]})
    for material in allocation["materials"]:
        adjust(store, material["item"], on_hand=-material["quantity"] if on_hand else 0, reserved=-material["quantity"])
    allocation["status"] = status
    return allocation


def consume(store, args, options, stdin):
    return settle(store, args, "consumed", on_hand=True)


def release(store, args, options, stdin):
    return settle(store, args, "released", on_hand=False)

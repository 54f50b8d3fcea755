"""The blueprint resource: validation, revision history and its five commands.

A blueprint is kept as its list of revisions, each the normalised document and how it was
made (``action``, ``changed``, and ``restored_from`` for restores); the last one is current.
"""

from forgelib.contracts import INVALID, read_checked
from forgelib.documents import check_name, find_named, optional_revision
from forgelib.errors import conflict
from forgelib.items import find_item
from forgelib.ledger import reserved_of
from forgelib.module_refs import KIND as MODULES
from forgelib.module_refs import check_refs
from forgelib.units import checked_unit

KIND = "blueprints"


MATERIAL = {"item", "quantity", "unit"}
BLUEPRINT = {"name", "description", "materials", "modules", "tags"}


def check_unit(store, check, material, item, path):
    """The unit of ``material`` (default ``each``), which must exist and suit its catalogue item."""
    unit = checked_unit(store, check, material.get("unit", "each"), path)
    catalogued = None if INVALID in (unit, item) else find_item(store, item)
    if catalogued is not None and catalogued["dimension"] != unit["dimension"]:
        return check.fail(path, f"must be a unit of {catalogued['dimension']}, the dimension of item {item}")
    return INVALID if unit is INVALID else unit["name"]


def check_material(store, check, material, path):
    if check.members(material, path, MATERIAL) is INVALID:
        return INVALID
    item = check.name(check.required(material, "item", path), f"{path}.item")
    return {"item": item, "quantity": check.quantity(check.required(material, "quantity", path), f"{path}.quantity"),
            "unit": check_unit(store, check, material, item, f"{path}.unit")}


def check_materials(store, check, materials, path="$.materials"):
    if check.array(materials, path) is INVALID:
        return INVALID
    rows = [check_material(store, check, material, f"{path}[{index}]") for index, material in enumerate(materials)]
    check.unique(rows, "item", path)
    return rows


def check_tags(check, tags):
    if check.array(tags, "$.tags") is INVALID:
        return INVALID
    names = [check.name(tag, f"$.tags[{index}]") for index, tag in enumerate(tags)]
    return INVALID if INVALID in names else sorted(set(names))


def document_name(check, document, name):
    """The blueprint or module name of ``document``: required at create (``name`` None), else
    optional and equal to ``name``."""
    if name is None:
        return check.name(check.required(document, "name", "$"), "$.name")
    return check.ensure(document.get("name", name), "$.name", lambda given: given == name,
                        f"must be {name}: a document cannot be renamed")


def normalise(store, check, document, name=None):
    """The stored form of a blueprint ``document`` (``name``: the blueprint updated), problems in ``check``."""
    if check.members(document, "$", BLUEPRINT) is INVALID:
        return INVALID
    return {"name": document_name(check, document, name),
            "description": check.string(document.get("description", ""), "$.description"),
            "materials": check_materials(store, check, check.required(document, "materials", "$")),
            "modules": check_refs(store, check, document.get("modules", [])),
            "tags": check_tags(check, document.get("tags", []))}


def blueprints(store):
    """The blueprints of the scope in effect, by name."""
    return store.collection(KIND).setdefault(store.scope, {})


def record(store, name):
    """The stored history of blueprint ``name`` of the scope in effect; ``not_found`` when there is none."""
    return find_named(store, "blueprint", name, lambda store, name: blueprints(store).get(name))


def all_documents(store):
    """Every document that has materials and module references, as (its label, the document):
    each revision of each blueprint (``blueprint NAME``) and each module (``module NAME``)."""
    return ([(f"blueprint {name}", revision["document"]) for scope in store.collection(KIND).values()
             for name, history in scope.items() for revision in history["revisions"]]
            + [(f"module {name}", module) for name, module in store.collection(MODULES).items()])


def all_materials(store):
    """Every material of every blueprint revision and module, as (its document's label, material)."""
    return [(label, material) for label, document in all_documents(store) for material in document["materials"]]


def released(history):
    """The number of the blueprint's released revision, or None."""
    return next((number for number, revision in enumerate(history["revisions"], 1)
                 if revision["state"] == "released"), None)


def view(history, number=None):
    """Revision ``number`` (default: the current one) as printed."""
    number = number or len(history["revisions"])
    revision = history["revisions"][number - 1]
    return {**revision["document"], "revision": number, "state": revision["state"],
            "released_revision": released(history), "scope": history["scope"]}


def guard(history, expected):
    """Fail with a conflict unless ``expected`` (None: anything) is the current revision."""
    current = len(history["revisions"])
    if expected not in (None, current):
        raise conflict(f"{history['revisions'][-1]['document']['name']} is at revision {current}, not {expected}",
                       {"current_revision": current})


def commit(history, document, action, **extra):
    """Append a revision holding ``document`` unless it equals the current one; returns the view."""
    revisions = history["revisions"]
    previous = revisions[-1]["document"] if revisions else None
    if document != previous:
        changed = sorted(key for key in document if key != "name" and previous and document[key] != previous[key])
        revisions.append({"document": document, "action": action, "changed": changed, **extra, "state": "draft",
                          "approvals": []})
    return view(history)


def create(store, args, options, stdin):
    blueprint = read_checked(options, stdin, "the blueprint", lambda check, document: normalise(store, check, document))
    scope = blueprints(store)
    if blueprint["name"] in scope:
        raise conflict(f"a blueprint named {blueprint['name']} exists")
    scope[blueprint["name"]] = {"scope": store.scope, "revisions": []}
    return commit(scope[blueprint["name"]], blueprint, "create")


def get(store, args, options, stdin):
    return view(record(store, args[0]))


def list_all(store, args, options, stdin):
    if options.tag is not None:
        check_name(options.tag, "--tag")
    views = [view(history) for _, history in sorted(blueprints(store).items())]
    return {"blueprints": [blueprint for blueprint in views if options.tag is None or options.tag in blueprint["tags"]]}


def update(store, args, options, stdin):
    name, expected = args[0], optional_revision(options)
    history = record(store, name)
    blueprint = read_checked(options, stdin, "the blueprint",
                             lambda check, document: normalise(store, check, document, name))
    guard(history, expected)
    return commit(history, blueprint, "update")


def delete(store, args, options, stdin):
    expected = optional_revision(options)
    guard(record(store, args[0]), expected)
    if reserved_of(store, store.scope, args[0]):
        raise conflict(f"{args[0]} has reserved allocations")
    del blueprints(store)[args[0]]
    return {"deleted": args[0]}

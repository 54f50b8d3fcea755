"""The blueprint resource: validation, revision history and its five commands.

A blueprint is kept as its list of revisions, each the normalised document and how it was
made (``action``, ``changed``, and ``restored_from`` for restores); the last one is current.
"""

from forgelib.documents import check_name, check_quantity, check_string, find_named, optional_revision, read_document
from forgelib.errors import conflict, invalid
from forgelib.items import find_item
from forgelib.module_refs import KIND as MODULES
from forgelib.module_refs import check_refs
from forgelib.units import find_unit

KIND = "blueprints"


def check_unit(store, material, where):
    """The unit of ``material`` (default ``each``), which must exist and suit its item."""
    name = material.get("unit", "each")
    unit = find_unit(store, name) if isinstance(name, str) else None
    if unit is None:
        raise invalid(f"{where}.unit must name a unit, got {name!r}")
    item = find_item(store, material["item"])
    if item is not None and item["dimension"] != unit["dimension"]:
        raise invalid(f"{where}.unit {name} is {unit['dimension']}, but item {item['name']} is {item['dimension']}")
    return name


def check_material(store, material, where):
    if not isinstance(material, dict):
        raise invalid(f"{where} must be an object")
    check_name(material.get("item"), f"{where}.item")
    return {"item": material["item"], "quantity": check_quantity(material.get("quantity"), f"{where}.quantity"),
            "unit": check_unit(store, material, where)}


def check_materials(store, materials):
    if not isinstance(materials, list):
        raise invalid("materials must be an array")
    checked = [check_material(store, material, f"materials[{index}]") for index, material in enumerate(materials)]
    items = [material["item"] for material in checked]
    if len(set(items)) != len(items):
        raise invalid(f"item {next(item for item in items if items.count(item) > 1)} appears twice in materials")
    return checked


def check_tags(tags):
    if not isinstance(tags, list):
        raise invalid("tags must be an array")
    for index, tag in enumerate(tags):
        check_name(tag, f"tags[{index}]")
    return sorted(set(tags))


def normalise(store, document, name):
    """The stored form of a blueprint ``document`` whose name must be ``name``."""
    if "materials" not in document:
        raise invalid("materials is required")
    return {"name": name, "description": check_string(document.get("description", ""), "description"),
            "materials": check_materials(store, document["materials"]),
            "modules": check_refs(store, document.get("modules", [])), "tags": check_tags(document.get("tags", []))}


def record(store, name):
    """The stored history of blueprint ``name``; ``not_found`` when there is none."""
    return find_named(store, "blueprint", name, lambda store, name: store.collection(KIND).get(name))


def all_documents(store):
    """Every document that has materials and module references, as (its label, the document):
    each revision of each blueprint (``blueprint NAME``) and each module (``module NAME``)."""
    return ([(f"blueprint {name}", revision["document"]) for name, history in store.collection(KIND).items()
             for revision in history["revisions"]]
            + [(f"module {name}", module) for name, module in store.collection(MODULES).items()])


def all_materials(store):
    """Every material of every blueprint revision and module, as (its document's label, material)."""
    return [(label, material) for label, document in all_documents(store) for material in document["materials"]]


def view(history, number=None):
    """Revision ``number`` (default: the current one) as printed."""
    number = number or len(history["revisions"])
    return {**history["revisions"][number - 1]["document"], "revision": number}


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
        revisions.append({"document": document, "action": action, "changed": changed, **extra})
    return view(history)


def create(store, args, options, stdin):
    document = read_document(options, stdin)
    name = check_name(document.get("name"), "name")
    blueprint = normalise(store, document, name)
    blueprints = store.collection(KIND)
    if name in blueprints:
        raise conflict(f"a blueprint named {name} exists")
    blueprints[name] = {"revisions": []}
    return commit(blueprints[name], blueprint, "create")


def get(store, args, options, stdin):
    return view(record(store, args[0]))


def list_all(store, args, options, stdin):
    if options.tag is not None:
        check_name(options.tag, "--tag")
    views = [view(history) for _, history in sorted(store.collection(KIND).items())]
    return {"blueprints": [blueprint for blueprint in views if options.tag is None or options.tag in blueprint["tags"]]}


def update(store, args, options, stdin):
    name, expected = args[0], optional_revision(options)
    history = record(store, name)
    document = read_document(options, stdin)
    if document.get("name", name) != name:
        raise invalid(f"the document's name must be {name}: blueprints cannot be renamed")
    blueprint = normalise(store, document, name)
    guard(history, expected)
    return commit(history, blueprint, "update")


def delete(store, args, options, stdin):
    expected = optional_revision(options)
    guard(record(store, args[0]), expected)
    del store.collection(KIND)[args[0]]
    return {"deleted": args[0]}

"""The blueprint resource: validation, revision history and its five commands.

A blueprint is kept as its list of revisions, each the normalised document and how it was
made (``action``, ``changed``, and ``restored_from`` for restores); the last one is current.
"""

from forgelib.documents import check_name, is_number, optional_revision, read_document
from forgelib.errors import conflict, invalid, not_found

KIND = "blueprints"


def check_materials(materials):
    if not isinstance(materials, list):
        raise invalid("materials must be an array")
    seen = set()
    for index, material in enumerate(materials):
        if not isinstance(material, dict):
            raise invalid(f"materials[{index}] must be an object")
        item = check_name(material.get("item"), f"materials[{index}].item")
        quantity = material.get("quantity")
        if not is_number(quantity) or quantity <= 0:
            raise invalid(f"materials[{index}].quantity must be a number greater than zero")
        if item in seen:
            raise invalid(f"item {item} appears twice in materials")
        seen.add(item)
    return [{"item": m["item"], "quantity": m["quantity"]} for m in materials]


def check_tags(tags):
    if not isinstance(tags, list):
        raise invalid("tags must be an array")
    for index, tag in enumerate(tags):
        check_name(tag, f"tags[{index}]")
    return sorted(set(tags))


def normalise(document, name):
    """The stored form of a blueprint ``document`` whose name must be ``name``."""
    if "materials" not in document:
        raise invalid("materials is required")
    description = document.get("description", "")
    if not isinstance(description, str):
        raise invalid("description must be a string")
    return {"name": name, "description": description, "materials": check_materials(document["materials"]),
            "tags": check_tags(document.get("tags", []))}


def record(store, name):
    """The stored history of blueprint ``name``; ``not_found`` when there is none."""
    check_name(name, "blueprint name")
    blueprints = store.collection(KIND)
    if name not in blueprints:
        raise not_found("blueprint", name)
    return blueprints[name]


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
    blueprint = normalise(document, name)
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
    blueprint = normalise(document, name)
    guard(history, expected)
    return commit(history, blueprint, "update")


def delete(store, args, options, stdin):
    expected = optional_revision(options)
    guard(record(store, args[0]), expected)
    del store.collection(KIND)[args[0]]
    return {"deleted": args[0]}

"""The blueprint resource: validation and its five commands."""

from forgelib.documents import check_name, is_number, read_document
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


def existing(store, name):
    check_name(name, "blueprint name")
    blueprints = store.collection(KIND)
    if name not in blueprints:
        raise not_found("blueprint", name)
    return blueprints


def stored(store, blueprint):
    """``blueprint``, after keeping it under its name."""
    store.collection(KIND)[blueprint["name"]] = blueprint
    return blueprint


def create(store, args, options, stdin):
    document = read_document(options, stdin)
    name = check_name(document.get("name"), "name")
    blueprint = normalise(document, name)
    if name in store.collection(KIND):
        raise conflict(f"a blueprint named {name} exists")
    return stored(store, blueprint)


def get(store, args, options, stdin):
    return existing(store, args[0])[args[0]]


def list_all(store, args, options, stdin):
    if options.tag is not None:
        check_name(options.tag, "--tag")
    blueprints = store.collection(KIND)
    return {"blueprints": [blueprints[name] for name in sorted(blueprints)
                           if options.tag is None or options.tag in blueprints[name]["tags"]]}


def update(store, args, options, stdin):
    name = args[0]
    existing(store, name)
    document = read_document(options, stdin)
    if document.get("name", name) != name:
        raise invalid(f"the document's name must be {name}: blueprints cannot be renamed")
    return stored(store, normalise(document, name))


def delete(store, args, options, stdin):
    del existing(store, args[0])[args[0]]
    return {"deleted": args[0]}

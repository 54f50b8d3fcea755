"""The module resource: reusable sub-assemblies of materials and other modules."""

from forgelib.blueprints import all_documents, check_materials
from forgelib.documents import check_name, check_string, find_named, read_document
from forgelib.errors import conflict, invalid
from forgelib.module_refs import KIND, check_refs, find_module


def normalise(store, document, name):
    if "materials" not in document:
        raise invalid("materials is required")
    return {"name": name, "description": check_string(document.get("description", ""), "description"),
            "materials": check_materials(store, document["materials"]),
            "modules": check_refs(store, document.get("modules", []), owner=name)}


def existing(store, name):
    return find_named(store, "module", name, find_module)


def stored(store, module):
    store.collection(KIND)[module["name"]] = module
    return module


def create(store, args, options, stdin):
    document = read_document(options, stdin)
    name = check_name(document.get("name"), "name")
    module = normalise(store, document, name)
    if find_module(store, name) is not None:
        raise conflict(f"a module named {name} exists")
    return stored(store, module)


def get(store, args, options, stdin):
    return existing(store, args[0])


def list_all(store, args, options, stdin):
    modules = store.collection(KIND)
    return {"modules": [modules[name] for name in sorted(modules)]}


def update(store, args, options, stdin):
    name = existing(store, args[0])["name"]
    document = read_document(options, stdin)
    if document.get("name", name) != name:
        raise invalid(f"the document's name must be {name}: modules cannot be renamed")
    return stored(store, normalise(store, document, name))


def users(store, name):
    """The blueprints and modules referencing module ``name``, sorted by kind then name."""
    labels = {label for label, document in all_documents(store)
              if name in [ref["module"] for ref in document["modules"]]}
    return [dict(zip(("kind", "name"), label.split(" "), strict=True)) for label in sorted(labels)]


def delete(store, args, options, stdin):
    name = existing(store, args[0])["name"]
    used_by = users(store, name)
    if used_by:
        raise conflict(f"{name} is in use", {"used_by": used_by})
    del store.collection(KIND)[name]
    return {"deleted": name}

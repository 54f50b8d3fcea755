"""The module resource: reusable sub-assemblies of materials and other modules."""

from forgelib.blueprints import all_documents, check_materials, document_name
from forgelib.contracts import INVALID, read_checked
from forgelib.documents import find_named
from forgelib.errors import conflict
from forgelib.module_refs import KIND, check_refs, find_module

MODULE = {"name", "description", "materials", "modules"}


def normalise(store, check, document, name=None):
    """The stored form of a module ``document`` (``name``: the module updated), problems in ``check``."""
    if check.members(document, "$", MODULE) is INVALID:
        return INVALID
    module_name = document_name(check, document, name)
    return {"name": module_name, "description": check.string(document.get("description", ""), "$.description"),
            "materials": check_materials(store, check, check.required(document, "materials", "$")),
            "modules": check_refs(store, check, document.get("modules", []), owner=module_name)}


def read_module(store, options, stdin, name=None):
    return read_checked(options, stdin, "the module", lambda check, document: normalise(store, check, document, name))


def existing(store, name):
    return find_named(store, "module", name, find_module)


def stored(store, module):
    store.collection(KIND)[module["name"]] = module
    return module


def create(store, args, options, stdin):
    module = read_module(store, options, stdin)
    if find_module(store, module["name"]) is not None:
        raise conflict(f"a module named {module['name']} exists")
    return stored(store, module)


def get(store, args, options, stdin):
    return existing(store, args[0])


def list_all(store, args, options, stdin):
    modules = store.collection(KIND)
    return {"modules": [modules[name] for name in sorted(modules)]}


def update(store, args, options, stdin):
    name = existing(store, args[0])["name"]
    return stored(store, read_module(store, options, stdin, name))


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

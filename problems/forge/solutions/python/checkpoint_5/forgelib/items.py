"""The item catalogue: what materials consume, each counted in one unit."""

from forgelib.documents import find_named

KIND = "items"


def find_item(store, name):
    """The item named ``name``, or None."""
    return store.collection(KIND).get(name)


def existing_item(store, name):
    """The item named ``name``: ``validation_error`` unless a name, ``not_found`` unless catalogued."""
    return find_named(store, "item", name, find_item)

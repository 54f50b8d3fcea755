"""The item catalogue: what materials consume, each counted in one unit."""

KIND = "items"


def find_item(store, name):
    """The item named ``name``, or None."""
    return store.collection(KIND).get(name)

"""The allocation records of a data directory, numbered 1, 2, ... and never renumbered."""

KIND = "allocations"


def allocations(store):
    """Every allocation by its number written as a string."""
    return store.collection(KIND)


def next_id(store):
    """The number the next allocation takes (one more than the last ever made)."""
    sequence = store.collection("sequences")
    number = sequence.get(KIND, 0) + 1
    sequence[KIND] = number
    return number


def reserved_of(store, blueprint):
    """The ``reserved`` allocations of ``blueprint``."""
    return [record for record in allocations(store).values()
            if record["blueprint"] == blueprint and record["status"] == "reserved"]

"""The revision resource: a blueprint's history, any revision read back, restores."""

from forgelib.blueprints import commit, guard, record, view
from forgelib.documents import optional_revision, whole_number
from forgelib.errors import ForgeError


def numbered(store, args):
    """The history of blueprint ``args[0]`` and the revision number ``args[1]``, which must exist."""
    number = whole_number(args[1], "the revision number")
    history = record(store, args[0])
    if number > len(history["revisions"]):
        raise ForgeError("not_found", f"{args[0]} has no revision {number}")
    return history, number


def list_all(store, args, options, stdin):
    revisions = record(store, args[0])["revisions"]
    return {"blueprint": args[0], "revisions": [
        {"revision": number, **{key: value for key, value in revision.items() if key != "document"}}
        for number, revision in enumerate(revisions, 1)]}


def get(store, args, options, stdin):
    return view(*numbered(store, args))


def restore(store, args, options, stdin):
    expected = optional_revision(options)
    history, number = numbered(store, args)
    guard(history, expected)
    return commit(history, history["revisions"][number - 1]["document"], "restore", restored_from=number)

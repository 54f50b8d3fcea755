"""The audit trail: one entry per change and per denied attempt, numbered 1, 2, ..."""

from forgelib.access import role_of
from forgelib.documents import whole_number

KIND = "audit"


def append(store, role, command, target, outcome):
    """Add an entry for ``command`` (``resource command``) run by ``role`` in the scope in effect."""
    entries = store.state.setdefault(KIND, [])
    entries.append({"seq": len(entries) + 1, "role": role, "scope": store.scope, "command": command,
                    "target": target, "outcome": outcome})


def list_all(store, args, options, stdin):
    limit = whole_number(options.limit, "--limit") if options.limit is not None else None
    entries = [entry for entry in store.state.get(KIND, [])
               if role_of(options) == "admin" or entry["scope"] == store.scope]
    return {"entries": entries[-limit:] if limit else entries}

"""The four diff lists of a proposal: config patches (stored, resolved), include changes, human lines."""

from __future__ import annotations

import json

OP_ORDER = {"remove": 0, "replace": 1, "add": 2}
INCLUDE_ORDER = {"remove": 0, "update": 1, "add": 2}
HUMAN_VERB = {"remove": "DELETE", "replace": "REPLACE", "add": "SET"}


def compact(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def pointer(path: tuple) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def config_ops(base, draft, path: tuple = ()) -> list[dict]:
    """(op, path, old, new) records turning object ``base`` into object ``draft``."""
    ops = []
    for key in sorted(base.keys() | draft.keys()):
        here = path + (key,)
        if key not in draft:
            ops.append({"op": "remove", "path": pointer(here), "old": base[key]})
        elif key not in base:
            ops.append({"op": "add", "path": pointer(here), "new": draft[key]})
        elif isinstance(base[key], dict) and isinstance(draft[key], dict):
            ops.extend(config_ops(base[key], draft[key], here))
        elif base[key] != draft[key] or type(base[key]) is not type(draft[key]):
            ops.append({"op": "replace", "path": pointer(here), "old": base[key], "new": draft[key]})
    return ops


def json_patch(ops: list[dict]) -> list[dict]:
    ordered = sorted(ops, key=lambda op: (op["path"], OP_ORDER[op["op"]]))
    return [{"op": op["op"], "path": op["path"], **({"value": op["new"]} if "new" in op else {})} for op in ordered]


def include_changes(base: list[dict], draft: list[dict]) -> list[tuple[dict, str]]:
    """(change, human line) per include difference, position by position, in output order."""
    changes = []
    for index in range(max(len(base), len(draft))):
        old = base[index] if index < len(base) else None
        new = draft[index] if index < len(draft) else None
        if old and new and (old["name"], old["scope"]) == (new["name"], new["scope"]):
            if old["version"] != new["version"]:
                changes.append(({"op": "update", "index": index, "from_version": old["version"],
                                 "to_version": new["version"]},
                                f"INCLUDE_UPDATE [{index}] {reference(new)}: {version_text(old['version'])} -> "
                                f"{version_text(new['version'])}"))
            continue
        changes += [include_entry("remove", index, old)] if old else []
        changes += [include_entry("add", index, new)] if new else []
    return sorted(changes, key=lambda change: (change[0]["index"], INCLUDE_ORDER[change[0]["op"]]))


def version_text(version) -> str:
    return "null" if version is None else str(version)


def reference(ref: dict) -> str:
    return f"{ref['name']}@{compact(ref['scope'])}"


def include_entry(op: str, index: int, ref: dict) -> tuple[dict, str]:
    line = f"INCLUDE_{op.upper()} [{index}] {reference(ref)} v={version_text(ref['version'])}"
    return {"op": op, "index": index, "ref": ref}, line


def config_line(op: dict) -> str:
    verb = HUMAN_VERB[op["op"]]
    if op["op"] == "remove":
        return f"{verb} {op['path']}"
    if op["op"] == "replace":
        return f"{verb} {op['path']}: {compact(op['old'])} -> {compact(op['new'])}"
    return f"{verb} {op['path']}: {compact(op['new'])}"


def human(ops: list[dict], changes: list[tuple[dict, str]]) -> list[str]:
    ordered = sorted(ops, key=lambda op: (OP_ORDER[op["op"]], op["path"]))
    return [config_line(op) for op in ordered] + [line for _, line in changes]


def diff_artifacts(base: dict, draft: dict) -> dict:
    """``base`` and ``draft`` are ``{"config", "resolved", "includes"}`` of the two versions."""
    raw = config_ops(base["config"], draft["config"])
    changes = include_changes(base["includes"], draft["includes"])
    return {"raw_json_patch": json_patch(raw),
            "resolved_json_patch": json_patch(config_ops(base["resolved"], draft["resolved"])),
            "includes_changes": [change for change, _ in changes], "human": human(raw, changes)}

"""Config migration tool: applies named rules to every config file under a directory, in place.

Usage: migrate RULES_JSON TARGET_DIR

Prints one JSON line per changed file on stdout; exits 1 with an `Error:` line on stderr when the rules
file or the target directory is missing, or when a config file does not parse.
"""

from __future__ import annotations

import configparser
import copy
import fnmatch
import io
import json
import operator
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomli_w
import yaml


class Fatal(Exception):
    """A condition that stops the run: its message goes to stderr after `Error: `."""


def _read_json(text: str) -> Any:
    return json.loads(text)


def _read_yaml(text: str) -> Any:
    document = yaml.safe_load(text)
    return {} if document is None else document


def _read_toml(text: str) -> Any:
    return tomllib.loads(text)


def _ini_parser() -> configparser.ConfigParser:
    """Keys as written, no interpolation, and a `[DEFAULT]` section that is a section like any other."""
    parser = configparser.ConfigParser(interpolation=None, default_section="\0")
    parser.optionxform = str
    return parser


def _read_ini(text: str) -> Any:
    parser = _ini_parser()
    parser.read_string(text)
    return {name: dict(parser[name]) for name in parser.sections()}


def _write_json(document: Any, _original: str) -> str:
    return json.dumps(document, indent=2) + "\n"


def _write_yaml(document: Any, _original: str) -> str:
    return yaml.safe_dump(document)


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value if item is not None]
    return value


def _write_toml(document: Any, _original: str) -> str:
    return tomli_w.dumps(_without_nulls(document))


def _literal(value: Any) -> str:
    """An array, object or scalar in the bracketed notation of INI values: `['a', 1, True]`, `{'k': 'v'}`."""
    if isinstance(value, list):
        return "[" + ", ".join(map(_literal, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(key)}: {_literal(item)}" for key, item in value.items()) + "}"
    if isinstance(value, str):
        return f"'{value}'"
    return str(value)  # numbers in decimal form, True, False, None


def _ini_text(value: Any) -> str:
    """A document value as the text of an INI value: strings as they are, booleans `true` / `false`."""
    if isinstance(value, bool):
        return str(value).lower()
    return value if isinstance(value, str) else _literal(value)


def _write_ini(document: Any, _original: str) -> str:
    """Objects at the top are sections; any other top-level value goes to the `[DEFAULT]` section."""
    parser = _ini_parser()
    for name, value in document.items():
        section, items = (name, value) if isinstance(value, dict) else ("DEFAULT", {name: value})
        parser.read_dict({section: {key: _ini_text(item) for key, item in items.items()}})
    out = io.StringIO()
    parser.write(out)
    return out.getvalue()


FORMATS: dict[str, tuple[Callable[[str], Any], Callable[[Any, str], str]]] = {
    ".json": (_read_json, _write_json),
    ".yaml": (_read_yaml, _write_yaml),
    ".yml": (_read_yaml, _write_yaml),
    ".toml": (_read_toml, _write_toml),
    ".ini": (_read_ini, _write_ini),
}
"""Config file extension -> (parse text, write document given the original text)."""


def _same(left: Any, right: Any) -> bool:
    """Equal as documents: the same value and, at every leaf, the same type (`1` is not `true`)."""
    return type(left) is type(right) and SAME_BY_TYPE.get(type(left), operator.eq)(left, right)


def _same_objects(left: dict, right: dict) -> bool:
    return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)


def _same_arrays(left: list, right: list) -> bool:
    return len(left) == len(right) and all(map(_same, left, right))


SAME_BY_TYPE: dict[type, Callable[[Any, Any], bool]] = {dict: _same_objects, list: _same_arrays}
"""Container type -> equality of two containers of that type; other values compare with `==`."""


def _parent(document: Any, path: str, create: bool = False) -> tuple[dict | None, str]:
    """The object holding the last segment of a dotted path, and that segment; (None, '') when absent."""
    *heads, last = path.split(".")
    node = document
    for head in heads:
        if create and isinstance(node, dict) and head not in node:
            node[head] = {}
        node = node.get(head) if isinstance(node, dict) else None
    return (node, last) if isinstance(node, dict) else (None, "")


def replace_value(document: Any, rule: dict, _relative: str) -> bool:
    parent, key = _parent(document, rule["key"])
    return parent is not None and key in parent and _put(parent, key, rule["value"])


def _put(container: Any, key: Any, value: Any) -> bool:
    """Store value unless the same value is there already; True when it changed something."""
    if _same(container[key], value):
        return False
    container[key] = copy.deepcopy(value)
    return True


def rename_key(document: Any, rule: dict, _relative: str) -> bool:
    source, old = _parent(document, rule["old_key"])
    if source is None or old not in source or rule["old_key"] == rule["new_key"]:
        return False
    target, new = _parent(document, rule["new_key"], create=True)
    if target is None:
        return False
    target[new] = source.pop(old)
    return True


def _deep_merge(target: dict, data: dict) -> bool:
    changed = False
    for key, value in data.items():
        if isinstance(target.get(key), dict) and isinstance(value, dict):
            changed = _deep_merge(target[key], value) or changed
        elif key not in target or not _same(target[key], value):
            target[key] = copy.deepcopy(value)
            changed = True
    return changed


def glob_matches(relative: str, pattern: str) -> bool:
    """Shell-style match of a relative path; `**/` may also match nothing and `/**/` a single `/`."""
    variants = {pattern, pattern.removeprefix("./"), pattern.removeprefix("**/"), pattern.replace("/**/", "/")}
    return any(fnmatch.fnmatchcase(relative, variant) for variant in variants)


def merge_data(document: Any, rule: dict, relative: str) -> bool:
    return isinstance(document, dict) and glob_matches(relative, rule.get("glob", "**/*")) \
        and _deep_merge(document, rule["data"])


RULES: dict[str, Callable[[Any, dict, str], bool]] = {
    "replace_value": replace_value,
    "rename_key": rename_key,
    "merge_data": merge_data,
}
"""Rule type -> apply(document, rule, relative path): True when it changed the document in place."""


def load_rules(path: Path) -> dict:
    if not path.is_file():
        raise Fatal(f"rules file not found: {path}")
    try:
        rules = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise Fatal(f"failed to parse rules file {path}: {error}") from error
    if not isinstance(rules, dict):
        raise Fatal(f"failed to parse rules file {path}: not a JSON object")
    return rules


def config_files(root: Path) -> list[tuple[str, Path]]:
    """(relative path, path) of every config file under root, in code-point order of the relative path."""
    found = [(path.relative_to(root).as_posix(), path) for path in root.rglob("*")
             if path.is_file() and path.suffix.lower() in FORMATS]
    return sorted(found)


def parse(relative: str, path: Path) -> tuple[Any, str]:
    text = path.read_text(encoding="utf-8")
    try:
        return FORMATS[path.suffix.lower()][0](text), text
    except (ValueError, yaml.YAMLError, configparser.Error) as error:
        raise Fatal(f"failed to parse {relative}: {error}") from error


def migrate(rules: dict, root: Path) -> list[dict]:
    """Apply the rules to every config file under root; write the changed ones; return their events."""
    loaded = [(relative, path, *parse(relative, path)) for relative, path in config_files(root)]
    events = []
    for relative, path, document, text in loaded:
        original = copy.deepcopy(document)
        applied = [name for name in sorted(rules)
                   if RULES.get(rules[name].get("type"), lambda *_: False)(document, rules[name], relative)]
        if applied and not _same(document, original):
            path.write_text(FORMATS[path.suffix.lower()][1](document, text), encoding="utf-8")
            events.append({"event": "file_updated", "file": relative, "rules_applied": applied})
    return events


def main(argv: list[str]) -> None:
    """Run the tool; exit with status 1 and an `Error:` line on stderr when it cannot."""
    if len(argv) != 2:
        sys.exit("Error: usage: migrate RULES_JSON TARGET_DIR")
    try:
        rules = load_rules(Path(argv[0]))
        root = Path(argv[1])
        if not root.is_dir():
            raise Fatal(f"target directory not found: {root}")
        events = migrate(rules, root)
    except Fatal as error:
        sys.exit(f"Error: {error}")
    for event in events:
        print(json.dumps(event))


if __name__ == "__main__":
    main(sys.argv[1:])

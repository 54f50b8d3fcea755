"""Config migration tool: applies named rules to every config file under a directory, in place.

Usage: migrate RULES_JSON TARGET_DIR

Prints one JSON line per changed file on stdout; exits 1 with an `Error:` line on stderr when the rules
file or the target directory is missing, when a rule lacks a field its type needs, or when a config file
does not parse.
"""

from __future__ import annotations

import configparser
import copy
import fnmatch
import io
import json
import operator
import re
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


MISSING = object()
"""What a path that does not exist resolves to."""


def _child(node: Any, part: str) -> Any:
    """The value under one path segment: an object's key, or an array's index written in digits."""
    if isinstance(node, dict):
        return node.get(part, MISSING)
    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return node[int(part)]
    return MISSING


def _slot(document: Any, path: str) -> tuple[Any, Any]:
    """(container, key or index) of the existing value at a dotted path; (None, None) when it does not exist."""
    *heads, last = path.split(".")
    node = document
    for head in heads:
        node = _child(node, head)
    if _child(node, last) is MISSING:
        return None, None
    return node, (int(last) if isinstance(node, list) else last)


def get_value(document: Any, path: str) -> Any:
    """The value at a dotted path, or MISSING."""
    container, key = _slot(document, path)
    return MISSING if container is None else container[key]


def _put(container: Any, key: Any, value: Any) -> bool:
    """Store value unless the same value is there already; True when it changed something."""
    if _same(container[key], value):
        return False
    container[key] = copy.deepcopy(value)
    return True


def _parent(document: Any, path: str) -> tuple[dict | None, str]:
    """The object (created along the way) that should hold the last segment of a path; (None, '') when blocked."""
    *heads, last = path.split(".")
    node = document
    for head in heads:
        if isinstance(node, dict) and head not in node:
            node[head] = {}
        node = node.get(head) if isinstance(node, dict) else None
    return (node, last) if isinstance(node, dict) else (None, "")


def replace_value(document: Any, rule: dict, _relative: str) -> bool:
    container, key = _slot(document, rule["key"])
    return container is not None and _put(container, key, rule["value"])


def rename_key(document: Any, rule: dict, _relative: str) -> bool:
    source, old = _slot(document, rule["old_key"])
    if not isinstance(source, dict) or rule["old_key"] == rule["new_key"]:
        return False
    target, new = _parent(document, rule["new_key"])
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


PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
"""`${name}` in a template."""


def render(template: str, values: dict[str, Any]) -> str:
    """The template with every `${name}` replaced by its value as text (an unknown name by nothing)."""
    return PLACEHOLDER.sub(lambda match: _text(values.get(match.group(1), "")), template)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value) if isinstance(value, bool) else str(value)


def _matches(node: Any, segments: list[str], captures: dict[str, str]):
    """Yield (container, key, captures) for every value whose path below node matches the pattern segments."""
    head, *rest = segments
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in list(children):
        bound = _bind(head, str(key), captures)
        if bound is None:
            continue
        if rest:
            yield from _matches(child, rest, bound)
        else:
            yield node, key, bound


def _bind(segment: str, actual: str, captures: dict[str, str]) -> dict[str, str] | None:
    """The captures after matching one path segment against one pattern segment; None when it does not match."""
    if segment == "*":
        return captures
    if segment.startswith("$"):
        name = segment[1:]
        return {**captures, name: actual} if captures.get(name, actual) == actual else None
    return captures if segment == actual else None


def pattern_replace(document: Any, rule: dict, _relative: str) -> bool:
    value = rule.get("value")
    changed = False
    for container, key, captures in list(_matches(document, rule["key_pattern"].split("."), {})):
        changed = _put(container, key, render(value, captures) if isinstance(value, str) else value) or changed
    return changed


def template_string(document: Any, rule: dict, _relative: str) -> bool:
    container, key = _slot(document, rule["key"])
    values = {name: get_value(document, path) for name, path in rule.get("variables", {}).items()}
    return container is not None and isinstance(container[key], str) and MISSING not in values.values() \
        and _put(container, key, render(rule["template"], values))


CONDITIONS: dict[str, Callable[[Any, Any], bool]] = {
    "current_value_equals": lambda current, expected: _loosely_same(current, expected),
    "current_value_not_equals": lambda current, expected: not _loosely_same(current, expected),
    "current_value_matches": lambda current, pattern: re.match(pattern, _text(current)) is not None,
}
"""Condition name -> holds(current value, the condition's operand)."""


def _loosely_same(left: Any, right: Any) -> bool:
    """Equal as the condition compares: numbers by value (`3` equals `3.0`), everything else as `_same`."""
    return left == right if {type(left), type(right)} <= NUMBERS else _same(left, right)


NUMBERS = {int, float}
"""The types of numbers (`bool` is not one of them)."""


def conditional_replace(document: Any, rule: dict, _relative: str) -> bool:
    container, key = _slot(document, rule["key"])
    return container is not None and all(CONDITIONS[name](container[key], operand)
                                         for name, operand in rule["condition"].items() if name in CONDITIONS) \
        and _put(container, key, rule["value"])


RULES: dict[str, Callable[[Any, dict, str], bool]] = {
    "replace_value": replace_value,
    "rename_key": rename_key,
    "merge_data": merge_data,
    "pattern_replace": pattern_replace,
    "template_string": template_string,
    "conditional_replace": conditional_replace,
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


def _regex_error(pattern: Any) -> str | None:
    if not isinstance(pattern, str):
        return "current_value_matches must be a string"
    try:
        re.compile(pattern)
    except re.error as error:
        return f"invalid regular expression {pattern!r}: {error}"
    return None


def _pattern_problem(rule: dict) -> str | None:
    return None if isinstance(rule.get("key_pattern"), str) else "key_pattern (a string) is required"


def _template_problem(rule: dict) -> str | None:
    if not isinstance(rule.get("template"), str):
        return "template (a string) is required"
    variables = rule.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(path, str) for path in variables.values()):
        return "variables must be an object of key paths (strings)"
    return None


def _condition_problem(rule: dict) -> str | None:
    condition = rule.get("condition")
    if not isinstance(condition, dict) or not CONDITIONS.keys() & condition.keys():
        return "condition must be an object with at least one of " + ", ".join(CONDITIONS)
    return _regex_error(condition["current_value_matches"]) if "current_value_matches" in condition else None


CHECKS: dict[str, Callable[[dict], str | None]] = {
    "pattern_replace": _pattern_problem,
    "template_string": _template_problem,
    "conditional_replace": _condition_problem,
}
"""Rule type -> what is wrong with a rule of that type, or None."""


def validate(rules: dict) -> None:
    """Raise Fatal naming the first rule (in name order) that lacks a field its type needs."""
    for name in sorted(rules):
        problem = CHECKS.get(rules[name].get("type"), lambda _rule: None)(rules[name])
        if problem:
            raise Fatal(f"rule '{name}': {problem}")


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
        validate(rules)
        events = migrate(rules, root)
    except Fatal as error:
        sys.exit(f"Error: {error}")
    for event in events:
        print(json.dumps(event))


if __name__ == "__main__":
    main(sys.argv[1:])

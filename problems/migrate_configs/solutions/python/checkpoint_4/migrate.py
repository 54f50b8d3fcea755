"""Config migration tool: applies named rules to every config file under a directory, in place.

Usage: migrate RULES_JSON TARGET_DIR [--inheritance INHERITANCE_JSON]

Prints one JSON line per changed, moved or re-pointed file on stdout; exits 1 with an `Error:` line on
stderr when the rules file or the target directory is missing, when a rule lacks a field its type needs or
has a bad file pattern, when a config file does not parse, or when two files would take one place.
"""

from __future__ import annotations

import argparse
import configparser
import copy
import fnmatch
import io
import json
import operator
import os
import posixpath
import re
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path, PurePosixPath
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


SEGMENT = re.compile(r"(?P<name>[^\[\]]*)(?:\[(?P<selector>[^\[\]]*)\])?")
"""One segment of a path expression: a key matcher, then optionally one `[selector]` over an array."""


def _segments(path: str) -> list[tuple[str, str | None]] | None:
    """(name, selector) per `.`-separated segment (dots inside brackets kept); None when malformed."""
    parts = re.findall(r"(?:[^.\[]|\[[^\]]*\])+", path)
    found = [SEGMENT.fullmatch(part) for part in parts]
    return None if None in found else [(match["name"], match["selector"]) for match in found]


def _scalar(text: str) -> Any:
    """A filter operand: `true`, `false`, `null` and numbers as such, anything else the string itself."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return value if value is None or isinstance(value, (bool, int, float, str)) else text


def _selected(selector: str, index: int, item: Any) -> bool:
    """Whether an array item at index passes `*`, an index, or a `?key=value&...` filter."""
    if selector == "*" or selector == str(index):
        return True
    if not selector.startswith("?") or not isinstance(item, dict):
        return False
    tests = [condition.partition("=") for condition in selector[1:].split("&")]
    return all(key in item and _loosely_same(item[key], _scalar(text)) for key, _eq, text in tests)


def _children(node: Any, name: str, captures: dict[str, str]):
    """(container, key, child, captures) for the children of node whose key or index matches name."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in list(items):
        bound = _bind(name, str(key), captures)
        if bound is not None:
            yield node, key, child, bound


def _select(selector: str | None, container: Any, key: Any, child: Any):
    """The values a `[selector]` picks in the array child; the child itself without a selector."""
    if selector is None:
        yield container, key, child
    elif isinstance(child, list):
        yield from ((child, index, item) for index, item in enumerate(child) if _selected(selector, index, item))


def matches(document: Any, path: str) -> list[tuple[Any, Any, dict[str, str]]]:
    """(container, key or index, captures) of every existing value the path expression matches, in document order."""
    segments = _segments(path)
    found = [(None, None, document, {})]
    for name, selector in segments or []:
        found = [(inner, index, item, bound)
                 for _c, _k, node, captures in found
                 for container, key, child, bound in _children(node, name, captures)
                 for inner, index, item in _select(selector, container, key, child)]
    return [(container, key, captures) for container, key, _value, captures in found if segments]


def get_value(document: Any, path: str) -> Any:
    """The first value (in document order) the path expression matches, or MISSING."""
    found = matches(document, path)
    return found[0][0][found[0][1]] if found else MISSING


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
    return _put_all(document, rule["key"], lambda _current, _captures: rule["value"])


def _put_all(document: Any, path: str, new_value: Callable[[Any, dict], Any]) -> bool:
    """Set every value the path matches to new_value(current, captures) (MISSING: leave it); True on a change."""
    changed = False
    for container, key, captures in matches(document, path):
        value = new_value(container[key], captures)
        changed = value is not MISSING and _put(container, key, value) or changed
    return changed


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
    return _put_all(document, rule["key_pattern"],
                    lambda _current, captures: render(value, captures) if isinstance(value, str) else value)


def template_string(document: Any, rule: dict, _relative: str) -> bool:
    values = {name: get_value(document, path) for name, path in rule.get("variables", {}).items()}
    if MISSING in values.values():
        return False
    text = render(rule["template"], values)
    return _put_all(document, rule["key"], lambda current, _captures: text if isinstance(current, str) else MISSING)


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
    def holds(current: Any) -> bool:
        return all(CONDITIONS[name](current, operand) for name, operand in rule["condition"].items()
                   if name in CONDITIONS)

    return _put_all(document, rule["key"], lambda current, _captures: rule["value"] if holds(current) else MISSING)


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
    """Raise Fatal naming the first rule (in name order) that lacks a field its type needs or has a bad pattern."""
    for name in sorted(rules):
        problem = CHECKS.get(rules[name].get("type"), lambda _rule: None)(rules[name])
        if problem:
            raise Fatal(f"rule '{name}': {problem}")
        field, bad = PATTERN_FIELDS.get(rules[name].get("type"), ("", lambda _value: False))
        if rules[name].get("scope") == FILE_SCOPE and bad(rules[name].get(field)):
            raise Fatal(f"invalid file pattern in rule '{name}': {rules[name].get(field)}")


def config_files(root: Path) -> list[tuple[str, Path]]:
    """(relative path, path) of every config file under root, in code-point order of the relative path."""
    found = [(path.relative_to(root).as_posix(), path) for path in root.rglob("*")
             if path.is_file() and path.suffix.lower() in FORMATS]
    return sorted(found)


def parse(path: Path, what: str) -> tuple[Any, str]:
    """(document, text) of a config file; Fatal `failed to parse WHAT` when it does not parse."""
    text = path.read_text(encoding="utf-8")
    try:
        return FORMATS[path.suffix.lower()][0](text), text
    except (ValueError, yaml.YAMLError, configparser.Error) as error:
        raise Fatal(f"failed to parse {what}: {error}") from error


def load_inheritance(path: Path) -> dict[str, list[str]]:
    """Extension (without the dot) -> the key path of its inheritance directive, split at dots."""
    invalid = Fatal(f"invalid inheritance config: {path}")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise invalid from error
    if not isinstance(config, dict) or not config:
        raise invalid
    entries = [entry.get("pattern") if isinstance(entry, dict) else None for entry in config.values()]
    if not all(isinstance(pattern, str) and pattern for pattern in entries):
        raise invalid
    return {extension: pattern.split(".") for extension, pattern in zip(config, entries, strict=True)}


def _remove_directive(document: dict, parts: list[str]) -> None:
    """Delete the directive's key, then every object along its path that this left empty."""
    chain = [document]
    for part in parts[:-1]:
        chain.append(chain[-1][part])
    del chain[-1][parts[-1]]
    for holder, part in zip(reversed(chain[:-1]), reversed(parts[:-1]), strict=True):
        if holder[part]:
            break
        del holder[part]


class Inheritance:
    """Resolves inheritance directives: each file merged over its parent chain, parents remembered."""

    def __init__(self, patterns: dict[str, list[str]], root: Path, keep_directive: bool) -> None:
        self.patterns = patterns
        self.keep_directive = keep_directive
        self.root = root.resolve()
        self.resolved: dict[Path, Any] = {}
        self.parents: set[Path] = set()

    def directive(self, path: Path) -> list[str] | None:
        """The directive's key path for a file of this extension, or None when its type does not inherit."""
        extension = path.suffix.lower().lstrip(".")
        return self.patterns.get(extension, self.patterns.get("yaml") if extension == "yml" else None)

    def _name(self, path: Path) -> str:
        return os.path.relpath(path, self.root)

    def resolve(self, path: Path, document: Any, chain: tuple[Path, ...] = ()) -> Any:
        """The document merged over its parents (a copy); Fatal on a cycle or a parent that does not parse."""
        path = path.resolve()
        if path not in self.resolved:
            self.resolved[path] = self._merged(path, document, (*chain, path))
        return copy.deepcopy(self.resolved[path])

    def _merged(self, path: Path, document: Any, chain: tuple[Path, ...]) -> Any:
        parts = self.directive(path)
        reference = _plain_value(document, parts) if parts else MISSING
        if not isinstance(reference, str):
            return document
        parent = (path.parent / reference).resolve()
        if parent in chain:
            raise Fatal("circular dependency detected: " + " -> ".join(map(self._name, (*chain, parent))))
        if not parent.is_file():
            return document
        self.parents.add(parent)
        merged = self.resolve(parent, parse(parent, f"parent config: {reference}")[0], chain)
        if not isinstance(merged, dict):
            merged = {}
        _deep_merge(merged, document)
        if not self.keep_directive:
            _remove_directive(merged, parts)
        return merged


def _plain_value(document: Any, parts: list[str]) -> Any:
    """The value at a dotted path through objects only, or MISSING."""
    node = document
    for part in parts:
        node = node.get(part, MISSING) if isinstance(node, dict) else MISSING
    return node


FILE_SCOPE = "file"
"""The `scope` of a rule that moves files instead of changing their documents."""

PATH_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)(.*)")
"""A path pattern segment `$name` with an optional literal suffix (`$env.yaml`)."""


def _path_segment(segment: str, part: str, captures: dict[str, str]) -> dict[str, str] | None:
    if "*" in segment:
        return captures if fnmatch.fnmatchcase(part, segment) else None
    variable = PATH_VARIABLE.fullmatch(segment)
    if variable is None or not part.endswith(variable[2]):
        return captures if segment == part else None
    return _bind("$" + variable[1], part[:len(part) - len(variable[2])], captures)


def match_path(pattern: str, relative: str) -> dict[str, str] | None:
    """The captures of a `/`-separated path pattern over a relative path with as many parts; None when it fails."""
    segments, parts = pattern.split("/"), relative.split("/")
    captures: dict[str, str] | None = {} if len(segments) == len(parts) else None
    for segment, part in zip(segments, parts, strict=False):
        captures = _path_segment(segment, part, captures) if captures is not None else None
    return captures


def render_path(template: str, captures: dict[str, str]) -> str:
    """`${name}` and `$name` replaced by their captures (an unknown name by nothing)."""
    text = PLACEHOLDER.sub(lambda match: captures.get(match[1], ""), template)
    return re.sub(r"\$([A-Za-z_][A-Za-z0-9_]*)", lambda match: captures.get(match[1], ""), text)


def _bad_path_pattern(pattern: Any) -> bool:
    return not isinstance(pattern, str) or re.search(r"\$\{|\}|\$(?![A-Za-z_])", pattern) is not None


def _bad_glob(pattern: Any) -> bool:
    if not isinstance(pattern, str):
        return True
    depth = 0
    for char in pattern:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return True
    return depth != 0


PATTERN_FIELDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "path_rename": ("path_pattern", _bad_path_pattern),
    "relocate_files": ("source_pattern", _bad_path_pattern),
    "content_rename": ("file_pattern", _bad_glob),
}
"""File rule type -> (its pattern field, whether a value of it is invalid)."""


class Tree:
    """What file rules see: every file under the target, and the config documents as the content phase left them."""

    def __init__(self, files: list[str], documents: dict[str, Any]) -> None:
        self.files = files
        self.documents = documents


def plan_path_rename(rule: dict, tree: Tree) -> list[tuple[str, str]]:
    found = [(relative, match_path(rule["path_pattern"], relative)) for relative in tree.files]
    return [(relative, str(PurePosixPath(render_path(rule["new_path"], captures))))
            for relative, captures in found if captures is not None]


def plan_relocate_files(rule: dict, tree: Tree) -> list[tuple[str, str]]:
    found = [(relative, match_path(rule["source_pattern"], relative)) for relative in tree.files]
    return [(relative, str(PurePosixPath(render_path(rule["destination"], captures)) / PurePosixPath(relative).name))
            for relative, captures in found if captures is not None]


def plan_content_rename(rule: dict, tree: Tree) -> list[tuple[str, str]]:
    moves = []
    for relative, document in tree.documents.items():
        values = {name: get_value(document, path) for name, path in rule["variables"].items()}
        wanted = glob_matches(relative, rule["file_pattern"]) and isinstance(document, dict)
        if wanted and MISSING not in values.values():
            name = render_path(rule["new_path"], {key: _text(value) for key, value in values.items()})
            moves.append((relative, posixpath.normpath(posixpath.join(posixpath.dirname(relative), name))))
    return moves


FILE_RULES: dict[str, Callable[[dict, Tree], list[tuple[str, str]]]] = {
    "path_rename": plan_path_rename,
    "relocate_files": plan_relocate_files,
    "content_rename": plan_content_rename,
}
"""File rule type -> the (from, to) moves it plans, as paths relative to the target."""


def plan_moves(rules: dict, tree: Tree, root: Path) -> list[tuple[str, str]]:
    """Every move of every file rule (name order, then path order); Fatal on a destination taken or shared."""
    moves = [move for name in sorted(rules) if rules[name].get("scope") == FILE_SCOPE
             for move in sorted(FILE_RULES.get(rules[name].get("type"), lambda *_: [])(rules[name], tree))]
    taken: set[str] = set()
    for _source, destination in moves:
        if destination in taken or (root / destination).exists():
            raise Fatal(f"destination already exists: {destination}")
        taken.add(destination)
    return moves


def apply_rules(rules: dict, document: Any, relative: str) -> list[str]:
    """Apply every content rule in name order to the document in place; the names of those that changed it."""
    return [name for name in sorted(rules) if rules[name].get("scope") != FILE_SCOPE
            and RULES.get(rules[name].get("type"), lambda *_: False)(document, rules[name], relative)]


class Loaded:
    """One config file under the target: where it was, its text and document as read, as resolved, as on disk."""

    def __init__(self, relative: str, path: Path, document: Any, text: str) -> None:
        self.relative = relative
        self.path = path
        self.original = document
        self.text = text
        self.document = copy.deepcopy(document)
        self.on_disk = document


class Migration:
    """One run: the content phase, then the file moves, then the inheritance references they broke."""

    def __init__(self, rules: dict, root: Path, inheritance: Inheritance | None, skip: Path | None) -> None:
        self.rules = rules
        self.root = root
        self.inheritance = inheritance
        self.files = sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())
        self.loaded = [Loaded(relative, path, *parse(path, relative)) for relative, path in config_files(root)
                       if path.resolve() != skip]
        self.moving = any(rule.get("scope") == FILE_SCOPE for rule in rules.values())

    def _write(self, item: Loaded, document: Any, path: Path) -> None:
        path.write_text(FORMATS[path.suffix.lower()][1](document, item.text), encoding="utf-8")
        item.on_disk = document

    def contents(self) -> list[tuple[Loaded, list[str]]]:
        """Resolve inheritance and apply the content rules in memory; the files to write and their rules."""
        for item in self.loaded:
            if self.inheritance:
                item.document = self.inheritance.resolve(item.path, item.document)
        parents = self.inheritance.parents if self.inheritance else set()
        changed = []
        for item in (item for item in self.loaded if item.path.resolve() not in parents):
            before = item.document if self.moving else item.original
            before = copy.deepcopy(before)
            applied = apply_rules(self.rules, item.document, item.relative)
            if not _same(item.document, before):
                changed.append((item, applied))
        return changed

    def references(self, moves: dict[str, str]) -> list[dict]:
        """Re-point the directive of every config file whose parent or itself moved; their events."""
        events = []
        for item in self.loaded:
            parts = self.inheritance.directive(item.path) if self.inheritance else None
            reference = _plain_value(item.on_disk, parts) if parts else MISSING
            if not isinstance(reference, str):
                continue
            now = moves.get(item.relative, item.relative)
            parent = posixpath.normpath(posixpath.join(posixpath.dirname(item.relative), reference))
            pointer = posixpath.relpath(moves.get(parent, parent), posixpath.dirname(now) or ".")
            if (parent in moves or now != item.relative) and pointer != reference:
                document = copy.deepcopy(item.on_disk)
                _plain_holder(document, parts)[parts[-1]] = pointer
                self._write(item, document, self.root / now)
                events.append({"event": "file_updated", "file": now, "rules_applied": [],
                               "reason": "inheritance_reference_update"})
        return events

    def run(self) -> list[dict]:
        """Plan everything, then write, move and re-point; the events in that order."""
        changed = self.contents()
        tree = Tree(self.files, {item.relative: item.document for item in self.loaded})
        moves = plan_moves(self.rules, tree, self.root)
        for item, _applied in changed:
            self._write(item, item.document, item.path)
        for source, destination in moves:
            (self.root / destination).parent.mkdir(parents=True, exist_ok=True)
            (self.root / source).rename(self.root / destination)
        events = [{"event": "file_updated", "file": item.relative, "rules_applied": applied}
                  for item, applied in changed]
        events += [{"event": "file_relocated", "from": source, "to": destination} for source, destination in moves]
        return events + self.references(dict(moves))


def _plain_holder(document: Any, parts: list[str]) -> dict:
    """The object holding the last key of a plain key path that exists."""
    for part in parts[:-1]:
        document = document[part]
    return document


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="migrate", exit_on_error=False)
    parser.add_argument("rules", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--inheritance", type=Path)
    try:
        return parser.parse_args(argv)
    except argparse.ArgumentError as error:
        raise Fatal(str(error)) from error


def run(argv: list[str]) -> list[dict]:
    """Check the command line, the rules and the inheritance config, then migrate; Fatal on any error."""
    arguments = _arguments(argv)
    rules = load_rules(arguments.rules)
    if not arguments.target.is_dir():
        raise Fatal(f"target directory not found: {arguments.target}")
    validate(rules)
    if arguments.inheritance is None:
        return Migration(rules, arguments.target, None, None).run()
    moving = any(rule.get("scope") == FILE_SCOPE for rule in rules.values())
    inheritance = Inheritance(load_inheritance(arguments.inheritance), arguments.target, keep_directive=moving)
    return Migration(rules, arguments.target, inheritance, arguments.inheritance.resolve()).run()


def main(argv: list[str]) -> None:
    """Run the tool; exit with status 1 and an `Error:` line on stderr when it cannot."""
    try:
        events = run(argv)
    except Fatal as error:
        sys.exit(f"Error: {error}")
    for event in events:
        print(json.dumps(event))


if __name__ == "__main__":
    main(sys.argv[1:])

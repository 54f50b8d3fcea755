"""Nested column types (struct, array, map, json), type aliases, field paths, and recursive casting to
canonical JSON."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from errors import MergeError

PRIMITIVES = ("string", "int", "float", "bool", "date", "timestamp")
BUILTIN_ALIASES = {"integer": "int", "long": "int", "double": "float", "number": "float", "boolean": "bool",
                   "datetime": "timestamp", "timestamptz": "timestamp", "text": "string", "varchar": "string"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SEGMENT = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*|\d+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')


@dataclass
class Struct:
    fields: tuple[tuple[str, object], ...]
    kind = "struct"


@dataclass
class Array:
    element: object
    kind = "array"


@dataclass
class Map:
    value: object
    kind = "map"


@dataclass
class Json:
    kind = "json"


def kind_of(schema_type) -> str:
    return schema_type if isinstance(schema_type, str) else schema_type.kind


# ---------------------------------------------------------------- aliases and type specifications


class Aliases:
    """Lower-cased alias -> type name, built-ins first, then the alias file's; resolved transitively."""

    def __init__(self, path: str | None) -> None:
        self.mapping = dict(BUILTIN_ALIASES)
        if path:
            self.mapping.update(self._load(path))
        for name in self.mapping:
            self.resolve(name)

    @staticmethod
    def _load(path: str) -> dict[str, str]:
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MergeError(2, f'type alias file "{path}" not found') from None
        except json.JSONDecodeError as error:
            raise MergeError(2, f"invalid type alias JSON: {error}") from None
        aliases = document.get("aliases") if isinstance(document, dict) else None
        if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
            raise MergeError(2, "the type alias file must hold an 'aliases' object of strings")
        return {name.lower(): target.lower() for name, target in aliases.items()}

    def resolve(self, name: str) -> str:
        current, seen = name.lower(), set()
        while current in self.mapping:
            if current in seen:
                raise MergeError(2, "alias cycle detected in --type-alias-file")
            seen.add(current)
            current = self.mapping[current]
        return current


def parse_type(spec, aliases: Aliases):
    """A schema type: a primitive name (str), or Struct / Array / Map / Json."""
    if isinstance(spec, str):
        return _parse_name(spec, aliases)
    if isinstance(spec, dict) and len(spec) == 1:
        (kind, body), = spec.items()
        kind = aliases.resolve(kind)
        parser = {"struct": _parse_struct, "array": _parse_array, "list": _parse_array, "map": _parse_map}.get(kind)
        if parser:
            return parser(body, aliases)
    raise MergeError(2, f"unsupported type specification: {json.dumps(spec)}")


def _parse_name(text: str, aliases: Aliases):
    name = aliases.resolve(text.strip())
    if name in PRIMITIVES:
        return name
    if name == "json":
        return Json()
    for prefix in ("array<", "list<"):
        if name.startswith(prefix) and name.endswith(">"):
            return Array(_parse_name(name[len(prefix):-1], aliases))
    if name.startswith("map<string,") and name.endswith(">"):
        return Map(_parse_name(name[len("map<string,"):-1], aliases))
    raise MergeError(2, f'unknown type name "{text}"')


def _parse_struct(body, aliases: Aliases) -> Struct:
    entries = body.get("fields") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise MergeError(2, "a struct type needs a 'fields' list")
    fields: list[tuple[str, object]] = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name or any(name == known for known, _ in fields):
            raise MergeError(2, f"struct field name {name!r} is missing or repeated")
        fields.append((name, parse_type(entry.get("type"), aliases)))
    return Struct(tuple(fields))


def _parse_array(body, aliases: Aliases) -> Array:
    element = body.get("element") if isinstance(body, dict) else body
    return Array(parse_type(element, aliases))


def _parse_map(body, aliases: Aliases) -> Map:
    if not isinstance(body, dict) or aliases.resolve(str(body.get("key"))) != "string":
        raise MergeError(2, "a map type needs string keys")
    return Map(parse_type(body.get("value"), aliases))


# ---------------------------------------------------------------- field paths


@dataclass
class FieldPath:
    """A key or partition path: its text, its column's position and the steps below it (str field or map
    key, int index)."""

    text: str
    column: int
    steps: tuple[tuple[str, object], ...]


def parse_path(text: str, schema: list) -> FieldPath:
    """``user.id``, ``items.0.qty``, ``items[0]``, ``attrs["k"]``: 2 for bad syntax, 3 for a path that is not
    in the schema or does not end at a primitive."""
    head = IDENTIFIER.match(text)
    if not head:
        raise MergeError(2, f"invalid key path syntax: {text}")
    steps, position = [], head.end()
    while position < len(text):
        step = SEGMENT.match(text, position)
        if not step:
            raise MergeError(2, f"invalid key path syntax: {text}")
        dotted, index, key = step.groups()
        if dotted is not None:
            steps.append(("index", int(dotted)) if dotted.isdigit() else ("field", dotted))
        elif index is not None:
            steps.append(("index", int(index)))
        else:
            steps.append(("key", json.loads(f'"{key}"')))
        position = step.end()
    names = [column.name for column in schema]
    if head.group() not in names:
        raise MergeError(3, f'key column "{text}" not present in resolved schema')
    column = names.index(head.group())
    leaf = _walk_type(schema[column].type, steps, text)
    if kind_of(leaf) not in PRIMITIVES:
        raise MergeError(3, f'key column "{text}" does not resolve to a primitive')
    return FieldPath(text, column, tuple(steps))


def _walk_type(schema_type, steps, text: str):
    for how, what in steps:
        if how == "field" and isinstance(schema_type, Struct) and what in dict(schema_type.fields):
            schema_type = dict(schema_type.fields)[what]
        elif how == "index" and isinstance(schema_type, Array):
            schema_type = schema_type.element
        elif how == "key" and isinstance(schema_type, Map):
            schema_type = schema_type.value
        else:
            raise MergeError(3, f'key column "{text}" not present in resolved schema')
    return schema_type


def lookup(value, steps):
    """The cast value a path's steps reach from a column's cast value, None where it is missing or null."""
    for how, what in steps:
        if isinstance(value, list) and how == "index":
            value = value[what] if what < len(value) else None
        elif isinstance(value, dict) and how != "index":
            value = value.get(what)
        else:
            return None
    return value


# ---------------------------------------------------------------- casting nested values


@dataclass(frozen=True)
class Leaf:
    """A cast primitive inside a nested value: its CSV text, its sort component and its JSON value."""

    text: str
    key: tuple
    json: object


class Caster:
    """Casts a raw value (text, or a JSON / Parquet structure) to a schema type, recursively. Primitive leaves
    are cast by ``primitive(text, kind) -> Leaf | None`` (None: does not parse)."""

    def __init__(self, primitive, on_error: str, where: str) -> None:
        self.primitive = primitive
        self.on_error = on_error
        self.where = where

    def failed(self, raw, kind: str, path: str):
        text = raw if isinstance(raw, str) else json.dumps(raw, separators=(",", ":"), ensure_ascii=False)
        if self.on_error == "fail":
            raise MergeError(4, f'cannot cast "{text}" to {kind} in field "{path}" ({self.where})')
        return Leaf(text, (True, True, text), text) if self.on_error == "keep-string" else None

    def cast(self, raw, schema_type, path: str):
        if raw is None or raw == "":
            return None
        if isinstance(schema_type, str):
            return self.cast_primitive(raw, schema_type, path)
        if isinstance(raw, str):
            try:
                parsed = json.loads(raw)
            except json.JSONDecodeError:
                return self.failed(raw, kind_of(schema_type), path)
            if parsed is None:
                return None
            if isinstance(schema_type, Json) or isinstance(parsed, (dict, list)):
                raw = parsed
            else:
                return self.failed(raw, kind_of(schema_type), path)
        return self.cast_structure(raw, schema_type, path)

    def cast_primitive(self, raw, kind: str, path: str):
        if isinstance(raw, (dict, list)):
            return self.failed(raw, kind, path)
        text = json_text(raw)
        leaf = self.primitive(text, kind)
        return leaf if leaf is not None else self.failed(text, kind, path)

    def cast_structure(self, raw, schema_type, path: str):
        if isinstance(schema_type, Json):
            return raw
        if isinstance(schema_type, Struct) and isinstance(raw, dict):
            return {name: self.cast(raw.get(name), field, f"{path}.{name}") for name, field in schema_type.fields}
        if isinstance(schema_type, Array) and isinstance(raw, list):
            return [self.cast(item, schema_type.element, f"{path}[{index}]") for index, item in enumerate(raw)]
        if isinstance(schema_type, Map) and isinstance(raw, dict):
            return {key: self.cast(raw[key], schema_type.value, f'{path}["{key}"]') for key in sorted(raw)}
        return self.failed(raw, kind_of(schema_type), path)


def json_text(value) -> str:
    """A JSON scalar as a cell's text (``true``, ``2.5``, ``7``); text stays itself."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def to_json(value):
    """The JSON form of a cast value: leaves by their JSON value."""
    if isinstance(value, Leaf):
        return value.json
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_json(item) for item in value]
    return value


def render(value) -> str:
    """Canonical JSON: minified, UTF-8, struct fields in schema order, map keys sorted (as cast)."""
    return json.dumps(to_json(value), separators=(",", ":"), ensure_ascii=False)

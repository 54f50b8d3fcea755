"""Edit a YAML (or JSON) case file in place: replace one node's text or add one key, every other
byte left exactly as it was.

Node positions come from ruamel.yaml's round-trip composer; new text is rendered with PyYAML's
dumper (the loader scbench reads case files with, so quoting is right for it): block style where
the file is in block style (multi-line strings as ``|`` blocks, short lists and mappings in flow
style inside), flow style inside flow collections, and JSON in ``.json`` files.
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

KEY = "k"


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper with sequences indented under their key."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


class _Block(dict):
    """The one-key mapping a value is rendered in: always block style, whatever its value."""


def _string(dumper: _Dumper, text: str) -> yaml.ScalarNode:
    multiline = "\n" in text.rstrip("\n")
    style = "|" if multiline and dumper.analyze_scalar(text).allow_block else '"' if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _string)
_Dumper.add_representer(_Block, lambda dumper, data: dumper.represent_mapping("tag:yaml.org,2002:map", data,
                                                                              flow_style=False))


def render_yaml(value: Any, flow: bool, column: int) -> str:
    """The text that follows ``key:`` for ``value``, for a key at ``column``: `` value`` on the same
    line, or a block on the lines below indented under the key."""
    if flow:
        text = yaml.dump([value], Dumper=_Dumper, default_flow_style=True, width=float("inf"), allow_unicode=True,
                         sort_keys=False)
        return " " + text.strip()[1:-1]
    text = yaml.dump(_Block({KEY: value}), Dumper=_Dumper, default_flow_style=None, width=float("inf"),
                     allow_unicode=True, sort_keys=False)
    return text[len(KEY) + 1:].rstrip("\n").replace("\n", "\n" + " " * column)


def render_json(value: Any, flow: bool, column: int) -> str:
    """The text that follows ``"key":`` in a JSON file."""
    return " " + json.dumps(value, ensure_ascii=False)


class CaseText:
    """A case file's text and its node tree, edited in place: each edit splices ``text`` and
    composes the tree again."""

    def __init__(self, text: str, json_file: bool = False):
        self.render = render_json if json_file else render_yaml
        self.quote = json.dumps if json_file else str
        self._splice(0, 0, text)

    def _splice(self, start: int, end: int, new: str, text: str = "") -> None:
        self.text = text[:start] + new + text[end:]
        self.root = YAML().compose(self.text)

    def _find(self, path: tuple) -> tuple[list[Node], Node | None]:
        """The nodes from the root down along ``path`` (ancestors), and the node at ``path`` (or ``None``)."""
        trail, node = [], self.root
        for part in path:
            trail.append(node)
            node = _child(node, part)
            if node is None:
                return trail, None
        return trail, node

    def _flow(self, trail: list[Node]) -> bool:
        return any(getattr(node, "flow_style", False) for node in trail) or self.render is render_json

    def has(self, path: tuple) -> bool:
        """Whether the file has a node at ``path``."""
        return self._find(path)[1] is not None

    def replace(self, path: tuple, value: Any) -> None:
        """Make the value at ``path`` (a mapping entry that exists) ``value``."""
        trail, node = self._find(path)
        key = _key_of(trail[-1], node)
        start = self.text.index(":", key.end_mark.index) + 1
        end = start if isinstance(node, ScalarNode) and not node.value and not node.style else _end(self.text, node)
        self._splice(start, end, self.render(value, self._flow(trail), key.start_mark.column), self.text)

    def put(self, path: tuple, value: Any) -> None:
        """Set ``path`` to ``value``, adding the key (and any missing mapping above it) if need be."""
        trail, node = self._find(path)
        if node is not None:
            self.replace(path, value)
        elif len(trail) < len(path):
            self.put(path[:-1], {path[-1]: value})
        elif isinstance(trail[-1], MappingNode):
            self._add(trail[-1], trail, path[-1], value)
        else:
            self.replace(path[:-1], {path[-1]: value})

    def _add(self, mapping: MappingNode, trail: list[Node], key: str, value: Any) -> None:
        flow = self._flow(trail)
        if not mapping.value:
            at = mapping.end_mark.index - 1
            self._splice(at, at, f"{self.quote(key)}:{self.render(value, True, 0)}", self.text)
            return
        last_key, last_value = mapping.value[-1]
        at = _end(self.text, last_value)
        column = last_key.start_mark.column
        lead = ", " if flow else "\n" + " " * column
        self._splice(at, at, f"{lead}{self.quote(key)}:{self.render(value, flow, column)}", self.text)


def _child(node: Node, part: str | int) -> Node | None:
    if isinstance(node, MappingNode):
        return next((value for key, value in node.value if key.value == part), None)
    items = node.value if isinstance(part, int) and not isinstance(node, ScalarNode) else []
    return items[part] if part in range(len(items)) else None


def _key_of(mapping: MappingNode, node: Node) -> ScalarNode:
    return next(key for key, value in mapping.value if value is node)


def _end(text: str, node: Node) -> int:
    """Where ``node``'s own text ends: before a block scalar's final line break, and before the
    trailing blank and comment lines a block collection's end mark lies past (they stay where they are)."""
    end = node.end_mark.index
    if isinstance(node, ScalarNode):
        return end - 1 if node.style in ("|", ">") and text[end - 1] == "\n" else end
    if node.flow_style:
        return end
    lines = text[node.start_mark.index:end].split("\n")
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return node.start_mark.index + len("\n".join(lines).rstrip())

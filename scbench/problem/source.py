"""Read a YAML or JSON document and remember the line of every node in it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scbench.problem.diagnostics import Diagnostic, where_of


@dataclass(frozen=True)
class Document:
    """A parsed document: ``data`` plus ``lines`` mapping each node's path to its 1-based line."""

    data: Any
    lines: dict[tuple, int] = field(default_factory=dict)

    def line_of(self, path: tuple) -> int:
        """The line of the deepest node on ``path`` that exists (1 for the document root)."""
        for end in range(len(path), -1, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return 1


def _walk(node: yaml.Node, path: tuple, lines: dict[tuple, int], duplicates: list[tuple[tuple, int]]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.SequenceNode):
        for index, child in enumerate(node.value):
            _walk(child, (*path, index), lines, duplicates)
    elif isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, child in node.value:
            if key.value in seen:
                duplicates.append(((*path, key.value), key.start_mark.line + 1))
            seen.add(key.value)
            _walk(child, (*path, key.value), lines, duplicates)


def read_document(path: Path, shown_as: str) -> tuple[Document | None, list[Diagnostic]]:
    """Parse ``path`` (YAML 1.1, which also reads JSON) into a :class:`Document`.

    Returns ``(None, [diagnostic])`` for a syntax error or an empty file, and the document
    with one diagnostic per duplicated mapping key otherwise. ``shown_as`` is the name used
    in diagnostics. Never raises for bad content (not UTF-8, not YAML); raises ``OSError`` if
    the file is unreadable.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        return None, [Diagnostic(shown_as, line, "", f"not UTF-8 text: {error.reason} at byte {error.start}",
                                 "save the file as UTF-8")]
    loader = yaml.CSafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        message = f"not valid YAML/JSON: {error.problem or error.context}"
        return None, [Diagnostic(shown_as, mark.line + 1 if mark else 1, "", message,
                                 "fix the syntax at that line (quote strings containing ': ' or '#')")]
    finally:
        loader.dispose()
    if node is None:
        return None, [Diagnostic(shown_as, 1, "", "the file is empty", "write the document or delete the file")]
    lines: dict[tuple, int] = {}
    duplicates: list[tuple[tuple, int]] = []
    _walk(node, (), lines, duplicates)
    return Document(data, lines), [
        Diagnostic(shown_as, line, where_of(key[:-1]), f"duplicate key {key[-1]!r}",
                   "keep one of the two entries; the later one would silently win")
        for key, line in duplicates
    ]

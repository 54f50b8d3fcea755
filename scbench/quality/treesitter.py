"""The generic tree-sitter adapter: CC, SLOC, LOC and clone tokens for any language with a table.

One pre-order walk of the tree gives everything:

* tokens: the non-empty leaves outside comments, as ``Token(line, kind)``;
* code lines: every line spanned by such a token;
* callables: each node whose kind is in the table's ``callables``. Its CC (McCabe, as lizard counts it)
  is ``1 + decisions + boolean operators`` found inside it but outside any nested callable: a nested
  callable is its own callable and its decisions never count for its parent (radon's convention).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from tree_sitter import Language, Node, Parser, TreeCursor

from scbench.quality.model import CallableMetric, SourceFacts, Token
from scbench.quality.tables import LanguageTable

_SKIP = object()
"""Returned by a visitor to leave a node's subtree out of the walk."""


class _Open:
    """A callable met during the walk, accumulating its CC."""

    __slots__ = ("cc", "node")

    def __init__(self, node: Node) -> None:
        self.node = node
        self.cc = 1


def preorder(cursor: TreeCursor, visit: Callable[[Node, object], object], leaf: Callable[[Node], object],
             context: object) -> None:
    """Walk the tree under ``cursor`` in pre-order; ``visit(node, context)`` returns the children's context,
    or ``_SKIP`` to leave the subtree out; ``leaf(node)`` then runs on each visited node without children."""
    contexts = [context]
    while True:
        node = cursor.node
        inner = visit(node, contexts[-1])
        if inner is not _SKIP:
            if cursor.goto_first_child():
                contexts.append(inner)
                continue
            leaf(node)
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return
            contexts.pop()


@dataclass
class _Walk:
    """Accumulators of one walk over one tree, for one table."""

    table: LanguageTable
    tokens: list[Token]
    lines: set[int]
    opened: list[_Open]
    import_lines: set[int] = field(default_factory=set)

    def visit(self, node: Node, owner: _Open | None) -> object:
        return self._mark(node, owner) if node.type in self.table.marked else owner

    def _mark(self, node: Node, owner: _Open | None) -> object:
        """The children's context of a node whose kind the table names (most kinds it does not)."""
        kind = node.type
        table = self.table
        if kind in table.comments:
            return _SKIP
        if kind in table.callables:
            owner = _Open(node)
            self.opened.append(owner)
        elif owner is not None and (kind in table.decisions or kind in table.boolean_operators):
            owner.cc += 1
        if kind in table.imports:
            self.import_lines.update(range(node.start_point.row + 1, node.end_point.row + 2))
        return owner

    def leaf(self, node: Node) -> None:
        if node.end_byte > node.start_byte:
            start = node.start_point.row + 1
            if start not in self.import_lines:
                self.tokens.append(Token(start, node.type))
            self.lines.update(range(start, node.end_point.row + 2))


def walk(table: LanguageTable, root: Node) -> tuple[list[Token], set[int], list[_Open]]:
    """Tokens, code lines and open callables of the tree under ``root`` (see the module docstring)."""
    state = _Walk(table, [], set(), [])
    preorder(root.walk(), state.visit, state.leaf, None)
    return state.tokens, state.lines, state.opened


def _field_text(node: Node | None, field: str) -> str:
    named = node.child_by_field_name(field) if node is not None else None
    return named.text.decode(errors="replace").split("(")[0].strip() if named is not None else ""


def callable_name(node: Node, field: str, bindings: dict[str, str] | None = None) -> str:
    """The text of the node's ``field`` up to any ``(`` (C declarators); for a callable without
    one, the name it is bound to (``bindings``: parent kind -> the parent's field naming it);
    else ``<anonymous>``."""
    binding = (bindings or {}).get(node.parent.type if node.parent else "")
    return _field_text(node, field) or (binding and _field_text(node.parent, binding)) or "<anonymous>"


def sloc(lines: set[int] | frozenset[int], first: int, last: int) -> int:
    """Number of code lines in ``first..last`` (1-based, inclusive): the SLOC of a callable."""
    return sum(1 for line in range(first, last + 1) if line in lines)


class TreeSitterAdapter:
    """Measures any language described by a :class:`LanguageTable` with its tree-sitter grammar wheel."""

    def __init__(self, table: LanguageTable) -> None:
        self.table = table

    @cached_property
    def parser(self) -> Parser:
        """The grammar's parser, built once; raises ImportError if the grammar wheel is missing."""
        module = importlib.import_module(self.table.tree_sitter_module)
        return Parser(Language(getattr(module, self.table.tree_sitter_function)()))

    def facts(self, path: str, source: bytes) -> SourceFacts:
        """Parse ``source`` once and return its tokens, code lines and callables (CC and SLOC)."""
        tokens, lines, opened = walk(self.table, self.parser.parse(source).root_node)
        callables = tuple(
            CallableMetric(
                path=path,
                name=callable_name(item.node, self.table.name_field, self.table.binding_names),
                line=item.node.start_point.row + 1,
                end_line=item.node.end_point.row + 1,
                cc=item.cc,
                sloc=sloc(lines, item.node.start_point.row + 1, item.node.end_point.row + 1),
            )
            for item in opened
        )
        return SourceFacts(path, self.table.name, frozenset(lines), tuple(tokens), callables)

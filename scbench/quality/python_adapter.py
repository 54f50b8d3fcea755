"""The Python adapter: radon for CC (asserts not counted), tree-sitter for tokens and code lines.

Python-specific parts only: docstrings (the string statement opening a module, class or function body,
PEP 257) are not code lines, and CC is radon's ``cc_visit(code, no_assert=True)`` (run on our own ``ast``
tree), flattened so that every function, method and nested function (radon "closure") is its own callable.
Radon never adds a closure's complexity to its parent (radon issue #68) and, like radon, lambdas are not
callables: their decisions count for the enclosing function. Class bodies are not callables.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from radon.visitors import Class, ComplexityVisitor, Function

from scbench.quality.model import CallableMetric, SourceFacts
from scbench.quality.treesitter import TreeSitterAdapter, sloc, walk

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DOC_OWNERS = (ast.Module, ast.ClassDef, *_FUNCTIONS)
_EXPRESSIONS = (ast.expr, ast.expr_context, ast.arguments, ast.keyword, ast.comprehension, ast.alias,
                ast.withitem, ast.pattern)


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The module and every node under it outside expressions (statements, ``except`` clauses, ``case``
    blocks): a function or class is never inside an expression, and expressions are most of the tree."""
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _EXPRESSIONS))


def _scan(tree: ast.Module) -> tuple[set[int], dict[tuple[int, int], int]]:
    """Docstring lines of the module, and the end line of each function keyed by ``(line, column)``."""
    docstrings: set[int] = set()
    ends: dict[tuple[int, int], int] = {}
    for node in _statements(tree):
        if isinstance(node, _FUNCTIONS):
            ends[node.lineno, node.col_offset] = node.end_lineno
        if isinstance(node, _DOC_OWNERS) and node.body and _is_docstring(node.body[0]):
            docstrings.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    return docstrings, ends


def _flatten(blocks: list, prefix: str = "") -> Iterator[tuple[str, Function]]:
    """Radon blocks as ``(qualified name, function)``: functions, methods and closures, depth first."""
    for block in blocks:
        name = f"{prefix}{block.name}"
        if isinstance(block, Class):
            yield from _flatten([*block.methods, *block.inner_classes], f"{name}.")
        else:
            yield name, block
            yield from _flatten(block.closures, f"{name}.")


class PythonAdapter(TreeSitterAdapter):
    """Python: the table supplies tokens and comments, radon (``no_assert=True``) supplies CC.

    ``facts`` raises SyntaxError for a file Python cannot parse, nested too deeply included.
    """

    def facts(self, path: str, source: bytes) -> SourceFacts:
        """Parse with ``ast`` (for radon and docstrings) and tree-sitter (for tokens), once each."""
        try:
            tree = ast.parse(source, filename=path)
        except MemoryError:  # CPython's parser stack overflows on an expression nested some 100,000 deep
            raise SyntaxError("nested too deeply to parse", (path, 1, 1, "")) from None
        docstrings, ends = _scan(tree)
        tokens, lines, _ = walk(self.table, self.parser.parse(source).root_node)
        visitor = ComplexityVisitor.from_ast(tree, no_assert=True)
        lines -= docstrings
        callables = tuple(
            CallableMetric(
                path=path,
                name=name,
                line=function.lineno,
                end_line=ends[function.lineno, function.col_offset],
                cc=function.complexity,
                sloc=sloc(lines, function.lineno, ends[function.lineno, function.col_offset]),
            )
            for name, function in _flatten([*visitor.functions, *visitor.classes])
        )
        code_tokens = tuple(token for token in tokens if token.line not in docstrings)
        return SourceFacts(path, self.table.name, frozenset(lines), code_tokens, callables)

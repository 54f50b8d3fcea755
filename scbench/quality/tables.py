"""Language tables: the per-language data (``adapters/<language>.yaml``) that drives the generic adapters.

Adding a language means adding one YAML file here and its rules under ``rules/<language>/``, no Python.
Keys of a table file (all lists are YAML sequences of strings):

``name``, ``extensions`` (with the dot), ``tree_sitter_module`` (an installed ``tree-sitter-<language>``
wheel), ``tree_sitter_function`` (the module's function returning the grammar, default ``language``),
``ast_grep`` (ast-grep language name), ``rules`` (directories under ``rules/`` to run), ``callables``
(node kinds that are callables), ``decisions`` (node kinds that add 1 to CC), ``boolean_operators``
(token kinds that add 1 to CC), ``comments`` (node kinds ignored for LOC and clones), ``imports`` (node
kinds whose lines count for LOC but not for clones: every import block looks alike), ``name_field``
(field of a callable node holding its name), ``binding_names`` (a mapping: for a callable without a name of
its own, parent node kind -> the parent's field naming it, so ``const add = () => 1`` is ``add``) and
``adapter`` (``tree_sitter`` or ``python``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from pathlib import Path

from scbench.paths import ADAPTERS
from scbench.quality import documents


@dataclass(frozen=True)
class LanguageTable:
    """One language's data row; see the module docstring for the meaning of each key."""

    name: str
    extensions: tuple[str, ...]
    tree_sitter_module: str
    ast_grep: str
    rules: tuple[str, ...]
    comments: frozenset[str]
    callables: frozenset[str] = frozenset()
    decisions: frozenset[str] = frozenset()
    boolean_operators: frozenset[str] = frozenset()
    imports: frozenset[str] = frozenset()
    tree_sitter_function: str = "language"
    name_field: str = "name"
    binding_names: dict[str, str] = field(default_factory=dict)
    adapter: str = "tree_sitter"

    @cached_property
    def marked(self) -> frozenset[str]:
        """Every node kind the table names (comments, callables, decisions, boolean operators, imports): a
        walk looks no further at a node of another kind than whether it is a token."""
        return self.comments | self.callables | self.decisions | self.boolean_operators | self.imports

    @classmethod
    def from_mapping(cls, data: dict) -> LanguageTable:
        """Build a table from parsed YAML; raises ValueError naming unknown or missing keys."""
        known = {f.name: f.type for f in fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            raise ValueError(f"language table {data.get('name')!r}: unknown keys {sorted(unknown)}")
        converted = {key: _CONVERT[known[key]](value) for key, value in data.items()}
        return cls(**converted)


_CONVERT = {
    "str": str,
    "dict[str, str]": dict,
    "tuple[str, ...]": tuple,
    "frozenset[str]": frozenset,
}


@lru_cache(maxsize=4)
def load_tables(directory: Path = ADAPTERS) -> tuple[LanguageTable, ...]:
    """Every ``*.yaml`` table in ``directory``, sorted by name; raises ValueError on a malformed table."""
    tables = map(LanguageTable.from_mapping, documents.load(sorted(directory.glob("*.yaml"))))
    return tuple(sorted(tables, key=lambda table: table.name))

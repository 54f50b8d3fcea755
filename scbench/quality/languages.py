"""The language registry: each table in ``adapters/`` bound to the adapter kind it names."""

from __future__ import annotations

from functools import lru_cache

from scbench.quality.python_adapter import PythonAdapter
from scbench.quality.registry import Registry
from scbench.quality.tables import load_tables
from scbench.quality.treesitter import TreeSitterAdapter

ADAPTER_KINDS: Registry[type[TreeSitterAdapter]] = Registry("adapter kind")
ADAPTER_KINDS.add("tree_sitter", TreeSitterAdapter)
ADAPTER_KINDS.add("python", PythonAdapter)


@lru_cache(maxsize=1)
def languages() -> Registry[TreeSitterAdapter]:
    """Language name -> adapter, one adapter per table; raises LookupError for an unknown adapter kind."""
    registry: Registry[TreeSitterAdapter] = Registry("language")
    for table in load_tables():
        registry.add(table.name, ADAPTER_KINDS.get(table.adapter)(table))
    return registry

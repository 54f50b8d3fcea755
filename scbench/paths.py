"""Where scbench finds its own resources (schemas, rules, adapters, prompts, the problem scaffold) and its caches."""

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
"""The ``scbench`` package's own directory (its Python sources)."""
ROOT = PACKAGE.parent
SCHEMAS = ROOT / "schemas"
RULES = ROOT / "rules"
ADAPTERS = ROOT / "adapters"
PROMPTS = ROOT / "prompts"
SCAFFOLD = ROOT / "scaffold"
CACHE = Path(os.environ.get("SCBENCH_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "scbench")
"""Bundles' data and prepared solutions; override with SCBENCH_CACHE."""

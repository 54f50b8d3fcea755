"""Where scbench finds its own resources (schemas, rules, adapters, prompts, the problem scaffold) and its caches.

The resources are package data: they live inside the ``scbench`` package and are installed with it by any
install (a wheel, ``pip install .``, an editable install), found through :mod:`importlib.resources`. A wheel
is always installed unzipped, so the package's resources are a directory and ``PACKAGE`` is a real path.
"""

import os
from importlib.resources import files
from pathlib import Path

PACKAGE = Path(str(files("scbench")))
"""The ``scbench`` package's own directory: its Python sources and its resources."""
SCHEMAS = PACKAGE / "schemas"
RULES = PACKAGE / "quality" / "rules"
ADAPTERS = PACKAGE / "quality" / "adapters"
PROMPTS = PACKAGE / "prompts"
SCAFFOLD = PACKAGE / "scaffold" / "template"
CACHE = Path(os.environ.get("SCBENCH_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "scbench")
"""Bundles' data and prepared solutions; override with SCBENCH_CACHE."""

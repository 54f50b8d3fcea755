"""The quality package's YAML files (language tables, AST-grep rules), parsed once per content.

Importing PyYAML and parsing the ~120 table and rule files took a twentieth of ``scbench metrics`` on a
4,000-LOC snapshot. The parsed documents of a set of files are kept as one JSON file in scbench's cache, in a directory
named by the digest of the files' paths and bytes, so a run over unchanged files reads that one file and never
imports PyYAML. Documents that JSON cannot hold exactly (keys that are not strings, dates) are parsed each time.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scbench.paths import CACHE


def load(paths: Sequence[Path]) -> list[Any]:
    """The YAML document of each of ``paths``, in order (PyYAML's C loader on a cache miss); raises OSError for
    a file that cannot be read and ``yaml.YAMLError`` for one that is not YAML."""
    contents = [path.read_bytes() for path in paths]
    digest = hashlib.sha256()
    for path, content in zip(paths, contents, strict=True):
        digest.update(f"{path}\0{len(content)}\0".encode(errors="surrogateescape"))
        digest.update(content)
    cached = CACHE / "documents" / digest.hexdigest()[:32] / "documents.json"
    if cached.is_file():
        return json.loads(cached.read_bytes())
    import yaml

    documents = [yaml.load(content, Loader=yaml.CSafeLoader) for content in contents]
    text = json.dumps(documents, default=repr)  # what JSON cannot hold becomes a string: unequal, not cached
    if json.loads(text) == documents:
        cached.parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(prefix="documents.", dir=cached.parent)
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(staging, cached)
    return documents

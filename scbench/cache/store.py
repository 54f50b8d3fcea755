"""What scbench keeps under its cache directory (``scbench.paths.CACHE``), measured and removed by kind.

Only the kinds listed in :data:`KINDS` are scbench's: anything else found there is reported and
left alone, so a cache directory pointed at a shared place never loses a byte that is not ours.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from scbench.paths import CACHE

KINDS = {
    "ast-grep": "AST-grep rules written out for `ast-grep scan`, one directory per digest of a language's rules",
    "bundles": "compiled bundles' data files, one directory per bundle digest",
    "compiled": "problem directories compiled to bundles, one directory per digest of their sources and the compiler",
    "documents": "the quality rules and language tables parsed once, one directory per digest of their files",
    "solutions": "prepared solutions (a private copy set up once per content and track)",
    "toolchains": "set-up homes with the toolchains' caches (go, cargo, npm, pip), one per track, level and trust "
                  "domain (the references of `check`, one agent run, one batch entry)",
}
"""Subdirectory of the cache -> what it holds. A new kind of cached thing adds its line here."""


@dataclass(frozen=True)
class Usage:
    """One subdirectory of the cache: its name, entries, size in bytes, and what it holds
    (empty for a directory that is not scbench's)."""

    name: str
    entries: int
    size: int
    holds: str


def _size(path: Path) -> int:
    """Bytes of the files under ``path`` (symbolic links not followed)."""
    return sum(os.lstat(Path(directory, name)).st_size for directory, _, names in os.walk(path) for name in names)


def usage(root: Path = CACHE) -> list[Usage]:
    """Every subdirectory of the cache at ``root``, scbench's kinds first, each measured (entries are
    the directories in it)."""
    found = sorted(path for path in root.iterdir() if path.is_dir()) if root.is_dir() else []
    ours = [Usage(kind, *_measure(root / kind), holds) for kind, holds in KINDS.items()]
    return ours + [Usage(path.name, *_measure(path), "") for path in found if path.name not in KINDS]


def _measure(path: Path) -> tuple[int, int]:
    return (sum(1 for entry in path.iterdir() if entry.is_dir()), _size(path)) if path.is_dir() else (0, 0)


def _writable_then_retry(function, path: str, _error) -> None:
    """rmtree's error handler: set-up products can be read-only (Go's module cache); make the
    parent writable and try once more."""
    os.chmod(os.path.dirname(path), stat.S_IRWXU)
    function(path)


def clean(kinds: list[str] | None = None, root: Path = CACHE) -> list[Usage]:
    """Remove the cache's ``kinds`` (default: all of :data:`KINDS`); returns what was removed.
    Raises ``KeyError`` for a kind that is not scbench's. A run using the cache at the same time
    may fail: clean when no scbench is running."""
    unknown = sorted(set(kinds or []) - set(KINDS))
    if unknown:
        raise KeyError(f"not a kind of scbench's cache: {', '.join(unknown)}; known: {', '.join(KINDS)}")
    removed = [entry for entry in usage(root) if entry.name in (kinds or KINDS) and entry.entries]
    for entry in removed:
        shutil.rmtree(root / entry.name, onerror=_writable_then_retry)
    return removed

"""Scaffold a new problem from the template tree ``scaffold/``: a one-checkpoint CLI problem
that compiles, lints clean and passes ``scbench check``, with one example case of each shape
(inline run, text, expected-output file, steps, wildcards, output files, unordered and subset
JSON Lines, empty output, error) and its python reference.

In the template, file contents are jinja2 templates (``{{ name }}``) and ``__name__`` in a path
stands for the problem's name.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from scbench.paths import SCAFFOLD

NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")
"""A problem name (as ``config.yaml`` requires it)."""


class ScaffoldError(ValueError):
    """The target cannot be scaffolded: a bad name, or something already there."""


def _compiled(path: Path) -> bool:
    """Whether ``path`` is bytecode an installer compiled from the template's Python (pip does on install)."""
    return "__pycache__" in path.relative_to(SCAFFOLD).parts


def scaffold(target: Path) -> list[Path]:
    """Create the problem ``target`` (its directory name is the problem's name) and return the
    files written. Raises :class:`ScaffoldError` for a name ``config.yaml`` would refuse or a
    target that exists (nothing is overwritten)."""
    name = target.name
    if not NAME.match(name):
        raise ScaffoldError(f"{name!r} is not a problem name: use lower-case letters, digits and '_'")
    if target.exists():
        raise ScaffoldError(f"{target} already exists; nothing written")
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    written = []
    for source in sorted(path for path in SCAFFOLD.rglob("*") if path.is_file() and not _compiled(path)):
        path = target / str(source.relative_to(SCAFFOLD)).replace("__name__", name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(environment.from_string(source.read_text(encoding="utf-8")).render(name=name),
                        encoding="utf-8")
        written.append(path)
    return written

"""Load a problem for running: a problem directory (compiled on the fly) or a compiled bundle."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from scbench.problem.bundle import Bundle
from scbench.problem.compiler import compile_problem
from scbench.problem.diagnostics import Diagnostic, ProblemError

BUNDLE_SUFFIX = ".scb.json"
NAMED_DIGEST = re.compile(r"-([0-9a-f]{12})\.scb\.json$")


def _read_bundle(path: Path) -> Bundle:
    try:
        bundle = Bundle.model_validate_json(path.read_bytes())
    except ValidationError as error:
        first = error.errors()[0]
        raise ProblemError([Diagnostic(str(path), 0, ".".join(map(str, first["loc"])),
                                    f"not a valid bundle ({error.error_count()} error(s), first: {first['msg']})",
                                    "recompile it with scbench compile")]) from None
    named = NAMED_DIGEST.search(path.name)
    if named and not bundle.digest.startswith(named.group(1)):
        raise ProblemError([Diagnostic(str(path), 0, "", "the bundle's content does not match the digest in its name",
                                    "it was edited after compiling: recompile it with scbench compile")])
    return bundle


def load(path: Path, missing_expected_files: bool = False) -> Bundle:
    """The bundle at ``path`` (a ``*.scb.json`` file) or compiled from a problem directory
    (``missing_expected_files`` as in :func:`compile_problem`). Raises :class:`ProblemError`
    when it does not compile or does not exist."""
    if path.name.endswith(BUNDLE_SUFFIX) and path.is_file():
        return _read_bundle(path)
    if not path.is_dir():
        raise ProblemError([Diagnostic(str(path), 0, "", "no such problem directory or bundle",
                                    "give problems/NAME or a compiled NAME-HASH.scb.json")])
    return compile_problem(path, missing_expected_files)

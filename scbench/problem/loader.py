"""Load a problem for running: a problem directory (compiled on the fly, or read from the cache of
compiled problems when neither its sources nor the compiler changed) or a compiled bundle."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tempfile
from pathlib import Path

from pydantic import ValidationError

from scbench.paths import CACHE, PACKAGE, SCHEMAS
from scbench.problem.bundle import Bundle
from scbench.problem.diagnostics import Diagnostic, ProblemError

BUNDLE_SUFFIX = ".scb.json"
NAMED_DIGEST = re.compile(r"-([0-9a-f]{12})\.scb\.json$")
COMPILED = CACHE / "compiled"
"""Problem directories compiled once: ``<source digest>/bundle.scb.json``."""


def _read_bundle(path: Path) -> Bundle:
    from scbench.problem.compiler import bundle_diagnostics  # the compiler's schemas: for bundle files only

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
    found = bundle_diagnostics(bundle, str(path))
    if found:
        raise ProblemError(found)
    return bundle


def _hash_files(digest, root: Path, files: list[Path]) -> None:
    for file in sorted(files):
        digest.update(f"{file.relative_to(root).as_posix()}\0{file.stat().st_size}\0".encode())
        digest.update(file.read_bytes())


@functools.cache
def _compiler_digest() -> str:
    """SHA-256 of scbench's Python sources and schemas: what compiling depends on besides the problem."""
    digest = hashlib.sha256()
    _hash_files(digest, PACKAGE.parent, [*PACKAGE.rglob("*.py"), *SCHEMAS.glob("*.json")])
    return digest.hexdigest()


def _is_source(relative: Path) -> bool:
    """Whether a problem's file (path relative to the problem) can change its bundle: not a reference
    solution's, not hidden, not a ``__pycache__`` entry."""
    return relative.parts[0] != "solutions" and not any(part.startswith(".") or part == "__pycache__"
                                                        for part in relative.parts)


def source_digest(problem: Path, missing_expected_files: bool = False) -> str:
    """SHA-256 (hex) of everything compiling ``problem`` depends on: the compiler, the option, and every
    source file of the directory (:func:`_is_source`)."""
    digest = hashlib.sha256(f"{_compiler_digest()} {missing_expected_files}".encode())
    _hash_files(digest, problem, [file for file in problem.rglob("*")
                                  if file.is_file() and _is_source(file.relative_to(problem))])
    return digest.hexdigest()


def _compiled(path: Path, missing_expected_files: bool) -> Bundle:
    """The bundle of problem directory ``path``, from :data:`COMPILED` when its source digest is there,
    else compiled and stored there (written atomically; a problem that does not compile is not stored)."""
    cached = COMPILED / source_digest(path, missing_expected_files) / f"bundle{BUNDLE_SUFFIX}"
    if cached.is_file():
        return Bundle.model_validate_json(cached.read_bytes())
    from scbench.problem.compiler import compile_problem  # jsonschema and the checks: on a cache miss only

    bundle = compile_problem(path, missing_expected_files)
    cached.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(dir=cached.parent, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(bundle.model_dump_json())
    os.replace(staging, cached)
    return bundle


def load(path: Path, missing_expected_files: bool = False) -> Bundle:
    """The bundle at ``path`` (a ``*.scb.json`` file, checked as the compiler checks a problem directory:
    :func:`~scbench.problem.compiler.bundle_diagnostics`) or compiled from a problem directory
    (``missing_expected_files`` as in :func:`compile_problem`; a directory compiled before, with
    the same sources and compiler, is read from the cache). Raises :class:`ProblemError` when it
    does not compile or does not exist."""
    if path.name.endswith(BUNDLE_SUFFIX) and path.is_file():
        return _read_bundle(path)
    if not path.is_dir():
        raise ProblemError([Diagnostic(str(path), 0, "", "no such problem directory or bundle",
                                    "give problems/NAME or a compiled NAME-HASH.scb.json")])
    return _compiled(path, missing_expected_files)

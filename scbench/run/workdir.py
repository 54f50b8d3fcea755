"""A case's fresh temporary directory and the input files written into it."""

from __future__ import annotations

import base64
import bz2
import csv
import gzip
import io
import json
import shutil
import sqlite3
import tarfile
import tempfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import yaml

from scbench import content
from scbench.problem.model import (
    WRAPPERS,
    Base64File,
    Bz2File,
    CopyFile,
    Directory,
    GzipFile,
    InputFile,
    JsonFile,
    JsonlFile,
    RowsFile,
    SqliteFile,
    TarFile,
    TextFile,
    YamlFile,
)
from scbench.run.context import filled_content
from scbench.sandbox.base import Sandbox

TAR_FORMATS = {"pax": tarfile.PAX_FORMAT, "gnu": tarfile.GNU_FORMAT, "ustar": tarfile.USTAR_FORMAT}


def write_tar(target: Path, spec: TarFile) -> None:
    """Write ``spec``'s members, in order, as a tar archive at ``target``: regular files whose
    headers hold the defaults of a fresh ``TarInfo`` (mtime 0, mode 0644, uid and gid 0, no
    owner names), so equal members give equal bytes."""
    with tarfile.open(target, "w", format=TAR_FORMATS[spec.tar_format]) as archive:
        for name, content in spec.tar.items():
            payload = content.encode() if isinstance(content, str) else base64.b64decode(content.base64)
            member = tarfile.TarInfo(name)
            member.size = len(payload)
            archive.addfile(member, io.BytesIO(payload))


def write_sqlite(target: Path, spec: SqliteFile) -> None:
    """Build the database ``spec`` describes at ``target``: its statements in order, in one transaction."""
    with closing(sqlite3.connect(target)) as database, database:
        for statement in spec.sqlite:
            database.execute(statement)


def _cell(value: Any) -> str:
    """A CSV / TSV cell: a string as written, null empty, anything else as JSON writes it."""
    return value if isinstance(value, str) else "" if value is None else json.dumps(value)


def _delimited(delimiter: str) -> Callable[[list[str], list[dict]], bytes]:
    def write(columns: list[str], rows: list[dict]) -> bytes:
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([_cell(row.get(column)) for column in columns] for row in rows)
        return buffer.getvalue().encode()
    return write


PARQUET_EXTRA = "parquet inputs are written by pyarrow, which is not installed: pip install 'scbench[parquet]'"


def _parquet(columns: list[str], rows: list[dict]) -> bytes:
    """The rows as one Parquet file written by pyarrow (types inferred from the values, default options)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as error:
        raise RuntimeError(PARQUET_EXTRA) from error
    table = pyarrow.Table.from_pylist([{column: row.get(column) for column in columns} for row in rows])
    sink = pyarrow.BufferOutputStream()
    pyarrow.parquet.write_table(table, sink)
    return sink.getvalue().to_pybytes()


ROW_WRITERS: dict[str, Callable[[list[str], list[dict]], bytes]] = {
    "csv": _delimited(","),
    "tsv": _delimited("\t"),
    "json": lambda columns, rows: (json.dumps([{c: row.get(c) for c in columns} for row in rows], indent=2)
                                   + "\n").encode(),
    "jsonl": lambda columns, rows: "".join(json.dumps({c: row.get(c) for c in columns}) + "\n"
                                           for row in rows).encode(),
    "parquet": _parquet,
}
"""A :class:`RowsFile`'s format -> writer of its bytes from (columns, rows)."""


def write_rows(target: Path, spec: RowsFile) -> None:
    """Write ``spec``'s rows at ``target`` in its format (:data:`ROW_WRITERS`); its columns are ``spec.columns``
    or every key in the order the rows first name it. Raises ``RuntimeError`` naming the extra to install
    for a parquet file without pyarrow."""
    columns = spec.columns or list(dict.fromkeys(key for row in spec.rows for key in row))
    target.write_bytes(ROW_WRITERS[spec.rows_format](columns, spec.rows))


COMPRESSORS: dict[type, Callable[[bytes], bytes]] = {
    GzipFile: lambda data: gzip.compress(data, compresslevel=9, mtime=0),
    Bz2File: lambda data: bz2.compress(data, compresslevel=9),
}
"""A compressed input form (the field holding the form it wraps: ``context.WRAPPERS``) -> its compressor."""


def write_compressed(target: Path, spec: GzipFile | Bz2File, data: Path) -> None:
    """Write the form ``spec`` wraps at ``target``, then replace it with its compressed bytes."""
    inner = getattr(spec, WRAPPERS[type(spec)])
    WRITERS[type(inner)](target, inner, data)
    target.write_bytes(COMPRESSORS[type(spec)](target.read_bytes()))


WRITERS: dict[type, Callable[[Path, object, Path], None]] = {
    str: lambda target, spec, data: target.write_text(spec, encoding="utf-8"),
    TextFile: lambda target, spec, data: target.write_text(spec.text, encoding="utf-8"),
    JsonFile: lambda target, spec, data: target.write_text(json.dumps(spec.json_, indent=2) + "\n"),
    JsonlFile: lambda target, spec, data: target.write_text("".join(json.dumps(v) + "\n" for v in spec.jsonl)),
    YamlFile: lambda target, spec, data: target.write_text(yaml.safe_dump(spec.yaml_, sort_keys=False)),
    Base64File: lambda target, spec, data: target.write_bytes(base64.b64decode(spec.base64)),
    CopyFile: lambda target, spec, data: (shutil.copytree if (data / spec.copy_).is_dir() else shutil.copy)(
        data / spec.copy_, target),
    TarFile: lambda target, spec, data: write_tar(target, spec),
    Directory: lambda target, spec, data: target.mkdir(),
    SqliteFile: lambda target, spec, data: write_sqlite(target, spec),
    RowsFile: lambda target, spec, data: write_rows(target, spec),
    GzipFile: write_compressed,
    Bz2File: write_compressed,
}
"""Input-file form -> writer(target path, spec, problem data dir)."""


def _cleared(workdir: Path, name: str) -> Path:
    """``workdir / name`` with what an earlier step of the solution left in its way removed: a symbolic
    link anywhere on the way (the host never writes through a solution's link), a file or other
    non-directory where a parent directory goes, a directory where the input goes."""
    target = workdir
    parts = Path(name).parts
    for index, part in enumerate(parts, 1):
        target = target / part
        if target.is_symlink() or (index < len(parts) and target.exists() and not target.is_dir()):
            target.unlink()
    if target.is_dir():
        shutil.rmtree(target)
    return target


def write_inputs(workdir: Path, files: dict[str, InputFile], data: Path, values: dict[str, str] | None = None) -> None:
    """Write each input file (parents created) into ``workdir``, in place of whatever a previous step
    of the solution left in its way (:func:`_cleared`), its content's placeholders filled from ``values``
    (:func:`scbench.run.context.filled_content`)."""
    for name, spec in files.items():
        target = _cleared(workdir, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        WRITERS[type(spec)](target, filled_content(spec, values or {}), data)


def mirror(solution: Path, target: Path) -> Path:
    """A private copy of ``solution`` at ``target``: its content copied (:mod:`scbench.content`), its
    top-level set-up product directories (shared by every case) linked, caches left out; a mirror of a mirror
    keeps the links the copy brought along. Returns ``target``."""
    content.copy(solution, target)
    for name in sorted(content.PRODUCT_DIRS):
        if (solution / name).is_dir() and not (target / name).is_symlink():
            (target / name).symlink_to(solution / name)
    return target


class CaseDirs:
    """``root/work`` (the solution's cwd), ``root/home``, ``root/tmp`` and, given a prepared
    ``solution``, ``root/solution``: its private copy, so that a solution writing next to its
    own files changes neither the cache nor later cases. ``root`` is a fresh directory in the
    sandbox's scratch dir (the one dir a run may write to), handed to the sandbox's user once
    the inputs are written (:meth:`own`). All removed on exit (in the background: :meth:`Sandbox.discard`)."""

    def __init__(self, sandbox: Sandbox, solution: Path | None = None):
        self.sandbox = sandbox
        self.solution = solution

    def __enter__(self) -> CaseDirs:
        self.root = Path(tempfile.mkdtemp(prefix="case-", dir=self.sandbox.scratch))
        self.work, self.home, self.tmp = (self.root / name for name in ("work", "home", "tmp"))
        for path in (self.work, self.home, self.tmp):
            path.mkdir()
        self.solution_copy = mirror(self.solution, self.root / "solution") if self.solution else None
        return self

    def own(self) -> None:
        """Let the sandbox's user write everything in ``root`` (call after writing inputs)."""
        self.sandbox.own(self.root)

    def __exit__(self, *exc: object) -> None:
        self.sandbox.discard(self.root)

"""Snapshots of a workspace, their differences, and secrets kept out of both.

A snapshot is a copy of the workspace without its set-up products (``.venv``, ``node_modules``,
``target``, ...: a solution's content as :mod:`scbench.content` defines it);
symbolic links are copied as links, never followed.
"""

from __future__ import annotations

import base64
import difflib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus

from scbench import content

SHORTEST_FORM = 8
"""The shortest encoded form of a secret that is redacted (bytes): a shorter one matches ordinary text."""
URL_SAFE = bytes.maketrans(b"+/", b"-_")


def _base64_cores(value: bytes) -> Iterator[bytes]:
    """The base64 characters that ``value`` alone decides, wherever it starts in an encoded stream (at each of
    the three byte offsets of a base64 group), in the standard and the URL-safe alphabet."""
    for shift in range(3):
        encoded = base64.b64encode(bytes(shift) + value)
        core = encoded[-(-8 * shift // 6):8 * (shift + len(value)) // 6]  # characters of value's bits only
        yield from (core, core.translate(URL_SAFE))


def forms(value: str) -> list[bytes]:
    """The ways ``value`` may be written: itself, in lower and upper case hex, URL-encoded (``%20`` and ``+``
    for spaces) and in base64 at any offset (:func:`_base64_cores`); encoded forms shorter than
    :data:`SHORTEST_FORM` are left out. Longest first, so a longer form is replaced before one inside it."""
    raw = value.encode()
    encoded = {raw.hex().encode(), raw.hex().upper().encode(), quote(value, safe="").encode(),
               quote_plus(value, safe="").encode(), *_base64_cores(raw)}
    return sorted({raw} | {form for form in encoded if len(form) >= SHORTEST_FORM}, key=len, reverse=True)


def redact(data: bytes, secrets: Iterable[tuple[str, str]]) -> bytes:
    """``data`` with each secret's value, in each of its :func:`forms`, replaced by ``[NAME]``; ``secrets`` are
    ``(name, value)`` pairs."""
    for name, value in secrets:
        for form in forms(value) if value else ():
            data = data.replace(form, f"[{name}]".encode())
    return data


def _redacted(name: str, secrets: list[tuple[str, str]]) -> str:
    return os.fsdecode(redact(os.fsencode(name), secrets))


def _redact_names(root: Path, secrets: list[tuple[str, str]]) -> None:
    """Redact every file name, directory name and link target under ``root`` (deepest first)."""
    for directory, dirs, names in os.walk(root, topdown=False):
        for name in [*names, *dirs]:
            path = Path(directory, name)
            if path.is_symlink() and (target := _redacted(os.readlink(path), secrets)) != os.readlink(path):
                path.unlink()
                path.symlink_to(target)
            if (clean := _redacted(name, secrets)) != name:
                path.rename(path.with_name(clean))


def take(workspace: Path, target: Path, secrets: Iterable[tuple[str, str]] = ()) -> list[str]:
    """Copy ``workspace`` to ``target`` (which must not exist) as :func:`scbench.content.copy` does (no set-up
    products, special files or setuid bits), every secret value in a file, a file name or a link's target
    replaced by its name (:func:`redact`); links are copied, never read. Returns the special files left out
    (``PATH (a FIFO)``).
    Raises :class:`scbench.content.TooLarge`, copying nothing, when the workspace is over
    :data:`scbench.content.SNAPSHOT_BOUNDS`."""
    pairs = [(name, value) for name, value in secrets if value]
    try:
        content.check(workspace, content.SNAPSHOT_BOUNDS)
    except content.TooLarge as refused:  # its message names a file
        raise content.TooLarge(redact(str(refused).encode(), pairs).decode()) from None
    left_out = content.copy(workspace, target)
    _redact_names(target, pairs)
    for path in [path for path in files(target) if pairs and not path.is_symlink()]:
        data = path.read_bytes()
        if (clean := redact(data, pairs)) != data:
            path.write_bytes(clean)
    return [redact(entry.encode(), pairs).decode() for entry in left_out]


def files(root: Path | None) -> list[Path]:
    """The files and symbolic links under ``root`` (none when it is ``None``), sorted."""
    if root is None:
        return []
    found = [Path(directory, name) for directory, dirs, names in os.walk(root)
             for name in names + [d for d in dirs if os.path.islink(os.path.join(directory, d))]]
    return sorted(found)


def _lines(path: Path | None) -> list[str] | None:
    """The text of ``path`` as lines (``[]`` for none; a link reads as its target), ``None`` when binary."""
    if path is None:
        return []
    if path.is_symlink():
        return [f"-> {os.fsencode(os.readlink(path)).decode(errors='backslashreplace')}\n"]
    try:
        return path.read_text(encoding="utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


@dataclass(frozen=True)
class FileChange:
    """One file that differs between two snapshots: its path, lines added and removed (``None``
    for a binary file) and whether it was ``added``, ``removed`` or ``changed``."""

    path: str
    kind: str
    added: int | None
    removed: int | None


def _pairs(before: Path | None, after: Path) -> list[tuple[str, Path | None, Path | None]]:
    old = {content.shown(path.relative_to(before)): path for path in files(before)} if before else {}
    new = {content.shown(path.relative_to(after)): path for path in files(after)}
    return [(name, old.get(name), new.get(name)) for name in sorted(old.keys() | new.keys())]


def _kind(old: Path | None, new: Path | None) -> str:
    return "added" if old is None else "removed" if new is None else "changed"


def _binary_diff(name: str, old: Path | None, new: Path | None) -> tuple[list[str], FileChange | None]:
    if old is not None and new is not None and old.read_bytes() == new.read_bytes():
        return [], None
    return [f"Binary files a/{name} and b/{name} differ\n"], FileChange(name, _kind(old, new), None, None)


def _file_diff(name: str, old: Path | None, new: Path | None) -> tuple[list[str], FileChange | None]:
    """The diff lines of one file (``a/`` before, ``b/`` after) and its change (``None``: the same)."""
    before, after = _lines(old), _lines(new)
    if before is None or after is None:
        return _binary_diff(name, old, new)
    headers = f"a/{name}" if old else "/dev/null", f"b/{name}" if new else "/dev/null"
    lines = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
             for line in difflib.unified_diff(before, after, *headers)]
    if not lines:
        return [], None
    body = lines[2:]  # past the two file headers: hunk headers, context, additions, removals
    return lines, FileChange(name, _kind(old, new), sum(line.startswith("+") for line in body),
                             sum(line.startswith("-") for line in body))


def diff(before: Path | None, after: Path) -> tuple[str, list[FileChange]]:
    """The unified diff from snapshot ``before`` (``None``: the empty workspace) to ``after``, with
    one :class:`FileChange` per file that differs; names as :func:`scbench.content.shown` writes them."""
    text, changes = [], []
    for name, old, new in _pairs(before, after):
        lines, change = _file_diff(name, old, new)
        text += lines
        changes += [change] if change else []
    return "".join(text), changes

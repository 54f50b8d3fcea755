"""What a solution's content is, defined once: its files and symbolic links, without the products of set-up and
the caches of tools, wherever they are in its tree.

Everything that copies, digests, snapshots or measures a solution uses this definition: a track's set-up
cache key and the check that set-up left the source alone (``run/tracks.py``), a case's private copy
(``run/workdir.py``), an agent's snapshot (``agent/snapshot.py``), quality measurement (``quality/``) and
mutants (``check/mutants.py``). Symbolic links are content (their target, never followed) and are never
entered.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

PRODUCT_DIRS = frozenset({".venv", "venv", "node_modules", "target", "build"})
"""Directories set-up makes (a virtual environment, npm's packages, cargo's and javac's outputs): shared by
the cases of a prepared solution, never part of its content."""
CACHE_DIRS = frozenset({"__pycache__", ".git", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
"""Directories of tools' caches and version control."""
EXCLUDED_DIRS = PRODUCT_DIRS | CACHE_DIRS


SPECIAL_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"))
"""(test of a mode, what it is) of the special files content never holds."""
PERMISSIONS = 0o777
"""The mode bits a copy keeps: read, write and execute; never setuid, setgid nor sticky (a copy is written by
scbench's user, root under a service: a kept setuid bit would make the agent's program run as root)."""


def _kept(path: str) -> bool:
    """A regular file or a symbolic link: FIFOs, sockets and devices are never content (reading one can block
    or never end)."""
    return os.path.islink(path) or os.path.isfile(path)


def _links_among(directory: str, subdirs: list[str]) -> list[str]:
    """The links to directories among ``subdirs`` (content, never entered); ``subdirs`` is left holding the
    directories :func:`os.walk` enters next: the others, excluded ones removed, sorted."""
    kept = sorted(name for name in subdirs if name not in EXCLUDED_DIRS)
    linked = [name for name in kept if os.path.islink(os.path.join(directory, name))]
    subdirs[:] = [name for name in kept if name not in linked]
    return linked


def walk(root: Path) -> Iterator[Path]:
    """Every regular file and symbolic link of ``root``'s content, sorted by directory then name; directories
    named in :data:`EXCLUDED_DIRS` and links to directories are not entered (a link is yielded as itself)."""
    for directory, subdirs, names in os.walk(root):
        for name in sorted([*names, *_links_among(directory, subdirs)]):
            path = os.path.join(directory, name)
            if _kept(path):
                yield Path(path)


def _left_out(path: str) -> bool:
    if os.path.islink(path):
        return False
    return os.path.basename(path) in EXCLUDED_DIRS and os.path.isdir(path) or not (os.path.isfile(path)
                                                                                 or os.path.isdir(path))


def ignore(directory: str, names: list[str]) -> set[str]:
    """The names :func:`shutil.copytree` leaves out of a copy of content: the excluded directories and the
    special files (FIFOs, sockets, devices), which are never content (copying one blocks or fails)."""
    return {name for name in names if _left_out(os.path.join(directory, name))}


def shown(relative: Path) -> str:
    """``relative`` (a path of content) as text that can always be written: POSIX separators, a byte that is no
    UTF-8 as ``\\xNN``."""
    return os.fsencode(relative.as_posix()).decode(errors="backslashreplace")


def _special(path: str) -> str | None:
    """What ``path`` is when it is a special file (``a FIFO``, ...), else ``None``."""
    mode = os.lstat(path).st_mode
    return next((kind for test, kind in SPECIAL_KINDS if test(mode)), None)


def copy_file(source: str | Path, target: str | Path) -> None:
    """Copy a regular file's bytes, then its permissions without setuid, setgid and sticky bits."""
    shutil.copyfile(source, target)
    os.chmod(target, os.stat(source).st_mode & PERMISSIONS)


def copy(source: Path, target: Path) -> list[str]:
    """Copy ``source``'s content (:func:`ignore`) to ``target`` (which must not exist): links as links, never
    followed; files and directories with their permissions but no setuid, setgid nor sticky bit. Returns the
    special files left out, ``PATH (a FIFO)`` (relative, POSIX), sorted."""
    left_out: list[str] = []

    def leave_out(directory: str, names: list[str]) -> set[str]:
        ignored = ignore(directory, names)
        found = ((name, _special(os.path.join(directory, name))) for name in sorted(ignored))
        left_out.extend(f"{shown(Path(directory, name).relative_to(source))} ({kind})"
                        for name, kind in found if kind)
        return ignored

    shutil.copytree(source, target, symlinks=True, ignore=leave_out, copy_function=copy_file)
    for directory, _, _ in os.walk(target):
        os.chmod(directory, os.stat(directory).st_mode & PERMISSIONS)
    return sorted(left_out)


@dataclass(frozen=True)
class Bounds:
    """How much content a snapshot may hold: ``files`` files and links, ``total_mb`` and ``file_mb`` megabytes
    (10**6 bytes) in all and in one file. Sizes are apparent sizes (``st_size``): a sparse file counts as the
    bytes it reads as, whatever it takes on disk."""

    files: int = 2000
    total_mb: float = 100
    file_mb: float = 10


SNAPSHOT_BOUNDS = Bounds()
"""The bounds of an agent's snapshot: 2000 files, 100 MB, 10 MB in one file."""


class TooLarge(Exception):
    """Content over its :class:`Bounds`; the message says which bound and by how much."""


def _over(count: int, total: int, largest: tuple[int, str], bounds: Bounds) -> str:
    """Why content of ``count`` files, ``total`` bytes and the ``largest`` (bytes, name) is over ``bounds``."""
    return next((why for over, why in (
        (count > bounds.files, f"over {bounds.files} files"),
        (largest[0] > bounds.file_mb * 1e6, f"{largest[1]} holds {largest[0]:,} bytes, over the {bounds.file_mb:g} MB "
                                            "of one file"),
        (total > bounds.total_mb * 1e6, f"{total:,} bytes in all, over {bounds.total_mb:g} MB")) if over), "")


def check(root: Path, bounds: Bounds) -> None:
    """Raise :class:`TooLarge` when ``root``'s content (:func:`walk`) is over ``bounds``; files are counted from
    their metadata, never read, and the walk stops at the first file over a bound."""
    count, total, largest = 0, 0, (0, "")
    for path in walk(root):
        size = path.lstat().st_size
        count, total, largest = count + 1, total + size, max(largest, (size, shown(path.relative_to(root))))
        if why := _over(count, total, largest, bounds):
            raise TooLarge(why)


def read_link_or_file(path: Path) -> bytes:
    """The bytes that stand for ``path`` in a digest: ``-> TARGET`` for a symbolic link (a solution's link is
    never followed on the host, where it could name any file), else the file's bytes."""
    return b"-> " + os.fsencode(os.readlink(path)) if path.is_symlink() else path.read_bytes()


def _sha256(path: Path) -> str:
    if path.is_symlink():
        return hashlib.sha256(read_link_or_file(path)).hexdigest()
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def fingerprint(root: Path, left_out: Collection[str] = ()) -> dict[str, str]:
    """Relative path (POSIX) -> SHA-256 (hex) of each file of ``root``'s content (:func:`walk`; a link's
    target, never its file), except those under a top-level name in ``left_out``. Files are streamed, never
    read whole."""
    found = ((path, path.relative_to(root)) for path in walk(root))
    return {relative.as_posix(): _sha256(path) for path, relative in found if relative.parts[0] not in left_out}


def digest(root: Path, salt: bytes = b"") -> str:
    """SHA-256 (hex) of ``salt`` and the names and contents of ``root``'s content: the solution's identity."""
    summed = hashlib.sha256(salt)
    for name, sha in sorted(fingerprint(root).items()):
        summed.update(f"{name}\0{sha}\0".encode(errors="surrogateescape"))  # a name as its bytes
    return summed.hexdigest()


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """``added NAME``, ``removed NAME`` and ``changed NAME`` for each file two fingerprints disagree on, sorted."""
    return [f"{'added' if name not in before else 'removed' if name not in after else 'changed'} {name}"
            for name in sorted(before.keys() | after.keys()) if before.get(name) != after.get(name)]

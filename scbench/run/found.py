"""What a step left at a path that must be absent or empty, seen without following a solution's links."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

KINDS = {stat.S_IFREG: "a file", stat.S_IFDIR: "a directory", stat.S_IFLNK: "a symbolic link",
         stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
         stat.S_IFBLK: "a block device"}
"""File type -> how a message names it."""

SHOWN_ENTRIES = 5
"""How many entries of a directory a message names."""


@dataclass(frozen=True)
class Found:
    """What is at a path: ``where`` (the path, or the first component on the way that is a link or not a
    directory), its ``kind`` (a value of :data:`KINDS`), its size in bytes, a link's target, a directory's
    entries (names, sorted)."""

    where: str
    kind: str
    size: int = 0
    target: str = ""
    entries: tuple[str, ...] = ()

    def describe(self) -> str:
        """``where`` and what it is, for a message: ``out is a directory holding 2 entries: a.json, b``."""
        details = {"a file": f" of {self.size} bytes", "a symbolic link": f" to {self.target}",
                   "a directory": self._holding()}
        return f"{self.where} is {self.kind}{details.get(self.kind, '')}"

    def _holding(self) -> str:
        count = len(self.entries)
        if not count:
            return " holding no entry"
        more = f" and {count - SHOWN_ENTRIES} more" if count > SHOWN_ENTRIES else ""
        named = ", ".join(self.entries[:SHOWN_ENTRIES])
        return f" holding {count} {'entry' if count == 1 else 'entries'}: {named}{more}"


def _seen(path: Path, where: str) -> Found:
    info = path.lstat()
    kind = KINDS.get(stat.S_IFMT(info.st_mode), "a special file")
    return Found(where, kind, size=info.st_size,
                 target=os.readlink(path) if kind == "a symbolic link" else "",
                 entries=tuple(sorted(os.listdir(path))) if kind == "a directory" else ())


def found(work: Path, name: str) -> Found | None:
    """What is at ``work / name`` (``None``: nothing). Each component on the way is looked at without
    following it: a symbolic link on the way is what is found (the path may exist through it), anything
    else but a directory means nothing is there (the path cannot exist)."""
    path, parts = work, Path(name).parts
    for index, part in enumerate(parts, 1):
        path = path / part
        seen = _seen(path, "/".join(parts[:index])) if os.path.lexists(path) else None
        if seen is None or index == len(parts) or seen.kind == "a symbolic link":
            return seen
        if seen.kind != "a directory":
            return None
    return None

"""A git repository read through ``git`` itself: its source-modifying commits and a commit's source files.

Every call is a ``git`` subprocess on the repository's object store (a bare repository works too); no
command here writes to the repository or its work tree.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path


class NotARepository(Exception):
    """The path given is not a git repository, or has no commit."""


@dataclass(frozen=True)
class Commit:
    """A commit: its full id and its committer date (ISO 8601, with the committer's offset)."""

    sha: str
    date: str


def _git(repo: Path, *args: str) -> bytes:
    """``git -C REPO ARGS`` 's stdout; raises ``subprocess.CalledProcessError`` (with stderr) on a failure."""
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def pathspecs(extensions: tuple[str, ...]) -> list[str]:
    """The pathspecs of files with one of ``extensions`` (``.py``) in any directory (``*`` matches ``/``)."""
    return [f"*{extension}" for extension in extensions]


def source_commits(repo: Path, extensions: tuple[str, ...]) -> list[Commit]:
    """The commits of HEAD's first-parent line that add, change or remove a file with one of ``extensions``,
    oldest first (a merge counts by its change against its first parent)."""
    log = _git(repo, "log", "--first-parent", "--reverse", "--format=%H %cI", "HEAD", "--",
               *pathspecs(extensions)).decode()
    return [Commit(*line.split(" ", 1)) for line in log.splitlines()]


def _regular(member: tarfile.TarInfo, target: str) -> tarfile.TarInfo | None:
    """Directories and regular files, as tarfile's ``data`` filter passes them; links left out (a measurement
    never reads through a link, and one may point outside the snapshot)."""
    return tarfile.data_filter(member, target) if member.isfile() or member.isdir() else None


def export(repo: Path, sha: str, extensions: tuple[str, ...], target: Path) -> int:
    """Write commit ``sha``'s files with one of ``extensions`` under ``target`` (as in its tree; symbolic links
    left out). Returns how many such files its tree holds (0: nothing written)."""
    names = _git(repo, "ls-tree", "-r", "-z", "--name-only", sha).decode(errors="surrogateescape").split("\0")
    sources = sum(1 for name in names if name.endswith(extensions))
    if not sources:
        return 0
    archive = _git(repo, "archive", "--format=tar", sha, "--", *pathspecs(extensions))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter=_regular)
    return sources


def head(repo: Path) -> str:
    """The full id of ``repo``'s HEAD commit; raises :class:`NotARepository` when ``repo`` is not a git
    repository (work tree or bare) or has no commit."""
    try:
        return _git(repo, "rev-parse", "--verify", "HEAD^{commit}").decode().strip()
    except subprocess.CalledProcessError as error:
        why = error.stderr.decode(errors="replace").strip()
        raise NotARepository(f"{repo}: not a git repository with a commit ({why})") from None

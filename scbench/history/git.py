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
    """``git -C REPO ARGS`` 's stdout (its stdin empty); raises ``subprocess.CalledProcessError`` (with stderr) on a
    failure."""
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True, input=b"").stdout


def pathspecs(extensions: tuple[str, ...], exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The pathspecs of files with one of ``extensions`` (``.py``) in any directory, but those ``exclude``
    matches (git's wildcards, ``*`` matching ``/`` too: ``tests/*``, ``docs_src``)."""
    return (*(f"*{extension}" for extension in extensions), *(f":(exclude){pattern}" for pattern in exclude))


def source_commits(repo: Path, specs: tuple[str, ...]) -> list[Commit]:
    """The commits of HEAD's first-parent line that add, change or remove a file ``specs`` (:func:`pathspecs`)
    match, oldest first (a merge counts by its change against its first parent)."""
    log = _git(repo, "log", "--first-parent", "--reverse", "--format=%H %cI", "HEAD", "--", *specs).decode()
    return [Commit(*line.split(" ", 1)) for line in log.splitlines()]


def _regular(member: tarfile.TarInfo, target: str) -> tarfile.TarInfo | None:
    """Directories and regular files, as tarfile's ``data`` filter passes them; links left out (a measurement
    never reads through a link, and one may point outside the snapshot)."""
    return tarfile.data_filter(member, target) if member.isfile() or member.isdir() else None


def archive(repo: Path, sha: str, specs: tuple[str, ...]) -> bytes:
    """Commit ``sha``'s files that ``specs`` (:func:`pathspecs`) match, as a tar archive (``git archive``);
    ``b""`` when its tree holds none."""
    empty = _git(repo, "hash-object", "-t", "tree", "--stdin").decode().strip()
    sources = _git(repo, "diff-tree", "-r", "-z", "--name-only", empty, sha, "--", *specs).count(b"\0")
    return _git(repo, "archive", "--format=tar", sha, "--", *specs) if sources else b""


def unpack(tar: bytes, target: Path) -> None:
    """Write the files of ``tar`` (an :func:`archive`) under ``target``; symbolic links left out."""
    with tarfile.open(fileobj=io.BytesIO(tar)) as opened:
        opened.extractall(target, filter=_regular)


def head(repo: Path) -> str:
    """The full id of ``repo``'s HEAD commit; raises :class:`NotARepository` when ``repo`` is not a git
    repository (work tree or bare) or has no commit."""
    try:
        return _git(repo, "rev-parse", "--verify", "HEAD^{commit}").decode().strip()
    except subprocess.CalledProcessError as error:
        why = error.stderr.decode(errors="replace").strip()
        raise NotARepository(f"{repo}: not a git repository with a commit ({why})") from None

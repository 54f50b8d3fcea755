"""A solution's content, defined once (scbench/content.py): what every copy, digest, snapshot and measurement
takes of a solution; and the temporary directories those copies go to (scbench/paths.py)."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from scbench import content
from scbench.paths import held, owned_tempdir, release
from scbench.sandbox.base import copy


def test_content_leaves_out_products_caches_and_special_files_and_never_follows_a_link(tmp_path):
    root = tmp_path / "solution"
    for name in ("main.py", "pkg/mod.py", ".venv/bin/python", "venv/x", "node_modules/m.js", "pkg/__pycache__/m.pyc",
                 ".git/HEAD", "target/release/bin", "build/a.class", "docs/build.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    (root / "build.sh").write_text("a file named like a product directory is content")
    os.mkfifo(root / "pipe")
    (root / "secret").symlink_to("/etc/shadow")
    (root / "linked_dir").symlink_to(root / "pkg")
    assert content.copy(root, tmp_path / "copy") == ["pipe (a FIFO)"]
    expected = ["build.sh", "docs/build.md", "linked_dir", "main.py", "pkg/mod.py", "secret"]
    assert sorted(str(path.relative_to(root)) for path in content.walk(root)) == expected
    assert sorted(str(p.relative_to(tmp_path / "copy")) for p in content.walk(tmp_path / "copy")) == expected
    assert content.read_link_or_file(root / "secret") == b"-> /etc/shadow"


def test_fingerprints_name_every_file_added_removed_or_changed(tmp_path):
    (tmp_path / "a").write_text("1")
    (tmp_path / "b").write_text("2")
    (tmp_path / "Cargo.lock").write_text("3")
    before = content.fingerprint(tmp_path, ["Cargo.lock"])
    (tmp_path / "a").write_text("changed")
    (tmp_path / "b").unlink()
    (tmp_path / "c").write_text("new")
    (tmp_path / "Cargo.lock").write_text("a product may change")
    assert content.changes(before, content.fingerprint(tmp_path, ["Cargo.lock"])) == ["changed a", "removed b",
                                                                                     "added c"]
    assert content.digest(tmp_path) != content.digest(tmp_path, b"salt")


@pytest.mark.parametrize("copier", [content.copy, copy], ids=["content", "sandbox copy_out"])
def test_a_copy_keeps_no_setuid_setgid_or_sticky_bit(tmp_path, copier):
    root = tmp_path / "workspace"
    (root / "shared").mkdir(parents=True)
    (root / "tool").write_text("#!/bin/sh\n")
    for name, mode in (("tool", 0o4755), ("shared", 0o3775), ("", 0o1777)):
        os.chmod(root / name, mode)
    copier(root, tmp_path / "copy")
    modes = [stat.S_IMODE((tmp_path / "copy" / name).stat().st_mode) for name in ("tool", "shared", "")]
    assert modes == [0o755, 0o775, 0o777]


def test_a_temporary_directory_whose_owner_died_is_removed_at_the_next_start_and_no_other(tmp_path):
    mine = owned_tempdir("scbench-test-")
    dead = subprocess.run([sys.executable, "-c", "from scbench.paths import owned_tempdir; "
                           "print(owned_tempdir('scbench-test-'))"], capture_output=True, text=True, check=True)
    left = Path(dead.stdout.strip())  # its process ended without release(), as a SIGKILL leaves it
    assert (left.is_dir(), held(left.with_suffix(".lock")), held(mine.with_suffix(".lock"))) == (True, False, True)
    again = owned_tempdir("scbench-test-")
    assert (left.exists(), left.with_suffix(".lock").exists(), mine.is_dir()) == (False, False, True)
    for directory in (mine, again):
        release(directory)
    assert not mine.exists() and not mine.with_suffix(".lock").exists()

"""Tracks that name their interpreter (``interpreter:`` in tracks.yaml): a solution written for Python 3.12 runs
where a python3.12 is installed, and is refused with the reason where none is."""

import glob
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import scbench

NEEDS_312 = "import sys\nprint(f\"{\"3.12 quotes\"} {sys.version_info[:2] >= (3, 12)}\")\n"
"""A program only Python 3.12 parses: the same quotes inside an f-string's replacement field."""


def python312_directory() -> str | None:
    """A directory holding a real ``python3.12`` (not a version manager's shim): on the PATH, or pyenv's."""
    directories = [d for d in os.environ.get("PATH", "").split(os.pathsep) if Path(d).name != "shims"]
    found = shutil.which("python3.12", path=os.pathsep.join(directories))
    pyenv = sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.12*/bin")))
    candidates = [str(Path(found).parent)] if found else pyenv
    return candidates[-1] if candidates else None


@pytest.fixture
def problem(tmp_path: Path) -> Path:
    root = tmp_path / "quotes"
    (root / "cases/checkpoint_1").mkdir(parents=True)
    (root / "solutions/python3.12/checkpoint_1").mkdir(parents=True)
    (root / "solutions/python3.12/checkpoint_1/quotes.py").write_text(NEEDS_312)
    (root / "config.yaml").write_text(yaml.safe_dump({
        "name": "quotes", "description": "f-string quotes", "entry_file": "quotes",
        "checkpoints": {"checkpoint_1": {"order": 1}}}))
    (root / "checkpoint_1.md").write_text("# Checkpoint 1\n\nPrints a line.\n")
    (root / "cases/checkpoint_1/core.yaml").write_text(yaml.safe_dump({"cases": [
        {"id": "prints", "expect": {"stdout": "3.12 quotes True\n"}}]}))
    return root


@pytest.mark.skipif(python312_directory() is None, reason="needs a python3.12 (on the PATH or pyenv's)")
def test_a_solution_for_python_312_passes_on_its_track_and_not_on_the_default_one(problem, tmp_path):
    env = {**os.environ, "PATH": f"{python312_directory()}{os.pathsep}{os.environ['PATH']}"}
    solution = problem / "solutions/python3.12/checkpoint_1"
    on_312 = scbench("eval", problem, "-c", 1, "-t", "python3.12", "-s", solution, "--out", tmp_path / "a", env=env)
    assert on_312.returncode == 0, on_312.stdout + on_312.stderr
    default = scbench("eval", problem, "-c", 1, "-t", "python", "-s", solution, "--out", tmp_path / "b", env=env)
    failures = json.loads((tmp_path / "b/results.json").read_text())["cases"][0]["steps"][0]["failures"]
    assert (default.returncode, [f["target"] for f in failures]) == (1, ["exit_code", "stdout"])
    # scbench check finds the reference under solutions/python3.12 and runs it on its track
    assert scbench("check", problem, env=env).stdout.rstrip().endswith("consistent")


def test_a_track_whose_interpreter_is_missing_is_refused_with_the_reason(problem, tmp_path):
    env = {**os.environ, "PATH": os.pathsep.join(["/usr/bin", "/bin"])}
    solution = problem / "solutions/python3.12/checkpoint_1"
    done = scbench("eval", problem, "-c", 1, "-t", "python3.12", "-s", solution, "--out", tmp_path, env=env)
    assert (done.returncode, done.stderr.splitlines()) == (1, [
        f"setup failed for {solution}: the python3.12 track runs python3.12, which is not on the PATH (version "
        "managers' shims left out): install it or put its directory on the PATH, or pass another --track"])

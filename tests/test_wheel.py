"""scbench works as users install it: the built wheel, alone in a fresh virtual environment (no extras, no
editable install, no checkout beside it), run from another directory. Its resources (schemas, rules, adapters,
prompts, the scaffold) are package data; an optional feature without its extra names the extra."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

GO_TREE = ROOT / "tests/quality/fixtures/go"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The ``bin`` directory of a fresh venv holding only the wheel built from this checkout and its dependencies."""
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", root / "dist"],
                   check=True)
    subprocess.run([sys.executable, "-m", "venv", root / "venv"], check=True)
    wheel = next((root / "dist").glob("scbench-*.whl"))
    subprocess.run([root / "venv/bin/pip", "install", "-q", "--disable-pip-version-check", wheel], check=True)
    return root / "venv/bin"


def run(installed: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``scbench ARGS`` of the installed wheel, in ``cwd``; output captured as text."""
    return subprocess.run([installed / "scbench", *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COLUMNS": "200"})


def test_the_installed_wheel_compiles_checks_measures_prompts_and_runs_from_another_directory(installed, tmp_path):
    assert run(installed, tmp_path, "new", "problems/demo").returncode == 0
    compiled = run(installed, tmp_path, "compile", "problems/demo", "--out", "build")
    assert compiled.returncode == 0, compiled.stderr
    assert Path(tmp_path, compiled.stdout.strip()).is_file()
    prompt = run(installed, tmp_path, "prompt", "problems/demo", "-c", "1", "--template", "anti-slop")
    assert prompt.returncode == 0 and "python" in prompt.stdout.lower(), prompt.stderr
    measured = run(installed, tmp_path, "metrics", str(GO_TREE), "--json")
    assert measured.returncode == 0 and '"files": 0' not in measured.stdout, measured.stderr
    checked = run(installed, tmp_path, "check", "problems/demo")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = run(installed, tmp_path, "run", "problems/demo", "--agent", "replay", "--snapshots",
              "problems/demo/solutions/python", "--out", "runs/replay")
    assert ran.returncode == 0, ran.stderr
    assert run(installed, tmp_path, "report", "runs/replay").returncode == 0


def test_an_optional_feature_without_its_extra_says_which_extra_to_install(installed, tmp_path):
    html = run(installed, tmp_path, "report", str(tmp_path), "--html", "report.html")
    assert html.returncode == 2 and "pip install 'scbench[html]'" in html.stderr
    docker = run(installed, tmp_path, "sandbox", "list")
    assert "the Docker SDK is not installed: pip install 'scbench[docker]'" in docker.stdout + docker.stderr

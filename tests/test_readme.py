"""The README's first lines are the front door: two commands, and CI runs the second."""

from conftest import ROOT


def test_readme_gives_the_two_commands_and_ci_runs_the_test_command():
    lines = (ROOT / "README.md").read_text().splitlines()
    setup_and_check, setup_and_test = lines[2].strip(), lines[3].strip()
    assert setup_and_check.endswith("scbench check problems/code_search")
    assert setup_and_test.endswith("ruff check . && .venv/bin/python -m pytest -q")
    assert "sed -n '4p' README.md" in (ROOT / ".ci/run").read_text()

"""The README's first lines are the front door: its commands, and CI runs the test command."""

import re

from conftest import ROOT


def test_readme_gives_the_front_door_commands_and_ci_runs_the_test_command():
    head = (ROOT / "README.md").read_text().split("\n\n")[1].splitlines()
    commands = [line.strip() for line in head]
    assert any(command.endswith("scbench check problems/code_search") for command in commands)
    tests = [command for command in commands if re.search(r"python -m pytest", command)]
    assert len(tests) == 1 and tests[0].endswith("ruff check . && .venv/bin/python -m pytest -q")
    assert "grep -m1 -E '^    .*python -m pytest' README.md" in (ROOT / ".ci/run").read_text()
    loops = [command for command in commands if "scbench run problems/" in command]
    assert len(loops) == 1 and "--agent replay" in loops[0] and "&& .venv/bin/scbench report " in loops[0]

"""YAML anchors in case files: shared values compile, a repeated anchor name is explained with its fix."""

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from scbench.problem.compiler import compile_problem
from scbench.problem.diagnostics import ProblemError

SHARED = """\
cases:
  - id: first
    args: [get, x]
    expect: &missing {exit_code: 1}
  - id: second
    args: [get, y]
    expect: *missing
"""


@pytest.fixture
def problem(tmp_path: Path) -> Path:
    target = tmp_path / "kv"
    shutil.copytree(FIXTURES / "kv", target)
    return target


def test_an_anchor_shares_a_value_between_cases(problem):
    (problem / "cases/checkpoint_1/shared.yaml").write_text(SHARED)
    steps = {c.case.id: c.case.steps[0] for c in compile_problem(problem).checkpoints[0].cases}
    assert (steps["first"].args, steps["first"].expect.exit_code) == (["get", "x"], 1)
    assert (steps["second"].args, steps["second"].expect.exit_code) == (["get", "y"], 1)


def test_an_anchor_named_twice_says_where_and_how_to_rename(problem):
    # before: "not valid YAML/JSON: second occurrence", fixed by "quote strings containing ': ' or '#'"
    (problem / "cases/checkpoint_1/shared.yaml").write_text(
        SHARED + "  - id: third\n    args: [get, z]\n    expect: &missing {exit_code: 0}\n")
    with pytest.raises(ProblemError) as caught:
        compile_problem(problem)
    assert [d.render() for d in caught.value.diagnostics] == [
        "kv/cases/checkpoint_1/shared.yaml:10: the anchor &missing is defined again (first at line 4); a YAML file "
        "names each anchor once\n"
        "    fix: give this one a name of its own (&missing_2) and write *missing_2 where its value is meant"]

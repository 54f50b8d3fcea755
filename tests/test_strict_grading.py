"""Grading is never lenient and never crashes on what an output or an author may write: JSON with a
duplicate key or NaN is not JSON, YAML dates stay text, an expected number beyond a double or a
normalize rule's bad JSONPath is a compile error, JSON Lines diffs name the missing or extra item."""

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from scbench.grade.outputs import check_output
from scbench.problem.compiler import compile_problem
from scbench.problem.diagnostics import ProblemError
from scbench.problem.model import OutputExpectation as Expect


def verdict(spec: Expect, actual: str) -> str | None:
    failure = check_output("stdout", spec, actual.encode())
    return None if failure is None else "\n".join(filter(None, [failure.message, failure.diff]))


@pytest.mark.parametrize(("spec", "actual", "expected"), [
    (Expect(format="json", value={"a": 2}), '{"a": 1, "a": 2}',
     'not valid json: duplicate key "a" in an object\n{"a": 1, "a": 2}'),
    (Expect(format="json", value={"b": {"a": 2}}), '{"b": {"a": 2, "a": 2}}',
     'not valid json: duplicate key "a" in an object\n{"b": {"a": 2, "a": 2}}'),
    (Expect(format="jsonl", value=[{}, {"a": 2}]), '{}\n{"a": 1, "a": 2}\n',
     'not valid jsonl: line 2: duplicate key "a" in an object\n{}\n{"a": 1, "a": 2}\n'),
    (Expect(format="json", value=[None]), "[NaN]", "not valid json: NaN is not a JSON number\n[NaN]"),
    (Expect(format="json", value={"x": None}), '{"x": -Infinity}',
     'not valid json: -Infinity is not a JSON number\n{"x": -Infinity}'),
    (Expect(format="jsonl", value=[1]), "Infinity\n",
     "not valid jsonl: line 1: Infinity is not a JSON number\nInfinity\n"),
])
def test_json_that_python_reads_leniently_is_not_json(spec, actual, expected):
    assert verdict(spec, actual) == expected


@pytest.mark.parametrize(("actual", "expected"), [
    ("b: !!binary aGVsbG8=\n", "not valid yaml: binary data (!!binary) is not a JSON value\nb: !!binary aGVsbG8=\n"),
    ("b: !!set {a}\n", "not valid yaml: a set (!!set) is not a JSON value\nb: !!set {a}\n"),
    ("1: a\nb: c\n", '$["1"]: unexpected key (actual "a")'),
    ("b: c\ntrue: 1\n", "$.true: unexpected key (actual 1)"),
])
def test_yaml_is_read_as_the_json_value_it_stands_for(actual, expected):
    assert verdict(Expect(format="yaml", value={"b": "c"}), actual) == expected


def test_yaml_dates_are_read_as_the_text_they_are():
    spec = Expect(format="yaml", value={"a": "2024-01-02", "b": "2024-01-02 10:00:00"})
    assert verdict(spec, "a: 2024-01-02\nb: 2024-01-02 10:00:00\n") is None
    assert verdict(spec, "a: 2024-01-03\nb: !!timestamp 2024-01-02 10:00:00\n") == \
        '$.a: expected "2024-01-02", actual "2024-01-03"'


@pytest.mark.parametrize(("actual", "expected"), [
    ('{"n": 1}\n{"n": 3}\n{"n": 4}\n', '$[1]: missing item {"n": 2}'),
    ('{"n": 1}\n{"n": 2}\n{"n": 9}\n{"n": 3}\n{"n": 4}\n', '$[2]: unexpected item {"n": 9}'),
    ('{"n": 1}\n{"n": 2}\n{"n": 5}\n{"n": 4}\n', "$[2].n: expected 3, actual 5"),
    ('{"n": 2}\n{"n": 3}\n{"n": 4}\n{"n": 5}\n',
     '2 differences, first $[0]: missing item {"n": 1}\n$[0]: missing item {"n": 1}\n'
     '$[3]: unexpected item {"n": 5}'),
])
def test_json_lines_diffs_align_items_and_name_the_missing_or_extra_one(actual, expected):
    spec = Expect(format="jsonl", value=[{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}])
    assert verdict(spec, actual) == expected


@pytest.fixture
def problem(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / "kv", tmp_path / "kv"))


def diagnostics(root: Path) -> list[str]:
    with pytest.raises(ProblemError) as caught:
        compile_problem(root)
    return [d.render() for d in caught.value.diagnostics]


BEYOND = ("the number inf is beyond what a double holds (at most 1.7976931348623157e+308)\n"
          "    fix: write a number a double holds, or the text the output prints, as a string with format: text")


@pytest.mark.parametrize(("case", "files", "expected"), [
    ("{id: c, expect: {stdout: {format: json, value: {big: 1.0e+400}}}}", {},
     f"cases[0].expect.stdout.value.big: {BEYOND}"),
    ("{id: c, expect: {stdout: {format: json, file: ../../expected/big.json}}}",
     {"expected/big.json": '{"n": [1, -1e999]}'},
     f"cases[0].expect.stdout.file: ../../expected/big.json: $.n[1]: {BEYOND.replace('inf', '-inf', 1)}"),
    ("{id: c, expect: {stdout: {format: json, value: {}, normalize: [{path: '$.[', strip: true}]}}}", {},
     "cases[0].expect.stdout.normalize[0].path: invalid JSONPath '$.[': "),
])
def test_expectations_a_grader_cannot_use_are_compile_errors(problem, case, files, expected):
    for name, content in files.items():
        (problem / name).parent.mkdir()
        (problem / name).write_text(content)
    (problem / "cases/checkpoint_1/bad.yaml").write_text(f"cases:\n  - {case}\n")
    found = diagnostics(problem)
    assert len(found) == 1 and found[0].startswith(f"kv/cases/checkpoint_1/bad.yaml:2: {expected}"), found

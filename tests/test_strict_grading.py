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
    ("{id: c, expect: {files: {c.ini: {format: ini, value: {s: {port: 80}}}}}}", {},
     'cases[0].expect.files.c.ini.value.s.port: an ini value is text, never a number, boolean or null\n'
     '    fix: quote it: "80"'),
    ("{id: c, expect: {stdout: {format: ini, value: {s: [a]}}}}", {},
     "cases[0].expect.stdout.value.s: section 's' is not an object of keys\n    fix: write {key: \"text\"}"),
    ("{id: c, expect: {stdout: {format: toml, value: {a: [1, null]}}}}", {},
     "cases[0].expect.stdout.value.a[1]: toml has no null\n    fix: leave the key out"),
    ("{id: c, expect: {stdout: {format: toml, value: [1]}}}", {},
     "cases[0].expect.stdout.value: a toml document is a table\n    fix: write the value as an object of keys"),
    ("{id: c, expect: {stdout: {format: toml, sort_by: [a], value: {}}}}", {},
     "cases[0].expect.stdout.sort_by: sort_by sorts a list, and a toml output never is one\n"
     "    fix: use format: jsonl, json, lines, yaml or csv; for lists inside a document, unordered: true"),
    ("{id: c, expect: {stdout: {format: ini, file: ../../expected/c.ini}}}", {"expected/c.ini": "[s]\nk=1\nk=2\n"},
     'cases[0].expect.stdout.file: ../../expected/c.ini: not valid ini: line 3: duplicate key "k" in section [s]'),
    ("{id: c, expect: {stdout: {format: toml, file: ../../expected/c.toml}}}", {"expected/c.toml": "a = nan\n"},
     f"cases[0].expect.stdout.file: ../../expected/c.toml: $.a: {BEYOND.replace('inf', 'nan', 1)}"),
])
def test_expectations_a_grader_cannot_use_are_compile_errors(problem, case, files, expected):
    for name, content in files.items():
        (problem / name).parent.mkdir()
        (problem / name).write_text(content)
    (problem / "cases/checkpoint_1/bad.yaml").write_text(f"cases:\n  - {case}\n")
    found = diagnostics(problem)
    assert len(found) == 1 and found[0].startswith(f"kv/cases/checkpoint_1/bad.yaml:2: {expected}"), found


TOML = 'title = "x"\nwhen = 2024-01-02T10:00:00Z\nday = 2024-01-02\n[[server]]\nname = "a"\nport = 80\n' \
       '[[server]]\nname = "b"\nport = 81.0\n'


@pytest.mark.parametrize(("spec", "expected"), [
    (Expect(format="toml", value={"title": "x", "when": "2024-01-02T10:00:00+00:00", "day": "2024-01-02",
                                  "server": [{"name": "a", "port": 80}, {"name": "b", "port": 81}]}), None),
    (Expect(format="toml", unordered=True, subset=True, ignore=["$.when"],
            value={"server": [{"name": "b"}, {"name": "a"}]}), None),
    (Expect(format="toml", value={"title": "x", "when": "[..]", "day": "2024-01-02",
                                  "server": [{"name": "b", "port": 81.0}, {"name": "a", "port": 80}]}),
     '$.server: same items, different order (first at [0]: expected {"name": "b", "port": 81.0}, '
     'actual {"name": "a", "port": 80})'),
    (Expect(format="toml", tolerance={"abs": 0.5}, normalize=[{"path": "$.title", "lower": True}],
            schema={"required": ["server"]},
            value={"title": "X", "when": "[..]", "day": "2024-01-02",
                   "server": [{"name": "a", "port": 80.4}, {"name": "b", "port": 81}]}),
     None),
])
def test_toml_is_compared_as_the_document_it_parses_to_with_dates_as_text(spec, expected):
    assert verdict(spec, TOML) == expected


@pytest.mark.parametrize(("format_", "actual", "expected"), [
    ("toml", "a = 1\na = 2\n", "not valid toml: Cannot overwrite a value (at line 2, column 6)\na = 1\na = 2\n"),
    ("toml", "a = [\n", "not valid toml: Invalid value (at end of document)\na = [\n"),
    ("ini", "[s]\nK = 1\nK = 2\n", 'not valid ini: line 3: duplicate key "K" in section [s]\n[s]\nK = 1\nK = 2\n'),
    ("ini", "[s]\n[s]\n", "not valid ini: line 2: duplicate section [s]\n[s]\n[s]\n"),
    ("ini", "k = v\n", "not valid ini: line 1: 'k = v\\n' comes before any [section] header\nk = v\n"),
    ("ini", "[s]\nflag\n;c\nx\n", "not valid ini: line 2: cannot parse 'flag\\n'; line 4: cannot parse 'x\\n'\n"
                                  "[s]\nflag\n;c\nx\n"),
])
def test_toml_and_ini_that_do_not_parse_fail_with_the_parsers_message(format_, actual, expected):
    failure = check_output("file conf.out", Expect(format=format_, value={}), actual.encode())
    assert (failure.target, f"{failure.message}\n{failure.diff}") == ("file conf.out", expected)


def test_ini_is_sections_of_text_keys_as_written_default_a_section_like_any_other():
    actual = "[DEFAULT]\nlevel = 1\n\n[Paths]\nHome = %(level)s/x\nlines = one\n  two\nempty =\n# a comment\n"
    spec = Expect(format="ini", value={"DEFAULT": {"level": "1"},
                                       "Paths": {"Home": "%(level)s/x", "lines": "one\ntwo", "empty": ""}})
    assert verdict(spec, actual) is None
    assert verdict(spec.model_copy(update={"value": {"DEFAULT": {"level": "1"}, "Paths": {"home": "%(level)s/x"}},
                                           "subset": True}), actual) == \
        '$.Paths.home: missing key (expected "%(level)s/x")'

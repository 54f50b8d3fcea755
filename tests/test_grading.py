"""Matchers and diffs: each expectation form against exact outputs, with the exact messages."""

import pytest

from scbench.grade.outputs import check_output
from scbench.grade.text import matches
from scbench.problem.model import OutputExpectation as Expect


def diff_of(spec: Expect, actual: str) -> str | None:
    failure = check_output("stdout", spec, actual.encode())
    return None if failure is None else "\n".join(filter(None, [failure.message, failure.diff]))


@pytest.mark.parametrize(("expected", "actual", "ok"), [
    ("a\n...\nb\n", "a\nb\n", True),
    ("a\n...\nb\n", "a\nx\ny\nb\n", True),
    ("a\n...\nb\n", "a\nx\nbc\n", False),
    ("took [..]s\n", "took 0.25s\n", True),
    ("took [..]s\n", "took 1\n2s\n", False),
    ("exact\n", "exact", False),
])
def test_text_wildcards(expected, actual, ok):
    assert matches(expected, actual) is ok


def test_column_off_by_one_names_the_field():
    spec = Expect(format="jsonl", value=[{"file": "a.py", "start": {"line": 3, "col": 5}}])
    assert diff_of(spec, '{"file": "a.py", "start": {"line": 3, "col": 6}}\n') == (
        "$[0].start.col: expected 5, actual 6")


def test_missing_and_unexpected_keys_and_items():
    spec = Expect(format="json", value={"a": 1, "items": [1, 2]})
    assert diff_of(spec, '{"b": 2, "items": [1, 2, 3]}') == (
        "3 differences, first $.a: missing key (expected 1)\n"
        "$.a: missing key (expected 1)\n$.b: unexpected key (actual 2)\n$.items[2]: unexpected item 3")


def test_subset_allows_extra_keys_only():
    spec = Expect(format="json", subset=True, value={"a": {"b": 1}})
    assert diff_of(spec, '{"a": {"b": 1, "c": 2}, "d": 3}') is None
    assert diff_of(spec, '{"a": {"c": 2}}') == "$.a.b: missing key (expected 1)"


def test_unordered_is_a_multiset():
    spec = Expect(format="json", unordered=True, value=[1, 2, 2])
    assert diff_of(spec, "[2, 1, 2]") is None
    assert diff_of(spec, "[2, 1, 1]") == (
        "2 differences, first $[0]: expected 1 occurrence(s) of 1, actual 2\n"
        "$[0]: expected 1 occurrence(s) of 1, actual 2\n$[1]: expected 2 occurrence(s) of 2, actual 1")


def test_sort_by_keys_then_exact():
    spec = Expect(format="jsonl", sort_by=["f", "p.l"], value=[{"f": "a", "p": {"l": 2}}, {"f": "b", "p": {"l": 1}}])
    assert diff_of(spec, '{"f": "b", "p": {"l": 1}}\n{"f": "a", "p": {"l": 2}}\n') is None


def test_float_tolerance_absolute_and_relative():
    assert diff_of(Expect(format="json", value=[1.0], tolerance={"abs": 0.01}), "[1.005]") is None
    assert diff_of(Expect(format="json", value=[1000.0], tolerance={"rel": 0.001}), "[1000.9]") is None
    assert diff_of(Expect(format="json", value=[1.0], tolerance={"abs": 0.001}), "[1.01]") == (
        "$[0]: expected 1.0, actual 1.01")


def test_wildcards_in_json_leaves_and_any_value():
    spec = Expect(format="json", value={"id": "[..]", "at": "2026-[..]Z", "n": 1})
    assert diff_of(spec, '{"id": 42, "at": "2026-11-30T00:00:00Z", "n": 1}') is None
    assert diff_of(spec, '{"id": 42, "at": "2025-01-01T00:00:00Z", "n": 1}') == (
        '$.at: expected "2026-[..]Z", actual "2025-01-01T00:00:00Z"')


def test_ignore_json_paths_on_both_sides():
    spec = Expect(format="jsonl", ignore=["$[*].ts"], value=[{"ts": 1, "v": "x"}])
    assert diff_of(spec, '{"ts": 999, "v": "x"}\n') is None


def test_key_order():
    spec = Expect(format="json", key_order=True, value={"$A": 1, "$B": 2})
    assert diff_of(spec, '{"$A": 1, "$B": 2}') is None
    assert diff_of(spec, '{"$B": 2, "$A": 1}') == (
        '$: keys expected in order ["$A", "$B"], actual ["$B", "$A"]')


def test_text_diff_shows_invisible_characters_expected_first():
    assert diff_of(Expect(value="a b\nc\n"), "a\tb\nc \n") == (
        "text differs\n--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n-a b\n-c\n+a\\tb\n+c·\n ")


def test_regex_and_invalid_json():
    assert diff_of(Expect(value=r"v\d+\.\d+\n", regex=True), "v1.2\n") is None
    assert diff_of(Expect(format="json", value={}), "{oops") == (
        "not valid json: Expecting property name enclosed in double quotes at line 1 column 2\n{oops")


def test_yaml_csv_lines_formats():
    assert diff_of(Expect(format="yaml", value={"a": [1]}), "a:\n  - 1\n") is None
    assert diff_of(Expect(format="csv", value=[{"x": "1", "y": "2"}]), "x,y\n1,2\n") is None
    assert diff_of(Expect(format="lines", value=["one", "t[..]"]), "one\ntwo\n") is None


def test_json_schema_of_output():
    spec = Expect(format="json", schema={"type": "object", "required": ["id"]})
    assert diff_of(spec, '{"id": 1}') is None
    assert diff_of(spec, "{}") == "does not match the schema\n$: 'id' is a required property"


def test_missing_output_file():
    assert check_output("file out.json", Expect(format="json", value={}), None).message == "was not created"


def test_huge_outputs_give_short_reports():
    actual = "x" * 5_000_000 + "\n" + "y\n" * 100_000
    failure = check_output("stdout", Expect(value="small\n"), actual.encode())
    assert failure.diff.splitlines()[5] == "+" + "x" * 300 + "… (5000000 chars)"
    assert len(failure.diff) < 2_000
    failure = check_output("stdout", Expect(value=r"\d+", regex=True), actual.encode())
    assert failure.diff.endswith("\ny\n… (99942 more lines)")

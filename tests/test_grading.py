"""Matchers and diffs: each expectation form against exact outputs, with the exact messages."""

import json

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
    assert diff_of(spec, "[2, 1, 1]") == "$[2]: expected 2, actual 1"


def test_unordered_long_and_deep_lists_are_settled_by_exact_pairs_first():
    records = [{"id": i, "tags": [i % 7, i % 3], "sub": [{"x": j} for j in range(3)]} for i in range(3000)]
    shuffled = records[::-1]
    spec = Expect(format="json", unordered=True, value=records)
    assert diff_of(spec, json.dumps(shuffled)) is None
    shuffled[10] = {**shuffled[10], "tags": [9, 9]}
    assert diff_of(spec, json.dumps(shuffled)) == (
        "4 differences, first $[2989].tags[0]: missing item 0\n"
        "$[2989].tags[0]: missing item 0\n$[2989].tags[0]: unexpected item 9\n"
        "$[2989].tags[1]: missing item 1\n$[2989].tags[1]: unexpected item 9")


def test_unordered_items_match_with_wildcards_and_tolerance():
    # before: DeepDiff pairs unordered items by hash, so an item holding a wildcard or a float
    # within tolerance never found its partner
    spec = Expect(format="json", unordered=True, tolerance={"abs": 0.01},
                  value={"problems": [{"path": "$.b", "message": "[..]"}, {"path": "$.a", "message": "must be [..]"}],
                         "sizes": [1.0, 2.0]})
    assert diff_of(spec, '{"problems": [{"path": "$.a", "message": "must be a name"}, {"path": "$.b", "message": 3}], '
                         '"sizes": [2.004, 0.998]}') is None
    assert diff_of(spec, '{"problems": [{"path": "$.a", "message": "is required"}, {"path": "$.b", "message": 3}], '
                         '"sizes": [2.004, 0.998]}') is not None


def test_unordered_wildcard_items_are_paired_as_a_whole():
    # a greedy pairing gives the wildcard item the only partner of the exact one
    spec = Expect(format="json", unordered=True, value=[{"k": "[..]"}, {"k": "a"}])
    assert diff_of(spec, '[{"k": "a"}, {"k": "b"}]') is None
    assert diff_of(spec, '[{"k": "b"}, {"k": "c"}]') == "$[1].k: expected \"a\", actual \"c\""


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
        "text differs at line 1, column 2 (2 lines differ)\n--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n"
        "-a b\n-c\n+a\\tb\n+c·\n ")


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
    assert failure.message == "text differs at line 1, column 1 (100001 lines differ)"
    assert failure.diff.splitlines()[4] == "+" + "x" * 300 + "… (5000000 chars)"
    assert len(failure.diff) < 2_000
    failure = check_output("stdout", Expect(value=r"\d+", regex=True), actual.encode())
    assert failure.diff.endswith("\ny\n… (99942 more lines)")


def test_numbers_are_exact_unless_a_tolerance_is_given():
    assert diff_of(Expect(format="json", value=[0.3]), "[0.30000000000000004]") == (
        "$[0]: expected 0.3, actual 0.30000000000000004")
    assert diff_of(Expect(format="json", value={"n": 1}), '{"n": 1.0000000001}') == (
        "$.n: expected 1, actual 1.0000000001")
    assert diff_of(Expect(format="json", value=[0.3], tolerance={"abs": 1e-12}), "[0.30000000000000004]") is None


def test_integers_equal_integral_floats_and_booleans_are_not_numbers():
    assert diff_of(Expect(format="json", value=[1, {"n": 2}]), '[1.0, {"n": 2.0}]') is None
    assert diff_of(Expect(format="json", unordered=True, value=[1, 2.5]), "[2.5, 1.0]") is None
    assert diff_of(Expect(format="json", value=[True, 0]), "[1, false]") == (
        "2 differences, first $[0]: expected true (boolean), actual 1 (number)\n"
        "$[0]: expected true (boolean), actual 1 (number)\n$[1]: expected 0 (number), actual false (boolean)")


def test_reordered_lists_say_same_items_different_order():
    spec = Expect(format="jsonl", value=[{"a": 1}, {"a": 2}, {"a": 3}])
    assert diff_of(spec, '{"a": 1}\n{"a": 3}\n{"a": 2}\n') == (
        '$: same items, different order (first at [1]: expected {"a": 2}, actual {"a": 3})')
    spec = Expect(format="json", value={"tags": ["x", "y"], "n": 1})
    assert diff_of(spec, '{"tags": ["y", "x"], "n": 2}') == (
        '2 differences, first $.n: expected 1, actual 2\n$.n: expected 1, actual 2\n'
        '$.tags: same items, different order (first at [0]: expected "x", actual "y")')
    assert diff_of(Expect(value="a\nb\nc\n"), "a\nc\nb\n").splitlines()[0] == (
        "same lines, different order (first at line 2: expected 'b', actual 'c')")


def test_a_late_difference_is_located_and_the_differing_lines_counted():
    lines = [f"row {n}" for n in range(10_000)]
    actual = [*lines[:9_000], "row X", *lines[9_001:9_500], *lines[9_501:]]
    report = diff_of(Expect(value="\n".join(lines) + "\n"), "\n".join(actual) + "\n").splitlines()
    assert report[:9] == ["text differs at line 9001, column 5 (2 lines differ)", "--- expected", "+++ actual",
                          "@@ -8999,5 +8999,5 @@", " row 8998", " row 8999", "-row 9000", "+row X", " row 9001"]
    assert report[10:12] == ["@@ -9499,5 +9499,4 @@", " row 9498"]


def test_a_difference_after_column_300_is_shown_around_its_column():
    report = diff_of(Expect(value="x" * 400 + "abc\n"), "x" * 400 + "abd\n").splitlines()
    assert report[0] == "text differs at line 1, column 403 (1 line differs)"
    assert report[4:6] == ["-…" + "x" * 38 + "abc", "+…" + "x" * 38 + "abd"]


def test_invalid_utf8_is_named_with_its_offset_never_replaced():
    assert diff_of(Expect(value="caf\ufffd\n"), "") is not None
    failure = check_output("stdout", Expect(value="caf\ufffd\n"), b"ok\ncaf\xe9\n")
    assert failure.message == ("not valid UTF-8: byte(s) e9 at offset 6 (line 2, byte 4 of the line): "
                               "invalid continuation byte")
    assert check_output("stdout", Expect(format="json", value=["\ufffd"]), b'["\xff"]').message.startswith(
        "not valid UTF-8: byte(s) ff at offset 2")
    assert check_output("file out.bin", Expect(), b"\xff\xfe") is None


def test_line_ending_and_final_newline_differences_are_named():
    assert diff_of(Expect(value="a\nb [..]\n"), "a\r\nb c\r\n") == (
        "only line endings differ: the actual text has CRLF (\\r\\n) where the expected text has LF (\\n)")
    assert diff_of(Expect(value="a\n"), "a\n\n") == "only the final newlines differ: expected 1, actual 2"


@pytest.mark.parametrize(("expected", "actual", "why"), [
    ("took [..]s to index [..] files\n", "took 0.5s to index 3 dirs\n",
     "after column 19, the line should end with ' files', actual '3 dirs'"),
    ("took [..]s to index [..] files\n", "took 0.5 to index 3 files\n",
     "after column 5, 's to index·' does not occur in the rest, '0.5 to index 3 files'"),
    ("took [..]s\n", "spent 1s\n", "the line should start with 'took·', actual 'spent 1s'"),
])
def test_a_wildcard_line_that_fails_names_the_part(expected, actual, why):
    assert diff_of(Expect(value=expected), actual).splitlines()[0] == f"text differs at line 1: {why} (1 line differs)"


def test_hostile_outputs_fail_in_bounded_time_without_a_traceback():
    bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{x}: &{x} [{', '.join(['*' + p] * 9)}]\n" for p, x in zip("abcdefgh", "bcdefghi", strict=True))
    assert diff_of(Expect(format="yaml", value={}), bomb).startswith(
        "not valid yaml: more than 1,000,000 values (YAML aliases expanded)")
    assert diff_of(Expect(format="json", value=[]), "[" * 100_000 + "]" * 100_000).startswith(
        "not valid json: nested deeper than 100 levels")
    assert diff_of(Expect(format="jsonl", value=[]), "[]\n" + "[" * 101 + "]" * 101).startswith(
        "not valid jsonl: line 2: nested deeper than 100 levels")


def test_subset_works_on_unordered_lists():
    spec = Expect(format="jsonl", unordered=True, subset=True, value=[{"word": "a"}, {"word": "b"}])
    assert diff_of(spec, '{"n": 1, "word": "b"}\n{"n": 2, "word": "a"}\n') is None
    assert diff_of(spec, '{"n": 1, "word": "b"}\n{"n": 2, "word": "c"}\n') == '$[0].word: expected "a", actual "c"'


def test_a_wildcard_text_past_the_alignment_budget_still_names_the_first_difference():
    # before: 448 distinct wildcard lines x 448 actual lines passed MAX_SUBSTITUTIONS, no line was
    # aligned to its wildcard line, and the report read "line 1: the line matches (448 lines differ)"
    expected = [f"{n:05d} word [..]" for n in range(448)]
    actual = [f"{n:05d} word {n * 7}" for n in range(448)]
    actual[5] = "00005 ward 35"
    report = diff_of(Expect(value="\n".join(expected) + "\n"), "\n".join(actual) + "\n").splitlines()
    assert report == ["text differs at line 6: the line should start with '00005 word·', actual '00005 ward 35' "
                      "(1 line differs)", "--- expected", "+++ actual", "@@ -4,5 +4,5 @@", " 00003 word 21",
                      " 00004 word 28", "-00005 word [..]", "+00005 ward 35", " 00006 word 42", " 00007 word 49"]


def test_wildcard_texts_of_any_size_match_line_by_line():
    lines = [f"{n:05d} {'word ' * (n % 12 + 1)}{n / 7:.6f}" for n in range(10_000)]
    wildcard = "\n".join(line.rsplit(" ", 1)[0] + " [..]" for line in lines) + "\n"
    assert matches(wildcard, "\n".join(lines) + "\n")
    assert matches("head\n...\n" + wildcard + "...\ntail\n", "head\nx\n" + "\n".join(lines) + "\ny\nz\ntail\n")
    assert not matches(wildcard, "\n".join(lines[:-1]) + "\n")
    assert matches("a\n...\nb\n...\nb\n", "a\nb\nb\n")
    assert not matches("a\n...\nb\n...\nb\n", "a\nb\n")
    assert matches("[..]a[..]a\n", "aaa\n")
    assert not matches("x[..]yy\n", "xy\n")
    report = diff_of(Expect(value=wildcard), "\n".join(f"{n:05d} none" for n in range(10_000)) + "\n")
    assert report.splitlines()[0] == ("text differs at line 1: the line should start with '00000 word·', "
                                      "actual '00000 none' (10000 lines differ)")


def test_normalize_rewrites_selected_strings_on_both_sides():
    loose = {"path": "$.stdout", "strip": True, "delete": " \n\\", "lower": True}
    spec = Expect(format="json", normalize=[loose, {"path": "$.files.*", "delete": " "}],
                  value={"stdout": "A,B\nTrue\n", "files": {"o.json": '{"a": 1}'}, "stderr": "x y"})
    assert check_output("body", spec, b'{"stdout": " a, b\\ntrue", "files": {"o.json": "{\\"a\\":1}"}, '
                                      b'"stderr": "x y"}') is None
    failure = check_output("body", spec, b'{"stdout": "a,b true", "files": {"o.json": "{}"}, "stderr": "xy"}')
    assert failure.message == '2 differences, first $.files["o.json"]: expected "{\\"a\\":1}", actual "{}"'
    assert failure.diff.splitlines()[1] == '$.stderr: expected "x y", actual "xy"'


def test_normalize_steps_apply_only_when_asked_and_keep_the_any_wildcard():
    spec = Expect(format="json", normalize=[{"path": "$[*]", "lower": True}], value=["ABC", "[..]", " x "])
    assert check_output("body", spec, b'["abc", 3, " X "]') is None
    assert check_output("body", spec, b'["abc", 3, "x"]').message == '$[2]: expected " x ", actual "x"'


@pytest.mark.parametrize(("spec", "actual", "expected"), [
    (Expect(contains=["error: no such key"], not_contains=["Traceback"], search=[r"^took \d+ms$"]),
     "warn\nerror: no such key: x\ntook 12ms\n", None),
    (Expect(contains=["error: no such key"]), "warn\nerror: no such kye\n",
     "missing \"error: no such key\" (closest: line 2 'error: no such kye')"),
    (Expect(not_contains=["Traceback"], search=[r"^took \d+ms$"]), "a\nb\nTraceback (most recent call last):\n",
     "2 text checks fail, first forbidden \"Traceback\" occurs at line 3 'Traceback (most recent call last):'\n"
     "forbidden \"Traceback\" occurs at line 3 'Traceback (most recent call last):'\n"
     "no line matches /^took \\d+ms$/ (closest: line 3 'Traceback (most recent call last):')"),
    (Expect(search=["a.c"]), "", "no line matches /a.c/ (the output is empty)"),
    (Expect(search=["^b$"], contains=["a\nb"]), "a\nb\n", None),
    (Expect(search=["a.b"]), "a\nb\n", "no line matches /a.b/ (closest: line 1 'a')"),
    (Expect(format="json", value={"a": 1}, contains=['"a": 1']), '{"a":1}',
     "missing \"\\\"a\\\": 1\" (closest: line 1 '{\"a\":1}')"),
    (Expect(format="json", value={"a": 2}, contains=['"a":1']), '{"a":1}', "$.a: expected 2, actual 1"),
    (Expect(format="yaml", not_contains=["\t"]), "a:\n  b:\tc\n", "forbidden \"\\t\" occurs at line 2 '  b:\\\\tc'"),
])
def test_text_checks_search_the_output_as_written_and_name_the_closest_line(spec, actual, expected):
    assert diff_of(spec, actual) == expected


def test_text_checks_need_utf8_even_without_a_value():
    assert check_output("file log", Expect(contains=["x"]), b"x\xff").message.startswith("not valid UTF-8: byte(s) ff")

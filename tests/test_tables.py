"""Table outputs (markdown tables, Key: value fields, tsv), typed cells and numbers within a tolerance in text."""

import pytest

from scbench.formats import PARSERS, typed
from scbench.grade.outputs import check_output
from scbench.problem.model import OutputExpectation as Expect

TABLE = """\
| id | name  | score |
| -- | ----- | ----- |
| 2  | b\\|c  | 2.50  |
| 1  | alpha |       |
"""


def diff_of(spec: Expect, actual: str) -> str | None:
    failure = check_output("stdout", spec, actual.encode())
    return None if failure is None else "\n".join(filter(None, [failure.message, failure.diff]))


def test_a_markdown_table_is_its_rows_as_objects_the_divider_skipped():
    assert PARSERS["markdown_table"](TABLE) == [{"id": "2", "name": "b|c", "score": "2.50"},
                                                {"id": "1", "name": "alpha", "score": ""}]
    assert PARSERS["markdown_table"]("a | b\n--|--\n") == []
    assert PARSERS["fields_table"]("Total: 2\nBest:  b|c\n\n" + TABLE)["fields"] == {"Total": "2", "Best": "b|c"}


@pytest.mark.parametrize(("format_name", "text", "message"), [
    ("markdown_table", "no table here\n", "expected one markdown table (a header row, a divider row such as "
                                          "| --- |, then rows), found 0"),
    ("markdown_table", "Total: 2\n" + TABLE, "line 1: text before the table: 'Total: 2' (for Key: value lines, "
                                             "format: fields_table)"),
    ("markdown_table", TABLE + "\n| x |\n| - |\n", "expected one markdown table (a header row, a divider row such "
                                                    "as | --- |, then rows), found 2"),
    ("markdown_table", TABLE + "\ndone\n", "line 6: text after the table: 'done'"),
    ("markdown_table", "| a | a |\n| - | - |\n", "line 1: column 'a' is named twice in the header"),
    ("fields_table", "Total 2\n" + TABLE, "line 1: not a Key: value line: 'Total 2'"),
    ("fields_table", "A: 1\nA: 2\n" + TABLE, "line 2: key 'A' is given twice"),
])
def test_a_malformed_table_says_where_and_what(format_name, text, message):
    with pytest.raises(ValueError) as caught:
        PARSERS[format_name](text)
    assert str(caught.value) == message


def test_cells_stay_exact_text_unless_typed():
    rows = [{"id": "1", "score": "2.5"}, {"id": "2", "score": ""}]
    assert diff_of(Expect(format="markdown_table", value=rows), "| id | score |\n|-|-|\n| 1 | 2.50 |\n| 2 | |\n") == (
        '$[0].score: expected "2.5", actual "2.50"')
    assert typed(rows, {"*": "infer"}) == [{"id": 1, "score": 2.5}, {"id": 2, "score": None}]
    assert typed([{"a": " 7 ", "b": "NULL", "c": "True", "d": "x", "e": "1e3"}],
                 {"a": "int", "b": "int", "c": "bool", "d": "float", "e": "number"}) == [
        {"a": 7, "b": None, "c": True, "d": "x", "e": 1000.0}]


def test_typed_cells_compare_by_value_unordered_and_within_a_tolerance():
    spec = Expect(format="markdown_table", unordered=True, cells={"*": "infer", "name": "text"},
                  tolerance={"abs": 0.01}, value=[{"id": 1, "name": "alpha", "score": None},
                                                   {"id": 2.0, "name": "b|c", "score": 2.5049}])
    assert diff_of(spec, TABLE) is None
    assert diff_of(spec.model_copy(update={"tolerance": None}), TABLE) == (
        '$[1].score: expected 2.5049, actual 2.5')
    assert diff_of(spec, TABLE.replace("alpha |", "alpha | 0")) == (
        "$[0].score: expected null (null), actual 0 (number)")


def test_a_typed_cell_that_is_not_of_its_type_stays_text_and_differs():
    spec = Expect(format="csv", cells={"n": "int"}, value=[{"n": 1}])
    assert diff_of(spec, "n\n1.0\n") == '$[0].n: expected 1 (number), actual "1.0" (string)'
    assert diff_of(spec.model_copy(update={"cells": {"n": "number"}}), "n\n1.0\n") is None


def test_tsv_and_fields_table_cells_are_typed_by_name():
    assert diff_of(Expect(format="tsv", cells={"*": "number"}, value=[{"a": 1, "b": 2.5}]), "a\tb\n1.0\t2.50\n") is None
    spec = Expect(format="fields_table", cells={"Total": "int", "id": "int"},
                  value={"fields": {"Total": 2, "Best": "b|c"}, "table": [{"id": 2, "name": "[..]", "score": "2.50"},
                                                                           {"id": 1, "name": "alpha", "score": ""}]})
    assert diff_of(spec, "Total: 2\nBest: b|c\n" + TABLE) is None
    assert diff_of(spec, "Total: 3\nBest: b|c\n" + TABLE) == "$.fields.Total: expected 2, actual 3"


def test_numbers_in_a_text_line_meet_within_a_tolerance_and_the_rest_exactly():
    spec = Expect(value="total 10.00 ISK over 3 jumps\nratio: 0.333\n", tolerance={"rel": 0.001})
    assert diff_of(spec, "total 10.004 ISK over 3 jumps\nratio: 0.3333333\n") is None
    assert diff_of(spec, "total 10.2 ISK over 3 jumps\nratio: 0.3333333\n") == (
        "text differs at line 1, column 10 (1 line differs)\n--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n"
        "-total 10.00 ISK over 3 jumps\n+total 10.2 ISK over 3 jumps\n ratio: 0.333\n ")
    assert diff_of(spec, "total 10.00 ISK over 3 hops\nratio: 0.333\n") == (
        "text differs at line 1, column 24 (1 line differs)\n--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n"
        "-total 10.00 ISK over 3 jumps\n+total 10.00 ISK over 3 hops\n ratio: 0.333\n ")
    absolute = Expect(value="at -1.5e2 m, [..]\n", tolerance={"abs": 0.5})
    assert diff_of(absolute, "at -150.4 m, anywhere\n") is None
    assert diff_of(absolute, "at -149 m, anywhere\n") is not None


def test_cells_on_a_format_without_columns_and_a_compressed_directory_are_compile_errors(kv_copy):
    from scbench.problem.compiler import compile_problem
    from scbench.problem.diagnostics import ProblemError

    (kv_copy / "cases/checkpoint_1/tables.yaml").write_text(
        "cases:\n"
        "  - id: typed_json\n"
        "    files: {d.gz: {gzip: {directory: true}}, e.bz2: {bz2: {copy: nowhere.csv}}}\n"
        "    expect: {stdout: {format: json, cells: {a: int}, value: {a: 1}}}\n")
    with pytest.raises(ProblemError) as caught:
        compile_problem(kv_copy)
    assert [d.render().replace(str(kv_copy.parent) + "/", "") for d in caught.value.diagnostics] == [
        "kv/cases/checkpoint_1/tables.yaml:3: cases[0].files.d.gz.gzip: gzip compresses one file, and this is a "
        "directory\n    fix: wrap a file form ({gzip: {rows: ..., format: csv}}, text, copy of a file), or use a tar "
        "archive",
        "kv/cases/checkpoint_1/tables.yaml:3: cases[0].files.e.bz2.bz2: data/nowhere.csv does not exist\n"
        "    fix: add it under kv/data/ or fix the path",
        "kv/cases/checkpoint_1/tables.yaml:4: cases[0].expect.stdout.cells: cells types the columns of a table, "
        "and a json output is none\n    fix: use format: csv, fields_table, markdown_table, tsv, or drop cells "
        "(JSON and YAML values are typed already)"]


@pytest.mark.parametrize(("format_name", "value"), [
    ("tsv", [{"a": "1", "b": "x\ty"}, {"a": "", "b": "z"}]),
    ("markdown_table", [{"id": "2", "name": "b|c"}, {"id": "", "name": ""}]),
    ("fields_table", {"fields": {"Total": "2"}, "table": [{"id": "1"}]}),
])
def test_bless_writes_a_table_its_parser_reads_back(format_name, value):
    from scbench.bless.values import SERIALIZERS

    assert PARSERS[format_name](SERIALIZERS[format_name](value)) == value

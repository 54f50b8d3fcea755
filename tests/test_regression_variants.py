"""Regression variants: an earlier case as it runs at a later checkpoint (``regression_args`` and a case's
``regression: {checkpoint_N: ...}``), compiled into the bundle and run by ``scbench eval`` and ``check``."""

import json

from conftest import replace_in, scbench
from scbench.problem.compiler import compile_problem

DUMP_WITH_BYTES = ('{"key": key, "value": value}', '{"key": key, "value": value, "bytes": len(value)}')
"""An edit of the kv reference that adds a field to its dump."""


def regression_results(problem, out) -> list[tuple[str, bool]]:
    done = scbench("eval", problem, "-c", 2, "-s", problem / "solutions/python/checkpoint_2", "--out", out)
    assert "Traceback" not in done.stderr
    return [(case["id"], case["passed"]) for case in json.loads((out / "results.json").read_text())["cases"]
            if case["category"] == "regression"]


def test_regression_args_renames_earlier_arguments_from_that_checkpoint_on(kv_copy, tmp_path):
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               "checkpoint_2: {order: 2, regression_args: {color: colour}}")
    bundle = compile_problem(kv_copy)
    assert [step.args for step in bundle.suite(2)[2][0].case.steps] == [["set", "colour", "blue"], ["get", "colour"]]
    assert [step.args for step in bundle.suite(1)[0][0].case.steps] == [["set", "color", "blue"], ["get", "color"]]
    assert regression_results(kv_copy, tmp_path) == [("set_then_get", True), ("dump_sorted", True),
                                                     ("get_missing", True)]


def test_a_case_variant_replaces_its_expectation_as_a_regression_only(kv_copy, tmp_path):
    replace_in(kv_copy / "solutions/python/checkpoint_2/kv.py", *DUMP_WITH_BYTES)
    assert regression_results(kv_copy, tmp_path / "before") == [("set_then_get", True), ("dump_sorted", False),
                                                                 ("get_missing", True)]
    stored = "        store.json: {format: json, value: {a: \"1\", b: \"2\"}}\n"
    replace_in(kv_copy / "cases/checkpoint_1/core.yaml", stored, stored +
               "    regression:\n"
               "      checkpoint_2:\n"
               "        files: {store.json: {json: {a: \"33\"}}}\n"
               "        expect: {stdout: {format: jsonl, value: [{key: a, value: \"33\", bytes: 2}]}}\n")
    assert regression_results(kv_copy, tmp_path / "after") == [("set_then_get", True), ("dump_sorted", True),
                                                                ("get_missing", True)]
    own = scbench("eval", kv_copy, "-c", 1, "-s", kv_copy / "solutions/python/checkpoint_1", "--out", tmp_path / "1")
    assert own.returncode == 0, own.stdout


def add_checkpoint_3(kv_copy):
    """A third checkpoint of the kv copy (checkpoint 2's spec, one core case), without a config entry."""
    (kv_copy / "checkpoint_3.md").write_text((kv_copy / "checkpoint_2.md").read_text())
    (kv_copy / "cases/checkpoint_3").mkdir()
    (kv_copy / "cases/checkpoint_3/core.yaml").write_text("cases:\n  - {id: get_none, args: [get, x], "
                                                          "expect: {exit_code: 1}}\n")


def test_variants_of_several_checkpoints_add_up_in_order(kv_copy):
    add_checkpoint_3(kv_copy)
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               "checkpoint_2: {order: 2, regression_args: {get: fetch}}\n"
               "  checkpoint_3: {order: 3, regression_args: {nope: none}}")
    replace_in(kv_copy / "cases/checkpoint_1/errors.yaml", "    args: [get, nope]\n",
               "    args: [get, nope]\n    regression: {checkpoint_3: {args: [get, nope, --quiet]}}\n")
    case = next(compiled for compiled in compile_problem(kv_copy).checkpoint(1).cases
                if compiled.case.id == "get_missing")
    assert [(number, case.at(number).steps[0].args) for number in (1, 2, 3)] == [
        (1, ["get", "nope"]), (2, ["fetch", "nope"]), (3, ["fetch", "none", "--quiet"])]


def test_a_bad_variant_is_a_compile_error_at_its_line_with_a_fix(kv_copy):
    replace_in(kv_copy / "cases/checkpoint_1/core.yaml", "  - id: set_then_get\n",
               "  - id: set_then_get\n"
               "    regression: {checkpoint_2: {args: [get, color]}, checkpoint_1: {args: []}}\n")
    done = scbench("compile", kv_copy)
    assert done.returncode == 2
    assert done.stderr.count("kv/cases/checkpoint_1/core.yaml:4: ") == 2, done.stderr
    assert ("cases[0].regression.checkpoint_1: checkpoint_1 is not a checkpoint after checkpoint_1\n"
            "    fix: name a later checkpoint of config.yaml: checkpoint_2") in done.stderr
    assert ("cases[0].regression.checkpoint_2.steps: both steps and inline args/stdin/expect are given\n"
            "    fix: move args/stdin/expect into a step") in done.stderr


def test_lint_counts_the_data_a_variant_names(kv_copy):
    (kv_copy / "data/docs/b.txt").write_text("only a variant reads this\n")
    assert "data/docs/b.txt: warning[unused-data]" in scbench("lint", kv_copy).stdout
    replace_in(kv_copy / "cases/checkpoint_1/errors.yaml", "    args: [get, nope]\n",
               "    args: [get, nope]\n    regression: {checkpoint_2: {files: {b.txt: {copy: docs/b.txt}}}}\n")
    assert "unused-data" not in scbench("lint", kv_copy).stdout


def test_regression_prepend_writes_text_before_inline_files_of_that_name_from_that_checkpoint_on(kv_copy, tmp_path):
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               "checkpoint_2: {order: 2, regression_prepend: {notes.txt: \"v2\\n\", store.json: \"#\"}}")
    replace_in(kv_copy / "cases/checkpoint_1/core.yaml", "      store.json: {json: {b: \"2\", a: \"1\"}}\n",
               "      store.json: {json: {b: \"2\", a: \"1\"}}\n      notes.txt: \"b\\n\"\n"
               "      more.txt: {text: \"c\\n\"}\n")
    replace_in(kv_copy / "cases/checkpoint_1/errors.yaml", "    args: [get, nope]\n",
               "    args: [get, nope]\n    files: {notes.txt: {text: \"d\\n\"}}\n")
    cases = {compiled.case.id: compiled for compiled in compile_problem(kv_copy).checkpoint(1).cases}
    assert cases["dump_sorted"].at(1).files["notes.txt"] == "b\n"
    assert {name: cases["dump_sorted"].at(2).files[name] for name in ("notes.txt", "more.txt")} == {
        "notes.txt": "v2\nb\n", "more.txt": cases["dump_sorted"].at(1).files["more.txt"]}
    assert cases["dump_sorted"].at(2).files["store.json"] == cases["dump_sorted"].at(1).files["store.json"]
    assert cases["get_missing"].at(2).files["notes.txt"].text == "v2\nd\n"
    assert regression_results(kv_copy, tmp_path) == [("set_then_get", True), ("dump_sorted", True),
                                                     ("get_missing", True)]


def test_regression_prepend_writes_before_a_variants_file_and_adds_up_over_checkpoints(kv_copy):
    add_checkpoint_3(kv_copy)
    replace_in(kv_copy / "config.yaml", "checkpoint_2: {order: 2}",
               "checkpoint_2: {order: 2, regression_prepend: {notes.txt: \"v2\\n\"}}\n"
               "  checkpoint_3: {order: 3, regression_prepend: {notes.txt: \"v3\\n\"}}")
    replace_in(kv_copy / "cases/checkpoint_1/errors.yaml", "    args: [get, nope]\n",
               "    args: [get, nope]\n    files: {notes.txt: \"a\\n\"}\n"
               "    regression: {checkpoint_3: {files: {notes.txt: \"b\\n\"}}}\n")
    case = next(compiled for compiled in compile_problem(kv_copy).checkpoint(1).cases
                if compiled.case.id == "get_missing")
    assert [case.at(number).files["notes.txt"] for number in (1, 2, 3)] == ["a\n", "v2\na\n", "v3\nv2\nb\n"]

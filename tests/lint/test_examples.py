"""Spec examples run on the real python references (real subprocesses) and matched against the cases."""

from __future__ import annotations

import pytest

from scbench.lint.examples import check_examples, parse_examples, render_spec
from scbench.problem.loader import load
from tests.conftest import FIXTURES, ROOT, sandbox_levels

EXAMPLES = FIXTURES / "lint_examples"
CODE_SEARCH = ROOT / "problems" / "code_search"


def test_a_wrong_example_is_an_error_and_an_uncovered_one_a_warning() -> None:
    found = [(f.file, f.line, f.rule, f.severity) for f in check_examples(EXAMPLES, load(EXAMPLES))]
    assert found == [
        ("checkpoint_1.md", 44, "example-disagrees", "error"),
        ("checkpoint_1.md", 44, "example-uncovered", "warning"),
    ]


def test_the_disagreement_says_what_the_reference_printed() -> None:
    finding = check_examples(EXAMPLES, load(EXAMPLES))[0]
    assert finding.text == ("$ <entry_command> set size 10 ; $ <entry_command> set size 12 ; "
                            "$ <entry_command> get size")
    assert finding.why == "the python reference disagrees: stdout: $: expected 10, actual 12"


@pytest.mark.parametrize("level", sandbox_levels())
def test_examples_run_in_the_sandbox_level_asked_for(level) -> None:
    # before: examples ran the reference in an unstarted local sandbox whatever level check ran in
    findings = check_examples(EXAMPLES, load(EXAMPLES), level)
    assert [f.rule for f in findings] == ["example-disagrees", "example-uncovered"]


def test_examples_are_parsed_with_files_tree_copies_and_exit_status() -> None:
    bundle = load(EXAMPLES)
    first, missing, dump, _ = parse_examples(bundle.checkpoint(1).spec)
    assert [(s.args, s.stdout.value) for s in first.steps] == [(["set", "color", "blue"], ""),
                                                               (["get", "color"], "blue\n")]
    assert (missing.steps[0].stdout, missing.exit_code) == (None, 1)
    assert (dump.files, dump.steps[0].stdout.format) == ({"store.json": '{"b": "2", "a": "1"}\n'}, "jsonl")
    (count,) = parse_examples(bundle.checkpoint(2).spec)
    assert (count.copies, count.steps[0].stdout.value) == ({"doc.txt": "docs/a.txt"}, {"lines": 2, "words": 5,
                                                                                          "ratio": 2.5})


def test_code_search_examples_agree_with_the_reference_and_are_covered() -> None:
    bundle = load(CODE_SEARCH)
    (example,) = parse_examples(bundle.checkpoint(2).spec)
    assert sorted(example.files) == ["repo/app.js", "repo/main.py", "repo/src/engine.cpp", "rules.json"]
    assert check_examples(CODE_SEARCH, bundle) == []


def test_entry_placeholder_is_rendered_per_track() -> None:
    assert render_spec("$ <entry_command> get x", "python", "kv") == "$ .venv/bin/python kv.py get x"
    assert render_spec("$ <entry_command> get x", "node", "kv") == "$ node kv.js get x"

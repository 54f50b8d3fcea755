"""Spec and suite lint on real problem directories: the planted leaks of tests/fixtures/leaky, the shipped problems."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scbench.lint.finding import Finding
from scbench.lint.problem import lint_problem
from scbench.lint.spec import lint_specs
from scbench.lint.suite import lint_suite
from scbench.problem.loader import load
from tests.conftest import FIXTURES, ROOT

LEAKY = FIXTURES / "leaky"
SHIPPED = sorted(path for path in (ROOT / "problems").iterdir() if (path / "config.yaml").exists())


def kv_with_spec(tmp_path, spec: str):
    """A copy of the kv fixture whose checkpoint 1 spec is ``spec``; returns its root."""
    root = tmp_path / "kv"
    shutil.copytree(FIXTURES / "kv", root)
    (root / "checkpoint_1.md").write_text(spec)
    return root


def test_every_planted_spec_leak_is_found_once() -> None:
    found = [(f.rule, f.line, f.severity) for f in lint_specs(LEAKY, load(LEAKY))]
    assert found == [
        ("language-prescription", 20, "error"),   # Write it in Python
        ("code-name", 21, "warning"),             # `count_words`
        ("internal-structure", 21, "error"),      # Define a function called
        ("code-signature", 22, "error"),          # def count_words(text):
        ("type-annotation", 23, "error"),         # counts: dict[str, int]
        ("import", 24, "error"),                  # from collections import Counter
        ("library-hint", 25, "error"),            # Use the argparse module
        ("data-structure-hint", 26, "error"),     # Store the counts in a dictionary
        ("global-state", 27, "error"),            # a singleton
        ("source-file", 28, "error"),             # printer.py
        ("source-file", 28, "error"),             # tally/reader.py
        ("language-idiom", 29, "error"),          # FileNotFoundError
        ("language-idiom", 29, "error"),          # raises
        ("language-literal", 30, "error"),        # `None`
        ("call-name", 31, "error"),               # normalize_word()
        ("standard-library", 32, "error"),        # collections.OrderedDict
        ("hidden-tests", 33, "error"),            # cases/checkpoint_1/core.yaml
        ("hidden-tests", 33, "error"),            # hidden tests
        ("language-idiom", 34, "error"),          # list comprehension
        ("language-idiom", 34, "error"),          # self.words
        ("code-name", 35, "warning"),             # wordCount
        ("code-block", 37, "error"),              # ```python block that no file label introduces
    ]


def test_contract_words_and_the_allow_list_are_not_flagged() -> None:
    texts = {f.text for f in lint_specs(LEAKY, load(LEAKY))}
    # usage-line words, JSON fields of the example, and `case_fold` from config.yaml lint.allow
    assert not texts & {"--top", "top", "count", "word", "total", "case_fold", "tally"}


def test_finding_render_names_place_text_why_and_fix() -> None:
    finding = next(f for f in lint_specs(LEAKY, load(LEAKY)) if f.rule == "import")
    assert finding.render() == (
        "checkpoint_1.md:24: error[import]: from collections import Counter\n"
        "    why: an import names a module or library of one language (design rules 1 and 3)\n"
        "    fix: remove it: the solution chooses its own modules and libraries")


@pytest.mark.parametrize("problem", SHIPPED, ids=lambda path: path.name)
def test_shipped_specs_have_no_error_findings(problem: Path) -> None:
    errors = [f.render() for f in lint_specs(problem, load(problem)) if f.severity == "error"]
    assert errors == []


def test_suite_lint_finds_weak_cases_and_unused_data() -> None:
    found = [(f.file, f.line, f.rule, f.text) for f in lint_suite(LEAKY, load(LEAKY))]
    assert found == [
        ("cases/checkpoint_1", 0, "no-error-cases", "checkpoint_1"),
        ("cases/checkpoint_1/core.yaml", 8, "duplicate-case", "basic_again: same inputs as basic"),
        ("cases/checkpoint_1/core.yaml", 13, "no-expectation", "top_unchecked: step 1"),
        ("cases/checkpoint_1/core.yaml", 15, "accepts-anything", "anything_regex: step 1"),
        ("cases/checkpoint_1/core.yaml", 19, "accepts-anything", "anything_exit: step 1"),
        ("cases/checkpoint_1/core.yaml", 22, "accepts-anything", "anything_wildcard: step 1"),
        ("cases/checkpoint_1/core.yaml", 31, "no-expectation", "check_then_unchecked: step 2"),
        ("data/texts/unused.txt", 0, "unused-data", "texts/unused.txt"),
    ]


def test_suite_lint_is_quiet_on_a_sound_suite() -> None:
    kv = FIXTURES / "kv"
    assert [(f.rule, f.text) for f in lint_suite(kv, load(kv))] == [("no-error-cases", "checkpoint_2")]


def test_lint_problem_is_specs_plus_suite_sorted() -> None:
    bundle = load(LEAKY)
    combined = lint_problem(LEAKY, bundle)
    assert combined == sorted(lint_specs(LEAKY, bundle) + lint_suite(LEAKY, bundle))
    assert all(isinstance(finding, Finding) for finding in combined) and len(combined) == 30


POLYGLOT = """\
# kv

Read the options with argparse sub-parsers, one per command.
Mark the handler with `@lru_cache` and the entry point with `@Override`.
The pairs form a `Map<String, List<Integer>>`, the keys a `Vec<String>`.
Print with `fmt.Println`, read with `BufferedReader` and parse with `JSON.parse`.
Go code can start a goroutine per file; Python code should use f-strings and `**kwargs`.
Lines that start with `@app.route` count as routes, and `List<String>` is matched as written.
A file that mentions subprocess is reported; write to user@example.com or see `@types/node`.
"""


def test_language_constructs_and_standard_names_of_any_language_are_found(tmp_path) -> None:
    root = kv_with_spec(tmp_path, POLYGLOT)
    (root / "cases/checkpoint_1/contract.yaml").write_text(
        "cases:\n  - id: routes\n    files: {app.py: \"@app.route('/')\\nList<String> x\\nimport subprocess\\n\"}\n"
        "    args: [count, app.py]\n    expect: {exit_code: any, stdout: \"[..]\"}\n")
    found = [(f.line, f.rule, f.text) for f in lint_specs(root, load(root)) if f.severity == "error"]
    assert found == [
        (3, "standard-library", "argparse sub-parsers"),
        (4, "language-construct", "@Override"),
        (4, "language-construct", "@lru_cache"),
        (5, "language-construct", "Map<String, List<Integer>>"),
        (5, "language-construct", "Vec<String>"),
        (6, "standard-library", "BufferedReader"),
        (6, "standard-library", "JSON.parse"),
        (6, "standard-library", "fmt.Println"),
        (7, "language-construct", "**kwargs"),
        (7, "language-construct", "f-strings"),
        (7, "language-construct", "goroutine"),
    ]


def test_a_language_name_is_matched_whole_not_as_the_start_of_a_longer_one(tmp_path) -> None:
    root = kv_with_spec(tmp_path, "# kv\n\nMatches in JavaScript files and in C++ sources are reported.\n"
                                  "The tool itself is written in Java.\n")
    found = [(f.line, f.rule, f.text) for f in lint_specs(root, load(root)) if f.rule == "language-prescription"]
    assert found == [(4, "language-prescription", "written in Java")]


PROSE_LEAKS = """\
# kv

The hidden test of this checkpoint is like set_then_get; get_missing is another one.
In TypeScript terms it is function tally<T>(items: T[]): Map<T, number>, or (words: string[]) => number.
Rust's fn tally<T: Hash + Eq>(items: &[T]) and public static <T> List<T> sorted(Collection<T> items) too.
The module does export default function tally, module.exports = { tally }, and pub fn tally in Rust.
"""


def test_hidden_case_ids_the_singular_hidden_test_and_constructs_in_prose_are_found(tmp_path) -> None:
    # before: none of these was found: a case id counted as contract vocabulary, "hidden test" only
    # in the plural, a signature only without type parameters, and no rule knew export syntax
    root = kv_with_spec(tmp_path, PROSE_LEAKS)
    found = [(f.line, f.rule, f.text) for f in lint_specs(root, load(root))
             if f.rule in ("hidden-case-id", "hidden-tests", "code-signature", "module-export")]
    assert found == [
        (3, "hidden-case-id", "get_missing"),
        (3, "hidden-case-id", "set_then_get"),
        (3, "hidden-tests", "hidden test"),
        (4, "code-signature", "(words: string[]) =>"),
        (4, "code-signature", "function tally<T>("),
        (5, "code-signature", "fn tally<T: Hash + Eq>("),
        (5, "code-signature", "public static     List<T> sorted("),
        (6, "module-export", "export default"),
        (6, "module-export", "module.exports"),
        (6, "module-export", "pub fn"),
    ]


def test_a_data_file_sent_as_stdin_is_used(tmp_path) -> None:
    root = kv_with_spec(tmp_path, (FIXTURES / "kv/checkpoint_1.md").read_text())
    (root / "data/in.json").write_text("{}\n")
    assert ("unused-data", "in.json") in [(f.rule, f.text) for f in lint_suite(root, load(root))]
    (root / "cases/checkpoint_1/stdin.yaml").write_text("cases:\n  - {id: piped, stdin: {copy: in.json}, "
                                                        "args: [get, a], expect: {exit_code: 1}}\n")
    assert [(f.rule, f.text) for f in lint_suite(root, load(root))] == [("no-error-cases", "checkpoint_2")]

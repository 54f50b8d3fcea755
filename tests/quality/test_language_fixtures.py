"""Erosion and verbosity of the JavaScript, Go and Rust fixtures, computed by hand.

CC is counted from the language tables in adapters/: 1 + decision nodes + boolean operators, nested
callables (arrow functions, Go func literals, Rust closures) being callables of their own.
"""

import math

import pytest

from scbench.quality.languages import languages
from scbench.quality.measure import measure
from tests.quality.conftest import FIXTURES

sqrt = math.sqrt


def _callables(report) -> list[tuple[str, int, int, int]]:
    return [(c.name, c.line, c.cc, c.sloc) for c in report.callables]


def test_javascript() -> None:
    report = measure(FIXTURES / "javascript")
    # classify: 1 + if, &&, if, for, if, while, ||, case 7, case 8, ?: = 11 (default adds nothing); 16 lines
    # the arrow function bound to `double` is its own callable: CC 1, 1 line; isEmpty: 1 + if = 2, 7 lines
    assert _callables(report) == [("classify", 3, 11, 16), ("double", 20, 1, 1), ("isEmpty", 24, 2, 7)]
    # mass: 11*sqrt(16) = 44, 1*1 = 1, 2*sqrt(7); erosion = 44 / (45 + 2*sqrt(7))
    assert report.erosion == pytest.approx(44 / (45 + 2 * sqrt(7)), rel=1e-12)
    # LOC = 16 + 1 + 7 = 24 (line and block comments, blank lines out)
    # flagged: var-declaration line 25, length-compare-zero line 26; no clones -> 2 / 24
    assert sorted((f.rule, f.line) for f in report.flags) == [("length-compare-zero", 26), ("var-declaration", 25)]
    assert (report.loc, report.verbose_lines, report.verbosity) == (24, 2, 2 / 24)


def test_go() -> None:
    report = measure(FIXTURES / "go")
    # classify: 1 + if, &&, if, ||, ||, if, for, if, case 7, case 8,9 = 11 (default adds nothing); 24 lines
    # Total: 1 + for; Apply: 1 + for, its func literal 1; sumPositive*: 1 + for + if = 3, 9 lines each
    assert _callables(report) == [
        ("classify", 4, 11, 24),
        ("Total", 31, 2, 7),
        ("Apply", 39, 2, 8),
        ("<anonymous>", 40, 1, 1),
        ("sumPositive", 48, 3, 9),
        ("sumPositiveAgain", 58, 3, 9),
    ]
    # erosion = 11*sqrt(24) / (11*sqrt(24) + 2*sqrt(7) + 2*sqrt(8) + 1 + 3*3 + 3*3)
    eroded = 11 * sqrt(24)
    assert report.erosion == pytest.approx(eroded / (eroded + 2 * sqrt(7) + 2 * sqrt(8) + 19), rel=1e-12)
    # LOC = 24 + "package" 1 + "type Cart" 1 + 7 + 8 + 9 + 9 = 59. No Go rule fires. Clones (6 lines, >= 30 tokens):
    # window 48-53 (10+3+8+5+3+1 = 30 tokens) recurs at 58-63, and window 46,48-52 ("}" + 29 tokens) at
    # 56,58-62, so clone lines = {46, 48..53} and {56, 58..63} = 14 -> verbosity 14 / 59
    assert [(p.first, p.second) for p in report.clones] == [(("shop.go", 46, 53), ("shop.go", 56, 63))]
    assert (report.loc, report.flagged_lines, report.clone_lines) == (59, 0, 14)
    assert report.verbosity == 14 / 59


def test_rust() -> None:
    report = measure(FIXTURES / "rust")
    # classify: 1 + if, &&, if, while, ||, for, if, 3 match arms = 11; 22 lines (doc comments out)
    # doubled: 1, 3 lines; its closure |x| x * 2 is its own callable: 1, 1 line
    assert _callables(report) == [("classify", 4, 11, 22), ("doubled", 27, 1, 3), ("<anonymous>", 28, 1, 1)]
    # erosion = 11*sqrt(22) / (11*sqrt(22) + sqrt(3) + 1); LOC = 22 + 3 = 25; no rules, no clones
    assert report.erosion == pytest.approx(11 * sqrt(22) / (11 * sqrt(22) + sqrt(3) + 1), rel=1e-12)
    assert (report.loc, report.verbose_lines, report.verbosity) == (25, 0, 0.0)


def test_js_and_ts_callables_bound_to_a_name_take_that_name() -> None:
    source = (b"const add = (a, b) => a + b;\nlet f = function () { return 1; };\nobj.on = (x) => x;\n"
              b"const o = { run: () => 2, named: function inner() {} };\nclass K { field = () => 3; m() {} }\n"
              b"export default () => 4;\n")
    for language in ("javascript", "typescript"):
        names = [c.name for c in languages().get(language).facts("a.js", source).callables]
        assert names == ["add", "f", "obj.on", "run", "inner", "field", "m", "<anonymous>"], language


@pytest.mark.parametrize("language", ["python", "javascript", "typescript", "go", "rust", "java"])
def test_calibration_program_idiomatic_is_unflagged_and_verbose_is_flagged(language: str) -> None:
    """The stock-report program of bench/verbosity_calibration.py: no rule fires on its idiomatic form."""
    assert measure(FIXTURES / "calibration" / "idiomatic" / language).flags == ()
    assert measure(FIXTURES / "calibration" / "verbose" / language).flagged_lines >= 15

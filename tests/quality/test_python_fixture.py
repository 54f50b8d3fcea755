"""Erosion and verbosity of tests/quality/fixtures/python/shop.py, computed by hand."""

import math

import pytest

from scbench.quality.measure import measure
from tests.quality.conftest import FIXTURES


@pytest.fixture(scope="module")
def report():
    return measure(FIXTURES / "python")


def test_callables(report) -> None:
    # radon, asserts not counted; SLOC = code lines from the def line to the last line.
    # classify: 1 + if, and, if, if, for, if, while, or, ifexp, ifexp = 11; 16 code lines (docstring out)
    # Cart.total: 1 + if + generator = 3; 4 code lines (the comment line is out)
    # outer: 1 + comprehension for + its if = 3; 4 code lines (blank out; keep's line counts for outer too)
    # outer.keep: 1; 1 line (a nested function is its own callable, its CC is not added to outer)
    # is_empty: 1 + if = 2; 5 lines
    got = sorted((c.name, c.cc, c.sloc) for c in report.callables)
    assert got == [
        ("Cart.total", 3, 4),
        ("classify", 11, 16),
        ("is_empty", 2, 5),
        ("outer", 3, 4),
        ("outer.keep", 1, 1),
    ]


def test_erosion(report) -> None:
    # mass = CC * sqrt(SLOC): classify 11*4 = 44, total 3*2 = 6, outer 3*2 = 6, keep 1*1 = 1, is_empty 2*sqrt(5)
    # erosion = 44 / (44 + 6 + 6 + 1 + 2*sqrt(5)) = 44 / 61.472... = 0.71577...
    assert report.eroded_mass == 44.0
    assert report.total_mass == pytest.approx(57 + 2 * math.sqrt(5), rel=1e-12)
    assert report.erosion == pytest.approx(44 / (57 + 2 * math.sqrt(5)), rel=1e-12)


def test_verbosity(report) -> None:
    # LOC: classify 16 + "class Cart:" 1 + total 4 + outer 4 + is_empty 5 = 30
    # (module docstring, class docstring, comments and blank lines are not code lines)
    # flagged: self-assign-binary-op lines 19 and 20 ("n = n + 1", "n = n * 3"), len-compare-zero 43,
    # bool-return-if-else 43-46, else-after-return 45-46 -> {19, 20, 43, 44, 45, 46} = 6 lines
    # clones: none (no 6-line window repeats) -> verbosity = 6 / 30 = 0.2
    assert report.loc == 30
    assert sorted({(f.rule, f.line, f.end_line) for f in report.flags}) == [
        ("bool-return-if-else", 43, 46),
        ("else-after-return", 45, 46),
        ("len-compare-zero", 43, 43),
        ("self-assign-binary-op", 19, 19),
        ("self-assign-binary-op", 20, 20),
    ]
    assert (report.flagged_lines, report.clone_lines, report.verbose_lines) == (6, 0, 6)
    assert report.verbosity == 6 / 30


NESTED = '''\
"""Module docstring."""
try:
    def in_try():
        """Docstring."""
        return 1
except ImportError:
    def in_except():
        return (lambda x: x)(2)
match 3:
    case 3:
        class InCase:
            """Docstring
            on two lines."""
            def method(self):
                with open("f") as handle:
                    def in_with():
                        """Docstring."""
                        return handle
                return in_with
'''


def test_functions_and_docstrings_nested_in_statements(tmp_path) -> None:
    """Functions and docstrings under try/except, match/case, a class and with blocks are found; a lambda is
    not a callable, and docstring lines are not code lines."""
    (tmp_path / "nested.py").write_text(NESTED)
    report = measure(tmp_path)
    # code lines: 2, 3, 5, 6, 7, 8, 9, 10, 11, 14, 15, 16, 18, 19 (docstrings on 1, 4, 12-13, 17 are out)
    assert report.loc == 14
    got = sorted((c.name, c.line, c.end_line, c.cc, c.sloc) for c in report.callables)
    assert got == [
        ("InCase.method", 14, 19, 1, 5),
        ("InCase.method.in_with", 16, 18, 1, 2),
        ("in_except", 7, 8, 1, 2),
        ("in_try", 3, 5, 1, 2),
    ]

"""Clone thresholds: a window is 6 code lines holding at least 30 tokens (scbench.quality.clones)."""

import pytest

from scbench.quality.clones import MIN_TOKENS, WINDOW_LINES
from scbench.quality.measure import measure
from tests.quality.conftest import FIXTURES

CLONES = FIXTURES / "clones"


def test_thresholds_are_the_documented_ones() -> None:
    assert (WINDOW_LINES, MIN_TOKENS) == (6, 30)


@pytest.mark.parametrize(
    ("case", "clone_lines", "loc"),
    [
        # 6 lines of "name = compute(first, second, third)" (10 tokens each) in a.py and b.py: all 12 lines
        ("six_lines", 12, 12),
        # the same with 5 lines: shorter than one window, so no clone
        ("five_lines", 0, 10),
        # 6 lines of "a = b + c" (5 tokens each): 30 tokens, exactly the minimum -> 12 clone lines
        ("tokens_30", 12, 12),
        # last line "p = -q" (4 tokens): 29 tokens, one below the minimum -> no clone
        ("tokens_29", 0, 12),
    ],
)
def test_clone_threshold(case: str, clone_lines: int, loc: int) -> None:
    report = measure(CLONES / case)
    assert (report.clone_lines, report.loc, report.flagged_lines) == (clone_lines, loc, 0)
    assert report.verbosity == clone_lines / loc


def test_clone_pair_locations() -> None:
    report = measure(CLONES / "six_lines")
    assert [(pair.first, pair.second, pair.lines) for pair in report.clones] == [(("a.py", 1, 6), ("b.py", 1, 6), 6)]


def test_import_blocks_are_not_clones(tmp_path) -> None:
    imports = "".join(f"from package.module_{n} import name_{n}, other_{n}\n" for n in range(8))
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(imports)
    report = measure(tmp_path)
    assert (report.clone_lines, report.loc) == (0, 16)

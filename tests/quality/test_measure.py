"""Discovery, language restriction, skipped files and deltas of measure()."""

from scbench.quality.measure import delta, measure
from tests.quality.conftest import FIXTURES

DISCOVERY = FIXTURES / "discovery"


def test_skips_vendor_and_hidden_dirs_and_reports_unparsable_files() -> None:
    report = measure(DISCOVERY)
    # measured: src/ok.py (2 lines) and src/util.js (1 line); node_modules, .hidden and target are skipped
    assert (report.files, report.loc) == (2, 3)
    assert [c.path for c in report.callables] == ["src/ok.py"]
    assert report.skipped == (("src/broken.py", "SyntaxError: invalid syntax (line 1)"),)


def test_language_restricts_files() -> None:
    report = measure(DISCOVERY, "javascript")
    assert (report.files, report.loc, report.skipped) == (1, 1, ())


def test_delta_is_after_minus_before() -> None:
    before = measure(FIXTURES / "python")
    after = measure(FIXTURES / "javascript")
    change = delta(before, after)
    assert change["loc"] == 24 - 30
    assert change["verbose_lines"] == 2 - 6
    assert change["erosion"] == after.erosion - before.erosion
    assert list(change) == list(before.scalars())


def test_a_symbolic_link_is_neither_read_nor_entered(tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("x = 1\ny = 2\n")
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    (snapshot / "main.py").write_text("print(1)\n")
    (snapshot / "linked.py").symlink_to(outside / "secret.py")
    (snapshot / "package").symlink_to(outside, target_is_directory=True)
    report = measure(snapshot)
    assert (report.files, report.loc) == (1, 1)

"""We measure slop, so we must not write it: scbench's own code, measured by scbench."""

from conftest import ROOT
from scbench.quality.measure import measure


def test_no_callable_of_scbench_is_above_cc_10():
    report = measure(ROOT / "scbench")
    assert [(c.path, c.name, c.cc) for c in report.callables if c.cc > 10] == []


def test_scbench_verbosity_stays_below_flask():
    assert measure(ROOT / "scbench").verbosity < 0.05

"""JUnit XML: one testsuite per category, one testcase per case, failures with their diffs."""

from __future__ import annotations

from pathlib import Path

from junitparser import Failure as JFailure
from junitparser import JUnitXml, TestCase, TestSuite

from scbench.results import CATEGORIES, Failure, RunResults


def _failure(failure: Failure) -> JFailure:
    element = JFailure(f"{failure.target}: {failure.message}")
    element.text = failure.diff
    return element


def write_junit(results: RunResults, path: Path) -> None:
    """Write ``results`` to ``path`` as JUnit XML (classname ``<problem>.<checkpoint>.<category>``)."""
    xml = JUnitXml(f"{results.problem}.{results.checkpoint}")
    for category in CATEGORIES:
        suite = TestSuite(f"{results.problem}.{results.checkpoint}.{category}")
        for case in (c for c in results.cases if c.category == category):
            test = TestCase(case.id, classname=f"{results.problem}.{case.checkpoint}.{category}", time=case.duration_s)
            test.result = [_failure(f) for f in case.failures]
            suite.add_testcase(test)
        xml.add_testsuite(suite)
    xml.write(str(path), pretty=True)

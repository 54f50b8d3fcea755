"""JUnit XML: one testsuite per category, one testcase per case with at most one ``<failure>``
(every failed step's failures in it, named by step), the failed steps' outputs in
``<system-out>`` and ``<system-err>``; regression cases are named ``checkpoint_N/id``. What a solution
printed is written through :func:`scbench.grade.show.printable`: control characters that XML 1.0 cannot hold
appear as ``\\uXXXX``."""

from __future__ import annotations

from pathlib import Path

from junitparser import Failure as JFailure
from junitparser import JUnitXml, TestCase, TestSuite

from scbench.grade.show import printable
from scbench.results import CATEGORIES, CaseResult, Failure, RunResults


def _entry(step: str, failure: Failure) -> str:
    diff = f"\n    {failure.diff.replace(chr(10), chr(10) + '    ')}" if failure.diff else ""
    return f"{step}: {failure.target}: {failure.message}{diff}"


def _failure(case: CaseResult) -> JFailure:
    lines = [(step.name, failure) for step in case.steps for failure in step.failures]
    first_step, first = lines[0]
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    element = JFailure(printable(f"{first_step}: {first.target}: {first.message}{more}"))
    element.text = printable("\n".join(_entry(name, failure) for name, failure in lines))
    return element


def _streams(case: CaseResult, stream: str) -> str | None:
    parts = [f"--- {step.name} {stream} ---\n{getattr(step, stream)}" for step in case.steps if getattr(step, stream)]
    return printable("\n".join(parts)) or None


def _testcase(case: CaseResult, problem: str) -> TestCase:
    name = f"{case.checkpoint}/{case.id}" if case.category == "regression" else case.id
    test = TestCase(name, classname=f"{problem}.{case.checkpoint}.{case.category}", time=case.duration_s)
    if not case.passed:
        test.result = [_failure(case)] if case.failures else [JFailure("not every step ran")]
    test.system_out, test.system_err = _streams(case, "stdout"), _streams(case, "stderr")
    return test


def write_junit(results: RunResults, path: Path) -> None:
    """Write ``results`` to ``path`` as JUnit XML (classname ``<problem>.<checkpoint>.<category>``)."""
    xml = JUnitXml(f"{results.problem}.{results.checkpoint}")
    for category in CATEGORIES:
        suite = TestSuite(f"{results.problem}.{results.checkpoint}.{category}")
        for case in (c for c in results.cases if c.category == category):
            suite.add_testcase(_testcase(case, results.problem))
        xml.add_testsuite(suite)
    xml.write(str(path), pretty=True)

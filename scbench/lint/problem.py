"""The static lint of a whole problem: its specs and its suite."""

from __future__ import annotations

from pathlib import Path

from scbench.lint.finding import Finding
from scbench.lint.spec import lint_specs
from scbench.lint.suite import lint_suite
from scbench.problem.bundle import Bundle


def lint_problem(root: Path, bundle: Bundle) -> list[Finding]:
    """Spec and suite findings of the problem at ``root`` compiled as ``bundle``, sorted by file and line."""
    return sorted(lint_specs(root, bundle) + lint_suite(root, bundle))

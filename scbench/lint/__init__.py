"""Lint a problem against SlopCodeBench's design rules: specs, suite, and spec examples.

``lint_problem`` runs the static checks (specs and suite); ``check_examples`` needs the
reference solutions and runs them, so it is separate.
"""

from __future__ import annotations

from pathlib import Path

from scbench.lint.examples import check_examples
from scbench.lint.finding import Finding
from scbench.lint.spec import lint_specs
from scbench.lint.suite import lint_suite
from scbench.problem.bundle import Bundle

__all__ = ["Finding", "check_examples", "lint_problem", "lint_specs", "lint_suite"]


def lint_problem(root: Path, bundle: Bundle) -> list[Finding]:
    """Spec and suite findings of the problem at ``root`` compiled as ``bundle``, sorted by file and line."""
    return sorted(lint_specs(root, bundle) + lint_suite(root, bundle))

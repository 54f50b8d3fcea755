"""Lint a problem against SlopCodeBench's design rules: specs, suite, and spec examples.

``scbench.lint.problem.lint_problem`` runs the static checks (specs and suite);
``scbench.lint.examples.check_examples`` needs the reference solutions and runs them, so it is
separate. Nothing is imported here, so that the command line starts fast.
"""

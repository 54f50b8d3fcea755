"""The ``scbench lint`` command: compile the problem, lint it, print the findings."""

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scbench.commands.common import load_bundle, stdout_console

if TYPE_CHECKING:
    from rich.console import Console

    from scbench.lint.finding import Finding

STYLES = {"error": "bold red", "warning": "yellow"}


def print_findings(console: "Console", findings: "list[Finding]") -> None:
    """Each finding as rendered by :meth:`Finding.render`, coloured by severity, then the counts."""
    from rich.text import Text
    for finding in findings:
        head, _, rest = finding.render().partition("\n")
        console.print(Text(head, STYLES[finding.severity]), highlight=False)
        console.print(Text(rest), highlight=False)
    errors = sum(finding.severity == "error" for finding in findings)
    console.print(f"{errors} error(s), {len(findings) - errors} warning(s)")


def lint(
    problem: Annotated[Path, typer.Argument(help="problems/NAME directory")],
    examples: Annotated[bool, typer.Option("--examples", help="Also run the specs' examples on the python "
                                                              "reference and check that cases cover them.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the findings as a JSON list.")] = False,
) -> None:
    """Lint a problem against the design rules: specs that leak internals, a language or the tests,
    and weak cases (no expectation, duplicates, accept-anything, no error cases, unused data).
    Findings go to stdout. Exits 1 when any finding is an error, 2 when the problem does not compile."""
    from scbench.lint.examples import check_examples
    from scbench.lint.problem import lint_problem
    from scbench.problem.diagnostics import from_here
    bundle = load_bundle(problem)
    findings = sorted(lint_problem(problem, bundle) + (check_examples(problem, bundle) if examples else []))
    if json_out:
        typer.echo(json.dumps([dataclasses.asdict(finding) for finding in findings], indent=2))
    else:
        print_findings(stdout_console(), [dataclasses.replace(finding, file=from_here(finding.file, problem))
                                 for finding in findings])
    if any(finding.severity == "error" for finding in findings):
        raise typer.Exit(1)

"""Mutation score: how many small, deliberate bugs in a reference solution a checkpoint's cases catch.

Each mutant is a copy of the Python reference with one edit made through an ast-grep rewrite
(see :data:`OPERATORS`). A mutant is *killed* when a case that passes on the reference fails on
it (a crash or a timeout fails a case too). At most ``max_mutants`` mutants are run per
checkpoint, sampled deterministically (``random.Random(0)``) from every candidate edit.

Mutants reuse the reference's prepared setup: the reference is set up once (``prepare``, cached),
each mutant copies its files without the environment directories (``.venv``, ``node_modules``)
and runs with the same entry argv, in which paths into the copy replace paths into the reference
while paths into an environment directory stay shared, so there is no install per mutant.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ast_grep_py import SgNode, SgRoot

from scbench import content
from scbench.evaluate.session import Evaluation, Target, default_jobs, suite_runner
from scbench.problem.bundle import Bundle, CompiledCase
from scbench.run.context import RunContext
from scbench.run.workdir import mirror

Replacement = tuple[SgNode, str]


def _tokens(table: dict[str, str]) -> Callable[[SgNode], Iterator[Replacement]]:
    """Replace an operator token of the node found in ``table`` by its counterpart."""
    return lambda node: ((child, table[child.text()]) for child in node.children()
                         if not child.is_named() and child.text() in table)


@dataclass(frozen=True)
class Operator:
    """One mutation operator: the ast-grep node kind it looks at and the edits it makes there."""

    id: str
    kind: str
    edits: Callable[[SgNode], Iterator[Replacement]]


OPERATORS: tuple[Operator, ...] = (
    Operator("comparison", "comparison_operator",
             _tokens({"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">"})),
    Operator("arithmetic", "binary_operator", _tokens({"+": "-", "-": "+"})),
    Operator("boolean", "boolean_operator", _tokens({"and": "or", "or": "and"})),
    Operator("true", "true", lambda node: iter([(node, "False")])),
    Operator("false", "false", lambda node: iter([(node, "True")])),
    Operator("remove-not", "not_operator", lambda node: iter([(node, node.field("argument").text())])),
    Operator("integer", "integer",
             lambda node: iter([(node, str(int(node.text()) + 1))] if node.text().isdigit() else [])),
    Operator("return-none", "return_statement",
             lambda node: iter([(node, "return None")] if node.text() not in ("return", "return None") else [])),
    Operator("skip-continue", "continue_statement", lambda node: iter([(node, "pass")])),
    Operator("skip-break", "break_statement", lambda node: iter([(node, "pass")])),
)
"""Mutation operators, applied to every Python file of the solution."""


@dataclass(frozen=True)
class Mutant:
    """One edit: file (relative to the solution), 1-based line and column, operator, what changed."""

    file: str
    line: int
    column: int
    operator: str
    description: str
    source: str = field(repr=False, compare=False)


@dataclass(frozen=True)
class MutationScore:
    """Mutants of one checkpoint's reference: how many the suite killed, and the survivors."""

    checkpoint: str
    killed: int
    total: int
    survivors: list[Mutant]

    @property
    def score(self) -> float:
        """Share of mutants killed (1.0 when there is none)."""
        return self.killed / self.total if self.total else 1.0


def _file_mutants(relative: str, root: SgNode) -> Iterator[Mutant]:
    for operator in OPERATORS:
        for node in root.find_all(kind=operator.kind):
            for target, replacement in operator.edits(node):
                start, source = target.range().start, root.commit_edits([target.replace(replacement)])
                yield Mutant(relative, start.line + 1, start.column + 1, operator.id,
                             f"`{target.text()}` -> `{replacement}`", source)


def mutants_of(solution: Path) -> Iterator[Mutant]:
    """Every candidate mutant of the Python files of ``solution``'s content, in file, operator and position
    order."""
    for path in sorted(path for path in content.walk(solution) if path.suffix == ".py" and not path.is_symlink()):
        yield from _file_mutants(str(path.relative_to(solution)),
                                 SgRoot(path.read_text(encoding="utf-8"), "python").root())


def sample(mutants: list[Mutant], limit: int) -> list[Mutant]:
    """At most ``limit`` of ``mutants``, chosen with ``random.Random(0)``, in their original order."""
    if len(mutants) <= limit:
        return mutants
    return [mutants[i] for i in sorted(random.Random(0).sample(range(len(mutants)), limit))]


@dataclass(frozen=True)
class _Runner:
    """Runs a suite against mutants of one prepared reference (``ctx.solution``)."""

    ctx: RunContext
    suite: list[tuple[CompiledCase, str]]
    bundle: Bundle
    number: int

    def killed(self, mutant: Mutant) -> bool:
        """Whether some case of the suite fails on ``mutant`` (stops at the first failure)."""
        with tempfile.TemporaryDirectory(prefix="mutant-", dir=self.ctx.sandbox.scratch) as scratch:
            copy = mirror(self.ctx.solution, Path(scratch) / "solution")
            (copy / mutant.file).write_text(mutant.source, encoding="utf-8")
            ctx = replace(self.ctx, entry=self.ctx.entry_in(copy), solution=copy)
            run = suite_runner(self.bundle, self.number, self.suite, ctx)
            return any(not run(item).passed for item in self.suite)


def mutation_score(bundle: Bundle, number: int, solution_dir: Path, track: str = "python", max_mutants: int = 60,
                   jobs: int | None = None, sandbox: str | None = None) -> MutationScore:
    """Run checkpoint ``number``'s suite (own cases and regressions) on up to ``max_mutants`` mutants of
    the reference at ``solution_dir`` (set up once for ``track``), ``jobs`` mutants in parallel (default: the
    CPU count plus one), every process in one started sandbox of level ``sandbox`` (``None``: the first
    available), as an evaluation runs. Cases that fail on the unmutated reference are left out. Raises
    ``KeyError`` for an unknown checkpoint or track, ``SetupError`` when the reference cannot be set up and
    ``SandboxUnavailable`` for a level this machine lacks."""
    workers = jobs or default_jobs()
    with Evaluation(bundle, number, Target(solution_dir, track, sandbox=sandbox), workers) as evaluation:
        passing = [item for item in evaluation.suite if evaluation.run(item).passed]
        runner = _Runner(evaluation.ctx, passing, bundle, number)
        chosen = sample(list(mutants_of(solution_dir)), max_mutants)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            verdicts = list(pool.map(runner.killed, chosen))
    return MutationScore(bundle.checkpoint(number).name, sum(verdicts), len(chosen),
                         [mutant for mutant, killed in zip(chosen, verdicts, strict=True) if not killed])

"""Suite lint: weak spots in a problem's hidden cases and data.

Each rule is a small generator over the compiled bundle yielding ``(file, line, text)``
locations; :func:`lint_suite` turns them into findings.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from scbench.grade.search import searched
from scbench.lint.finding import Finding, Severity
from scbench.problem.bundle import Bundle, CompiledCase
from scbench.problem.model import WRAPPERS, CliExpectation, CliStep, CopyFile, HttpStep, OutputExpectation
from scbench.problem.walk import exchanges

Location = tuple[str, int, str]
INPUT_KEYS = ("args", "stdin", "env", "files", "request", "concurrent")
DATA_REFERENCE = re.compile(r"\{data\}/?([^\s\"']*)")
ANY_TEXT = {(True, "(?s).*"), (True, r"[\s\S]*"), (False, "..."), (False, "...\n")}
"""(regex?, value) of a text expectation that every output satisfies (``[..]`` and ``.*`` stop at a line end)."""


def _cases(bundle: Bundle) -> Iterator[CompiledCase]:
    return (case for checkpoint in bundle.checkpoints for case in checkpoint.cases)


def _outputs(expect) -> list[OutputExpectation]:
    """The output expectations of a CLI or HTTP step expectation (compiled: never bare strings)."""
    candidates = [expect.stdout, expect.stderr, *expect.files.values()] if isinstance(expect, CliExpectation) \
        else [expect.body]
    return [output for output in candidates if output is not None]


def _accepts_anything(output: OutputExpectation) -> bool:
    if output.json_schema is not None or searched(output):
        return False
    if output.format == "text":
        return (output.regex, output.value) in ANY_TEXT
    return output.value == "[..]"


EFFECTS = ("absent", "empty", "databases")
"""What a CLI step's expectation checks beside its outputs."""


def _is_vacuous(expect) -> bool:
    outputs = _outputs(expect)
    checked = outputs or any(getattr(expect, name, None) for name in EFFECTS)
    return any(map(_accepts_anything, outputs)) or (getattr(expect, "exit_code", None) == "any" and not checked)


def _where(compiled: CompiledCase, text: str) -> Location:
    return compiled.source, compiled.line, f"{compiled.case.id}: {text}"


def _unchecked(step: CliStep | HttpStep) -> bool:
    """Whether every expectation of ``step`` (an HTTP step's concurrent requests' too) is all defaults."""
    expectations = [step.expect] if isinstance(step, CliStep) else [expect for _, _, expect in exchanges(step)]
    return all(expect == type(expect)() for expect in expectations)


def no_expectation(bundle: Bundle) -> Iterator[Location]:
    """Steps whose expectation is all defaults, but for the setup steps of a stateful case:
    a step before a later one that checks something (that step observes its effect)."""
    for compiled in _cases(bundle):
        unchecked = [_unchecked(step) for step in compiled.case.steps]
        for number, step in enumerate(compiled.case.steps, 1):
            if unchecked[number - 1] and all(unchecked[number:]):
                yield _where(compiled, f"step {step.name or number}")


def accepts_anything(bundle: Bundle) -> Iterator[Location]:
    """Steps with an expectation every output satisfies."""
    for compiled in _cases(bundle):
        for number, step in enumerate(compiled.case.steps, 1):
            if _is_vacuous(step.expect):
                yield _where(compiled, f"step {step.name or number}")


def _inputs(compiled: CompiledCase) -> str:
    dumped = compiled.case.model_dump(by_alias=True)
    steps = [{key: step.get(key) for key in INPUT_KEYS} for step in dumped["steps"]]
    return json.dumps([dumped["files"], dumped["env"], dumped.get("server"), steps], sort_keys=True)


def duplicate_cases(bundle: Bundle) -> Iterator[Location]:
    """Cases of one checkpoint with the same inputs and arguments as an earlier one."""
    for checkpoint in bundle.checkpoints:
        first: dict[str, str] = {}
        for compiled in checkpoint.cases:
            original = first.setdefault(_inputs(compiled), compiled.case.id)
            if original != compiled.case.id:
                yield _where(compiled, f"same inputs as {original}")


def no_error_cases(bundle: Bundle) -> Iterator[Location]:
    """Checkpoints none of whose cases is in the ``error`` category."""
    for checkpoint in bundle.checkpoints:
        if not any(compiled.case.category == "error" for compiled in checkpoint.cases):
            yield f"cases/{checkpoint.name}", 0, checkpoint.name


def harness_steps(bundle: Bundle) -> Iterator[Location]:
    """Per checkpoint, the first case with a harness-owned step (``run``): a program of the problem's, not the
    solution, decides part of the verdict."""
    for checkpoint in bundle.checkpoints:
        owned = (compiled for compiled in checkpoint.cases
                 if any(isinstance(step, CliStep) and step.run is not None for step in compiled.case.steps))
        if (first := next(owned, None)) is not None:
            yield _where(first, "runs a harness-owned step (run:)")


def _copied(spec: object) -> str | None:
    """The data path an input copies, itself or inside a compressed form (``{bz2: {copy: ...}}``)."""
    while (wrapped := WRAPPERS.get(type(spec))) is not None:
        spec = getattr(spec, wrapped)
    return spec.copy_ if isinstance(spec, CopyFile) else None


def _data_references(compiled: CompiledCase) -> Iterator[str]:
    """The data paths a case names, in its own form and as each of its regression variants."""
    for case in (compiled.case, *compiled.variants.values()):
        inputs = [case.files, *(getattr(step, "files", {}) for step in case.steps)]
        stdins = [getattr(step, "stdin", None) for step in case.steps]
        specs = [*(spec for files in inputs for spec in files.values()), *stdins]
        yield from filter(None, map(_copied, specs))
        yield from DATA_REFERENCE.findall(case.model_dump_json(by_alias=True))


def _http_steps(bundle: Bundle) -> Iterator[HttpStep]:
    """Every HTTP step of the bundle: its cases' (in every form) and its groups' setup steps."""
    for compiled in _cases(bundle):
        for case in (compiled.case, *compiled.variants.values()):
            yield from (step for step in case.steps if isinstance(step, HttpStep))
    yield from (step for checkpoint in bundle.checkpoints for group in checkpoint.groups.values()
                for step in group.setup)


def _group_copies(bundle: Bundle) -> Iterator[str]:
    copies = (_copied(spec) for checkpoint in bundle.checkpoints for group in checkpoint.groups.values()
              for spec in group.files.values())
    return filter(None, copies)


def _byte_references(bundle: Bundle) -> Iterator[str]:
    """The data files HTTP steps send (``copy``), groups write, and responses are compared with (a compiled
    ``body_bytes`` keeps only the digest: the files of that digest)."""
    exchanged = [(request, expect) for step in _http_steps(bundle) for _, request, expect in exchanges(step)]
    yield from (request.copy_ for request, _ in exchanged if request is not None and request.copy_ is not None)
    yield from _group_copies(bundle)
    digests = {expect.body_bytes.sha256 for _, expect in exchanged if expect.body_bytes is not None}
    yield from (name for name, content in bundle.data.items()
                if hashlib.sha256(base64.b64decode(content)).hexdigest() in digests)


def unused_data(bundle: Bundle) -> Iterator[Location]:
    """Files under ``data/`` that no case copies, sends, compares with or names through ``{data}``."""
    references = {reference.strip("/") for compiled in _cases(bundle) for reference in _data_references(compiled)}
    references |= set(_byte_references(bundle))
    for name in sorted(bundle.data):
        if not any(reference in ("", name) or name.startswith(reference + "/") for reference in references):
            yield f"data/{name}", 0, name


@dataclass(frozen=True)
class SuiteRule:
    """One suite check: its id, severity, why the spot is weak, how to fix it, and its locator."""

    id: str
    severity: Severity
    why: str
    fix: str
    locate: Callable[[Bundle], Iterator[Location]]


SUITE_RULES: tuple[SuiteRule, ...] = (
    SuiteRule("no-expectation", "warning", "the step checks nothing beyond exit code 0",
              "add the expected stdout, stderr, files or body", no_expectation),
    SuiteRule("accepts-anything", "error", "the expectation accepts every output, so the case can never fail",
              "state the expected output, or a regex that constrains it", accepts_anything),
    SuiteRule("duplicate-case", "warning", "the case runs exactly the inputs of an earlier case",
              "vary the inputs or merge the expectations into one case", duplicate_cases),
    SuiteRule("no-error-cases", "warning", "no case checks how the checkpoint's contract rejects bad input",
              "add cases with category: error", no_error_cases),
    SuiteRule("harness-step", "warning", "a program of the problem's, not the data of the case, grades part of it",
              "keep it only where data cannot express the contract (docs/case-format.md, Harness-owned steps)",
              harness_steps),
    SuiteRule("unused-data", "warning", "no case copies or references this data file",
              "use it in a case ({copy: ...} or {data}/...) or delete it", unused_data),
)


def lint_suite(root: Path, bundle: Bundle) -> list[Finding]:
    """Suite findings for the problem at ``root`` (paths relative to it), sorted; raises nothing."""
    return sorted(Finding(file, line, rule.id, rule.severity, text, rule.why, rule.fix)
                  for rule in SUITE_RULES for file, line, text in rule.locate(bundle))

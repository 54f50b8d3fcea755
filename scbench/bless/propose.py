"""``scbench bless``: fill or refresh expected outputs from a reference solution.

Runs each selected case on the reference and grades it. An expectation that passes is left
exactly as written. A failing one is refreshed from the reference's output (wildcards that still
match, subset keys and ignored paths kept, see :mod:`scbench.bless.values`); a missing
expected-output file is created; with ``targets``, missing expectations (stdout, stderr,
exit_code, or the value of an existence-only file) are added. Case files are edited in place,
node by node (:mod:`scbench.bless.splice`), so every untouched byte stays as it was. Nothing is
written here: the caller shows the diffs and writes the accepted :class:`Edit` objects.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scbench.bless.splice import CaseText
from scbench.bless.values import SERIALIZERS, inferred, refreshed
from scbench.evaluate.session import case_kind, limits_of
from scbench.problem.bundle import Bundle, CompiledCase
from scbench.problem.model import OutputExpectation
from scbench.run.cli_case import CliObservation
from scbench.run.context import RunContext
from scbench.run.http_case import CAPTURE, HttpObservation
from scbench.sandbox.local import Local

TARGETS = ("stdout", "stderr", "exit_code", "files")
"""What ``targets`` may name: expectations bless adds where a step has none."""


class UnknownCase(LookupError):
    """A ``--case`` id that the checkpoint does not have."""


@dataclass(frozen=True)
class Edit:
    """A proposed new text for one file, with its unified diff against the current text."""

    path: Path
    before: str
    after: str

    @property
    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(True), self.after.splitlines(True),
                                            str(self.path), str(self.path)))

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.after, encoding="utf-8")


@dataclass(frozen=True)
class _Output:
    """One output of a step as observed: its key under ``expect`` (``("files", "out.json")``),
    the grader's name for it, its compiled expectation (``None`` if there is none) and its bytes."""

    key: tuple
    target: str
    spec: OutputExpectation | None
    raw: bytes


def _unfilled(raw: bytes, placeholders: dict[str, str]) -> bytes:
    """``raw`` with each placeholder's value (the case's working directory, the data directory) written back as
    the placeholder, so a refreshed expectation holds ``{cwd}``, not one run's temporary path."""
    for name, value in placeholders.items():
        raw = raw.replace(value.encode(), f"{{{name}}}".encode())
    return raw


def _cli_outputs(obs: CliObservation) -> Iterator[_Output]:
    expect = obs.step.expect
    yield _Output(("stdout",), "stdout", expect.stdout, _unfilled(obs.result.stdout, obs.placeholders))
    yield _Output(("stderr",), "stderr", expect.stderr, _unfilled(obs.result.stderr, obs.placeholders))
    for name, spec in expect.files.items():
        if obs.files[name] is not None:
            yield _Output(("files", name), f"file {name}", spec, _unfilled(obs.files[name], obs.placeholders))


def _outputs(obs: CliObservation | HttpObservation) -> Iterator[_Output]:
    if isinstance(obs, HttpObservation):
        if not obs.error and not obs.skipped:
            yield _Output(("body",), "body", obs.step.expect.body, obs.body)
    elif obs.result is not None:
        yield from _cli_outputs(obs)


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        data = data.get(part) if isinstance(data, dict) else data[part] if isinstance(data, list) else None
    return data


@dataclass
class _CaseFile:
    """One case file being edited, plus the expected-output files it points to."""

    path: Path
    targets: frozenset[str]
    side_files: list[Edit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.before = self.path.read_text(encoding="utf-8")
        self.text = CaseText(self.before, json_file=self.path.suffix == ".json")
        self.authored = yaml.load(self.before, Loader=yaml.CSafeLoader)

    def case(self, compiled: CompiledCase, observations: list, label: str) -> None:
        """Refresh or fill the expectations of every observed step of ``compiled``."""
        case_path = ("cases", compiled.index)
        steps = "steps" in self.authored["cases"][compiled.index]
        kind = case_kind(compiled.case.kind)
        for index, obs in enumerate(observations):
            expect_path = (*case_path, "steps", index, "expect") if steps else (*case_path, "expect")
            failing = {failure.target for failure in kind.grade(obs)}
            for output in _outputs(obs):
                self.output(f"{label} step {index + 1} {'.'.join(output.key)}", expect_path, output, failing)
            if isinstance(obs, CliObservation) and obs.result is not None:
                self.exit_code(label, (*expect_path, "exit_code"), obs.result.exit_code, "exit_code" in failing)

    def output(self, label: str, expect_path: tuple, output: _Output, failing: set[str]) -> None:
        """Add, fill, refresh or leave one output's expectation (see the module docstring)."""
        path = (*expect_path, *output.key)
        authored = _get(self.authored, path)
        if output.spec is None:
            self._add(label, path, output)
        elif isinstance(authored, dict) and "file" in authored:
            self._side_file(label, self.path.parent / authored["file"], output, failing)
        elif output.spec.value is None:
            self._fill(label, path, authored, output)
        elif output.target in failing:
            self._refresh(label, path, authored, output)

    def _add(self, label: str, path: tuple, output: _Output) -> None:
        if output.key[0] in self.targets and output.key[0] != "files":
            self._decoded(label, output.raw, lambda actual: self.text.put(path, inferred(actual)))

    def _fill(self, label: str, path: tuple, authored: Any, output: _Output) -> None:
        if output.key[0] in self.targets or (isinstance(authored, dict) and "value" in authored):
            self._decoded(label, output.raw, lambda actual: self.text.put((*path, "value"),
                                                                          refreshed(output.spec, actual)))

    def _refresh(self, label: str, path: tuple, authored: Any, output: _Output) -> None:
        if output.spec.regex or CAPTURE.search(str(output.spec.value)):
            self.notes.append(f"{label} left as is: it fails, but a regex or a capture is refreshed by hand")
            return
        where = path if isinstance(authored, str) else (*path, "value")
        self._decoded(label, output.raw, lambda actual: self.text.put(where, refreshed(output.spec, actual)))

    def _side_file(self, label: str, target: Path, output: _Output, failing: set[str]) -> None:
        if target.is_file() and output.target not in failing:
            return
        before = target.read_text(encoding="utf-8") if target.is_file() else ""
        self._decoded(label, output.raw, lambda actual: self.side_files.append(
            Edit(target, before, SERIALIZERS[output.spec.format](refreshed(output.spec, actual)))))

    def exit_code(self, label: str, path: tuple, actual: int, failing: bool) -> None:
        if "exit_code" in self.targets and (failing or _get(self.authored, path) is None):
            self.text.put(path, actual)
        elif failing:
            self.notes.append(f"{label}: exit code {actual} is not the expected one (--target exit_code sets it)")

    def _decoded(self, label: str, raw: bytes, use) -> None:
        try:
            use(raw.decode("utf-8"))
        except ValueError as error:
            self.notes.append(f"{label} left as is: {error}")

    def edits(self) -> list[Edit]:
        own = [Edit(self.path, self.before, self.text.text)] if self.text.text != self.before else []
        return own + [edit for edit in self.side_files if edit.before != edit.after]


def _selected(cases: list[CompiledCase], case_ids: set[str] | None, number: int) -> list[CompiledCase]:
    unknown = (case_ids or set()) - {c.case.id for c in cases}
    if unknown:
        raise UnknownCase(f"no case {', '.join(sorted(unknown))} in checkpoint {number}")
    return [c for c in cases if not case_ids or c.case.id in case_ids]


def bless(root: Path, bundle: Bundle, number: int, entry: list[str], case_ids: set[str] | None = None,
          targets: frozenset[str] = frozenset()) -> tuple[list[Edit], list[str]]:
    """Proposed edits that make checkpoint ``number``'s failing expectations (all cases, or those
    in ``case_ids``) agree with what the solution started by ``entry`` prints, add the
    expectations ``targets`` (a subset of :data:`TARGETS`) names where a step has none, and
    create missing expected-output files; plus notes on outputs left alone. Passing
    expectations are not touched. The solution runs as ``eval --sandbox local`` runs it: the author's own
    reference, under the checkpoint's limits. ``bundle`` should be compiled with ``missing_expected_files``.
    Raises :class:`UnknownCase` for an unknown case id."""
    cases = _selected(bundle.checkpoint(number).cases, case_ids, number)
    files: dict[str, _CaseFile] = {}
    with Local(limits_of(bundle, number)) as sandbox:
        ctx = RunContext(entry=entry, data=bundle.data_dir(), env=bundle.checkpoint(number).config.env,
                         sandbox=sandbox)
        for compiled in cases:
            file = files.setdefault(compiled.source, _CaseFile(root / compiled.source, targets))
            if compiled.group:  # alone, on a fresh server, it would not see what its group's earlier cases made
                file.notes.append(f"{compiled.case.id}: left as written (a case of a group; bless runs cases alone)")
                continue
            file.case(compiled, case_kind(compiled.case.kind).run(compiled.case, ctx), compiled.case.id)
    return ([edit for file in files.values() for edit in file.edits()],
            [note for file in files.values() for note in file.notes])

"""Compile a problem directory into a :class:`Bundle`, collecting every error on the way.

``compile_problem`` validates ``config.yaml`` and each case file against the schemas,
runs the cross-reference checks, normalizes the cases and embeds ``data/``. It never stops
at the first error: all diagnostics are raised together in one :class:`ProblemError`.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from scbench.problem.bundle import Bundle, CompiledCase, CompiledCheckpoint
from scbench.problem.checks import CASE_CHECKS, CaseContext, compile_jsonpath
from scbench.problem.diagnostics import Diagnostic, ProblemError, relative, where_of
from scbench.problem.model import (
    Case,
    CaseFile,
    CaseGroup,
    CheckpointConfig,
    CliCase,
    HttpCase,
    HttpRequest,
    HttpStep,
    ProblemConfig,
)
from scbench.problem.normalize import normalize
from scbench.problem.source import Document, Unreadable, read_document, read_text
from scbench.problem.validate import schema_diagnostics, schema_errors
from scbench.problem.variants import variants

CASE_SUFFIXES = (".yaml", ".yml", ".json")
M = TypeVar("M", bound=BaseModel)
CASE = TypeAdapter(Case)
CHECKPOINT_NUMBER = re.compile(r"^checkpoint_(\d+)$")


class _Collector:
    """Diagnostics gathered while compiling one problem."""

    def __init__(self, root: Path):
        self.root = root
        self.found: list[Diagnostic] = []

    def shown(self, path: Path) -> str:
        return relative(path, self.root.parent)

    def read(self, path: Path, stem: str) -> tuple[Document | None, bool]:
        """Parse and schema-validate ``path``: the document (``None`` when it does not parse) and
        whether it is schema-valid."""
        document, errors = read_document(path, self.shown(path))
        if document is not None:
            errors += schema_diagnostics(document, stem, self.shown(path))
        self.found += errors
        return document, not errors

    def model(self, model: TypeAdapter[M], document: Document, path: Path, at: tuple = ()) -> M | None:
        """The node of ``document`` at path ``at`` parsed by ``model``; ``None`` (with diagnostics)
        for what the schema could not catch (constraints on mapping keys, validators)."""
        node = document.data
        for key in at:
            node = node[key]
        try:
            return model.validate_python(node)
        except ValidationError as error:
            for item in error.errors():
                where = (*at, *item["loc"])
                self.add(path, document.line_of(where), where_of(where), item["msg"], "see docs/case-format.md")
            return None

    def add(self, path: Path, line: int, where: str, message: str, hint: str) -> None:
        self.found.append(Diagnostic(self.shown(path), line, where, message, hint))


def _checkpoint_diagnostics(settings: _Settings, name: str, config: CheckpointConfig, out: _Collector) -> None:
    number = int(CHECKPOINT_NUMBER.match(name).group(1))
    root = settings.root
    if config.order != number:
        settings.config.add(("checkpoints", name, "order"), f"order is {config.order} but the name says {number}",
                            f"set order: {number}", out)
    for index, expression in enumerate(config.regression_ignore):
        for _, message, hint in compile_jsonpath(expression, ()):
            settings.config.add(("checkpoints", name, "regression_ignore", index), message, hint, out)
    if not any((root / "cases" / name).glob("*")):
        out.add(root / "cases" / name, 0, "", "no case files", f"add YAML case files under cases/{name}/")


def _spec(root: Path, name: str, out: _Collector) -> str:
    """The text of ``checkpoint_N.md`` ("" with a diagnostic when it is missing or unreadable)."""
    path = root / f"{name}.md"
    if not path.is_file():
        out.add(path, 0, "", "the spec file is missing", f"write the spec the agent sees in {name}.md")
        return ""
    try:
        return read_text(path, "a spec")
    except Unreadable as problem:
        out.add(path, problem.line, "", problem.message, problem.hint)
        return ""


def _case_files(root: Path, name: str) -> list[Path]:
    return sorted(p for p in (root / "cases" / name).glob("*") if p.suffix in CASE_SUFFIXES)


def _valid_cases(path: Path, document: Document, out: _Collector) -> tuple[list[tuple[int, Case]], bool] | None:
    """The cases of a parsed case file that validate, as ``(index, case)``, and whether all did;
    ``None`` when the file is wrong outside its cases. Every schema error is reported."""
    errors = schema_errors(document.data, "case-file")
    for where, message, hint in errors:
        out.add(path, document.line_of(where), where_of(where), message, hint)
    if any(len(where) < 2 or where[0] != "cases" for where, _, _ in errors):
        return None
    failed = {where[1] for where, _, _ in errors}
    models = [(index, out.model(CASE, document, path, ("cases", index)))
              for index in range(len(document.data["cases"])) if index not in failed]
    valid = [(index, case) for index, case in models if case is not None]
    return valid, len(valid) == len(document.data["cases"])


def _compile_file(path: Path, name: str, settings: _Settings,
                  out: _Collector) -> tuple[list[CompiledCase], bool, CaseGroup | None]:
    """The compiled cases of one case file that validate (each still cross-checked), whether the whole file
    did, and its compiled group (``None`` without one); a file that does not parse, or is wrong outside its
    cases, gives none."""
    document, errors = read_document(path, out.shown(path))
    out.found += errors
    valid = _valid_cases(path, document, out) if document is not None else None
    if valid is None:
        return [], False, None
    ctx = settings.context(name, path.parent, document.data.get("category", CaseFile.model_fields["category"].default))
    source = str(path.relative_to(settings.root))

    def report(where: tuple, message: str, hint: str) -> None:
        out.add(path, document.line_of(where), where_of(where), message, hint)

    group = _group(document.data.get("group"), valid[0], ctx, report)
    ctx = replace(ctx, captured=setup_captures(group))

    def one(index: int, case: Case) -> CompiledCase:
        case = case.model_copy(update={"server": group.server}) if group is not None else case
        findings = _checked(case, ctx, ("cases", index), report)
        checked = case.model_copy(update={"category": case.category or ctx.category})
        return CompiledCase(checkpoint=name, source=source, line=document.line_of(("cases", index)), index=index,
                            group=source if group is not None else None,
                            case=checked if findings or ctx.problem is None else normalize(case, ctx),
                            variants={} if findings else _variants(case, name, settings, ctx, ("cases", index),
                                                                   report))

    return [one(index, case) for index, case in valid[0]], valid[1], group


def setup_captures(group: CaseGroup | None) -> frozenset[str]:
    """The names ``group``'s setup captures: every case of the group may use them."""
    return frozenset(name for step in (group.setup if group else ()) for name in step.capture)


GROUPED_FIELDS = ("server", "env", "files")
"""What a case of a group may not have of its own: the group's server, environment and files are its."""


def _members(cases: list[tuple[int, Case]], report: Callable[[tuple, str, str], None]) -> None:
    """Every case of a group is an HTTP case without a server, environment or files of its own."""
    for index, case in cases:
        if not isinstance(case, HttpCase):
            report(("cases", index, "kind"), "a case of a group must be an HTTP case (the group shares one server)",
                   "move this case to a case file without group:")
        for key in (key for key in GROUPED_FIELDS if key in case.model_fields_set and getattr(case, key)):
            report(("cases", index, key), f"a case of a group has no {key} of its own",
                   f"move {key} to the file's group: (it is the same for every case of the group)")


def _group(authored: dict | None, cases: list[tuple[int, Case]], ctx: CaseContext,
           report: Callable[[tuple, str, str], None]) -> CaseGroup | None:
    """The compiled group of a case file (``None`` without ``group:``): its setup checked as the steps of a
    case and normalized like them, its server resolved; its cases checked by :func:`_members`."""
    if authored is None:
        return None
    group = CaseGroup.model_validate(authored)
    _members(cases, report)
    probe = HttpCase(id="setup", kind="http", server=group.server, env=group.env, files=group.files,
                     timeout=group.timeout, steps=group.setup or [HttpStep(request=HttpRequest(path="/"))])

    def at_group(where: tuple, message: str, hint: str) -> None:
        report(("group", "setup", *where[2:]) if where[1:2] == ("steps",) else where, message, hint)

    if _checked(probe, ctx, ("group",), at_group) or ctx.problem is None:
        return group
    compiled = normalize(probe, ctx)
    return group.model_copy(update={"server": compiled.server, "setup": compiled.steps if group.setup else []})


def _checked(case: Case, ctx: CaseContext, at: tuple, report: Callable[[tuple, str, str], None]) -> bool:
    """Run every case check on ``case`` (authored at document path ``at``), reporting each finding;
    whether there was any."""
    findings = [finding for check in CASE_CHECKS for finding in check(case, ctx)]
    for where, message, hint in findings:
        report((*at, *where), message, hint)
    return bool(findings)


def _unknown_variants(case: CliCase, name: str, later: list[str], at: tuple,
                      report: Callable[[tuple, str, str], None]) -> None:
    for key in sorted(set(case.regression) - set(later)):
        report((*at, "regression", key), f"{key} is not a checkpoint after {name}",
               f"name a later checkpoint of config.yaml: {', '.join(later) or 'there is none'}")


def _variants(case: Case, name: str, settings: _Settings, ctx: CaseContext, at: tuple,
              report: Callable[[tuple, str, str], None]) -> dict[str, Case]:
    """The compiled forms of ``case`` (of checkpoint ``name``) as a regression of each later checkpoint
    that changes it (:mod:`scbench.problem.variants`), for a case without findings of its own; a variant's
    findings are reported at its key (at the case for a change only ``regression_args`` makes), and a
    variant naming no later checkpoint is an error."""
    if not isinstance(case, CliCase) or settings.problem is None:
        return {}
    own = settings.problem.checkpoints[name].order
    later = [item for item in settings.checkpoints() if item[1].order > own]
    _unknown_variants(case, name, [later_name for later_name, _ in later], at, report)
    found = {}
    for later_name, variant in variants(case, later):
        where = (*at, "regression", later_name) if later_name in case.regression else at
        if not _checked(variant, ctx, where, report):
            found[later_name] = normalize(variant, ctx)
    return found


def _compile_cases(name: str, settings: _Settings,
                   out: _Collector) -> tuple[list[CompiledCase], bool, dict[str, CaseGroup]]:
    """The checkpoint's compiled cases, whether every case file and case was readable and valid, and its
    groups by case file source."""
    files = [_compile_file(path, name, settings, out) for path in _case_files(settings.root, name)]
    groups = {cases[0].group: group for cases, _, group in files if group is not None and cases}
    return [case for cases, _, _ in files for case in cases], all(complete for _, complete, _ in files), groups


def _suite_diagnostics(root: Path, name: str, cases: list[CompiledCase], complete: bool, out: _Collector) -> None:
    first: dict[str, CompiledCase] = {}
    for case in cases:
        earlier = first.setdefault(case.case.id, case)
        if earlier is not case:
            out.add(root / case.source, case.line, f"cases[{case.index}].id", f"duplicate case id {case.case.id!r}",
                    f"it is already used at {earlier.source}:{earlier.line}; rename one")
    if complete and cases and not any(case.case.category == "core" for case in cases):
        out.add(root / "cases" / name, 0, "", "the checkpoint has no core case",
                "mark the cases that check what the spec states explicitly as category: core")


def _data(root: Path) -> dict[str, str]:
    data = root / "data"
    files = sorted(p for p in data.rglob("*") if p.is_file()) if data.is_dir() else []
    return {str(p.relative_to(data)): base64.b64encode(p.read_bytes()).decode() for p in files}


@dataclass(frozen=True)
class _Config:
    """What ``config.yaml`` gave: the problem when it is valid, else ``None``; the checkpoints that
    are valid on their own (all of them when the problem is), so that a schema error elsewhere in
    the file hides none of their errors; the document, for the line of each key."""

    file: Path
    problem: ProblemConfig | None = None
    checkpoints: dict[str, CheckpointConfig] = field(default_factory=dict)
    document: Document | None = None

    def add(self, where: tuple, message: str, hint: str, out: _Collector) -> None:
        """A diagnostic at the line of key ``where`` of ``config.yaml``."""
        out.add(self.file, self.document.line_of(where) if self.document else 1, where_of(where), message, hint)


@dataclass(frozen=True)
class _Settings:
    """What every case file of one problem is compiled against; ``config.problem`` is ``None`` when
    ``config.yaml`` is missing or invalid (its errors are reported; the cases are still checked,
    without the checks that need it)."""

    root: Path
    config: _Config
    missing_expected_files: bool

    @property
    def problem(self) -> ProblemConfig | None:
        return self.config.problem

    def context(self, name: str, case_dir: Path, category: str) -> CaseContext:
        checkpoint = self.problem.checkpoints[name] if self.problem is not None else None
        timeout = (checkpoint.timeout if checkpoint else None) or (self.problem.timeout if self.problem else 1.0)
        return CaseContext(self.problem, self.root, case_dir, category, timeout, self.missing_expected_files)

    def checkpoints(self) -> list[tuple[str, CheckpointConfig | None]]:
        """The checkpoints of ``config.yaml`` in order; without a valid one, the case directories and the
        checkpoints valid on their own, by number."""
        if self.problem is not None:
            return sorted(self.problem.checkpoints.items(), key=lambda item: item[1].order)
        found = {p.name for p in (self.root / "cases").glob("*") if p.is_dir() and CHECKPOINT_NUMBER.match(p.name)}
        return [(name, self.config.checkpoints.get(name))
                for name in sorted(found | set(self.config.checkpoints), key=lambda name: int(name.split("_")[1]))]


def _retire_diagnostics(settings: _Settings, name: str, config: CheckpointConfig, earlier: set[str] | None,
                        out: _Collector) -> None:
    """Each ``regression_retire`` entry names a case of an earlier checkpoint (``earlier`` is ``None``
    when one of their case files did not compile: its errors are reported already)."""
    for index, retired in enumerate(config.regression_retire if earlier is not None else ()):
        if retired not in earlier:
            settings.config.add(("checkpoints", name, "regression_retire", index),
                                f"{retired} is not a case of a checkpoint before {name}",
                                "name a case of an earlier checkpoint as checkpoint_N/case_id", out)


def _checkpoints(settings: _Settings, out: _Collector) -> Iterator[CompiledCheckpoint]:
    root = settings.root
    earlier: set[str] | None = set()
    for name, config in settings.checkpoints():
        if config is not None:
            _checkpoint_diagnostics(settings, name, config, out)
        cases, complete, groups = _compile_cases(name, settings, out)
        _suite_diagnostics(root, name, cases, complete, out)
        if config is not None:
            _retire_diagnostics(settings, name, config, earlier, out)
            yield CompiledCheckpoint(name=name, config=config, cases=cases, spec=_spec(root, name, out),
                                     groups=groups)
        earlier = earlier | {f"{name}/{case.case.id}" for case in cases} if complete and earlier is not None else None


def _valid_checkpoints(document: Document) -> dict[str, CheckpointConfig]:
    """The entries of ``checkpoints`` in a schema-invalid ``config.yaml`` that are valid on their own."""
    entries = document.data.get("checkpoints") if isinstance(document.data, dict) else None
    valid = {}
    for name, entry in entries.items() if isinstance(entries, dict) else ():
        try:
            valid[name] = CheckpointConfig.model_validate(entry)
        except ValidationError:
            continue  # its errors are among the file's schema errors
    return {name: config for name, config in valid.items() if CHECKPOINT_NUMBER.match(str(name))}


def _config(root: Path, out: _Collector) -> _Config:
    config_file = root / "config.yaml"
    if not config_file.is_file():
        out.add(config_file, 0, "", "config.yaml not found",
                "is this a problem directory? it needs config.yaml (see docs/case-format.md)")
        return _Config(config_file)
    document, valid = out.read(config_file, "config")
    if document is None:
        return _Config(config_file)
    if not valid:
        return _Config(config_file, None, _valid_checkpoints(document), document)
    problem = out.model(TypeAdapter(ProblemConfig), document, config_file)
    return _Config(config_file, problem, dict(problem.checkpoints) if problem else {}, document)


def compile_problem(root: Path, missing_expected_files: bool = False) -> Bundle:
    """Compile ``problems/NAME`` into a bundle.

    Raises :class:`ProblemError` with every diagnostic (file, line, path, message, fix) when
    anything is wrong: a missing or invalid ``config.yaml`` is reported together with the errors
    of every case file, and no error is a consequence of another. ``missing_expected_files``
    accepts expected-output files that do not exist yet (``scbench bless`` creates them): their
    expectations compile without a value.
    """
    root = root.resolve()
    out = _Collector(root)
    settings = _Settings(root, _config(root, out), missing_expected_files)
    checkpoints = list(_checkpoints(settings, out))
    problem = settings.problem
    for stray in sorted(p for p in (root / "cases").glob("*") if problem and p.is_dir()
                        and p.name not in problem.checkpoints):
        out.add(stray, 0, "", "this cases directory belongs to no checkpoint of config.yaml",
                f"add {stray.name} to checkpoints in config.yaml, or rename or remove the directory")
    if out.found:
        raise ProblemError(out.found)
    return Bundle(config=problem, checkpoints=checkpoints, data=_data(root))


def _bundle_case_findings(bundle: Bundle, root: Path) -> Iterator[tuple[tuple, str, str]]:
    for index, checkpoint in enumerate(bundle.checkpoints):
        timeout = checkpoint.config.timeout or bundle.config.timeout
        for position, compiled in enumerate(checkpoint.cases):
            ctx = CaseContext(bundle.config, root, root, compiled.case.category, timeout,
                              captured=setup_captures(checkpoint.groups.get(compiled.group)))
            at = ("checkpoints", index, "cases", position, "case")
            forms = [(at, compiled.case), *(((*at[:-1], "variants", name), variant)
                                            for name, variant in compiled.variants.items())]
            yield from (((*where_at, *where), message, hint) for where_at, form in forms for check in CASE_CHECKS
                        for where, message, hint in check(form, ctx))
        for number, expression in enumerate(checkpoint.config.regression_ignore):
            yield from compile_jsonpath(expression, ("checkpoints", index, "config", "regression_ignore", number))


def bundle_diagnostics(bundle: Bundle, shown: str) -> list[Diagnostic]:
    """The compiler's checks of a problem directory run on a compiled ``bundle`` (named ``shown``), whose
    file anyone may have written: a case copying from outside its data, a pattern or JSONPath that does
    not compile, ... Copy sources are looked up in the bundle's own data (materialized in the cache)."""
    return [Diagnostic(shown, 0, where_of(where), message, f"{hint} (in the problem, then compile it again)")
            for where, message, hint in _bundle_case_findings(bundle, bundle.data_dir().parent)]

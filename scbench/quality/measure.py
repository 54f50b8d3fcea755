"""Measure a snapshot: find its source files, extract facts per file, apply the formulas."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from scbench import content
from scbench.quality.astgrep import flag, load_rules, scan, scanner_takes
from scbench.quality.clones import find_clones
from scbench.quality.languages import languages
from scbench.quality.metrics import erosion, verbosity
from scbench.quality.model import Flag, QualityReport, SourceFacts
from scbench.quality.treesitter import TreeSitterAdapter

MEASURED_BYTES = 512 * 1024
"""The largest source file measured (bytes): a larger one is listed in ``QualityReport.skipped`` (parsing and
matching rules on megabytes of generated code takes minutes and gigabytes, and says nothing of its design)."""


def _walk_files(root: Path) -> Iterator[Path]:
    """The files measured under ``root``: its content (:mod:`scbench.content`, set-up products and caches
    left out) outside hidden directories; symbolic links are neither entered nor read (a snapshot's link
    may name any file of the host)."""
    if root.is_file():
        yield root
        return
    for path in content.walk(root):
        if not path.is_symlink() and not any(part.startswith(".") for part in path.relative_to(root).parts[:-1]):
            yield path


def discover(root: Path, adapters: list[TreeSitterAdapter]) -> list[tuple[Path, TreeSitterAdapter]]:
    """Source files under ``root`` (or ``root`` itself) whose extension one of ``adapters`` claims."""
    by_extension = {ext: adapter for adapter in adapters for ext in adapter.table.extensions}
    return [(path, by_extension[path.suffix]) for path in _walk_files(root) if path.suffix in by_extension]


def _file(path: Path, name: str, adapter: TreeSitterAdapter) -> tuple[SourceFacts, list[Flag]]:
    """The file's facts and the flags of its language's rules that :func:`scan` does not run on it (those it
    cannot run; all of them for a file the scanner cannot be given, :func:`scanner_takes`)."""
    source = path.read_bytes()
    table = adapter.table
    rules = load_rules(table.rules)
    if scanner_takes(path):
        rules = tuple(rule for rule in rules if not rule.scannable)
    return adapter.facts(name, source), flag(name, source.decode(errors="replace"), table.ast_grep, rules)


def _scanned(measured: list[tuple[Path, str, TreeSitterAdapter]]) -> list[Flag]:
    """The flags of the scannable rules on the measured files the scanner takes: one ``ast-grep scan`` per
    language."""
    tables = {adapter.table.name: adapter.table for _, _, adapter in measured}
    return [found for table in tables.values()
            for found in scan({path: name for path, name, adapter in measured if adapter.table is table},
                              table.ast_grep, table.extensions, load_rules(table.rules))]


SKIP_REASONS: dict[type[Exception], Callable[[Exception], str]] = {
    SyntaxError: lambda error: f"SyntaxError: {error.msg} (line {error.lineno})",
    RecursionError: lambda error: "nested too deeply to measure (RecursionError)",
}
"""Why a file is skipped, by the exception measuring it raised: it cannot be parsed, or its syntax tree is
deeper than the parser's or the metrics' recursion goes (an expression nested a few hundred levels)."""


def _relative(path: Path, root: Path) -> str:
    return path.name if path == root else path.relative_to(root).as_posix()


def measure(path: Path, language: str | None = None) -> QualityReport:
    """Erosion and verbosity of the snapshot at ``path`` (a directory or one file).

    ``language`` restricts the measurement to one language of the registry (names as in ``adapters/``);
    otherwise every file whose extension a language table claims is measured. Files that cannot be parsed
    or are nested too deeply to measure (:data:`SKIP_REASONS`) and files over :data:`MEASURED_BYTES` are
    listed in ``QualityReport.skipped``. Raises LookupError for an unknown language.
    Formulas: SlopCodeBench paper eq. 2-4, see :mod:`scbench.quality.metrics`.
    """
    registry = languages()
    adapters = [registry.get(language)] if language else list(registry)
    facts: list[SourceFacts] = []
    flags: list[Flag] = []
    skipped: list[tuple[str, str]] = []
    measured: list[tuple[Path, str, TreeSitterAdapter]] = []
    for file, adapter in discover(path, adapters):
        name = _relative(file, path)
        if (size := file.stat().st_size) > MEASURED_BYTES:
            skipped.append((name, f"{size:,} bytes, over the {MEASURED_BYTES // 1024} KiB of a measured file"))
            continue
        try:
            file_facts, file_flags = _file(file, name, adapter)
        except tuple(SKIP_REASONS) as error:
            skipped.append((name, next(why(error) for kind, why in SKIP_REASONS.items() if isinstance(error, kind))))
            continue
        facts.append(file_facts)
        flags.extend(file_flags)
        if scanner_takes(file):
            measured.append((file, name, adapter))
    return _report(facts, flags + _scanned(measured), tuple(skipped))


def _report(facts: list[SourceFacts], flags: list[Flag], skipped: tuple) -> QualityReport:
    code = {(f.path, line) for f in facts for line in f.code_lines}
    flagged = {(f.path, line) for f in flags for line in range(f.line, f.end_line + 1)} & code
    cloned, pairs = find_clones(facts)
    cloned &= code
    verbose = len(flagged | cloned)
    callables = tuple(c for f in facts for c in f.callables)
    eroded_share, eroded_mass, total_mass = erosion(callables)
    return QualityReport(
        erosion=eroded_share,
        verbosity=verbosity(verbose, len(code)),
        total_mass=total_mass,
        eroded_mass=eroded_mass,
        loc=len(code),
        flagged_lines=len(flagged),
        clone_lines=len(cloned),
        verbose_lines=verbose,
        files=len(facts),
        callables=callables,
        flags=tuple(flags),
        clones=tuple(pairs),
        skipped=skipped,
    )


def delta(before: QualityReport, after: QualityReport) -> dict[str, float]:
    """``after - before`` for each scalar of the report (erosion, verbosity and their parts)."""
    old = before.scalars()
    return {key: value - old[key] for key, value in after.scalars().items()}

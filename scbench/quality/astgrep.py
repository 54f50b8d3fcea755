"""The rules engine: AST-grep YAML rules, loaded and validated once, run on a file parsed once.

A rule file ``rules/<language>/<id>.yml`` (beside this module) holds one rule in ast-grep's format (``id``,
``language``, ``message``, ``rule`` and optionally ``constraints`` and ``utils``) plus its own examples: ``valid`` (code
the rule must not match) and ``invalid`` (code it must match), lists of snippets that
``tests/quality/test_rules.py`` runs for every rule.

A snapshot's rules run in one ``ast-grep scan`` per language (:func:`scan`): the scanner walks each file once and
hands every node only to the rules of its kind, where the binding (:func:`flag`) walks the whole tree once per
rule (81 walks per Python file). A rule whose node kinds the scanner cannot tell (its top level only relational,
e.g. ``inside``) is not ``scannable`` and runs file by file through the binding.
"""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from ast_grep_py import SgNode, SgRoot

from scbench.paths import CACHE, RULES
from scbench.quality import documents
from scbench.quality.model import Flag

_MATCHING_KEYS = ("rule", "constraints", "utils")
_REQUIRED_KEYS = frozenset({"id", "language", "message", "rule", "valid", "invalid"})
SCANNER = Path(sysconfig.get_path("scripts"), "ast-grep")
"""The ``ast-grep`` command of the ``ast-grep-cli`` package installed beside scbench."""


def scanner_takes(path: Path) -> bool:
    """Whether :data:`SCANNER` can be given ``path``: it panics on a name that is not UTF-8 (Python holds its
    undecodable bytes as lone surrogates)."""
    return not any("\udc80" <= char <= "\udcff" for char in str(path))


def scannable(rule: dict) -> bool:
    """Whether ``ast-grep scan`` can tell the node kinds a rule object matches (it refuses a rule it cannot):
    a ``kind`` or ``pattern``, an ``all`` with one such member, or an ``any`` of only such members."""
    return ("kind" in rule or "pattern" in rule
            or any(scannable(member) for member in rule.get("all", ()))
            or (bool(rule.get("any")) and all(scannable(member) for member in rule["any"])))


@dataclass(frozen=True)
class Rule:
    """One AST-grep rule: ``config`` is what ``SgNode.find_all`` takes (rule, constraints, utils)."""

    id: str
    language: str
    message: str
    config: dict
    valid: tuple[str, ...]
    invalid: tuple[str, ...]
    source: Path

    @cached_property
    def scannable(self) -> bool:
        """Whether the rule runs in :func:`scan` (see :func:`scannable`) rather than file by file."""
        return scannable(self.config["rule"])

    @classmethod
    def from_document(cls, path: Path, data: dict) -> Rule:
        """The rule of file ``path`` parsed as ``data``; raises ValueError naming the file and its missing keys."""
        missing = _REQUIRED_KEYS - set(data)
        if missing:
            raise ValueError(f"{path}: rule file lacks {sorted(missing)}")
        return cls(
            id=data["id"],
            language=data["language"],
            message=data["message"],
            config={key: data[key] for key in _MATCHING_KEYS if key in data},
            valid=tuple(data["valid"]),
            invalid=tuple(data["invalid"]),
            source=path,
        )

    def matches(self, root: SgNode) -> list[SgNode]:
        """Every node under ``root`` the rule matches."""
        return root.find_all(self.config)


@lru_cache(maxsize=32)
def load_rules(directories: tuple[str, ...], base: Path = RULES) -> tuple[Rule, ...]:
    """All rules under ``base/<directory>`` for each directory, sorted by id; cached per argument tuple."""
    paths = sorted(path for directory in directories for path in (base / directory).glob("*.yml"))
    return tuple(map(Rule.from_document, paths, documents.load(paths)))


def flag(path: str, source: str, language: str, rules: tuple[Rule, ...]) -> list[Flag]:
    """Parse ``source`` once as ast-grep ``language`` and return one Flag (1-based lines) per match of each of
    ``rules`` (the binding: one walk of the tree per rule)."""
    root = SgRoot(source, language).root()
    return [
        Flag(path, rule.id, match.range().start.line + 1, match.range().end.line + 1)
        for rule in rules
        for match in rule.matches(root)
    ]


def _scan_config(language: str, extensions: tuple[str, ...], rules: tuple[Rule, ...]) -> Path:
    """The ``sgconfig.yml`` of ``rules`` as ``language`` for files ending in ``extensions``, written once into
    scbench's cache under the digest of its content (each rule file holds id, language, a ``info`` severity,
    message and its matching keys). The digest is taken over the documents as JSON: YAML is written only when
    the directory is missing (dumping ~80 rules with PyYAML took a tenth of a measurement)."""
    documents = {f"{rule.id}.yml": {"id": rule.id, "language": language, "severity": "info",
                                    "message": rule.message, **rule.config}
                 for rule in rules}
    config = {"ruleDirs": ["rules"], "languageGlobs": {language: [f"*{e}" for e in extensions]}}
    digest = hashlib.sha256(json.dumps([config, documents], sort_keys=True).encode()).hexdigest()[:20]
    directory = CACHE / "ast-grep" / digest
    if not directory.is_dir():
        import yaml

        directory.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{digest}.", dir=directory.parent))
        (staging / "rules").mkdir()
        for name, document in documents.items():
            (staging / "rules" / name).write_text(yaml.dump(document, Dumper=yaml.CSafeDumper, sort_keys=False))
        (staging / "sgconfig.yml").write_text(yaml.dump(config, Dumper=yaml.CSafeDumper))
        try:
            staging.rename(directory)
        except OSError as error:  # another process wrote the same digest first: keep its copy
            if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            shutil.rmtree(staging)
    return directory / "sgconfig.yml"


def scan(files: dict[Path, str], language: str, extensions: tuple[str, ...], rules: tuple[Rule, ...]) -> list[Flag]:
    """One ``ast-grep scan`` of ``files`` (path on disk -> name in the report) with the scannable ``rules`` as
    ``language``: one Flag (1-based lines) per match. Raises ``subprocess.CalledProcessError`` with the
    scanner's message when it refuses a rule or fails."""
    chosen = tuple(rule for rule in rules if rule.scannable)
    if not files or not chosen:
        return []
    names = {str(path): name for path, name in files.items()}
    done = subprocess.run([str(SCANNER), "scan", "--config", str(_scan_config(language, extensions, chosen)),
                           "--json=stream", "--no-ignore", "hidden", "--no-ignore", "vcs", "--no-ignore", "dot",
                           "--no-ignore", "parent", "--no-ignore", "global", "--no-ignore", "exclude", *names],
                          capture_output=True, text=True, check=True)
    return [Flag(names[match["file"]], match["ruleId"], match["range"]["start"]["line"] + 1,
                 match["range"]["end"]["line"] + 1)
            for match in map(json.loads, done.stdout.splitlines())]

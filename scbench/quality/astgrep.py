"""The rules engine: AST-grep YAML rules, loaded and validated once, run on a file parsed once.

A rule file ``rules/<language>/<id>.yml`` (beside this module) holds one rule in ast-grep's format (``id``,
``language``, ``message``, ``rule`` and optionally ``constraints`` and ``utils``) plus its own examples: ``valid`` (code
the rule must not match) and ``invalid`` (code it must match), lists of snippets that
``tests/quality/test_rules.py`` runs for every rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from ast_grep_py import SgNode, SgRoot

from scbench.paths import RULES
from scbench.quality.model import Flag

_MATCHING_KEYS = ("rule", "constraints", "utils")
_REQUIRED_KEYS = frozenset({"id", "language", "message", "rule", "valid", "invalid"})


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

    @classmethod
    def load(cls, path: Path) -> Rule:
        """Read one rule file; raises ValueError naming the file and its missing keys."""
        data = yaml.safe_load(path.read_text())
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
    return tuple(Rule.load(path) for path in paths)


def flag(path: str, source: str, language: str, rules: tuple[Rule, ...]) -> list[Flag]:
    """Parse ``source`` once as ast-grep ``language`` and return one Flag (1-based lines) per rule match."""
    root = SgRoot(source, language).root()
    return [
        Flag(path, rule.id, match.range().start.line + 1, match.range().end.line + 1)
        for rule in rules
        for match in rule.matches(root)
    ]

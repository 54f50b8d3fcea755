"""Every AST-grep rule matches each of its ``invalid`` examples and none of its ``valid`` ones, in every language
whose table runs its directory (the javascript rules also run on TypeScript and TSX files)."""

from dataclasses import astuple, replace

import pytest
import yaml
from ast_grep_py import SgRoot

from scbench.paths import RULES
from scbench.quality.astgrep import Rule, _scan_config, flag, load_rules, scan
from scbench.quality.tables import load_tables

RULE_DIRS = tuple(sorted(path.name for path in RULES.iterdir() if path.is_dir()))
ALL_RULES = load_rules(RULE_DIRS)
RUN_AS = {directory: sorted({t.ast_grep for t in load_tables() if directory in t.rules}) for directory in RULE_DIRS}
"""Rule directory -> the ast-grep languages of the tables that run it."""
MIN_RULES = {"python": 60, "javascript": 25, "go": 25, "rust": 25, "java": 25, "typescript": 25}
TWO_EXAMPLES_EACH = ("go", "rust", "java", "typescript")
"""Directories whose rules carry at least two valid and two invalid examples each."""


def _count(rule: Rule, code: str, language: str) -> int:
    return len(rule.matches(SgRoot(code, language).root()))


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: f"{rule.source.parent.name}/{rule.id}")
def test_rule_examples(rule: Rule) -> None:
    assert rule.valid and rule.invalid
    for language in RUN_AS[rule.source.parent.name]:
        assert [_count(rule, code, language) > 0 for code in rule.invalid] == [True] * len(rule.invalid), language
        assert [_count(rule, code, language) for code in rule.valid] == [0] * len(rule.valid), language


def test_rule_ids_match_file_names_and_languages_match_directories() -> None:
    assert [rule.source.stem for rule in ALL_RULES] == [rule.id for rule in ALL_RULES]
    assert {rule.language for rule in ALL_RULES} == set(RULE_DIRS)
    assert all(RUN_AS[directory] for directory in RULE_DIRS)


def test_rule_counts_and_examples() -> None:
    counts = {name: len(load_rules((name,))) for name in RULE_DIRS}
    assert {name: counts[name] >= least for name, least in MIN_RULES.items()} == dict.fromkeys(MIN_RULES, True)
    thin = [r.id for r in ALL_RULES if r.language in TWO_EXAMPLES_EACH and min(len(r.valid), len(r.invalid)) < 2]
    assert thin == []


def _duplicate_keys(node: yaml.Node) -> list[str]:
    if isinstance(node, yaml.MappingNode):
        keys = [key.value for key, _ in node.value]
        found = [f"line {node.start_mark.line + 1}: {k}" for k in sorted(set(keys)) if keys.count(k) > 1]
        return found + [d for _, value in node.value for d in _duplicate_keys(value)]
    if isinstance(node, yaml.SequenceNode):
        return [d for item in node.value for d in _duplicate_keys(item)]
    return []


def test_no_rule_repeats_a_key() -> None:
    """YAML keeps the last of two equal keys: a second ``not:`` would silently replace the first."""
    repeated = {r.id: _duplicate_keys(yaml.compose(r.source.read_text())) for r in ALL_RULES}
    assert {rule: keys for rule, keys in repeated.items() if keys} == {}


@pytest.mark.parametrize("table", load_tables(), ids=lambda table: table.name)
def test_the_scanner_flags_exactly_what_the_binding_flags(table, tmp_path) -> None:
    """``ast-grep scan`` (one walk per file for every scannable rule) flags the same lines with the same rules as
    the binding (one walk per rule) on every example of every rule the language runs; the rules it cannot scan
    are few (comment narration, ``@ts-ignore``, an accessor pair: their top level is relational or a util)."""
    rules = load_rules(table.rules)
    examples = [code for rule in rules for code in (*rule.valid, *rule.invalid)]
    files = {tmp_path / f"example_{number}{table.extensions[0]}": f"example_{number}"
             for number in range(len(examples))}
    for (path, _), code in zip(files.items(), examples, strict=True):
        path.write_text(code)
    scanned = tuple(rule for rule in rules if rule.scannable)
    expected = [found for (path, name), code in zip(files.items(), examples, strict=True)
                for found in flag(name, code, table.ast_grep, scanned)]
    assert sorted(map(astuple, scan(files, table.ast_grep, table.extensions, rules))) == sorted(map(astuple, expected))
    assert {rule.id for rule in rules if not rule.scannable} <= {"comment-restates-code", "ts-ignore",
                                                                 "trivial-accessor-pair"}


def test_the_scan_config_is_written_once_per_content() -> None:
    """The scanner's rule files are written on the first scan of a rule set and reused after (same path, files
    untouched); they hold each rule's id, language, severity, message and matching keys; a rule whose content
    changes gets a config of its own."""
    rules = tuple(rule for rule in load_rules(("python",)) if rule.scannable)[:3]
    config = _scan_config("python", (".py",), rules)
    written = {path: path.stat().st_mtime_ns for path in config.parent.rglob("*.yml")}
    assert _scan_config("python", (".py",), rules) == config
    assert {path: path.stat().st_mtime_ns for path in config.parent.rglob("*.yml")} == written
    assert yaml.safe_load(config.read_text()) == {"ruleDirs": ["rules"], "languageGlobs": {"python": ["*.py"]}}
    first = yaml.safe_load((config.parent / "rules" / f"{rules[0].id}.yml").read_text())
    assert first == {"id": rules[0].id, "language": "python", "severity": "info", "message": rules[0].message,
                     **rules[0].config}
    changed = (replace(rules[0], message="another message"), *rules[1:])
    assert _scan_config("python", (".py",), changed).parent != config.parent
